"""The words of bad input (solver/errors.py): what a message may echo to a terminal, and how
long it may grow."""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.errors import (MAX_MESSAGE, DealError, HeartsError, JsonError, error_line, json_type,
                           printable, printable_json, read_json, shortened, show_json)
from strategies import PROPERTY

#: The characters ``printable`` escapes, as its docstring lists them: C0 and C1 controls and
#: DEL, the bidirectional formatting characters, the line and paragraph separators.
ESCAPED = {*range(0x00, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
           *range(0x2066, 0x206A), 0x2028, 0x2029}


def test_printable_escapes_exactly_the_controls_and_the_bidi_and_line_characters() -> None:
    """Each listed character as its Python escape (``\\x1b``, ``\\u2067``), every other one of
    the first planes as it is (letters, symbols, the zero-width joiner of emoji)."""
    for code in range(0x3000):
        c = chr(code)
        if code in ESCAPED:
            assert printable(c) == (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"), hex(code)
        else:
            assert printable(c) == c, hex(code)


@pytest.mark.parametrize("text, name", [("null", "null"), ("true", "boolean"), ("false", "boolean"),
                                        ("0", "number"), ("1.5", "number"), ('"x"', "string"),
                                        ("[]", "array"), ("{}", "object")])
def test_a_parsed_value_s_type_is_named_as_json_names_it(text: str, name: str) -> None:
    """(a boolean is an int to Python: named a number, "expected an object, got number" for
    ``true`` misled)"""
    assert json_type(json.loads(text)) == name


def test_bytes_not_utf8_are_named_by_their_place_from_1() -> None:
    """(as columns are counted)"""
    with pytest.raises(JsonError, match=r"^not UTF-8 text \(byte 3\)$"):
        read_json(b'{"\xff": 1}')


@pytest.mark.parametrize("value, shown", [(10 ** 500, "a number of about 501 digits"),
                                          (2 ** 127, "170141183460469231731687303715884105728"),
                                          (True, "true"), ("x" * 50, '"' + "x" * 38 + "…")])
def test_a_value_is_shown_as_json_and_a_huge_number_by_its_digits(value: object, shown: str) -> None:
    assert show_json(value) == shown


@PROPERTY
@given(st.text(st.characters(max_codepoint=0x3000)))
def test_printable_json_reads_back_the_same_and_shows_nothing_escaped(text: str) -> None:
    line = printable_json({"board": text})
    assert json.loads(line) == {"board": text}
    assert not any(ord(c) in ESCAPED for c in line)


@pytest.mark.parametrize("length", [MAX_MESSAGE, MAX_MESSAGE + 1, 10 * MAX_MESSAGE, 100_000, 10_000_000])
def test_a_long_message_keeps_its_head_and_tail_within_the_limit(length: int) -> None:
    """A message up to MAX_MESSAGE characters is whole; a longer one keeps its start and end
    (what is wrong, and where) and says how many characters it left out, within the limit."""
    message = "deal 'N:" + "A" * (length - 28) + "': expected 4 hands" + "!"
    assert len(message) == length
    short = shortened(message)
    if length <= MAX_MESSAGE:
        assert short == message
        return
    assert len(short) <= MAX_MESSAGE
    head, middle, tail = re.fullmatch(r"(.*)… \((\d+) characters left out\) …(.*)", short).groups()
    assert message.startswith(head) and message.endswith(tail) and head.startswith("deal 'N:AAA")
    assert tail.endswith("expected 4 hands!") and len(head) + int(middle) + len(tail) == length


def test_an_error_is_one_short_printable_line() -> None:
    """What a command writes for an error: the library's message, shortened, escaped, named."""
    e = DealError("deal '" + "\x1b[2J" * 1000 + "\u2067': bad")
    assert isinstance(e, HeartsError) and len(str(e)) <= MAX_MESSAGE
    line = error_line(str(e))
    assert line.startswith("hearts-dd: error: deal '\\x1b[2J") and line.endswith("\\u2067': bad")
    assert "\n" not in line and "\x1b" not in line
