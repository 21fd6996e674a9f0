"""Rule sets (SPEC §2): presets, card values and the play options, parsed from JSON.

>>> r = Rules.parse('{"preset": "omnibus", "moon": "subtract"}')
>>> r.value(Card.parse("DJ")), r.moon_total, r.moon
(-10, 26, 'subtract')
>>> Rules.parse("spot").value(Card.parse("SQ"))
25
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, fields, replace
from functools import cached_property, lru_cache
from typing import Any, Mapping

from .cards import DECK, SUITS, Card, card_letters, cards_of
from .errors import CardError, JsonError, RulesError, json_type, read_json, show_json

MOON_MODES = ("add", "subtract", "none")
HEARTS_BREAK = ("hearts", "queen", "none")
FIRST_LEAD = ("C2", "free")
#: A card's value and ``trick_points`` lie in -VALUE_LIMIT..VALUE_LIMIT (the API's schema too).
VALUE_LIMIT = 1000

_HEARTS = SUITS.index("H")
_SQ = Card.parse("SQ")

#: The presets by name, in the order they are listed, and what each is (``hearts-dd rules``):
#: ``_preset_table`` gives each one's settings.
PRESET_DESCRIPTIONS = {
    "standard": "hearts 1 each, SQ 13 (26 in all); moon adds 26 to the others",
    "omnibus": "standard (26 in all), and DJ scores -10; moon adds 26 to the others",
    "spot": "hearts at face value (J 11, Q 12, K 13, A 14), SQ 25 (129 in all); moon adds 129 "
            "to the others",
    "rickety-kate": "standard without shooting the moon",
    "black-maria": "standard, and SK 10, SA 7 (43 in all); moon adds 43 to the others",
    "bridge": "notrump bridge play: partnerships, -1 per trick, no card values, free lead",
}


@dataclass(frozen=True)
class RuleKey:
    """One rule key of SPEC §2, what reading and checking it, the catalogue (``hearts-dd
    rules``, ``GET /rules``) and the API's ``RuleSet`` are derived from."""

    name: str
    json_type: str                          # "string", "object", "boolean" or "integer"
    default: Any                            # standard's (``values``: None, the preset's)
    meaning: str
    choices: tuple[str, ...] | None = None  # the strings a "string" key takes

    @property
    def catalogue_choices(self) -> list[Any] | None:
        """The choices as the catalogue lists them: a boolean's too, an integer's none."""
        if self.choices is not None:
            return list(self.choices)
        return [False, True] if self.json_type == "boolean" else None


#: The rule keys of SPEC §2, in their order everywhere. A new one goes here and in the fields of
#: ``Rules``; outside this module in the engine when it changes play or scoring, and in the tests
#: (tests/brute.py among them): README.md, "Working on the code", lists the places.
RULE_KEYS = (
    RuleKey("preset", "string", "standard", "starting point: " + ", ".join(PRESET_DESCRIPTIONS),
            tuple(PRESET_DESCRIPTIONS)),
    RuleKey("values", "object", None, 'penalty values merged over the preset: {"H": 1, "SQ": 13}; '
            "a card key beats a suit key; 0 removes"),
    RuleKey("moon", "string", "add",
            "shooting the moon: add (others +M), subtract (shooter -M) or none", MOON_MODES),
    RuleKey("first_trick_points", "boolean", False,
            "may point cards be played to the first trick (true/false)"),
    RuleKey("hearts_break", "string", "hearts",
            "when hearts may be led: hearts, queen (SQ also breaks) or none", HEARTS_BREAK),
    RuleKey("first_lead", "string", "C2",
            "C2 (holder of the lowest club leads it) or free (leader given with the position)",
            FIRST_LEAD),
    RuleKey("trick_points", "integer", 0,
            "points every trick scores for its winner, besides its cards (integer)"),
    RuleKey("partnership", "boolean", False,
            "N+S and E+W pool their cards and score as one side (true/false)"),
)
KEYS = tuple(key.name for key in RULE_KEYS)
KEY_DESCRIPTIONS = {key.name: key.meaning for key in RULE_KEYS}
#: The keys that are one setting each and a field of ``Rules`` as they are read (``preset``
#: names a table entry, ``values`` merges over it).
_SETTING_KEYS = tuple(key for key in RULE_KEYS if key.name not in ("preset", "values"))
_STANDARD_SETTINGS = {key.name: key.default for key in _SETTING_KEYS}


def _standard_values() -> dict[int, int]:
    v = {int(c): 0 for c in cards_of(DECK)}
    for c in cards_of(DECK):
        if c.suit == _HEARTS:
            v[int(c)] = 1
    v[int(_SQ)] = 13
    return v


def _preset_table() -> dict[str, dict[str, Any]]:
    std = _standard_values()
    omni = dict(std)
    omni[int(Card.parse("DJ"))] = -10
    spot = dict(std)
    for c in cards_of(DECK):
        if c.suit == _HEARTS:
            spot[int(c)] = c.rank + 2
    spot[int(_SQ)] = 25
    maria = dict(std)
    maria[int(Card.parse("SK"))] = 10
    maria[int(Card.parse("SA"))] = 7
    base = _STANDARD_SETTINGS   # each preset: standard's settings but those it changes
    return {
        "standard": dict(base, values=std),
        "omnibus": dict(base, values=omni),
        "spot": dict(base, values=spot),
        "rickety-kate": dict(base, values=std, moon="none"),
        "black-maria": dict(base, values=maria),
        # Notrump bridge play (SPEC §2): the mode checked against bridge double-dummy solvers.
        "bridge": dict(base, values={k: 0 for k in std}, moon="none", first_trick_points=True,
                       hearts_break="none", first_lead="free", trick_points=-1, partnership=True),
    }


PRESETS: dict[str, dict[str, Any]] = _preset_table()


SCORE_LIMIT = 29000
"""The largest score a rule set may reach in one deal: the engine keeps scores in 16-bit
bounds and marks "no bound" with 30000."""


@dataclass(frozen=True)
class Rules:
    """A complete rule set; ``values`` is indexed by card index (64 slots, unused ones 0)."""

    # (one field per key of RULE_KEYS, in its order; the defaults are the table's)
    preset: str = "standard"
    values: tuple[int, ...] = tuple(PRESETS["standard"]["values"].get(i, 0) for i in range(64))
    moon: str = _STANDARD_SETTINGS["moon"]
    first_trick_points: bool = _STANDARD_SETTINGS["first_trick_points"]
    hearts_break: str = _STANDARD_SETTINGS["hearts_break"]
    first_lead: str = _STANDARD_SETTINGS["first_lead"]
    trick_points: int = _STANDARD_SETTINGS["trick_points"]
    partnership: bool = _STANDARD_SETTINGS["partnership"]

    def __post_init__(self) -> None:
        # what parse checks with friendlier messages, for rules made directly or by with_
        for name, options in _CHECKED_CHOICES:
            if getattr(self, name) not in options:
                raise RulesError(f"rule {name!r}: unknown value {getattr(self, name)!r} "
                                 f"(expected one of {', '.join(options)})")
        for key in _SETTING_KEYS:
            if key.json_type == "boolean" and not isinstance(getattr(self, key.name), bool):
                raise RulesError(f"rule {key.name!r}: expected true or false, "
                                 f"got {getattr(self, key.name)!r}")
        if not (isinstance(self.values, tuple) and len(self.values) == 64
                and all(_is_int(v) and abs(v) <= VALUE_LIMIT for v in self.values)):
            raise RulesError(f"rule values: expected 64 integers in -{VALUE_LIMIT}..{VALUE_LIMIT}, "
                             "one per card index")
        if not (_is_int(self.trick_points) and abs(self.trick_points) <= VALUE_LIMIT):
            raise RulesError(f"rule trick_points: expected an integer in -{VALUE_LIMIT}..{VALUE_LIMIT}, "
                             f"got {self.trick_points!r}")
        moon_factor = {"add": 1, "subtract": 2}.get(self.moon, 0)
        reach = (sum(abs(v) for v in self.values) + 13 * abs(self.trick_points)
                 + moon_factor * self.moon_total)
        if reach > SCORE_LIMIT:
            raise RulesError(f"values, trick_points and moon together could reach {reach} points "
                             f"in a deal; the solver supports at most {SCORE_LIMIT}")

    @classmethod
    def parse(cls, spec: "str | Mapping[str, Any] | Rules | None" = None) -> "Rules":
        """Rules from a preset name, a JSON object (as text or a mapping), or None (standard)."""
        if spec is None:
            return STANDARD
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            text = spec.strip()
            if text.startswith(("{", "[")):
                try:
                    spec = read_json(text)
                except JsonError as e:
                    raise RulesError(f"rules are not valid JSON: {e}") from None
            else:
                return _preset(text)
        if not isinstance(spec, Mapping):
            got = "a JSON array" if isinstance(spec, list) else json_type(spec)
            raise RulesError(f"rules must be a preset name or a JSON object, got {got}")
        return cls._from_mapping(spec)

    @classmethod
    def _from_mapping(cls, spec: Mapping[str, Any]) -> "Rules":
        for key in spec:
            if key not in KEYS:
                raise RulesError(f"unknown rule key {key!r} (known: {', '.join(KEYS)})")
        preset = spec.get("preset", "standard")
        if not isinstance(preset, str) or preset.strip().lower() not in PRESETS:
            shown = repr(preset) if isinstance(preset, str) else show_json(preset)
            raise RulesError(f"unknown preset {shown} (known: {', '.join(PRESETS)})")
        preset = preset.strip().lower()
        base = PRESETS[preset]
        values = dict(base["values"])
        if "values" in spec:
            _merge_values(values, spec["values"])
        return cls(preset=preset, values=tuple(values.get(i, 0) for i in range(64)),
                   **{key.name: _setting(spec, base, key) for key in _SETTING_KEYS})

    def value(self, card: Card | str | int) -> int:
        """What ``card`` (a Card, its name or its index) is worth under these rules."""
        return self.values[Card.of(card)]

    @cached_property
    def _value_masks(self) -> tuple[tuple[int, int], ...]:
        """(value, mask of the cards worth it) for each value other than 0: a mask's points are
        then a few popcounts, which the per-call bookkeeping of small searches leans on."""
        by_value: dict[int, int] = {}
        for i, v in enumerate(self.values):
            if v:
                by_value[v] = by_value.get(v, 0) | 1 << i
        return tuple(sorted(by_value.items()))

    def points_of(self, cards: int) -> int:
        """The sum of the values of ``cards`` (a mask)."""
        total = 0
        for v, m in self._value_masks:  # (a loop: sum over a generator took twice as long)
            total += v * (cards & m).bit_count()
        return total

    @cached_property
    def point_mask(self) -> int:
        """Cards whose value is above 0 (the cards a moon shooter must take)."""
        return sum(m for v, m in self._value_masks if v > 0)

    def moon_total_of(self, cards: int) -> int:
        """M for a deal holding ``cards``: the sum of its positive values."""
        return self.points_of(cards & self.point_mask)

    @property
    def moon_total(self) -> int:
        return self.moon_total_of(DECK)

    def __repr__(self) -> str:
        # the rules as they are read, not 64 values by card index, and code that makes them again
        return f"Rules.parse({self.shortest()!r})"

    def shortest(self) -> str | dict[str, Any]:
        """What ``parse`` reads these rules from, shortest: the preset's name, or the preset
        (unless standard) and what differs from it.

        >>> Rules.parse({"preset": "omnibus", "moon": "none", "values": {"H": 2}}).shortest()
        {'preset': 'omnibus', 'values': {'H': 2}, 'moon': 'none'}
        """
        base = _preset(self.preset)
        if self == base:
            return self.preset
        mine, theirs = self.to_dict(), base.to_dict()
        out: dict[str, Any] = {} if self.preset == "standard" else {"preset": self.preset}
        values = self._values_unlike(base)
        if values:
            out["values"] = values
        out.update((key, value) for key, value in mine.items()
                   if key not in ("preset", "values") and value != theirs[key])
        return out

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON form: the preset plus every setting, values listed where they differ."""
        return {**self._dict, "values": dict(self._dict["values"])}  # the caller's to change

    def to_json(self) -> str | dict[str, Any]:
        """Short JSON form: a preset's name when the rules are exactly the preset, else
        ``to_dict()``.

        >>> Rules.parse("omnibus").to_json(), Rules.parse({"moon": "none"}).to_json()["moon"]
        ('omnibus', 'none')
        """
        return self.preset if self == Rules.parse(self.preset) else self.to_dict()

    @cached_property
    def _dict(self) -> dict[str, Any]:
        """to_dict's answer, worked out once: every analysis's JSON carries it."""
        base = PRESETS[self.preset]["values"]
        diff = {str(c): self.values[c] for c in cards_of(DECK) if self.values[c] != base.get(int(c), 0)}
        return {"preset": self.preset, "values": diff,
                **{key.name: getattr(self, key.name) for key in _SETTING_KEYS}}

    def describe(self) -> str:
        """The preset's name and the settings that differ from it, for reports.

        >>> Rules.parse({"preset": "standard", "moon": "none", "values": {"H": 2, "DJ": -10}}).describe()
        'standard with values={"H": 2, "DJ": -10}, moon="none"'
        """
        short = self.shortest()
        changed = [] if isinstance(short, str) else [f"{key}={json.dumps(value)}"
                                                     for key, value in short.items() if key != "preset"]
        return f"{self.preset} with " + ", ".join(changed) if changed else self.preset

    def _values_unlike(self, base: "Rules") -> dict[str, int]:
        """The card values unlike ``base``'s, as ``values`` would give them over it: a suit's
        cards one by one, or where that is shorter the suit by its letter (its most common
        value) and the cards that differ from that (``{"H": 2, "HA": 5}``).

        >>> Rules.parse({"values": {"H": 2, "HA": 5}})._values_unlike(Rules())
        {'H': 2, 'HA': 5}
        """
        unlike: dict[str, int] = {}
        for suit, letter in enumerate(SUITS):
            cards = [int(c) for c in cards_of(DECK) if c.suit == suit]
            differ = {str(Card.from_index(c)): self.values[c] for c in cards
                      if self.values[c] != base.values[c]}
            common = Counter(self.values[c] for c in cards).most_common(1)[0][0]
            by_suit = {letter: common, **{str(Card.from_index(c)): self.values[c] for c in cards
                                          if self.values[c] != common}}
            unlike.update(by_suit if differ and len(by_suit) < len(differ) else differ)
        return unlike

    def with_(self, **changes: Any) -> "Rules":
        """These rules with some fields changed (``values`` as the 64-card tuple); checked as
        ``parse`` checks them."""
        for key in changes:
            if key not in _FIELDS:
                raise RulesError(f"unknown rule field {key!r} (fields: {', '.join(_FIELDS)})")
        return replace(self, **changes)


_FIELDS = tuple(f.name for f in fields(Rules))
#: The keys taking a fixed set of strings and the set, as ``Rules`` checks them: preset last, so
#: that of several bad fields the same one is named as before.
_CHECKED_CHOICES = sorted(((key.name, key.choices) for key in RULE_KEYS if key.choices is not None),
                          key=lambda pair: pair[0] == "preset")


def _merge_values(values: dict[int, int], given: Any) -> None:
    if not isinstance(given, Mapping):
        raise RulesError(f"rule 'values' must be an object like {{\"SQ\": 13}}, got {json_type(given)}")
    cards: list[tuple[int, int]] = []
    named: dict[str, str] = {}      # suit or card -> the key that named it
    for key, v in given.items():
        val = _int(v, f"values[{key!r}]")
        k = card_letters(str(key).strip())
        if len(k) == 1 and k in SUITS:
            what = k
        else:
            try:
                card = Card.parse(key)
            except CardError:
                raise RulesError(f"rule 'values': unknown card or suit {key!r}") from None
            what = str(card)
            cards.append((int(card), val))
        if what in named:
            raise RulesError(f"rule 'values': {named[what]!r} and {key!r} both give "
                             f"{'the suit' if len(what) == 1 else 'the card'} {what}")
        named[what] = key
        if len(what) == 1:
            s = SUITS.index(what)
            for rank in range(13):
                values[s * 16 + rank] = val
    for index, val in cards:
        values[index] = val


def _setting(spec: Mapping[str, Any], base: Mapping[str, Any], key: RuleKey) -> Any:
    """A setting's value as ``spec`` gives it, else as the preset ``base`` has it."""
    if key.choices is not None:
        return _choice(spec, base, key.name, key.choices)
    if key.json_type == "boolean":
        return _bool(spec, base, key.name)
    return _int(spec.get(key.name, base[key.name]), key.name)


def _choice(spec: Mapping[str, Any], base: Mapping[str, Any], key: str, options: tuple[str, ...]) -> str:
    v = spec.get(key, base[key])
    if isinstance(v, str):
        for o in options:
            if v.strip().lower() == o.lower():
                return o
    raise RulesError(f"rule {key!r}: unknown value {show_json(v)} (expected one of {', '.join(options)})")


def _bool(spec: Mapping[str, Any], base: Mapping[str, Any], key: str) -> bool:
    v = spec.get(key, base[key])
    if not isinstance(v, bool):
        raise RulesError(f"rule {key!r}: expected true or false, got {show_json(v)}")
    return v


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def whole_value(v: Any) -> Any:
    """``v`` as an int where it is a float naming one in range: a rule value of 2.0 means 2 (a
    JSON writer may write whole numbers so), for ``Rules.parse`` and the API's schema alike;
    anything else as it was, for the caller to refuse."""
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) <= VALUE_LIMIT else v


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if not (isinstance(v, float) and v.is_integer()):
            raise RulesError(f"rule {what}: expected an integer, got {show_json(v)}")
        v = whole_value(v)
    if abs(v) > VALUE_LIMIT:
        raise RulesError(f"rule {what}: {show_json(v)} is out of range (-{VALUE_LIMIT}..{VALUE_LIMIT})")
    return int(v)


#: The default rule set, made (and its point masks worked out) once: positions without rules of
#: their own share it.
STANDARD = Rules()


@lru_cache(maxsize=64)
def _preset(name: str) -> Rules:
    """A preset by name, made once (records name theirs again and again)."""
    return Rules._from_mapping({"preset": name})


def _settings(rules: Rules) -> dict[str, Any]:
    """Every setting, with ``values`` listing each card of non-zero value."""
    out = rules.to_dict()
    out["values"] = {str(c): rules.values[c] for c in cards_of(DECK) if rules.values[c]}
    return out


@lru_cache(maxsize=1)
def _catalogue() -> str:
    standard = _settings(Rules())
    return json.dumps({
        "presets": {name: {"description": PRESET_DESCRIPTIONS[name],
                           "rules": _settings(Rules.parse(name))} for name in PRESETS},
        "keys": {key.name: {"description": key.meaning, "type": key.json_type,
                            "choices": key.catalogue_choices, "standard": standard[key.name]}
                 for key in RULE_KEYS},
    })


def catalogue() -> dict[str, Any]:
    """What the presets and rule keys are (SPEC §2), as ``GET /rules`` and ``hearts-dd rules
    --json`` give them: each preset's description and every setting (``values`` each card of
    non-zero value), each key's description, JSON type, choices (or None) and standard value.
    A new object each call (the caller's to change).

    >>> catalogue()["keys"]["moon"]["choices"], catalogue()["presets"]["omnibus"]["rules"]["values"]["DJ"]
    (['add', 'subtract', 'none'], -10)
    """
    out: dict[str, Any] = json.loads(_catalogue())
    return out

