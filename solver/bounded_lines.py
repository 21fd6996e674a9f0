"""Lines of bounded length from untrusted input: a file without line ends (a binary file
given by mistake, ``/dev/zero``) must not be held whole in memory as one "line".

>>> import io
>>> [len(line) for line in bounded_lines(io.BytesIO(b"ab" + b"x" * 10 + bytes([10]) + b"cd"), 4)]
[5, 2]
>>> [type(line).__name__ for line in bounded_lines(io.StringIO("abcdefg" + chr(10) + "ok"), 4)]
['CutText', 'str']
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["MAX_LINE", "BLANKS", "CutBytes", "CutText", "bounded_lines", "is_cut", "count_lines"]

#: Bytes (characters, of text) of one input line kept; the rest of a longer line is skipped.
#: Far above any real line (a PBN tag value of a megabyte reads whole).
MAX_LINE = 4 << 20


#: What a blank line holds, as ``count_lines`` reads it (``bytes.strip``'s ASCII whitespace): a
#: reader of lines skips the same ones as blank, where ``str.strip`` also took "\x1d" or a
#: no-break space for one, and the total counted lines the reader skipped.
BLANKS = " \t\n\r\x0b\x0c"


class CutBytes(bytes):
    """A line longer than the limit: its first bytes and its line end, the rest skipped."""


class CutText(str):
    """A line longer than the limit: its first characters and its line end, the rest skipped."""


AnyLine = TypeVar("AnyLine", str, bytes)
Line_co = TypeVar("Line_co", str, bytes, covariant=True)


@runtime_checkable
class LineReader(Protocol[Line_co]):
    """A stream that reads a line of at most ``limit`` bytes or characters (a file)."""

    def readline(self, limit: int, /) -> Line_co: ...


def is_cut(line: object) -> bool:
    """Whether ``line`` is one that ``bounded_lines`` cut short."""
    return isinstance(line, (CutBytes, CutText))


def bounded_lines(stream: Iterable[AnyLine] | LineReader[AnyLine],
                  limit: int = MAX_LINE) -> Iterator[AnyLine]:
    """The lines of ``stream``, each of at most ``limit`` bytes or characters before its line
    end: a longer one is read to its end but given cut short, as a ``CutBytes`` or ``CutText``.
    Lines already in memory (a list, anything without ``readline``) are given as they are."""
    if not isinstance(stream, LineReader):
        yield from stream
        return
    readline: Any = stream.readline
    while True:
        line = readline(limit + 1)
        if not line:
            return
        ends: Any = ("\n", "\r") if isinstance(line, str) else (b"\n", b"\r")
        newline, cr = ends
        if len(line) <= limit or line.endswith(newline):
            yield line
            continue
        end, last = line[:0], line
        while rest := readline(limit):
            if rest.endswith(newline):
                end = cr + newline if (rest[:-1] or last).endswith(cr) else newline
                break
            last = rest
        cut: Any = CutText if isinstance(line, str) else CutBytes
        yield cut(line[:limit] + end)


def count_lines(stream: Any, block: int = MAX_LINE) -> int:
    """Lines of a binary stream that are not blank, read a block at a time (however long a
    line).

    >>> import io
    >>> count_lines(io.BytesIO(bytes([10]).join([b"a", b" ", b"b" * 9, b"", b"c"])), block=4)
    3
    """
    count, content = 0, False
    for data in iter(lambda: stream.read(block), b""):
        *ended, last = data.split(b"\n")
        for part in ended:
            count += content or bool(part.strip())
            content = False
        content = content or bool(last.strip())
    return count + content
