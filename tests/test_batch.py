"""Annotation jobs (solver/batch.py): the SPEC §6 object, errors that keep results, rules and
leader precedence, time limits, input order and bounded memory. (Identical output on one
process, a process pool and a local Dask cluster: tests/test_cli_records.py.)"""
from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from record_files import endgame_file, small_deal
from solver.analysis import Solver
from solver.cards import Seat, cards_of
from solver.batch import AnnotateOptions, annotate_record, annotate_stream
from solver.deal import Deal
from solver.pbn import read_records
from solver.position import Position
from solver.rules import Rules

SPEC_KEYS = ["index", "deal", "players", "error"]


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_mb=16)


def one(text: str, solver: Solver, **options) -> dict:
    [record] = read_records(io.BytesIO(text.encode()))
    return annotate_record(record, AnnotateOptions(**options), solver)


def test_the_spec_object(solver):
    deal = "N:AKQJ.AKQJT9.A.AK T98.876.KQJ.QJT9 765.54.T9876.876 432.32.5432.5432"
    result = one(f'[Board "9"]\n[Deal "{deal}"]\n', solver)
    assert list(result)[:4] == SPEC_KEYS
    assert result["deal"] == deal and result["error"] is None and result["board"] == "9"
    expected = Solver(table_mb=16).analyze(Position.start(Deal.parse(deal)))
    assert result["players"] == {str(s): {"guarantee": r.guarantee, "moon_possible": r.moon_possible}
                                 for s, r in expected.players.items()}
    assert result["leader"] == "W" and result["rules"] == "standard"
    assert result["play"] is None and result["review"] is None


def test_an_unreadable_record_has_a_null_deal_and_an_error(solver):
    result = one('[Event "x"]\n[Deal "N:AK.. .AK.. ..AK."]\n', solver)
    assert result["deal"] is None and result["players"] is None
    assert result["error"] == "line 2: [Deal] expected 4 hands separated by spaces, found 3"
    assert one('[Event "no deal"]\n', solver)["error"] == "line 1: the game has no [Deal]"


def test_an_illegal_recorded_card_is_an_error_but_the_deal_is_still_annotated(solver):
    text = ('[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n[Play "W"]\n'
            'C2 SA SK D3\n'
            'D2 HK HQ HA\n')            # E's column has S's HQ
    result = one(text, solver)
    assert result["error"] == "line 4: [Play] trick 2: E cannot play HQ: it is S's card"   # its row
    assert result["players"] is not None                       # the position before the first card
    assert result["play"] == "C2 SA SK D3 D2 HK"                # the legal part of the play ...
    assert [c["card"] for c in result["review"]["cards"]] == ["C2", "SA", "SK", "D3", "D2", "HK"]
    assert result["review"]["complete"] is False                # ... reviewed as far as it goes


def test_rules_come_from_the_tag_then_the_option_then_standard(solver):
    deal = '[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n'
    assert one(deal, solver)["rules"] == "standard"
    assert one(deal, solver, rules=Rules.parse("spot"))["rules"] == "spot"
    assert one(deal + '[HeartsRules "omnibus"]\n', solver, rules=Rules.parse("spot"))["rules"] == "omnibus"
    custom = one(deal + '[HeartsRules "{\\"moon\\": \\"none\\"}"]\n', solver)
    assert custom["rules"]["moon"] == "none"
    spot = one(deal + '[HeartsRules "spot"]\n', solver)["players"]
    assert spot != one(deal, solver)["players"]                 # the rules reached the solver


def test_leaders_with_a_free_first_lead(solver):
    free = '[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n'
    assert one(free + '[HeartsLeader "S"]\n', solver)["leader"] == "S"
    assert one(free + '[Play "E"]\nSK - - -\n', solver)["leader"] == "E"
    missing = one(free, solver)
    assert missing["players"] is None and "HeartsLeader" in missing["error"]


def test_a_leader_the_rules_overrule_is_an_error_on_its_line_and_the_rules_leader_leads(solver):
    text = '[Event "x"]\n[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n[HeartsLeader "E"]\n'
    result = one(text, solver)
    assert result["error"] == "line 3: [HeartsLeader] leader E given, but N holds C2 and must lead it"
    assert result["leader"] == "N" and result["players"] == one(text[:-19], solver)["players"]


def test_a_record_whose_rules_cannot_be_read_is_not_analysed_under_others(solver):
    text = '[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n[HeartsRules "{\\"moon\\": \\"subtrct\\"}"]\n'
    result = one(text, solver, rules=Rules.parse("rickety-kate"))
    assert result["deal"] == "N:.A..2 .2..3 .3..4 .4..5" and result["error"].startswith("line 2: [HeartsRules]")
    assert result["players"] is None and result["rules"] is None and result["leader"] is None


def test_a_time_limit_gives_up_the_record_with_an_error():
    deal = Deal.random(3).pbn()
    result = one(f'[Deal "{deal}"]\n', Solver(table_mb=16), time_limit=0.05)
    assert result["deal"] == deal and result["players"] is None
    assert result["error"] == "line 1: no answer within the time limit of 0.05 s"


def test_moon_only(solver):
    text = '[Deal "N:94.64..2 Q.K..JT4 7.97.8.9 T.2.732."]\n[HeartsLeader "E"]\n' \
           '[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n[Play "E"]\nC4 C9 D3 C2\n'
    result = one(text, solver, moon_only=True)
    assert result["players"]["E"] == {"moon_possible": True}
    assert result["review"]["cards"] == []
    assert result["review"]["moon"]["E"]["lost_with"] == {"trick": 1, "seat": "E", "card": "C4"}


# -- streams --------------------------------------------------------------------------------------
def results(data: bytes, **kwargs) -> list[dict]:
    return [r for _, r in annotate_stream(read_records(io.BytesIO(data)), **kwargs)]


def test_a_process_pool_gives_the_serial_results_in_input_order():
    data = endgame_file(200, seed=11, hand_size=3, play_cards=12)
    serial = results(data)
    assert [r["index"] for r in serial] == list(range(200))
    assert all(r["error"] is None and r["review"]["complete"] for r in serial)
    assert results(data, jobs=2, chunk_size=3) == serial


@pytest.mark.parametrize("jobs", [1, 2])
def test_only_a_bounded_window_of_records_is_in_flight(jobs):
    data = endgame_file(400, seed=5, hand_size=3)
    pulled = 0

    def counted():
        nonlocal pulled
        for record in read_records(io.BytesIO(data)):
            pulled += 1
            yield record

    stream = annotate_stream(counted(), jobs=jobs, chunk_size=4)
    first_record, _ = next(stream)
    assert first_record.index == 0
    assert pulled <= 4 * 4 * jobs + 4          # four chunks per worker, plus the one being cut
    stream.close()                             # stops the workers


def test_records_keep_their_file_bytes_through_the_workers():
    data = endgame_file(20, seed=2, hand_size=3, play_cards=4)
    pairs = list(annotate_stream(read_records(io.BytesIO(data)), jobs=2, chunk_size=3))
    assert b"".join(r.before + r.raw + r.after for r, _ in pairs) == data
    assert [r.index for r, _ in pairs] == [res["index"] for _, res in pairs] == list(range(20))


def test_dask_needs_a_reachable_scheduler(monkeypatch):
    pytest.importorskip("dask.distributed")
    from solver import batch
    from solver.errors import HeartsError
    monkeypatch.setattr(batch, "DASK_CONNECT_TIMEOUT", 1.0)
    with pytest.raises(HeartsError, match="cannot reach the Dask scheduler"):
        next(annotate_stream(iter([]), dask="tcp://127.0.0.1:1"))


# -- never raising ------------------------------------------------------------------------------
RULES = [None, "omnibus", "spot", "bridge", '{\\"first_lead\\": \\"free\\"}', '{\\"partnership\\": true}',
         '{\\"hearts_break\\": \\"none\\", \\"first_trick_points\\": true}', "nonsense"]
FUZZ_SOLVER = Solver(table_mb=4)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_annotating_any_small_record_never_raises(data):
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    deal = small_deal(rng, data.draw(st.integers(1, 4)))
    cards = [str(c) for c in cards_of(deal.all_cards)] + ["-", "+", "SA", "C2", "H5"]
    rows = data.draw(st.lists(st.lists(st.sampled_from(cards), min_size=1, max_size=5), max_size=5))
    text = f'[Deal "{deal.pbn(data.draw(st.sampled_from(list(Seat))))}"]\n'
    if rules := data.draw(st.sampled_from(RULES)):
        text += f'[HeartsRules "{rules}"]\n'
    if data.draw(st.booleans()):
        text += f'[HeartsLeader "{data.draw(st.sampled_from("NESWX"))}"]\n'
    if rows or data.draw(st.booleans()):
        text += f'[Play "{data.draw(st.sampled_from("NESW"))}"]\n' + "\n".join(" ".join(r) for r in rows) + "\n"
    result = one(text, FUZZ_SOLVER)
    assert list(result)[:4] == SPEC_KEYS and result["deal"] is not None
    assert result["error"] is None or "\n" not in result["error"]
    assert (result["players"] is None) == (result["leader"] is None)
