"""Errors raised for bad input: each carries a one-line message naming what and where."""
from __future__ import annotations

import json
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


def read_json(text: str) -> Any:
    """``json.loads``, every way it can fail a ``JsonError`` with a one-line message (Python's
    own have a hint for programmers, or none: a number of thousands of digits, a nesting
    bomb)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        where = f"column {e.colno}" if e.lineno == 1 else f"line {e.lineno}, column {e.colno}"
        raise JsonError(f"{e.msg} at {where}") from None
    except RecursionError:
        raise JsonError("nested too deeply") from None
    except ValueError:      # int's limit on the digits it converts
        raise JsonError("a number has too many digits") from None


def show_json(value: Any, limit: int = 40) -> str:
    """A parsed JSON value as JSON (``true``, ``null``), cut short, for messages."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = json_type(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class HeartsError(ValueError):
    """Base class for every input error the library reports to users."""


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
