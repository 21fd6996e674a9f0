"""The output formats' wording (solver/writers.py): the moon story and the rules."""
from __future__ import annotations

from solver.writers import moon_story, rules_text

NEVER = {"at_start": False, "at_end": False, "last_forceable": None, "lost_with": None, "segments": []}


def story(moon: dict, complete: bool = True) -> list[str]:
    return moon_story({"moon": {seat: moon.get(seat, NEVER) for seat in "NESW"}, "complete": complete})


def forceable(*segments: dict) -> dict:
    return {**NEVER, "segments": list(segments)}


HANDED = {"from": 20, "to": 24, "given_by": {"trick": 5, "seat": "W", "card": "H8"}, "lost_with": None}
LOST = {"from": 0, "to": 3, "given_by": None, "lost_with": {"trick": 1, "seat": "E", "card": "C4"}}


def test_a_moon_handed_over_names_the_card_and_its_trick():
    """The last card of trick 5 hands it over: the story once said "from trick 6 (handed over
    by W's H8)", against "W H8 at trick 5" in the costly cards of the same report."""
    assert story({"N": forceable(HANDED)}) == ["N could force it from W's H8 at trick 5 to the end"]
    assert story({"E": forceable(LOST)}) == ["E could force it from the start until E's C4 at trick 1"]
    assert story({}) == ["nobody could force one during the recorded play"]


def test_a_play_recorded_in_part_ends_where_its_record_does():
    assert story({"N": forceable(HANDED)}, complete=False) == [
        "N could force it from W's H8 at trick 5 to the end of the recorded play"]


def test_partners_who_share_the_moon_are_one_side_in_the_story():
    both = forceable(LOST)
    assert story({"E": both, "W": both, "N": forceable(HANDED)}) == [
        "N could force it from W's H8 at trick 5 to the end",
        "E/W could force it from the start until E's C4 at trick 1"]


def test_rules_are_named_by_preset_and_what_differs():
    assert rules_text("omnibus") == "omnibus"
    assert rules_text(None) == "unreadable"
    assert rules_text({"preset": "standard", "moon": "none", "partnership": False}) != "standard"
