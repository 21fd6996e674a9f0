"""Errors raised for bad input: each carries a one-line message naming what and where."""


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
