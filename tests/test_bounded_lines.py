"""Lines of bounded length (solver/bounded_lines.py): a line past the limit is given cut short
(its line end kept), never held whole; counting lines holds none."""
from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st

from solver.bounded_lines import CutBytes, CutText, bounded_lines, count_lines, is_cut

TEXT = st.lists(st.text(alphabet="ab \r", max_size=12), max_size=8).map("\n".join)


def expected(text: str, limit: int) -> list[tuple[str, bool]]:
    """Each line of ``text`` with its end, cut to ``limit`` characters before the end, and
    whether it was cut: the rule written plainly."""
    out = []
    for line in re.findall(r"[^\n]*\n|[^\n]+\Z", text):
        body = line[:-1] if line.endswith("\n") else line
        if len(body) <= limit:
            out.append((line, False))
        else:
            end = "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""
            out.append((line[:limit] + end, True))
    return out


@given(TEXT, st.integers(1, 6), st.booleans())
def test_each_line_whole_within_the_limit_and_cut_past_it(text, limit, binary):
    stream = io.BytesIO(text.encode()) if binary else io.StringIO(text)
    got = list(bounded_lines(stream, limit))
    assert [(line.decode() if binary else line, is_cut(line)) for line in got] == expected(text, limit)
    assert all(isinstance(line, CutBytes if binary else CutText) for line in got if is_cut(line))


def test_a_line_exactly_at_the_limit_is_whole_a_cr_counting_as_a_character():
    data = io.BytesIO(b"abcd\nabc\r\nabcd\r\nabcde")
    assert [(line, is_cut(line)) for line in bounded_lines(data, 4)] == [
        (b"abcd\n", False), (b"abc\r\n", False), (b"abcd\r\n", True), (b"abcd", True)]


def test_lines_already_in_memory_are_given_as_they_are():
    lines = ["x" * 100, "y\n"]
    assert list(bounded_lines(lines, 4)) == lines


#: Bytes with line ends, and (as random bytes seldom hold them) bytes that are mostly letters,
#: blanks and line ends: a line whose last block holds only blanks is still a line.
LINES = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"\n")),
    st.lists(st.sampled_from([b"a", b" ", b"\t", b"\r", b"\n"]), max_size=40).map(b"".join))


@given(LINES, st.integers(1, 7))
def test_count_lines_counts_the_lines_that_are_not_blank(data, block):
    assert count_lines(io.BytesIO(data), block) == sum(1 for line in data.split(b"\n") if line.strip())
