"""Errors raised for bad input: each carries a one-line message naming what and where."""
from __future__ import annotations

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


class HeartsError(ValueError):
    """Base class for every input error the library reports to users."""


class CardError(HeartsError):
    """A card token that cannot be read."""


class DealError(HeartsError):
    """A deal string that is malformed or inconsistent."""


class RulesError(HeartsError):
    """An unknown rule key, preset or value."""


class PlayError(HeartsError):
    """A card in a play sequence that is unknown, not held, or not allowed."""
