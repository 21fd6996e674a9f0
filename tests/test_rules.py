"""Rule objects (SPEC §2): presets, value merging, every key, and errors that name the key."""
from __future__ import annotations

import dataclasses
import json
import pickle
import re
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.cards import DECK, Card, cards_of
from solver.errors import RulesError
from solver.rules import (KEYS, PRESET_DESCRIPTIONS, PRESETS, RULE_KEYS, SCORE_LIMIT, VALUE_LIMIT, Rules,
                          catalogue, whole_value)
from strategies import PROPERTY, RULE_FIELDS, rule_specs

HEARTS = [c for c in cards_of(DECK) if c.suit == 1]
#: the rule keys that are one setting each (``preset`` and ``values`` are not)
SETTINGS = [key for key in KEYS if key not in ("preset", "values")]
SQ = Card.parse("SQ")


def values_of(rules: Rules) -> dict[str, int]:
    """The non-zero card values, by card name."""
    return {str(c): rules.value(c) for c in cards_of(DECK) if rules.value(c)}


def test_standard_is_the_default_and_matches_the_spec() -> None:
    standard = Rules.parse("standard")
    assert Rules.parse(None) == Rules.parse({}) == standard
    assert values_of(standard) == {**{str(h): 1 for h in HEARTS}, "SQ": 13}
    assert standard.moon_total == 26
    assert (standard.moon, standard.first_trick_points, standard.hearts_break, standard.first_lead,
            standard.trick_points, standard.partnership) == ("add", False, "hearts", "C2", 0, False)


def test_presets_differ_from_standard_as_the_spec_says() -> None:
    standard = values_of(Rules.parse("standard"))
    assert values_of(Rules.parse("omnibus")) == {**standard, "DJ": -10}
    spot = {str(h): h.rank + 2 for h in HEARTS}  # 2..10 face value, J 11, Q 12, K 13, A 14
    assert values_of(Rules.parse("spot")) == {**spot, "SQ": 25}
    kate = Rules.parse("rickety-kate")
    assert values_of(kate) == standard and kate.moon == "none"
    assert values_of(Rules.parse("black-maria")) == {**standard, "SK": 10, "SA": 7}


def test_bridge_preset_is_notrump_play() -> None:
    bridge = Rules.parse("bridge")
    assert values_of(bridge) == {}
    assert (bridge.partnership, bridge.trick_points, bridge.hearts_break, bridge.first_lead) == \
        (True, -1, "none", "free")


def test_missing_keys_come_from_the_preset() -> None:
    rules = Rules.parse({"preset": "omnibus", "moon": "subtract"})
    assert rules.value(Card.parse("DJ")) == -10 and rules.moon == "subtract"
    assert Rules.parse({"preset": "rickety-kate", "trick_points": 2}).moon == "none"


@pytest.mark.parametrize("values", [{"H": 2, "HA": 5}, {"HA": 5, "H": 2}, {"ha": 5, "h": 2}])
def test_a_card_key_beats_a_suit_key_in_any_order(values: dict) -> None:
    rules = Rules.parse({"values": values})
    assert rules.value(Card.parse("HA")) == 5
    assert rules.value(Card.parse("H2")) == 2 and rules.value(SQ) == 13


@pytest.mark.parametrize("values, words", [
    ({"SQ": 13, "sq": 0}, "'SQ' and 'sq' both give the card SQ"),
    ({"HT": 2, "H10": 3}, "'HT' and 'H10' both give the card HT"),
    ({"H": 1, "♥\ufe0f": 2}, "'H' and '♥\ufe0f' both give the suit H"),
])
def test_two_keys_for_one_card_or_suit_are_an_error(values: dict, words: str) -> None:
    """The last one won, silently."""
    with pytest.raises(RulesError, match=words):
        Rules.parse({"values": values})


def test_zero_removes_a_point_card_and_any_card_may_count() -> None:
    rules = Rules.parse({"values": {"SQ": 0, "♦J": -10, "10c": 3}})
    assert SQ not in set(cards_of(rules.point_mask))
    assert rules.value(Card.parse("DJ")) == -10 and rules.value(Card.parse("CT")) == 3
    assert rules.moon_total == 13 + 3
    assert Rules.parse({"values": {"♥": 2}}) == Rules.parse({"values": {"H": 2}})    # SPEC §1 symbols


@PROPERTY
@given(rule_specs())
def test_the_description_names_the_values_that_rebuild_the_rules(spec: dict) -> None:
    """``describe``'s values, merged over the preset, are the rules' (a suit it names by its
    letter once stood for cards that were not all alike: {"H": 2, "HA": 5} read {"H": 5})."""
    rules = Rules.parse(spec)
    values = rules._values_unlike(Rules.parse(rules.preset))
    assert Rules.parse({**rules.to_dict(), "values": values}) == rules
    assert (f"values={json.dumps(values)}" in rules.describe()) is bool(values)


def test_the_description_is_the_preset_then_what_differs_from_it() -> None:
    assert Rules.parse({"preset": "omnibus", "moon": "none"}).describe() == 'omnibus with moon="none"'
    assert Rules.parse({"preset": "Spot"}).describe() == "spot"


@PROPERTY
@given(rule_specs())
def test_every_valid_rule_object_parses_and_round_trips(spec: dict) -> None:
    rules = Rules.parse(spec)
    assert Rules.parse(json.dumps(spec)) == rules
    assert Rules.parse(rules.to_dict()) == rules
    assert set(rules.to_dict()) == set(KEYS)
    mine = rules.to_dict()  # the caller's own copy: changing it changes no later answer
    mine["values"]["SQ"], mine["moon"] = 99, None
    assert rules.to_dict() == Rules.parse(spec).to_dict() != mine
    for key in SETTINGS:
        if key in spec:
            assert getattr(rules, key) == spec[key]


@PROPERTY
@given(rule_specs(), st.integers(min_value=0, max_value=DECK))
def test_points_of_a_mask_are_its_cards_values_summed(spec: dict, bits: int) -> None:
    rules = Rules.parse(spec)
    cards = bits & DECK
    assert rules.points_of(cards) == sum(rules.value(c) for c in cards_of(cards))
    assert rules.moon_total_of(cards) == sum(max(rules.value(c), 0) for c in cards_of(cards))
    assert rules.point_mask == sum(c.mask for c in cards_of(DECK) if rules.value(c) > 0)
    assert pickle.loads(pickle.dumps(rules)) == rules  # as Dask sends it, cached masks and all

BAD_VALUES = {
    "preset": st.one_of(st.text(min_size=1).filter(lambda t: t.lower() not in PRESETS),
                        st.integers(), st.none(), st.booleans()),
    "values": st.one_of(st.integers(), st.text(), st.lists(st.integers(), max_size=2),
                        st.fixed_dictionaries({"SQ": st.one_of(st.text(), st.none(), st.booleans())}),
                        st.fixed_dictionaries({"XQ": st.integers()})),
    "moon": st.one_of(st.sampled_from(["double", "", "adds"]), st.integers(), st.booleans(), st.none()),
    "first_trick_points": st.one_of(st.integers(), st.text(), st.none()),
    "hearts_break": st.one_of(st.sampled_from(["spades", "never", ""]), st.integers(), st.none()),
    "first_lead": st.one_of(st.sampled_from(["C3", "S2", "any"]), st.integers(), st.none()),
    "trick_points": st.one_of(st.text(), st.booleans(), st.none(), st.floats(0.1, 0.9),
                              st.integers(min_value=1001), st.sampled_from([1e20, -1e308, 1001.0])),
    "partnership": st.one_of(st.integers(), st.text(), st.none()),
}


@PROPERTY
@given(st.sampled_from(KEYS).flatmap(lambda key: st.tuples(st.just(key), BAD_VALUES[key])))
def test_a_bad_value_is_an_error_naming_its_key(pair: tuple) -> None:
    key, value = pair
    with pytest.raises(RulesError) as err:
        Rules.parse({key: value})
    message = str(err.value)
    assert "\n" not in message
    assert key in message or (key == "preset" and "preset" in message)


@PROPERTY
@given(st.text(min_size=1).filter(lambda k: k not in KEYS))
def test_an_unknown_key_is_an_error_naming_it(key: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules.parse({key: 1})
    assert repr(key) in str(err.value)


@pytest.mark.parametrize("text, words", [
    ('{"moon": "add",}', "not valid JSON"),
    ('{"moon": add}', "not valid JSON"),
    ("no-such-preset", "unknown preset"),
    ("[1, 2]", "a preset name or a JSON object, got a JSON array"),
    ("[1, 2", "not valid JSON"),
    ('{"trick_points": 1e20}', "rule trick_points: 1e+20 is out of range (-1000..1000)"),
    ('{"trick_points": 1' + "0" * 5000 + "}", "rules are not valid JSON: a number has too many digits"),
    ("[" * 50000, "rules are not valid JSON: nested too deeply"),
    ('{"moon": true}', "rule 'moon': unknown value true (expected one of"),
    ('{"values": null}', "got null"),
    ('{"partnership": {"a": 1}}', 'expected true or false, got {"a": 1}'),
    ('{"trick_points": 2.0, "values": {"H": 3.0, "SQ": 1e9}}', "rule values['SQ']: 1000000000.0 is out of range"),
])
def test_bad_rule_text_is_a_one_line_error(text: str, words: str) -> None:
    """(A float that is a whole number counts as one, within the same range.)"""
    with pytest.raises(RulesError) as err:
        Rules.parse(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_whole_float_is_a_whole_value_within_the_limit_only() -> None:
    """2.0 means 2, as ``Rules.parse`` and the API's schema both read it (``whole_value``);
    anything else is left as it was, for the caller to refuse."""
    assert whole_value(2.0) == 2 and type(whole_value(2.0)) is int
    assert whole_value(-float(VALUE_LIMIT)) == -VALUE_LIMIT
    for kept in (VALUE_LIMIT + 1.0, 2.5, float("inf"), "2", True, 3):
        assert whole_value(kept) is kept
    assert Rules.parse({"trick_points": float(VALUE_LIMIT)}).trick_points == VALUE_LIMIT
    with pytest.raises(RulesError, match=rf"out of range \(-{VALUE_LIMIT}\.\.{VALUE_LIMIT}\)"):
        Rules.parse({"trick_points": VALUE_LIMIT + 1})


def test_scores_beyond_the_engine_limit_are_a_one_line_error() -> None:
    """The engine keeps scores in 16 bits: rules whose scores could go past SCORE_LIMIT are
    refused up front rather than solved wrong."""
    with pytest.raises(RulesError) as err:
        Rules.parse({"values": {"H": 1000, "SQ": 1000, "DJ": 1000}})  # 15 000, M as much
    assert "30000" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(RulesError):
        Rules.parse({"values": {"H": 1000}, "moon": "subtract"})  # 13 013 + 2 M
    with pytest.raises(RulesError):
        Rules.parse({"values": {"H": 1000, "S": 1000}, "trick_points": 1000, "moon": "none"})
    assert Rules.parse({"values": {"H": 1000}}).moon_total == 13013


def test_the_score_limit_is_reached_and_not_passed() -> None:
    """Rules that can reach SCORE_LIMIT exactly are solved, one point more is refused: counting
    every value (a negative one too), 13 tricks' points, and the moon's M once to add it and
    twice to subtract it."""
    cases = [  # (rules, what they can reach)
        ({"values": {"H": 1000, "S": 1000, "DA": 1000, "DK": 1000, "DQ": 1000}, "moon": "none"}, 29000),
        ({"values": {"H": 1000, "S": 1000, "DA": 1000, "DK": 1000, "DQ": 1000, "DJ": -1},
          "moon": "none"}, 29001),
        ({"values": {"H": 1000, "S": 1000, "DA": 1000, "DK": 1000, "DQ": 1000},
          "trick_points": -1, "moon": "none"}, 29013),
        ({"values": {"H": 1000, "SA": 1000, "SK": 500, "SQ": 0}}, 29000),  # M 14 500
        ({"values": {"H": 1000, "SA": 1000, "SK": 501, "SQ": 0}}, 29002),
        ({"values": {"H": 700, "SA": 566, "SQ": 0, "DJ": -2}, "moon": "subtract"}, 29000),  # M 9 666
        ({"values": {"H": 700, "SA": 566, "SQ": 0, "DJ": -3}, "moon": "subtract"}, 29001),
    ]
    for spec, reach in cases:
        if reach <= SCORE_LIMIT:
            Rules.parse(spec)
        else:
            with pytest.raises(RulesError, match=f"could reach {reach} points"):
                Rules.parse(spec)


@pytest.mark.parametrize("spec, field, read", [
    ({"preset": " OMNIBUS "}, "preset", "omnibus"),
    ({"preset": "Black-Maria"}, "preset", "black-maria"),
    ({"moon": "Subtract"}, "moon", "subtract"),
    ({"hearts_break": " QUEEN"}, "hearts_break", "queen"),
    ({"first_lead": "c2"}, "first_lead", "C2"),
    ({"first_lead": "FREE "}, "first_lead", "free"),
])
def test_a_setting_s_words_are_read_in_any_case_and_spacing(spec: dict, field: str, read: str) -> None:
    """Presets and the string settings are names a person types: any case, spaces around."""
    assert getattr(Rules.parse(spec), field) == read
    assert Rules.parse(spec) == Rules.parse({**spec, field: read})


@pytest.mark.parametrize("change, words", [
    ({"hearts_break": "bogus"}, "rule 'hearts_break': unknown value 'bogus'"),
    ({"moon": "bogus"}, "rule 'moon': unknown value 'bogus'"),
    ({"trick_points": 2.5}, "rule trick_points: expected an integer"),
    ({"first_trick_points": 1}, "expected true or false"),
    ({"values": (1,) * 63}, "rule values: expected 64 integers"),
    ({"values": (VALUE_LIMIT + 1,) + (0,) * 63}, f"rule values: expected 64 integers in -{VALUE_LIMIT}..{VALUE_LIMIT}"),
    ({"trick_points": -VALUE_LIMIT - 1}, f"rule trick_points: expected an integer in -{VALUE_LIMIT}..{VALUE_LIMIT}"),
    ({"preset": "nonsense"}, "rule 'preset': unknown value"),
])
def test_rules_made_directly_are_checked_as_parsed_ones(change: dict, words: str) -> None:
    """``Rules(...)`` and ``with_`` reach the engine too: a bad value there failed in a search."""
    with pytest.raises(RulesError, match=re.escape(words)):
        Rules().with_(**change)


def test_of_several_bad_fields_a_rule_set_made_directly_names_the_first_checked() -> None:
    """The checks run over RULE_KEYS (they were written out): a string key's before a boolean
    one's, and ``preset`` last of the string keys, as they were."""
    for change, named in (({"preset": "x", "moon": "y"}, "'moon'"),
                          ({"partnership": 1, "first_lead": "y"}, "'first_lead'"),
                          ({"first_trick_points": 1, "partnership": 2}, "'first_trick_points'")):
        with pytest.raises(RulesError, match=f"^rule {named}:"):
            Rules().with_(**change)


def test_with_an_unknown_field_is_a_rules_error() -> None:
    """``with_(moons="add")`` raised dataclasses' TypeError, unlike a bad value."""
    with pytest.raises(RulesError, match="unknown rule field 'moons' \\(fields: preset, values, moon"):
        Rules().with_(moons="add")
    assert Rules().with_(moon="none", partnership=True) == Rules.parse({"moon": "none", "partnership": True})


@PROPERTY
@given(rule_specs())
def test_a_rules_repr_is_short_and_makes_the_rules_again(spec: dict) -> None:
    """A rule set's repr listed its 64 values by card index."""
    rules = Rules.parse(spec)
    assert eval(repr(rules)) == rules and len(repr(rules)) < 300
    assert repr(Rules.parse("omnibus")) == "Rules.parse('omnibus')"
    assert repr(Rules.parse({"moon": "none"})) == "Rules.parse({'moon': 'none'})"


@PROPERTY
@given(rule_specs())
def test_the_shortest_form_goes_through_json_and_parses_to_the_same_rules(spec: dict) -> None:
    rules = Rules.parse(spec)
    assert Rules.parse(json.loads(json.dumps(rules.shortest()))) == rules
    assert len(json.dumps(rules.shortest())) <= len(json.dumps(rules.to_dict()))


def test_the_catalogue_is_a_new_object_each_call() -> None:
    """``GET /rules`` and ``hearts-dd rules`` share it: a caller changing its copy changed
    the next caller's."""
    first = catalogue()
    first["presets"]["omnibus"]["rules"]["values"]["DJ"] = 5
    first["keys"].clear()
    again = catalogue()
    assert again["presets"]["omnibus"]["rules"]["values"]["DJ"] == -10 and list(again["keys"]) == list(KEYS)
    assert all(key["standard"] == Rules().to_dict()[name] or name == "values"
               for name, key in again["keys"].items())


def test_the_catalogue_lists_each_preset_s_point_cards_and_each_key_s_choices() -> None:
    """A preset's ``values`` are its cards of non-zero value; a boolean key's choices are
    false and true, as a front end offers them."""
    standard = catalogue()["presets"]["standard"]["rules"]["values"]
    assert standard == {**{str(h): 1 for h in HEARTS}, "SQ": 13}
    assert catalogue()["presets"]["bridge"]["rules"]["values"] == {}
    keys = catalogue()["keys"]
    assert keys["partnership"]["choices"] == keys["first_trick_points"]["choices"] == [False, True]
    assert keys["trick_points"]["choices"] is None and keys["moon"]["choices"] == ["add", "subtract", "none"]


@pytest.mark.parametrize("values, shortest", [
    ({"SQ": 0}, {"values": {"SQ": 0}}),          # (one card or its suit: the card, as given)
    ({"S": 1, "SA": 2}, {"values": {"S": 1, "SA": 2}}),   # (13 cards or 2 keys: the suit)
    ({"H": 2, "HA": 5}, {"values": {"H": 2, "HA": 5}}),
])
def test_the_shortest_form_names_a_suit_only_where_that_is_shorter(values: dict, shortest: dict) -> None:
    assert Rules.parse({"values": values}).shortest() == shortest


def test_a_value_s_suit_or_card_key_is_read_with_spaces_around_it() -> None:
    rules = Rules.parse({"values": {" h ": 2, " sq": 5}})
    assert rules.value("H2") == 2 and rules.value("SQ") == 5



def test_the_rules_fields_are_the_table_s_keys_with_its_standard_settings() -> None:
    """``Rules`` declares its fields by hand (a type checker reads them): one per key of
    RULE_KEYS, in its order, each defaulting to the key's standard setting; and the presets
    ``_preset_table`` makes are the ones described and the ``preset`` key takes, in order."""
    assert tuple(f.name for f in dataclasses.fields(Rules)) == KEYS
    for key in RULE_KEYS:
        if key.name != "values":    # (the standard preset's, by card index)
            assert getattr(Rules(), key.name) == key.default, key.name
    assert list(PRESETS) == list(PRESET_DESCRIPTIONS) == list(RULE_KEYS[0].choices or ())


def test_the_spec_s_table_of_rule_keys_agrees_with_the_rules_table() -> None:
    """SPEC §2's table lists the keys for people (docs/SPEC.md, a copy of the shared
    specification): its rows are RULE_KEYS in order, each with its choices and the standard
    setting ``solver.rules`` gives it."""
    spec = (Path(__file__).parent.parent / "docs" / "SPEC.md").read_text(encoding="utf-8")
    section = spec.split("\n## 2. ", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \| [^|]* \|$", section, re.M)
    assert [name for name, _ in rows] == list(KEYS)
    for (name, taken), key in zip(rows, RULE_KEYS):
        listed = re.findall(r"`([^`]*)`", taken)
        if key.choices is not None:     # (the presets' row names the first few, then "…")
            assert listed == list(key.choices[:len(listed)]), name
            assert len(listed) == len(key.choices) or taken.endswith("…"), name
        elif key.json_type == "boolean":
            assert listed == ["false", "true"] or listed == ["true", "false"], name
        if key.name not in ("preset", "values"):
            standard = re.search(r"`?([^`, ]+)`? \(standard\)", taken)
            shown = key.default if isinstance(key.default, str) else json.dumps(key.default)
            assert standard and standard[1] == shown, name


def test_every_rule_key_is_listed_where_the_tests_and_the_api_repeat_the_keys() -> None:
    """The tests list the keys again by hand (valid and invalid values of each), and the API's
    ``RuleSet`` is built from RULE_KEYS: a key missing from one of them is never generated by
    the property tests, never checked against the brute-force oracle, or refused by the API
    (README.md, "Working on the code", lists every place a new key goes)."""
    from api.schemas import RuleKey as CatalogueKey
    from api.schemas import RuleSet
    from test_bruteforce import RULE_SETS
    keys = set(KEYS)
    assert set(RULE_FIELDS) == keys, "tests/strategies.py RULE_FIELDS: valid values of each key"
    assert set(BAD_VALUES) == keys, "tests/test_rules.py BAD_VALUES: invalid values of each key"
    assert set(RuleSet.__annotations__) == keys, "api/schemas.py RuleSet: the API's rule object"
    types = typing.get_args(CatalogueKey.model_fields["type"].annotation)
    for key in RULE_KEYS:   # (a type the catalogue's model does not name fails GET /rules)
        assert key.json_type in types, f"api/schemas.py RuleKey.type: no {key.json_type!r}"
        assert key.choices is None or key.json_type == "string", key.name
    missing = set(SETTINGS) - {key for spec in RULE_SETS.values() for key in spec}
    assert not missing, f"tests/test_bruteforce.py RULE_SETS: no rule set with {missing}"
