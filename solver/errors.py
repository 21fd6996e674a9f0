"""Errors raised for bad input, each with a one-line message naming what and where, and what
words them: JSON read with such errors, values shown and long messages shortened in them."""
from __future__ import annotations

import json
import math
import re
from typing import Any


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages about JSON input."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def read_json(text: str | bytes, lines: bool = False) -> Any:
    """``json.loads`` of strict JSON (RFC 8259: no ``NaN`` or ``Infinity``, which could not be
    written back as JSON, and no number beyond a float), every way it can fail a ``JsonError``
    with a one-line message (Python's own have a hint for programmers, or none: a number of
    thousands of digits, a nesting bomb). A place in the text is a column, with ``lines`` (or
    past the first line) a line and a column."""
    try:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError as e:
        where = (f"line {e.lineno}, column {e.colno}" if lines or e.lineno > 1
                 else f"column {e.colno}")
        # some of json's messages end in "at" already ("Unterminated string starting at")
        raise JsonError(f"{e.msg} {where}" if e.msg.endswith(" at") else f"{e.msg} at {where}") from None
    except JsonError:
        raise
    except UnicodeDecodeError as e:
        raise JsonError(f"not UTF-8 text (byte {e.start + 1})") from None  # (1-based, as columns)
    except RecursionError:
        raise JsonError("nested too deeply") from None
    except ValueError:      # int's limit on the digits it converts
        raise JsonError("a number has too many digits") from None


def _not_json(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JsonError(f"number {text[:20]} is too large")
    return value


def show_json(value: Any, limit: int = 40) -> str:
    """A parsed JSON value as JSON (``true``, ``null``), cut short, for messages."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = json_type(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: The longest error message given whole: most of a longer one is the bad input, echoed.
MAX_MESSAGE = 400


def shortened(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message``, or for a longer one its head and tail, which say what is wrong and where
    (a 100 kB deal string came back whole in its error line).

    >>> shortened("deal 'N:" + "A" * 1000 + "': expected 4 hands", 80)
    "deal 'N:AAAAAAAAAAAAAAA… (981 characters left out) …AAAA': expected 4 hands"
    """
    if len(message) <= limit:
        return message
    keep = max(1, (limit - _MARK) // 2)
    return f"{message[:keep]}… ({len(message) - 2 * keep} characters left out) …{message[-keep:]}"


_MARK = len("… (1234567 characters left out) …")     # what stands for the middle


#: What ``printable`` escapes: C0 and C1 control characters and DEL (a terminal's escape
#: sequences, carriage returns and newlines, NUL), the bidirectional formatting characters
#: (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
#: separators (U+2028, U+2029).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe to write to a terminal or a log line: each character ``_UNPRINTABLE``
    names as a Python escape of its code point, ``\\xNN`` below U+0100 (``\\x1b``, a newline
    ``\\x0a``), else ``\\uNNNN`` (``\\u202e``); every other character as it is. This is the
    one rule for text from the input (a PBN tag's value, a file's name) that the commands
    echo in their report lines and error lines: a hand-record file's ``[Board]`` could
    otherwise write to the terminal of whoever reads the report (clear the screen, set its
    title, the clipboard through OSC 52), forge a line, or reverse the text.

    >>> printable("board 1" + chr(27) + "]52;c;eA==" + chr(7)) == "board 1" + chr(92) + "x1b]52;c;eA==" + chr(92) + "x07"
    True
    >>> printable("ab" + chr(0x202E) + "c") == "ab" + chr(92) + "u202ec"
    True
    >>> printable("Scores: N 0, E 7 · ♠ é")
    'Scores: N 0, E 7 · ♠ é'
    """
    return _UNPRINTABLE.sub(_escaped, text)


def printable_json(value: Any) -> str:
    """``value`` as one line of JSON (``json.dumps``, non-ASCII as it is) with the characters
    ``printable`` escapes written as JSON escapes (``\\u009b``), the same value read back:
    ``json`` escapes only the C0 controls, and a ``[Board]`` of U+009B (a terminal's CSI) or
    U+202E reached the terminal of ``annotate``'s default output.

    >>> print(printable_json({"board": "1" + chr(0x9B) + "2J" + chr(0x202E) + "é"}))
    {"board": "1\\u009b2J\\u202eé"}
    """
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def error_line(message: str) -> str:
    """How the command reports an error on standard error: one line, named, ``printable``."""
    return f"hearts-dd: error: {printable(shortened(message))}"


class HeartsError(ValueError):
    """Base class for every input error the library reports to users (its message
    ``shortened``)."""

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (shortened(args[0]),)
        super().__init__(*args)


class JsonError(HeartsError):
    """Text that is not JSON (``read_json``)."""


class CardError(HeartsError):
    """A card token that cannot be read."""


class DealError(HeartsError):
    """A deal string that is malformed or inconsistent."""


class RulesError(HeartsError):
    """An unknown rule key, preset or value."""


class PlayError(HeartsError):
    """A card in a play sequence that is unknown, not held, or not allowed."""


class SampleError(HeartsError):
    """A request for sampled deals that cannot be met; ``field`` names the argument at fault
    (``"seat"``, ``"known"``) where one is, for front ends that point at it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    @property
    def detail(self) -> str:
        """The message without the function's name before it, nor the argument it names
        first, for a front end that names the argument its own way (``--known: card SK of E
        is in N's own hand``, from ``samples: known card SK of E is in N's own hand``).

        >>> SampleError("samples_from_view: play card 3 (trick 1): E played CA", "play").detail
        'card 3 (trick 1): E played CA'
        >>> SampleError("samples: played twice", "play").detail     # (a word of its own)
        'played twice'
        """
        text = str(self).partition(": ")[2]
        if self.field:      # (the word alone: "played" is not "play")
            text = re.sub(rf"^{re.escape(self.field)}\b:? ?", "", text)
        return text


class LeaderNeeded(PlayError):
    """Trick 1 has no forced lead (a free first lead, or no clubs): the caller must say who
    leads, each front end in its own terms."""
