"""Mutation check of the tests: small faults put into the engine and the Python around it one at a
time (a bound off by one, a relied-on card dropped, a rule of trick 1 left out, a key field dropped,
a moon state miscounted; the rules of play in Python, sampling, a play's review; the rule sets,
deals and cards as read; hand records, their outputs and resuming them; the answers as the solver
assembles them, their JSON and report, and the words of bad input; the command line, its shared
parts and ``serve``; the HTTP API, its settings, problems, document and gunicorn worker), each run
against the tests of its part (``Fault.tests``: the engine's by default), which must fail. A fault
they let through is either harmless (the line it changes never decides an answer; say why below) or
a gap in the tests: on 2026-12-07 this found three (the first-trick tests of the duck and the moon
guard, now covered by test_bounds.py's claims at the start of a hand, and the trick under way in the
root's moon floor, by test_bruteforce.py's tricks after a moon already shot), one more among the
faults of a play's review (the moon timeline's flag after the last card, by test_review.py's deal
without point cards), and seven among those of the Python around it (the score limit's edge and the
names of settings in any case, by test_rules.py; a lost moon's ``trick:card`` in the csv, by
test_writers.py; ``--no-review``, by test_cli_records.py; ``analyze --input --player``, by
test_position_lines.py; the bidi isolates and the length of a long message, by test_errors.py), and
in a second run that day twenty more (a line whose last block is blank, by test_bounded_lines.py;
records to a socket, by test_cli_records.py; an error's file name, by cli_common's doctest;
``--threads 2``, a blank ``--host``, a file there that cannot be written and an IPv6 ``--bind``, by
test_cli_serve.py; both ends of each setting's range, the budgets' margin and the settings given
over the environment's, by test_api_config.py; a 404's path, by test_api.py; bodies required in the
document, by test_api_app.py; gunicorn's 500 page as an internal error, by test_api_worker.py; a
record's passing in its object, by test_batch.py; ``analyze --input`` with ``--leader`` or
``--line`` and a line's missing leader, by test_position_lines.py; a checkpoint's negative byte
count, another user's data file, and runs stopped before their first record or as their output was
renamed, by test_checkpoint.py), and in a third run thirty more (the reader of hand records: a deal
with a hand missing checked as a whole, a bad card of the play keeping its place, the play's marks
at the ends of their ranges and each twice, an empty ``[Play]`` and ``[Deal]``, a ``%`` line's brace,
the DOS end mark between joined files and a comment open past its lines, by test_pbn.py; the
outputs: a rule object, the scores and a tab-led cell in the csv, the pbn tags without guarantees
and a best card's ``-``, files ending without a line end, annotations after such a line and in
the game's encoding, a play stopping at a trick's end, "nobody" able to shoot, and a format named in
capitals, by test_writers.py; a hand's mask with bits that are no card, by test_sampling.py), and
in a fourth run twenty-nine more (a forced choice's moon flag and the ends of the solver's ranges, by
test_analysis.py; the report's E over East's suits, a deal of one card, a trick of -1 point, a line
without cards on the table and the points taken of the seats asked, by test_report.py, and an open
card in the status line, by report's doctest; a weighing cut short, by test_sampling.py; each
card's ``best`` and the time's rounding, by test_results.py, and bounds of nothing, ``get``'s
default and a search that proved nothing, by results' doctests; the count of errors of a record
not annotated, a MemoryError without words, the jobs of the cores allowed and a worker's solver
by table size, by test_batch.py; request fields past their length, a seed at its limit, a typo
in ``/analyses``' fields and the choices of an unknown value, by test_api.py; annotate's own limit
on its body and the node limit under a request's budget, by test_api_records.py; an enumeration's
component, described and not over a model of its name, by test_api_app.py), and on 2026-12-08 a
fifth run twenty-nine more (a card outside an endgame's deal or past its end and a position's
JSON, by test_position.py; rules made directly out of range, the shortest form's suit on a tie,
the catalogue's choices and point cards, a value's key with spaces and a preset's description, by
test_rules.py; two ``-`` hands, by test_deal.py; an index of rank 13 to 15 and a rank of two
letters, by test_cards.py; a boolean's JSON name, a byte's place counted from 1 and a huge number
shown, by test_errors.py; ``/proc/self/fd/N``, by cli_common's doctest; a negative
``--time-limit``, by test_cli_errors.py; an unreadable input before others, a whole output's
stop handlers and a link of a shared folder's owner, by test_cli_records.py; the inputs' names
of a resumed run, inputs that end before the records it holds, a checkpoint without its hashes
or its run, one its thread could not save, the output's permissions and one record kept, by
test_checkpoint.py; a moon lost for good after it came back, in ``POST /moon``'s answer, by
test_review.py).

It rewrites ``solver/`` and ``api/`` and rebuilds the engine for each fault in it (a fault in
Python runs as it is), so run it in a clone of its own, set up with ``make demo`` (about 30 s a
build, then the tests: most faults fail them within a minute, a harmless one runs them whole,
about 3 minutes)::

    git clone -q . /tmp/mutation && cd /tmp/mutation && make demo
    .venv/bin/python tests/mutation.py              # every fault (7 to 8 hours)
    .venv/bin/python tests/mutation.py duck_tie     # some by name

A fault whose text no longer appears in the source is reported stale: update it with the code.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple


#: The engine's tests, quickest to fail first.
TESTS = ("tests/test_bounds.py", "tests/test_cli_cases.py", "tests/test_consistency.py",
         "tests/test_dds_midplay.py", "tests/test_dds_list100.py", "tests/test_bruteforce.py",
         "tests/test_ttable.py", "tests/test_dds_random.py", "tests/test_helper.py")
#: The tests of positions and their play, of the deals a seat's view of the play allows
#: (which follow the play's rules), then the engine's, which play from positions.
POSITION_TESTS = ("tests/test_position.py", "tests/test_sampling.py", *TESTS)
#: The tests of the deals a seat's view allows (drawn, and weighed by the engine).
SAMPLING_TESTS = ("tests/test_sampling.py", "solver/sampling.py")
#: The tests of a play's review, on the engine's answers.
REVIEW_TESTS = ("tests/test_review.py", "tests/test_cli_records.py", "tests/test_api_records.py")
#: The tests of reading rules, deals and cards (with the modules' doctests), and of the CLI and
#: the API that read them.
RULES_TESTS = ("tests/test_rules.py", "solver/rules.py", "tests/test_cli_cases.py",
               "tests/test_cli_errors.py", "tests/test_api_schema.py")
DEAL_TESTS = ("tests/test_deal.py", "tests/test_cards.py", "solver/deal.py", "solver/cards.py",
              "tests/test_cli_errors.py", "tests/test_cli_cases.py")
#: The tests of hand records: reading them, annotating them, writing and resuming the output.
RECORD_TESTS = ("tests/test_pbn.py", "solver/pbn.py", "tests/test_writers.py", "solver/writers.py",
                "tests/test_batch.py", "tests/test_checkpoint.py", "tests/test_cli_records.py",
                "tests/test_api_records.py")
#: The tests of the command line and of the HTTP API over the library.
CLI_TESTS = ("tests/test_cli_cases.py", "tests/test_cli_errors.py", "tests/test_position_lines.py",
             "tests/test_cli_status.py")
API_TESTS = ("tests/test_api.py", "tests/test_api_solving.py", "tests/test_api_app.py",
             "tests/test_api_records.py")
#: The tests of the answers as they are given: their JSON, the report, the lines of positions.
ANSWER_TESTS = ("tests/test_results.py", "solver/results.py", "tests/test_report.py", "solver/report.py",
                "tests/test_cli_cases.py", "tests/test_position_lines.py", "tests/test_cli_errors.py")
#: The tests of the reports: the answers', the cards weighed over samples', the status line's.
REPORT_TESTS = (*ANSWER_TESTS, "tests/test_sampling.py", "tests/test_cli_status.py")
#: The tests of the solver's Python side: its answers assembled, lines, bounds carried.
ANALYSIS_TESTS = ("tests/test_analysis.py", "tests/test_results.py", "tests/test_cli_cases.py",
                  "tests/test_consistency.py", "tests/test_dds_list100.py")
#: The tests of the messages of bad input, and of what they may echo.
ERROR_TESTS = ("tests/test_errors.py", "solver/errors.py", "tests/test_cli_errors.py",
               "tests/test_position_lines.py", "tests/test_writers.py", "tests/test_rules.py",
               "tests/test_api.py")
#: The tests of reading lines of bounded length (records, position lines).
LINES_TESTS = ("tests/test_bounded_lines.py", "solver/bounded_lines.py", "tests/test_pbn.py",
               "tests/test_position_lines.py")
#: The tests of the commands' shared parts and of annotate's command (its files and resuming).
COMMAND_TESTS = ("solver/cli_common.py", "tests/test_cli_completion.py", *CLI_TESTS,
                 "tests/test_cli_records.py", "tests/test_checkpoint.py")
#: The tests of ``hearts-dd serve`` and of the service's settings.
SERVE_TESTS = ("tests/test_cli_serve.py", "tests/test_api_config.py")
#: The tests of the service as a whole: its app, schemas, problems, records and health.
SERVICE_TESTS = ("tests/test_api_schema.py", "tests/test_api_config.py", "tests/test_api_health.py",
                 *API_TESTS)
#: The tests of the service's gunicorn worker, and of the service as gunicorn runs it.
WORKER_TESTS = ("tests/test_api_worker.py", "tests/test_cli_serve.py", "tests/test_api.py")
#: The tests of the OpenAPI document.
DOCUMENT_TESTS = ("tests/test_api_app.py", "tests/test_api_schema.py", "tests/test_api_worker.py",
                  "tests/test_api_records.py", "tests/test_api.py")


class Fault(NamedTuple):
    name: str
    path: str
    old: str      # text that appears exactly once in ``path``
    new: str
    harmless: str = ""  # why the tests cannot catch it, for a fault known to change no answer
    tests: tuple[str, ...] = TESTS


def _faults(path: str, tests: tuple[str, ...],
            faults: list[tuple[str, str, str] | tuple[str, str, str, str]]) -> list[Fault]:
    """Faults of one file, each ``(name, old, new)`` or ``(name, old, new, harmless)``, run
    against ``tests``."""
    return [Fault(name, path, old, new, "".join(harmless), tests) for name, old, new, *harmless in faults]


B, S, M, T = "solver/_bounds.pxd", "solver/_search.pyx", "solver/_movegen.pxd", "solver/_ttable.pyx"
A, P = "solver/analysis.py", "solver/position.py"
FAULTS = [
    # static bounds (_bounds.pxd)
    Fault("cannot_win_top", B, "if msb(m) > ctz(t):", "if msb(m) > msb(t):"),
    Fault("cannot_win_norel", B, "    rel[0] |= used | LEADER_DEP\n    return 1\n\n\ncdef inline bint target_can_duck",
          "    rel[0] |= LEADER_DEP\n    return 1\n\n\ncdef inline bint target_can_duck"),
    Fault("duck_tie", B, "if ctz(m) > ctz(t):", "if ctz(m) > ctz(t) + 1:"),
    Fault("duck_norel", B, "            used |= (<uint64_t>1) << (16 * suit + ctz(m | t))\n", "            pass\n"),
    Fault("duck_first_trick", B, "if g.partnership or s.first_trick or s.leader == s.target:",
          "if g.partnership or s.leader == s.target:"),
    Fault("duck_leader", B, "if g.partnership or s.first_trick or s.leader == s.target:",
          "if g.partnership or s.first_trick:"),
    Fault("guard_count", B, "if popcount(mine >> (p + 1)) < popcount(",
          "if popcount(mine >> (p + 1)) + 1 < popcount("),
    Fault("guard_first_trick", B, "    if g.partnership or s.first_trick:\n        return 0\n    for suit in range(4):\n        p = _guard",
          "    if g.partnership:\n        return 0\n    for suit in range(4):\n        p = _guard"),
    Fault("others_shoot_any_suit", B, "            if p == 0:\n                break\n            used |= p",
          "            if p == 0:\n                continue\n            used |= p"),
    Fault("leads_point_illegal", B, "if top & leads & g.point_mask:", "if top & g.point_mask:"),
    Fault("self_lo_off", B, "o.lo[OUT_SELF] = rn + tpmin + c_self + rp", "o.lo[OUT_SELF] = rn + tpmin + c_self + rp + 1"),
    Fault("other_hi_off", B, "o.hi[OUT_OTHER] = tpmax + c_other", "o.hi[OUT_OTHER] = tpmax + c_other - 1"),
    Fault("none_possible", B, "            o.possible[OUT_NONE] = s.hand_pos > 0\n        else:",
          "            o.possible[OUT_NONE] = s.hand_pos > 1\n        else:"),
    Fault("self_lost_ignored", B, "        if self_lost:\n            o.possible[OUT_SELF] = 0",
          "        if self_lost and 0:\n            o.possible[OUT_SELF] = 0",
          "an outcome left possible only loosens the bounds"),
    Fault("cap_self", B, "if o.possible[OUT_SELF] and s.hand_pos == 0 and c_self > o.cap:",
          "if o.possible[OUT_SELF] and c_self > o.cap:",
          "with points still out, no moon (cap >= 0) already tops c_self < 0"),
    Fault("qt_cap", B, "            if qt > n:\n                qt = n", "            if qt > n + 1:\n                qt = n",
          "the leader cashes at most its n cards: quick_tricks never exceeds n"),
    Fault("forced_off", B, "hi[0] -= f.forced", "hi[0] -= f.forced + 1"),
    Fault("trick_lost_norel", B, "rel[0] = (<uint64_t>1) << f.wc if by_rank else 0\n    return 1\n\n\ncdef inline bint shot_lost",
          "rel[0] = 0\n    return 1\n\n\ncdef inline bint shot_lost"),
    Fault("trick_lost_final", B, "    if by_rank and not f.final:\n        return 0\n", ""),
    Fault("facts_trick1", B, "        if s.first_trick:\n            # trick 1 may hold back valued cards\n            legal &= legal_mask(g, s, q)\n", "",
          "trick_lost is off in trick 1 while the deal has points (its moon is live), and without "
          "points trick 1 holds nothing back; shot_lost's count of seats holding only point cards "
          "is the same either way"),
    Fault("shot_lost_canwin", B, "if f.can_win or (f.forced == 0 and not s.on_table & g.point_mask):",
          "if (f.forced == 0 and not s.on_table & g.point_mask):"),
    Fault("facts_duck_lane", B, "                    lane &= ((<uint64_t>1) << f.wc) - 1\n", ""),
    Fault("terminal_moon", B, "        return c_self if s.moon - 1 == s.target else c_other",
          "        return c_self if s.moon - 1 == s.target else 0"),
    Fault("subtract_const", B, "        c_self[0] = -2 * M\n        c_other[0] = 0", "        c_self[0] = -2 * M\n        c_other[0] = M"),
    Fault("trick_points_bound", B, "        tpmax = g.trick_points * n\n", "        tpmax = g.trick_points * (n - 1)\n"),
    # move generation (_movegen.pxd)
    Fault("legal_trick1_points", M, "    if s.first_trick and not g.first_trick_points:\n        f = L & ~g.point_mask\n        if f:\n            L = f\n", ""),
    Fault("legal_hearts_break", M, "    elif g.hearts_break != BREAK_NONE and not s.broken:",
          "    elif g.hearts_break != BREAK_NONE and not s.broken and 0:"),
    Fault("legal_forced_lead", M, "    elif s.forced_lead >= 0:\n        L = (<uint64_t>1) << s.forced_lead\n", ""),
    Fault("group_no_between", M, "        if between:\n            low &= ~(((<uint64_t>2) << msb(between)) - 1)\n", ""),
    Fault("group_winner_absent", M, "        present |= (<uint64_t>1) << s.trick[winning_index(s)]\n", "        pass\n"),
    Fault("group_same_value", M, "        mates = L & g.same_value[c]\n", "        mates = L\n"),
    # search driver (_search.pyx)
    Fault("win_rule", S, "elif (c >> 4) == (s.trick[0] >> 4) and c > s.trick[s.win]:", "elif c > s.trick[s.win]:"),
    Fault("moon_dead", S, "        elif s.moon != ws + 1:\n            s.moon = MOON_DEAD",
          "        elif s.moon != ws + 1 and 0:\n            s.moon = MOON_DEAD"),
    Fault("queen_breaks", S, "    elif g.hearts_break == BREAK_QUEEN and (s.on_table & g.queen):\n        s.broken = 1",
          "    elif 0:\n        s.broken = 1"),
    Fault("finish_first_trick", S, "    s.first_trick = 0\n    s.forced_lead = -1\n    winner_side[0] = ws",
          "    s.forced_lead = -1\n    winner_side[0] = ws"),
    Fault("with_winner", S, "if win and (side_by_rank or (crel & LEADER_DEP)):", "if win and side_by_rank:"),
    Fault("with_run", S, "    if crel & run:\n        crel |= run", "    if 0:\n        crel |= run"),
    Fault("same_child_rel", S, "        if done_rel[j] & (((<uint64_t>2) << hi) - 1) & (<uint64_t>SUIT_LANE << (16 * (c >> 4))):\n            continue\n", ""),
    Fault("same_child_exact", S, "        if span & g.keyed_exactly:\n            continue\n", ""),
    Fault("side_by_rank_moon", S, "side_by_rank[0] = (mine and theirs) or (s.moon != MOON_DEAD\n                                                and (s.on_table & g.point_mask) != 0)",
          "side_by_rank[0] = (mine and theirs)"),
    Fault("cut_rel_only", S, "            nrel = crel\n            break\n        nrel |= crel\n    if boundary:\n        if g.tricks_wanted",
          "            nrel |= crel\n            break\n        nrel = crel\n    if boundary:\n        if g.tricks_wanted"),
    Fault("store_exact_wrong", S, "        elif best >= beta0:\n            _store(tt, &key, xh, nrel, best, INF, bestmove, work)",
          "        elif best >= beta0:\n            _store(tt, &key, xh, nrel, best, best, bestmove, work)"),
    Fault("narrow_store_low", S, "        if s.narrow and best >= beta0:", "        if s.narrow and best >= alpha0:"),
    Fault("narrow_kind", S, "cdef int kind = KIND_SCORE + NARROWED if s.narrow else KIND_SCORE, searched = 0, work",
          "cdef int kind = KIND_SCORE, searched = 0, work"),
    Fault("sweep_cut_low", S, "        if v >= beta:\n            value[0] = v\n            rel[0] = _with_run(crel, runs[i])",
          "        if v >= beta - 1:\n            value[0] = v\n            rel[0] = _with_run(crel, runs[i])"),
    Fault("etc_found_alpha", S, "if pst[k] == 1 and pv[k] <= alpha:", "if pst[k] == 1 and pv[k] <= alpha + 1:"),
    Fault("bridge_partner_branch", S, "                v = g.trick_points * (i - n)\n                if v >= beta:",
          "                v = g.trick_points * (i - n) + 1\n                if v >= beta:"),
    Fault("own_moon_settle", S, "                    lo = bound_lo(&o, OUT_SELF)\n                    rel_lo = o.rel_lo | mrel",
          "                    lo = bound_lo(&o, OUT_SELF) + 1\n                    rel_lo = o.rel_lo | mrel"),
    Fault("other_moon_settle", S, "                    elif hi_other < hi:\n                        hi = hi_other",
          "                    elif hi_other < hi + 1:\n                        hi = hi_other - 1"),
    Fault("moon_anyone_switch", S, "        if anyone and s.moon != 0:\n", "        if anyone and s.moon != 0 and 0:\n"),
    Fault("moon_no_points", S, "            return s.moon == s.target + 1\n", "            return 1\n",
          "at a trick boundary with no point card left someone has taken them, so the moon state "
          "is not 0, and a state of another side returned before"),
    Fault("moon_win_rel", S, "            crel = win\n            if not _moon_lost(s, anyone):",
          "            crel = 0\n            if not _moon_lost(s, anyone):"),
    Fault("moon_cannot_win_anyone", S, "        if not anyone and target_cannot_win(s, rel):", "        if target_cannot_win(s, rel):"),
    Fault("moon_leads_point_side", S, "        if ((s.side[s.leader] == blocker) if blocker >= 0\n",
          "        if ((s.side[s.leader] != blocker) if blocker >= 0\n"),
    Fault("moon_guard_blocker", S, "        elif blocker >= 0 and cannot_shoot(g, s, blocker, s.target, rel):",
          "        elif cannot_shoot(g, s, s.target, (s.target + 1) & 3, rel):"),
    Fault("moon_narrow_store", S, "        if s.narrow_moon and result:\n", "        if s.narrow_moon:\n"),
    Fault("floor_off", S, "        floor = s.hand_neg + c_other\n", "        floor = s.hand_neg + c_other + 1\n"),
    Fault("floor_trick_neg", S, "            if self.g.values[s.trick[i]] < 0:\n                floor += self.g.values[s.trick[i]]\n",
          "            pass\n"),
    Fault("floor_tricks", S, "            floor += self.g.trick_points * ((s.cards_left + s.ntrick) >> 2)",
          "            floor += self.g.trick_points * (s.cards_left >> 2)"),
    Fault("narrow_proof_fail", S, "                if v >= beta:\n                    lo = g = v\n                    continue\n                narrow_below = beta",
          "                if v >= beta - 1:\n                    lo = g = v\n                    continue\n                narrow_below = beta"),
    Fault("helper_stopped_answer", S, "    if not h.s.aborted:\n        h.value = v\n        atomic_set(&h.done, 1)",
          "    if 1:\n        h.value = v\n        atomic_set(&h.done, 1)"),
    Fault("helper_score_for_moon", S, "        h.blocker = blocker\n", "        h.blocker = SCORE_PASS\n"),
    # transposition table (_ttable.pyx)
    Fault("key_no_moon", T, "| (<uint64_t>s.moon << 3)\n         | (<uint64_t>s.target << 6)", "| (<uint64_t>0 << 3)\n         | (<uint64_t>s.target << 6)"),
    Fault("key_no_broken", T, "    w = (<uint64_t>s.leader | (<uint64_t>s.broken << 2)", "    w = (<uint64_t>s.leader | (<uint64_t>0 << 2)"),
    Fault("key_no_first_trick", T, "| (<uint64_t>kind << 8) | (<uint64_t>s.first_trick << 12)\n         |",
          "| (<uint64_t>kind << 8)\n         |"),
    Fault("key_no_forced_lead", T, "         | (<uint64_t>(s.forced_lead + 1) << 13))\n    k.shape[4] = w", "         )\n    k.shape[4] = w"),
    Fault("key_trick1_always", T, "    k.always = k.rem if s.first_trick else 0\n", "    k.always = 0\n",
          "believed harmless, not proved: what trick 1's rules depend on (the forced lead, each "
          "hand's suit lengths, the valued cards' places) is in the key anyway; shared-table "
          "tests of 280 starts a rule set with their neighbours found no difference"),
    Fault("rel_one_less", T, "kk = popcount(((k.rem >> (16 * suit)) & SUIT_LANE) >> ctz(lane)) if lane else 0",
          "kk = popcount(((k.rem >> (16 * suit)) & SUIT_LANE) >> ctz(lane)) - 1 if lane else 0"),
    Fault("always_dropped", T, "    rel |= k.always\n", ""),
    Fault("special_not_keyed", T, "                    w |= (<uint64_t>(popcount(rem >> (bit + 1)) + 1)) << (16 + 4 * j)\n", ""),
    Fault("ex_hash_no_moon", T, "| (<uint64_t>s.moon << 3)\n                | (<uint64_t>s.target << 6) | (<uint64_t>kind << 8)",
          "| (<uint64_t>s.target << 6) | (<uint64_t>kind << 8)"),
    Fault("ex_no_forced_lead", T, "                | (<uint64_t>s.first_trick << 12) | (<uint64_t>(s.forced_lead + 1) << 16))",
          "                | (<uint64_t>s.first_trick << 12))"),
    Fault("probe_merge_hi", T, "        if b[i].hi < hi[0]:\n            hi[0] = b[i].hi\n            ehi[0] = &b[i]",
          "        if b[i].hi < hi[0]:\n            hi[0] = b[i].hi - 1\n            ehi[0] = &b[i]"),
    Fault("store_merge_pattern", T, "                and b[i].pattern[3] == pattern[3]):", "                ):"),
    Fault("tt_rel_none", T, "    if elo != NULL:\n        rel_lo[0] = tt_rel(elo, k)", "    if elo != NULL:\n        rel_lo[0] = 0"),
    # the Python around the engine (solver/analysis.py, position.py)
    Fault("points_left_trick", A, "    cards = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | mask_of(p.trick)\n",
          "    cards = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]\n"),
    Fault("moon_asked_late", A, "if state not in (0, side + 1) or p.moon_total <= 0:",
          "if state not in (0,) or p.moon_total <= 0:"),
    Fault("best_card_max", A, "            best = min(r.guarantee for r in rows)", "            best = max(r.guarantee for r in rows)"),
    Fault("moon_state_seats", P, "                side = i & 1 if pair else i\n", "                side = i\n"),
    Fault("score_no_moon", P, "        if M <= 0 or ms in (0, 7):", "        if M <= 0 or ms in (0, 7, 1):"),
    # the rules of play in Python (solver/position.py), which positions are checked against
    *_faults(P, POSITION_TESTS, [
        ("legal_no_follow", "        legal = follow or h\n", "        legal = h\n"),
        ("legal_hearts_closed", "    elif not broken and h & ~HEART_MASK:", "    elif 0 and h & ~HEART_MASK:"),
        ("position_trick1_points", "        legal = legal & ~rules.point_mask or legal\n", "        pass\n"),
        ("winner_any_suit", "        if trick[k] >> 4 == lead and trick[k] > trick[best]:",
         "        if trick[k] > trick[best]:"),
        ("states_never_broken", "            broken = broken or breaks_hearts(mask_of(trick), queen_breaks)",
         "            broken = broken"),
        ("position_never_broken", "                broken = broken or breaks_hearts(won_cards, queen_breaks)",
         "                broken = broken"),
        ("position_winner_takes", "                taken[leader] |= won_cards\n",
         "                taken[(leader + 1) & 3] |= won_cards\n"),
        ("queen_never_breaks", "    return bool(won & HEART_MASK) or (queen_breaks and bool(won & SQ.mask))",
         "    return bool(won & HEART_MASK)"),
        ("forced_lead_ignored", "    elif forced is not None:\n        legal = 1 << forced", "    elif 0:\n        legal = 1 << forced"),
        ("trick1_points_only_none", "legal = legal & ~rules.point_mask or legal\n", "legal = legal & ~rules.point_mask\n"),
        ("lowest_club_highest", "(clubs & -clubs).bit_length() - 1", "clubs.bit_length() - 1"),
        ("given_leader_unchecked", "    if given is not None and given != holder:", "    if 0:"),
        ("discard_called_play", 'verb = "lead" if led is None else "play" if card.suit == led else "discard"',
         'verb = "lead" if led is None else "play"'),
        ("already_played_unsaid", "            if card in self.played:\n", "            if 0:\n"),
        ("not_in_deal_unsaid", "            if holder is None:\n                return f\"{seat} cannot play {card}: it is not",
         "            if 0:\n                return f\"{seat} cannot play {card}: it is not"),
        ("hand_over_trick_count", 'f"after trick {len(self.played) // 4}, the last', 'f"after trick {len(self.played) // 4 + 1}, the last'),
        ("states_none_unbroken", 'leader, broken = Seat.of(leader0), rules.hearts_break == "none"',
         "leader, broken = Seat.of(leader0), False"),
        ("start_none_unbroken", '                   r.hearts_break == "none")', "                   False)"),
        ("trick_points_uncounted", "+ self.rules.trick_points * tricks", ""),
        ("moon_subtract_unsubtracted", '{"add": 0, "subtract": -M, "none": M}', '{"add": 0, "subtract": 0, "none": M}'),
        ("moon_none_adds", '{"add": M, "subtract": 0, "none": 0}', '{"add": M, "subtract": 0, "none": M}'),
        ("taken_by_one_seat", "return self.taken[seats[0]] | self.taken[seats[-1]]", "return self.taken[seats[0]]"),
        ("fast_play_unchecked", "if bit & hands[seat] & legal_cards(self.rules", "if bit & hands[seat] & ~0 or legal_cards(self.rules"),
        ("forced_every_trick", "None if played else forced)", "forced)"),
        ("made_directly_empty", "        if any(self.hands) or self.trick or", "        if 1 or any(self.hands) or self.trick or"),
        ("random_play_past_end", "            if p.is_over:\n                break", "            if 0:\n                break"),
        ("trick_winner_of_three", "    for k in (1, 2, 3):\n        if trick[k]", "    for k in (1, 2):\n        if trick[k]"),
        ("to_json_leader_now", '"leader": str(self.leader0)}', '"leader": str(self.leader)}'),
        ("moon_state_north_first", "                if taker >= 0 and side != taker:", "                if taker > 0 and side != taker:"),
        ("free_lead_holder_leads", '    if rules.first_lead == "free":\n', "    if 0:\n"),
    ]),
    # the deals a seat cannot tell apart (solver/sampling.py)
    *_faults("solver/sampling.py", SAMPLING_TESTS, [
        ("sample_void_ignored", "                if not c.mask & legal_cards(rules, later | u.mask, trick, first_trick, broken, forced):",
         "                if 0 and not c.mask & legal_cards(rules, later | u.mask, trick, first_trick, broken, forced):"),
        ("sample_known_kept", "            if t != s:\n                allowed[t] &= ~mask", "            if 0:\n                allowed[t] &= ~mask"),
        ("sample_split_weight", "            out.append((split, ways * self.ways(k + 1, after), after))",
         "            out.append((split, self.ways(k + 1, after), after))"),
        ("sample_low_club", "        known = {**known, leader0: known.get(leader0, 0) | low.mask}", "        pass"),
        ("sample_own_hand_dropped", "        hands[observer] = own\n", "        pass\n"),
        ("view_leader_from_own", "        leader0 = observer.next(4 - own[0])",
         "        leader0 = observer.next(own[0])"),
        ("view_own_card_not_dealt", "            if not dealt & c.mask:\n", "            if 0:\n"),
        ("view_other_plays_own_card", "        elif dealt & c.mask:\n            raise",
         "        elif 0:\n            raise"),
        ("view_other_card_illegal", "        elif not c.mask & legal_cards(r, later[s], trick, i < 4, broken, forced):",
         "        elif 0:"),
        ("view_card_replayed", "        if c in cards:\n            raise",
         "        if 0:\n            raise"),
        ("view_hand_under_13", "    if dealt.bit_count() != 13:", "    if dealt.bit_count() > 13:"),
        ("view_leader_not_low_holder", "        if given is not None and given != observer:",
         "        if 0:"),
        ("view_low_leader_not_holder", "    elif low is not None and given == observer:", "    elif 0:"),
        ("view_free_lead_guessed", "    elif given is None and low is None:\n", "    elif 0:\n"),
        ("view_later_kept", "        later[s] &= ~c.mask\n", "        pass\n"),
        ("known_for_two_seats", "            twice = [t for t, m in out.items() if m & c.mask and t != s]",
         "            twice = []"),
        ("known_out_of_deal", "            if not sight.deck & c.mask:\n", "            if 0:\n"),
        ("known_own_hand_mixed", "            if (s == observer) != bool(sight.dealt & c.mask):",
         "            if 0:"),
        ("known_played_by_other", "            if by != s:\n", "            if 0:\n"),
        ("known_low_elsewhere", "        if elsewhere:\n", "        if 0:\n"),
        ("known_unfitting", "        if s != observer and mask & unseen & ~allowed[s]:", "        if 0:"),
        ("known_not_excluded", "            if t != s:\n                allowed[t] &= ~mask",
         "            if t == s:\n                allowed[t] &= ~mask"),
        ("checks_none", "            if not c.mask & legal_cards(self.rules, self.deck, trick, i < 4, broken, forced):",
         "            if 0:"),
        ("like_played_kept", "    out = [h & ~played for h in hands]", "    out = list(hands)"),
        ("like_first_leader", "            if first is None or leader0 != first.leader0:",
         "            if first is None:"),
        ("weigh_mean_over_drawn", "CardWeight(c, total[c] / len(answers), best[c])",
         "CardWeight(c, total[c] / len(deals), best[c])"),
        ("weigh_tie_fewer_best", "key=lambda w: (w.mean, -w.best_in)", "key=lambda w: (w.mean, w.best_in)"),
        ("weigh_best_every", "best[m.card] = best.get(m.card, 0) + m.best",
         "best[m.card] = best.get(m.card, 0) + 1"),
        ("weigh_hands_differ", "        if q.hands[observer] != deals[0].hands[observer]:", "        if 0:"),
        ("weigh_plays_differ", "        if q.played != deals[0].played:", "        if 0:"),
        ("weigh_not_to_play", "    if movers - {observer}:", "    if 0:"),
        ("drawer_unfilled", "            return 1 if not any(room) else 0", "            return 1"),
        ("drawer_never_unfit", "        if self.ways(0, self.sizes) == 0:", "        if 0:"),
        ("seed_negative", "not isinstance(seed, bool) and int(seed) >= 0:", "not isinstance(seed, bool):"),
        ("count_negative", "not isinstance(count, numbers.Integral) or count < 0:",
         "not isinstance(count, numbers.Integral):"),
        ("hand_card_twice", "            if mask & card.mask:\n", "            if 0:\n"),
        ("hand_mask_bits", "            if what < 0 or what & ~DECK:", "            if what < 0:"),
        ("view_seat_prefix", '            if seat.strip().upper() in ("N", "E", "S", "W"):',
         "            if 0:"),
        ("weigh_view_turn", "    if lead is not None and any(q.to_move != observer for q in deals):",
         "    if 0:"),
    ]),
    # a play's review (solver/review.py)
    *_faults("solver/review.py", REVIEW_TESTS, [
        ("cost_sign", "        return self.guarantee - self.best\n", "        return self.best - self.guarantee\n"),
        ("best_cards_of_best", "if not row.best else ()", "if row.best else ()"),
        ("cost_trick", "card_costs.append(CardCost(k // 4 + 1,", "card_costs.append(CardCost(k // 4,"),
        ("played_by_trick", "    return [((len(before) + k) // 4 + 1, seat, c)", "    return [(k // 4 + 1, seat, c)"),
        ("moon_flag_before", "            mover_flag = flags[mover_side][k] and _moon(budget, after, mover_side)",
         "            mover_flag = flags[mover_side][k] and _moon(budget, p, mover_side)"),
        ("moon_flag_others", "                flags[side].append(True)     # the others'",
         "                flags[side].append(False)     # the others'"),
        ("moon_at_end", "        return p.moon_state == side + 1\n", "        return True\n"),
        ("lost_with_last", "k is None or k == len(self.cards) else", "k is None or k == len(self.cards) - 1 else"),
        ("segments_split", "if f and runs and runs[-1][1] == k - 1:", "if f and runs and runs[-1][1] == k - 2:"),
        ("report_position", "self.moon[s].forceable[k + 1] for s in Seat", "self.moon[s].forceable[k] for s in Seat"),
        ("foot_none_missed", "if 0 < total - points <= min(FOOT_MARGIN, total // 4):",
         "if 0 <= total - points <= min(FOOT_MARGIN, total // 4):"),
        ("foot_quarter", "if 0 < total - points <= min(FOOT_MARGIN, total // 4):",
         "if 0 < total - points <= FOOT_MARGIN:"),
        ("moon_split", "end.moon_total <= 0 or state in (0, 7):", "end.moon_total <= 0 or state in (0,):"),
        ("replay_wrong_starter_taken", "    if recorded.tricks and recorded.seat != start.to_move and any(",
         "    if 0 and recorded.tricks and recorded.seat != start.to_move and any("),
        ("replay_late_card_dropped", "            if late is not None:\n", "            if 0:\n"),
        ("replay_over_called_missing", 'why = "the hand is over" if pos.is_over and not stopped else "a card is missing before it"',
         'why = "a card is missing before it"'),
        ("replay_past_gap", "            if stopped:\n                return Replay(start, tuple(cards), f\"trick {number}: {seat}'s",
         "            if 0:\n                return Replay(start, tuple(cards), f\"trick {number}: {seat}'s"),
        ("play_seat_never_leads", "        if play_seat is None:\n            raise PlayError('nobody",
         "        if 1:\n            raise PlayError('nobody"),
        ("given_leader_dropped", "    if leader is not None:\n        return Position.start(deal, rules, leader)",
         "    if 0:\n        return Position.start(deal, rules, leader)"),
        ("moon_report_lost_before", "steps[moon.last_forceable or 0]", "steps[(moon.last_forceable or 1) - 1]"),
        ("moon_report_flags_before", "self.moon[s].forceable[k + 1] for s in Seat}", "self.moon[s].forceable[k] for s in Seat}"),
        ("moon_shot_without_moon_rule", '    if end.rules.moon == "none" or end.moon_total <= 0 or state in (0, 7):',
         "    if end.moon_total <= 0 or state in (0, 7):"),
        ("foot_without_moon_rule", '    if total <= 0 or end.rules.moon == "none":', "    if total <= 0:"),
        ("given_by_its_own_card", '"given_by": card(a - 1) if a > 0 else None', '"given_by": card(a) if a > 0 else None'),
        ("segment_lost_before", '"lost_with": card(b) if b < len(self.cards) else None', '"lost_with": card(b - 1) if b < len(self.cards) else None'),
        ("review_names_unsplit", "        cards = cards.split()\n", "        pass\n"),
    ]),
    # rule sets (solver/rules.py): the presets' values, the keys and their checks
    *_faults("solver/rules.py", RULES_TESTS, [
        ("spot_face_value", "spot[int(c)] = c.rank + 2", "spot[int(c)] = c.rank + 1"),
        ("maria_spade_ace", 'maria[int(Card.parse("SA"))] = 7', 'maria[int(Card.parse("SA"))] = 6'),
        ("omnibus_jack_sign", 'omni[int(Card.parse("DJ"))] = -10', 'omni[int(Card.parse("DJ"))] = 10'),
        ("suit_beats_card", "            cards.append((int(card), val))", "            values[int(card)] = val"),
        ("unknown_key_ignored", "            if key not in KEYS:\n", "            if 0:\n"),
        ("negative_point_cards", "return sum(m for v, m in self._value_masks if v > 0)",
         "return sum(m for v, m in self._value_masks if v != 0)"),
        ("score_limit_off", "        if reach > SCORE_LIMIT:", "        if reach > SCORE_LIMIT + 1:"),
        ("subtract_reach_once", '{"add": 1, "subtract": 2}', '{"add": 1, "subtract": 1}'),
        ("choice_case", "            if v.strip().lower() == o.lower():", "            if v == o:"),
        ("whole_float_refused", "        if not (isinstance(v, float) and v.is_integer()):", "        if 1:"),
        ("shortest_every_setting", "if key not in (\"preset\", \"values\") and value != theirs[key])",
         "if key not in (\"preset\", \"values\"))"),
        ("bool_takes_int", '    if not isinstance(v, bool):\n        raise RulesError(f"rule {key!r}: expected true',
         '    if not isinstance(v, (bool, int)):\n        raise RulesError(f"rule {key!r}: expected true',
         "Rules.__post_init__ refuses a number there too, in the same words"),
        ("preset_case_in_object", "preset.strip().lower() not in PRESETS:", "preset not in PRESETS:"),
        ("value_limit_shut", '    if abs(v) > VALUE_LIMIT:\n        raise RulesError(f"rule {what}',
         '    if abs(v) >= VALUE_LIMIT:\n        raise RulesError(f"rule {what}'),
        ("direct_values_range", "all(_is_int(v) and abs(v) <= VALUE_LIMIT for v in self.values)",
         "all(_is_int(v) for v in self.values)"),
        ("direct_trick_points_range", "if not (_is_int(self.trick_points) and abs(self.trick_points) <= VALUE_LIMIT):",
         "if not _is_int(self.trick_points):"),
        ("reach_trick_points_12", "+ 13 * abs(self.trick_points)", "+ 12 * abs(self.trick_points)"),
        ("reach_signed_values", "reach = (sum(abs(v) for v in self.values)", "reach = (sum(v for v in self.values)"),
        ("reach_moon_none", '{"add": 1, "subtract": 2}.get(self.moon, 0)', '{"add": 1, "subtract": 2}.get(self.moon, 1)'),
        ("moon_total_every_card", "        return self.points_of(cards & self.point_mask)",
         "        return self.points_of(cards)"),
        ("to_json_always_dict", "return self.preset if self == Rules.parse(self.preset) else self.to_dict()",
         "return self.to_dict()"),
        ("dict_lists_every_value", "if self.values[c] != base.get(int(c), 0)}", "if self.values[c]}"),
        ("shortest_suit_on_tie", "len(by_suit) < len(differ)", "len(by_suit) <= len(differ)"),
        ("catalogue_bool_no_choices", 'return [False, True] if self.json_type == "boolean" else None',
         "return None"),
        ("values_key_unstripped", "k = card_letters(str(key).strip())", "k = card_letters(str(key))"),
        ("direct_bool_unchecked",
         '            if key.json_type == "boolean" and not isinstance(getattr(self, key.name), bool):',
         "            if 0:"),
        ("direct_values_any_length", "isinstance(self.values, tuple) and len(self.values) == 64",
         "isinstance(self.values, tuple)"),
        ("array_rules_a_preset", 'if text.startswith(("{", "[")):', 'if text.startswith("{"):'),
        ("int_takes_bool", "    if isinstance(v, bool) or not isinstance(v, int):", "    if not isinstance(v, int):"),
        ("catalogue_every_value", "{str(c): rules.values[c] for c in cards_of(DECK) if rules.values[c]}",
         "{str(c): rules.values[c] for c in cards_of(DECK)}"),
        ("describe_names_preset", 'for key, value in short.items() if key != "preset"]',
         "for key, value in short.items()]"),
        ("with_unknown_field_taken", "            if key not in _FIELDS:\n", "            if 0:\n"),
    ]),
    # deals, hands, cards and seats (solver/deal.py, cards.py)
    *_faults("solver/deal.py", DEAL_TESTS, [
        ("card_in_two_hands", "            dup = seen & hand\n", "            dup = 0\n"),
        ("card_twice_in_hand", "            if mask & bit:\n", "            if 0:\n"),
        ("first_seat_ignored", "            seat = first.next(i)\n", "            seat = Seat(i)\n"),
        ("dash_any_size", 'if any(bin(h).count("1") != 13 for h in known):', "if 0:"),
        ("hand_low_first", "range(12, -1, -1) if lane >> r & 1", "range(13) if lane >> r & 1"),
        ("three_suits_a_hand", "    if len(suits) != 4:", "    if len(suits) > 4:"),
        ("ten_unread", 'ascii_upper(ranks).replace("10", "T")', "ascii_upper(ranks)"),
        ("hand_bits_outside_deck", "            if hand & ~DECK or hand < 0:", "            if hand < 0:"),
        ("deal_sizes_unchecked", "        if len(sizes) != 1:\n", "        if 0:\n"),
        ("deal_no_cards_taken", "        if sizes == {0}:\n", "        if 0:\n"),
        ("dash_dup_unchecked", "                if seen & h:\n                    raise DealError", "                if 0:\n                    raise DealError"),
        ("two_dashes_taken", "        if len(missing) > 1:", "        if len(missing) > 2:"),
        ("random_negative_seed", "            if rng < 0:\n", "            if 0:\n"),
        ("deal_list_kept", '        object.__setattr__(self, "hands", hands)   # a list', '        pass   # a list'),
        ("deal_bool_hand", "all(isinstance(h, int) and not isinstance(h, bool) for h in hands)", "all(isinstance(h, int) for h in hands)"),
        ("hand_five_suits", '    if len(suits) != 4:\n        raise DealError(f"hand', '    if len(suits) < 4:\n        raise DealError(f"hand'),
        ("deal_unknown_first_seat", '                first = Seat.parse(t[0])\n            except CardError:', '                first = Seat.parse(t[0])\n            except KeyError:'),
    ]),
    *_faults("solver/cards.py", DEAL_TESTS, [
        ("suit_last_unread", "        elif len(t) >= 2 and t[-1] in SUITS:", "        elif 0:"),
        ("partner_next", "        return _SEAT_ORDER[(self + 2) % 4]", "        return _SEAT_ORDER[(self + 1) % 4]"),
        ("seat_case", "        t = ascii_upper(str(text).strip())", "        t = str(text).strip()"),
        ("card_ten_unread", 'rank = "T" if rank == "10" else rank', "rank = rank"),
        ("seat_number_4", "and not isinstance(seat, bool) and 0 <= seat < 4:", "and not isinstance(seat, bool) and 0 <= seat < 5:"),
        ("seat_bool_taken", "and not isinstance(seat, bool) and 0 <= seat < 4:", "and 0 <= seat < 4:"),
        ("index_rank_13", "index & 15 >= 13:", "index & 15 > 13:"),
        ("variation_kept", "            **{ord(v): None for v in VARIATIONS}}", "            }"),
        ("cards_low_first", "            rank = lane.bit_length() - 1\n            yield", "            rank = (lane & -lane).bit_length() - 1\n            yield"),
        ("rank_substring", "        if len(rank) != 1 or rank not in RANKS:", "        if rank not in RANKS:"),
        ("card_bad_suit_number", "ok = not isinstance(suit, str) and 0 <= suit < 4 and 0 <= rank < 13",
         "ok = not isinstance(suit, str) and 0 <= suit < 4 and 0 <= rank < 16"),
    ]),
    # hand records (solver/pbn.py): inheritance, deals, play, passing, the Hearts tags
    *_faults("solver/pbn.py", RECORD_TESTS, [
        ("inherit_nothing", '                value = context.last.get(t.name, "")\n', '                value = ""\n'),
        ("defaults_dropped", "    resolved.update(context.defaults)", "    pass"),
        ("tag_twice_last", "        if t.name in resolved:\n", "        if 0:\n"),
        ("dash_hand_unfilled", "    if len(missing) == 1 and sizes == {13}:", "    if 0:"),
        ("board_forgotten", "        same = context.boards.get(board) if board else None", "        same = None"),
        ("play_unpadded", '    while len(slots) % 4:\n        slots.append("-")', "    pass"),
        ("play_past_star", "            if ended:\n", "            if 0:\n"),
        ("pass_reversed", "        return seat.next(PASS_DIRECTIONS[self.direction])",
         "        return seat.next(-PASS_DIRECTIONS[self.direction])"),
        ("pass_fewer", "            if n != 3:", "            if n > 3:"),
        ("new_file_inherits", "            context = _Context()\n", "            pass\n"),
        ("leader_tag_ignored", "            record.leader = Seat.parse(leader)", "            Seat.parse(leader)"),
        ("rules_tag_ignored", "            record.rules = Rules.parse(rules)", "            Rules.parse(rules)"),
        ("header_is_a_game", "    return bool(seen)\n", "    return False\n"),
        ("deal_hand_over_13", "        if n > 13:\n", "        if n > 14:\n"),
        ("deal_dup_partial", '        if seen & h:\n            errors.append(f"{where} card',
         '        if 0:\n            errors.append(f"{where} card'),
        ("deal_sizes_unequal", "    if len(sizes) > 1:\n", "    if 0:\n"),
        ("deal_empty_hands", "    if not given or not any(h for _, h in given):", "    if not given:"),
        ("deal_board_other_hand", "all(h is None or h == same.hands[s] for s, h in zip(Seat, hands))",
         "all(h is None or h & same.hands[s] for s, h in zip(Seat, hands))"),
        ("deal_board_differs", "            record.board_differs = same is not None",
         "            record.board_differs = False"),
        ("deal_double_space", '    if "" in parts:\n', "    if 0:\n"),
        ("deal_first_seat", '    if len(v) >= 2 and v[1] == ":":',
         '    if len(v) >= 2 and v[1] == ":" and 0:'),
        ("play_bad_card_no_slot", '                        slots.append("-")\n                        continue',
         "                        continue"),
        ("play_after_plus", "                    if plus_seen and len(slots) // 4 > plus_trick:",
         "                    if 0:"),
        ("play_suffix_twice", "                elif card_marks > 1:", "                elif card_marks > 2:"),
        ("play_nag_256", "or int(number) > 255:", "or int(number) > 256:"),
        ("play_nag_call_6", "elif 1 <= int(number) <= 6 or int(number) == 13:",
         "elif 1 <= int(number) <= 5 or int(number) == 13:"),
        ("play_nag_mark_twice", "                    card_marks += 1\n                    if card_marks > 1:",
         "                    if card_marks > 1:"),
        ("play_note_33", "not 1 <= int(inner) <= 32:", "not 1 <= int(inner) <= 33:"),
        ("play_note_twice", "                elif notes > 1:\n", "                elif 0:\n"),
        ("play_irregular_dash", '                if irregular and tok == "-":', "                if 0:"),
        ("play_irregular_last", '    if irregular:\n        errors.append(f"line {tag.line}: [Play] {irregular} at the end',
         '    if 0:\n        errors.append(f"line {tag.line}: [Play] {irregular} at the end'),
        ("play_irregular_kept", '                irregular = ""\n                if tok == "-":',
         '                if tok == "-":'),
        ("play_plus_twice", "                if plus_seen:\n                    errors.append",
         "                if 0:\n                    errors.append"),
        ("play_after_star_every", "                if not after_end_reported:\n", "                if 1:\n"),
        ("play_ten_refused", 't[1:] not in (*RANKS, "10")', "t[1:] not in RANKS"),
        ("play_empty_is_error", '        if value == "" and not tag.words:\n            return None',
         "        if 0:\n            return None"),
        ("pass_hold_with_cards", '        if direction == "hold":\n', "        if 0:\n"),
        ("pass_card_twice", "            if seen & m:\n", "            if 0:\n"),
        ("pass_deal_unchecked", "for c in cards_of(m & ~record.deal.hands[to]):", "for c in cards_of(0):"),
        ("pass_no_direction", "    if not direction:\n        errors.append",
         "    if 0:\n        errors.append"),
        ("inherit_deal_allowed", "            if t.name in NOT_INHERITED:\n", "            if 0:\n"),
        ("hash_keeps_default", "                context.defaults.pop(t.name, None)\n",
         "                pass\n"),
        ("plain_keeps_default", "        elif t.name in context.defaults:\n            context.defaults[t.name] = value",
         "        elif 0:\n            context.defaults[t.name] = value"),
        ("defaults_one_more", "len(context.defaults) < MAX_DEFAULTS:",
         "len(context.defaults) <= MAX_DEFAULTS:"),
        ("note_twice_error", '            if t.name != "Note":\n', "            if 1:\n"),
        ("play_section_kept", '        if section and t.name != "Play":', "        if section:"),
        ("leader_line_lost", '        record.leader_line = _line(first, "HeartsLeader", record)',
         "        record.leader_line = record.line"),
        ("empty_deal_read", "        if t.value:\n            _read_deal",
         "        if 1:\n            _read_deal"),
        ("brace_percent", '    if not in_brace and text.startswith("%"):\n        return False',
         "    if 0:\n        return False"),
        ("utf32_as_utf16", "    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):",
         "    if 0:"),
        ("mac_cr_run_lost", '                    for _ in range(crs - 1):\n                        yield b"\\r"\n                crs = 0',
         "                crs = 0"),
        ("game_size_unbounded", "        if current.size > MAX_GAME_BYTES:", "        if 0:"),
        ("comment_lines_unbounded", "            if brace_lines > MAX_COMMENT_LINES:", "            if 0:"),
        ("bom_kept", "        if number == 1 and line.startswith(BOM):", "        if 0:"),
        ("dos_eof_not_blank", '_SEMI_EMPTY = " \\t\\r\\n\\x0b\\x0c\\x1a"',
         '_SEMI_EMPTY = " \\t\\r\\n\\x0b\\x0c"'),
        ("file_mark_any_version", '_FILE_MARK = re.compile(r"%[ \\t]*PBN[ \\t]+\\d+(\\.\\d+)*[ \\t]*$")',
         '_FILE_MARK = re.compile(r"%[ \\t]*PBN")'),
        ("ends_a_game_half_line", '    if not data.endswith(b"\\n"):\n        return False', "    pass"),
    ]),
    # the outputs (solver/writers.py)
    *_faults("solver/writers.py", RECORD_TESTS, [
        ("csv_cost_of_others", 'if c["seat"] == seat)', 'if c["seat"] != seat)'),
        ("csv_lost_card_first", "f\"{lost['trick']}:{lost['card']}\" if lost else \"\"",
         "f\"{lost['card']}:{lost['trick']}\" if lost else \"\""),
        ("csv_formula_kept", "return f\"'{printable(value)}\" if _FORMULA.match(value) else printable(value)",
         "return printable(value)"),
        ("pbn_old_tags_kept", "    raw = _without(record.raw, record.annotation_spans)", "    raw = record.raw"),
        ("pbn_tags_in_comment", "    if not lines or record.open_comment:", "    if not lines:"),
        ("pbn_no_file_mark", "                and not starts_a_file(data):", "                and 0:"),
        ("pbn_games_run_together", "        if not ends_a_game(self._tail):", "        if 0:"),
        ("pbn_resume_blind", '        self._tail = (b"\\n\\n" + tail)[-TAIL:]', '        self._tail = b"\\n\\n"'),
        ("text_legend_each", 'head = "" if self.headed else', 'head = "" if not self.headed else'),
        ("csv_header_each", "        if not self.headed:\n            self.csv.writeheader()",
         "        if 1:\n            self.csv.writeheader()"),
        ("csv_rules_object_raw", '    if isinstance(row["rules"], dict):\n        row["rules"] = json.dumps(row["rules"])',
         "    pass"),
        ("csv_shots_none", '            row[key] = " ".join(seats) if seats is not None else None',
         "            row[key] = None"),
        ("csv_score_missing", '            row[f"{seat}_score"] = (rv["scores"] or {}).get(seat)',
         "            pass"),
        ("csv_formula_tab_kept", '_FORMULA = re.compile(r"[=+\\-@][^\\n]|[\\t\\r]")',
         '_FORMULA = re.compile(r"[=+\\-@][^\\n]")'),
        ("csv_dash_escaped", '_FORMULA = re.compile(r"[=+\\-@][^\\n]|[\\t\\r]")',
         '_FORMULA = re.compile(r"[=+\\-@]|[\\t\\r]")'),
        ("table_width_fixed", "max([w, *(len(str(row[i])) for row in rows)]) if w > 1 else w", "w"),
        ("optimum_table_partial", '    if players and all("guarantee" in p for p in players.values()):',
         "    if players:"),
        ("cost_table_empty_best", '",".join(c["best_cards"]) or "-"', '",".join(c["best_cards"])'),
        ("moon_table_last_none", '"-" if last is None else last,', "last,"),
        ("error_tag_line_kept", '        message = _LINE_PREFIX.sub(r"\\1", result["error"])',
         '        message = result["error"]'),
        ("score_tags_always", '        if rv["scores"] is not None:\n            lines.append(f"[HeartsScore',
         '        if 1:\n            lines.append(f"[HeartsScore'),
        ("pbn_same_file_again", "(last[0] != record.source or last[1] >= record.line)",
         "(last[0] != record.source)"),
        ("pbn_bom_after_mark", '            bom = BOM if data.startswith(BOM) else b""',
         '            bom = b""'),
        ("pbn_one_newline", '(newline if self._tail.endswith((b"\\n", b"\\r")) else newline * 2)', "newline"),
        ("annotated_no_newline", '    if raw and not raw.endswith((b"\\n", b"\\r")):\n        raw += newline',
         "    pass"),
        ("annotated_lf_always", "    text = newline.decode().join(lines) + newline.decode()",
         '    text = "\\n".join(lines) + "\\n"'),
        ("annotated_utf8_always", '    return raw + text.encode(encoding, errors="replace")',
         '    return raw + text.encode("utf-8")'),
        ("without_unsorted", "    for start, end in sorted(spans):", "    for start, end in spans:"),
        ("text_long_line_kept", "        if len(line) > WIDTH and rules + leads:", "        if 0:"),
        ("text_pass_direction_ignored", '        step = PASS_DIRECTIONS.get(passing["direction"], 0)',
         "        step = 1"),
        ("text_hold_said", '        if passing["direction"] == "hold":', "        if 0:"),
        ("text_costly_all", '        costly = [c for c in rv["cards"] if c["cost"]]',
         '        costly = rv["cards"]'),
        ("play_stop_count", "        n, k = (len(cards) - 1) // 4 + 1, len(cards) % 4",
         "        n, k = len(cards) // 4 + 1, len(cards) % 4"),
        ("taker_leader_ignored", "    return str(Seat.parse(leader).next(trick_winner([Card.parse(name) for name in trick])))",
         "    return str(Seat(trick_winner([Card.parse(name) for name in trick])))"),
        ("wrapped_past_width", "len(line) + len(piece) > width:", "len(line) + len(piece) > width + 8:"),
        ("cost_two_best_and", '        named = f"{\', \'.join(best[:-1])} or {best[-1]}"',
         '        named = ", ".join(best)'),
        ("moon_story_partners_apart", '            seats_by_story.setdefault(", then ".join(runs), []).append(seat)',
         '            seats_by_story.setdefault(seat + ", then ".join(runs), []).append(seat)'),
        ("moon_story_end_same", 'end = "to the end" if review.get("complete") else "to the end of the recorded play"',
         'end = "to the end"'),
        ("moon_line_nobody", '("/".join(seats) if seats else "nobody")', '"/".join(seats)'),
        ("format_case", "            if path.lower().endswith(suffix):",
         "            if path.endswith(suffix):"),
        ("record_place_board", '    board = f", board {result[\'board\']}" if result.get("board") else ""',
         '    board = ""'),
    ]),
    # annotating (solver/batch.py)
    *_faults("solver/batch.py", RECORD_TESTS, [
        ("unknown_rules_solved", "    if record.rules_unknown:\n", "    if 0:\n"),
        ("option_rules_first", "    rules = record.rules or options.rules or STANDARD",
         "    rules = options.rules or record.rules or STANDARD"),
        ("review_unasked", "if record.play is not None and (options.review or options.moon_only):",
         "if record.play is not None:"),
        ("pass_left_out", '    if record.passing is not None:\n        out["pass"]', '    if 0:\n        out["pass"]'),
        ("bad_leader_unsolved", "        start = start_position(deal, rules, None, play_seat)\n",
         "        return out, errors, None, ()\n"),
        ("play_error_at_record", "errors.append(f\"line {record.play.line_of(played.trick) or record.line}: [Play]",
         "errors.append(f\"line {record.line}: [Play]"),
        ("review_stage_unsaid", '            stage = " (in the review of the play)"', '            stage = ""'),
        ("memory_error_ends_chunk", "        except MemoryError as e:    # the table (--table-mb)",
         "        except ZeroDivisionError as e:    # the table (--table-mb)"),
        ("full_deals_chunked", "    return max(1, AUTO_CHUNK >> max(0, cards - 4))", "    return AUTO_CHUNK"),
        ("unannotated_unread", "        out, errors, _, _ = _read(record, options or AnnotateOptions())",
         "        out, errors = _unanswered(record), list(record.errors)"),
        ("no_deal_unsaid", "        if problem:\n            errors.append(problem)",
         "        if 0:\n            errors.append(problem)"),
        ("leader_error_at_record", 'errors.append(f"line {record.leader_line}: [HeartsLeader] {e}")',
         'errors.append(f"line {record.line}: [HeartsLeader] {e}")'),
        ("start_error_unsaid", '            errors.append(f"line {record.line}: {e}")\n            return out, errors, None, ()',
         "            return out, errors, None, ()"),
        ("leader_unwritten", '    out["leader"] = str(start.to_move)', '    out["leader"] = None'),
        ("play_unwritten", '        out["play"] = " ".join(str(c) for c in cards)',
         '        out["play"] = None'),
        ("moon_only_costed", "costs=not options.moon_only)", "costs=True)"),
        ("budget_words_ignored", "        why = options.out_of_time or out_of_time(",
         "        why = out_of_time("),
        ("file_unwritten", '    if record.source is not None:\n        out["file"]',
         '    if 0:\n        out["file"]'),
        ("deal_unwritten", '    if record.deal is not None:\n        out["deal"]',
         '    if 0:\n        out["deal"]'),
        ("unannotated_more_dropped", '[*errors, f"line {record.line}: not annotated: {why}"], record.more_errors)',
         '[*errors, f"line {record.line}: not annotated: {why}"])'),
        ("chunk_size_ignored", "    if size is not None:\n        it = iter(records)",
         "    if 0:\n        it = iter(records)"),
        ("full_deal_joins_chunk", "        if chunk and len(chunk) >= min(least, limit):", "        if 0:"),
        ("window_unbounded", "            while len(pending) >= window:",
         "            while len(pending) >= 1000 * window:"),
        ("five_cards_as_four", "AUTO_CHUNK >> max(0, cards - 4))", "AUTO_CHUNK >> max(0, cards - 5))"),
        ("empty_message_blank", 'shortened(" ".join(str(e).split()) or type(e).__name__, 200)',
         'shortened(" ".join(str(e).split()), 200)'),
        ("files_limit_doubled", "    if soft == resource.RLIM_INFINITY or need <= soft:",
         "    if soft == resource.RLIM_INFINITY or need <= 2 * soft:"),
        ("start_hint_dropped", '        hint = _LIMIT_HINTS.get(e.errno or 0, "")', '        hint = ""'),
        ("one_job_default", "        return max(1, len(os.sched_getaffinity(0)))", "        return 1"),
        ("unannotated_standard_rules", "_read(record, options or AnnotateOptions())",
         "_read(record, AnnotateOptions())"),
        ("time_error_unplaced", 'errors.append(f"line {record.line}: {why}{stage}")',
         'errors.append(f"{why}{stage}")'),
        ("other_table_same_solver", "    if table_mb not in _SOLVERS:", "    if not _SOLVERS:"),
    ]),
    # resuming (solver/checkpoint.py)
    *_faults("solver/checkpoint.py", RECORD_TESTS, [
        ("input_changed_unseen", 'if digest.hexdigest() != held["input_sha256"]:', "if 0:"),
        ("output_changed_unseen", 'if self._output.hexdigest() != held["output_sha256"]:', "if 0:"),
        ("unsaved_tail_kept", '        self.out.truncate(held["bytes"])', "        pass"),
        ("other_run_taken", 'for k, v in self.run.items() if state["run"].get(k) != v]',
         "for k, v in self.run.items() if 0]"),
        ("annotated_miscounted", 'd.annotated + (result["players"] is not None)', "d.annotated + 1"),
        ("output_unlocked", "                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n",
         "                pass\n"),
        ("short_output_unseen", "            elif st.st_size < held_bytes:", "            elif 0:"),
        ("negative_count_taken", "if not all(type(n) is int and n >= 0 for n in counts) or", "if not all(type(n) is int for n in counts) or"),
        ("more_annotated_than_read", 'max(state["annotated"], state["errors"]) > state["records"]:',
         'max(state["annotated"], state["errors"]) > state["records"] + 1:'),
        ("others_output_taken", "if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():",
         "if not stat.S_ISREG(st.st_mode):"),
        ("nothing_done_kept", "        if self.created and records == 0:\n", "        if 0:\n"),
        ("ended_run_checkpoint_kept", "        if self.replaced:       # (stopped as it ended: OUT is whole)\n            with suppress(OSError):\n                os.unlink(self.state_path)\n",
         "        if self.replaced:       # (stopped as it ended: OUT is whole)\n            with suppress(OSError):\n                pass\n"),
        ("other_format_taken", 'if not isinstance(state, dict) or state.get("hearts-dd checkpoint") != FORMAT:',
         "if not isinstance(state, dict):"),
        ("digests_unchecked", '                    not all(isinstance(state.get(k), str) for k in ("input_sha256", "output_sha256")) or \\\n',
         "                    False or \\\n"),
        ("run_field_unchecked", '                    not isinstance(state.get("run"), dict) or \\\n', "                    False or \\\n"),
        ("nesting_bomb_traceback", "        except (OSError, ValueError, RecursionError) as e:     # (json's",
         "        except (OSError, ValueError) as e:     # (json's"),
        ("sidecar_link_traceback", '        except OSError as e:\n            raise self._refuse(f"cannot read it',
         '        except KeyError as e:\n            raise self._refuse(f"cannot read it'),
        ("difference_unnamed", "differs = [f\"{_WHAT.get(k, k)} {_shown(", "differs = [f\"{k} {_shown("),
        ("missing_data_created", "(os.O_CREAT if self.created else 0)", "os.O_CREAT"),
        ("stale_data_kept", "                os.ftruncate(fd, 0)\n", "                pass\n",
         "begin cuts the data back to the bytes the checkpoint holds, none, before any is written"),
        ("data_mode_unset", "                os.fchmod(fd, mode)\n", "                pass\n"),
        ("fewer_inputs_unsaid", "            if record is None:\n                raise self._refuse(f\"the inputs hold",
         "            if record is None:\n                break\n                raise self._refuse(f\"the inputs hold"),
        ("tail_from_start", 'held["bytes"] - min(held["bytes"], TAIL))', "0)"),
        ("errors_uncounted", 'd.errors + (result["error"] is not None)', "d.errors"),
        ("failed_save_unraised", "                if self.failed is not None:\n                    raise self.failed",
         "                if 0:\n                    raise self.failed"),
        ("never_saved_while_running", "            if self._dirty:\n                try:", "            if 0:\n                try:"),
        ("stop_unsaved", "        if self.verified and self.failed is None:\n", "        if 0:\n"),
        ("refused_said_kept", "        if self.refused:\n            return None", "        if 0:\n            return None"),
        ("kept_always_plural", "record{'s' if records != 1 else ''} kept", "records kept"),
        ("setting_shown_raw", '        return "on" if value else "off"', "        return str(value)"),
    ]),
    # the command line (solver/cli.py) and the HTTP API (api/)
    *_faults("solver/cli.py", CLI_TESTS, [
        ("player_ignored", "    seats = [Seat.parse(player)] if player else None", "    seats = None"),
        ("input_player_ignored", "Seat.parse(player) if player else None))", "None))"),
        ("timeout_status", "out_of_time(time_limit)), code=3)", "out_of_time(time_limit)), code=1)"),
        ("leader_option_ignored", "Deal.parse(deal_text), rules, play, leader)", "Deal.parse(deal_text), rules, play, None)"),
    ]),
    *_faults("solver/cli.py", (*CLI_TESTS, "tests/test_sampling.py", "tests/test_results.py"), [
        ("deal_and_input_together", "for given in (deal_text, input_file, hand)) > 1:", "for given in (deal_text, input_file, hand)) > 2:"),
        ("hand_without_samples", "    if hand is not None and samples is None:", "    if 0:"),
        ("input_with_leader", "(play or leader or line_for or samples):", "(play or samples):"),
        ("samples_with_player", "    if samples is not None and (player or line_for):", "    if 0:"),
        ("seed_without_samples", "    if (seed is not None or known) and samples is None:", "    if 0:"),
        ("known_seat_twice_last", 'return {seat: "".join(f" {cards}" for cards in sets) for seat, sets in out.items()}',
         "return {seat: sets[-1] for seat, sets in out.items()}"),
        ("seat_cards_no_colon", "    if not colon:\n        fail(", "    if 0:\n        fail("),
        ("text_line_left_out", "        if answer.target is not None and answer.line is not None:", "        if 0:"),
        ("leader_hint_left_out", 'fail(f"{e} (--leader SEAT)")', "fail(str(e))"),
        ("no_seed_with_samples", '            out["seed"] = seed', "            pass"),
        ("cut_short_proof_dropped", "        if not any(low is not None or high is not None for low, high in self.bounds.values()):",
         "        if 1:"),
        ("nothing_to_analyze_taken", "    if deal_text is None and input_file is None and hand is None:\n",
         "    if 0:\n"),
        ("line_seat_dropped", "    target = Seat.parse(line_for) if line_for else None", "    target = None"),
        ("drawn_seed_unsaid", "    if samples is not None and seed is None:\n        # a seed of its own",
         "    if 0:\n        # a seed of its own"),
        ("weighing_over_hand_library_words", "    if pos.to_move is None:     # (the library's words",
         "    if 0:     # (the library's words"),
        ("no_deal_in_time_status", 'fail(f"no deal analysed within the time limit of {solver.time_limit:g} s", code=3)',
         'fail(f"no deal analysed within the time limit of {solver.time_limit:g} s", code=1)'),
        ("sample_option_unnamed", '        option = _OPTIONS.get(e.field or "")', "        option = None"),
        ("line_cut_short_as_analysis", '        if self.after:\n            return f"{head} for the {self.after}',
         '        if 0:\n            return f"{head} for the {self.after}'),
        ("failed_lines_uncounted", '                        failed += out["error"] is not None',
         "                        failed += 0"),
        ("closed_input_read", "        if isinstance(name, str) and closed_at_start(name):", "        if 0:"),
        ("status_proof_unsaid", '        return f"{head}; proved so far: {proved}"', "        return head"),
    ]),
    *_faults("api/kinds.py", API_TESTS, [
        ("bad_deal_400", '"invalid-deal": (422,', '"invalid-deal": (400,'),
        ("budget_503", '"budget-exceeded": (422,', '"budget-exceeded": (503,'),
    ]),
    *_faults("api/positions.py", API_TESTS, [
        ("api_player_ignored", "    seats = None if body.player is None else [Seat.parse(body.player)]", "    seats = None"),
        ("leader_named_deal", '_read("leader", "invalid-leader"', '_read("deal", "invalid-leader"'),
        ("analyses_limit_off", "    if len(body.positions) > limit:", "    if len(body.positions) >= limit:"),
        ("api_line_ignored", "    target = None if body.line is None else Seat.parse(body.line)", "    target = None"),
        ("analyses_share_ignored", "share=body.share or 0.0))", "share=0.0))"),
        ("analyses_player_ignored", "    player = None if body.player is None else Seat.parse(body.player)\n    items",
         "    player = None\n    items"),
        ("samples_seed_ignored", "    seed = fresh_seed() if body.seed is None else body.seed", "    seed = fresh_seed()"),
        ("samples_seat_ignored", "            seat = seat if seat is not None else position.to_move",
         "            seat = position.to_move"),
        ("hand_with_deal_taken", "            if body.deal is not None or seat is None:", "            if seat is None:"),
        ("play_named_deal", '_read("play", "illegal-play"', '_read("deal", "illegal-play"'),
    ]),
    *_faults("api/solving.py", (*API_TESTS, "tests/test_cli_serve.py", "tests/test_api_health.py"), [
        ("lock_newest_first", "self._waiters.popleft().release()", "self._waiters.pop().release()"),
        ("earlier_limits_kept", "    solver.thread_limits = (None, None)\n", "    pass\n"),
        ("node_limit_dropped", '                  config["SOLVER_NODE_LIMIT"])', "                  0)"),
        ("client_gone_unmarked", "                environ[CLIENT_GONE_KEY] = True\n", "                pass\n"),
        ("fairlock_unheld_release", '            if not self._held:\n                raise RuntimeError', '            if 0:\n                raise RuntimeError'),
        ("fairlock_stopped_waiter_kept", "                    self._waiters.remove(handed)\n", "                    pass\n"),
        ("budget_seconds_ignored", 'config["SOLVER_TIME_LIMIT"] if seconds is None else seconds', 'config["SOLVER_TIME_LIMIT"]'),
        ("client_gone_uncancelled", "                solver.cancel(caller)       # (again", "                pass       # (again"),
        ("heartbeats_unsent", "    for beat in _heartbeats:\n        beat()", "    for beat in _heartbeats:\n        pass"),
    ]),
    # the answers as given (solver/results.py, report.py, position_lines.py) and bad input's words
    *_faults("solver/results.py", ANSWER_TESTS, [
        ("trick_after_end", '"trick": p.trick_number if not p.is_over else None,', '"trick": p.trick_number,'),
        ("points_taken_wrong_side", "p.raw_points(p.side(seat)) for seat in Seat}", "p.raw_points(seat & 1) for seat in Seat}"),
        ("proven_words_swapped", 'span = f"at least {e.low}" if e.low is not None else f"at most {e.high}"',
         'span = f"at most {e.low}" if e.low is not None else f"at least {e.high}"'),
        ("line_without_seats", 'f"{st.seat}:{st.card}" for st in steps', 'f"{st.card}" for st in steps'),
        ("exact_of_nothing", "        return self.low is not None and self.low == self.high",
         "        return self.low == self.high"),
        ("any_seat_contained", "        return seat is not None and dict.__contains__(self, seat)",
         "        return seat is not None"),
        ("get_default_dropped", "return default if seat is None else dict.get(self, seat, default)",
         "return default if seat is None else dict.get(self, seat)"),
        ("to_move_none_as_text", '"to_move": str(p.to_move) if p.to_move is not None else None,',
         '"to_move": str(p.to_move),'),
        ("seconds_unrounded", '"seconds": round(self.seconds, 4),', '"seconds": self.seconds,'),
        ("best_always_false", '"moon_possible": m.moon_possible, "best": m.best}',
         '"moon_possible": m.moon_possible, "best": False}'),
        ("node_limit_alone", "    if nodes and seconds:\n", "    if nodes:\n"),
        ("nothing_proven_said", "    if e.who is None or (e.low is None and e.high is None):",
         "    if e.who is None:"),
        ("between_said_as_one", "    if e.low is not None and e.high is not None:\n        span",
         "    if 0:\n        span"),
    ]),
    *_faults("solver/report.py", REPORT_TESTS, [
        ("best_star_elsewhere", '("*" if m.best else " ")', '(" " if m.best else "*")'),
        ("hearts_broken_words", '"; hearts broken" if p.broken else "; hearts not broken yet"',
         '"; hearts not broken yet" if p.broken else "; hearts broken"'),
        ("trick_line_leader_only", '"  ".join(f"{p.leader.next(i)} {c}" for i, c in enumerate(p.trick))',
         '"  ".join(f"{p.leader} {c}" for i, c in enumerate(p.trick))'),
        ("east_column_moved", '    out.append("W" + " " * (EAST - 1) + "E")',
         '    out.append("W" + " " * EAST + "E")'),
        ("void_suit_blank", "{ranks or '-'}", "{ranks}"),
        ("moon_words_swapped", "{'yes' if moon else 'no'}", "{'no' if moon else 'yes'}"),
        ("over_shooters_unsaid", '(f"; {\'/\'.join(map(str, shooters))} shot the moon"', '(""'),
        ("taken_on_trick_two_only", "        if p.trick_number > 1:\n", "        if p.trick_number > 2:\n"),
        ("hearts_words_without_breaking", '("" if p.rules.hearts_break == "none" else', '("" if 0 else'),
        ("footnote_when_over", "    if not p.is_over:\n        lines.append(guarantee_means",
         "    if 1:\n        lines.append(guarantee_means"),
        ("share_note_missing", "    elif p.rules.partnership:       #", "    elif 0:       #"),
        ("not_valued_unsaid", "    elif p.to_move is not None:  # analyze", "    elif 0:  # analyze"),
        ("moon_clause_with_sides", 'moon = rules.moon != "none" and not rules.partnership',
         'moon = rules.moon != "none"'),
        ("thirteen_called_short", "    if size >= 13 or not p.first_trick:",
         "    if size > 13 or not p.first_trick:"),
        ("short_deal_later_trick", "    if size >= 13 or not p.first_trick:", "    if size >= 13:"),
        ("one_card_plural", "{'s' if size > 1 else ''}", "s"),
        ("no_first_points_unsaid", "    if not p.rules.first_trick_points:\n", "    if 0:\n"),
        ("weighing_in_time_unsaid", '(f", {w.answered} of them analysed in time:" if w.answered < w.drawn else ":")',
         '(":")'),
        ("weighing_seed_dropped", '(f" (seed{_UNBROKEN}{seed})" if seed is not None else "")', '("")'),
        ("weighing_view_unsaid", '("that fit its cards and the play" if from_view else',
         '("that fit its cards and the play" if 0 else'),
        ("weighing_means_note_always", "    if w.answered < w.drawn:\n        lines.append",
         "    if 1:\n        lines.append"),
        ("minus_one_point_plural", "'' if abs(points) == 1 else 's'", "'' if points == 1 else 's'"),
        ("zero_points_shown", '("" if not points else', '("" if 0 else'),
        ("line_trick_points_dropped", "p.rules.points_of(mask_of(trick)) + p.rules.trick_points",
         "p.rules.points_of(mask_of(trick))"),
        ("line_final_scores_missing", "    if p.is_over:       # (a guarantee",
         "    if 0:       # (a guarantee"),
        ("on_table_key_always", "[_ON_TABLE, _WINNER] if start.trick else [_WINNER]", "[_ON_TABLE, _WINNER]"),
        ("line_sides_single", "    if start.rules.partnership:\n        us, them",
         "    if 0:\n        us, them"),
        ("final_scores_raw", "end.score(end.side_seats(side)[0])", "end.raw_points(side)"),
        ("span_exact_as_range", "    if low is not None and low == high:\n        return str(low)",
         "    if 0:\n        return str(low)"),
        ("status_counts_unsettled", "if q not in seats and low is not None and low == high)",
         "if q not in seats)"),
        ("status_counts_no_cards", "    if cards:\n        valued", "    if 1:\n        valued"),
        ("catalogue_narrow", "    width = max(map(len, [*presets, *keys])) + 2",
         "    width = max(map(len, [*presets, *keys])) + 1"),
        ("integer_range_unsaid", 'return f"an integer from {-VALUE_LIMIT} to {VALUE_LIMIT}; standard: {standard}"',
         'return f"an integer; standard: {standard}"'),
        ("unbroken_space_shown", '[line.replace(_UNBROKEN, " ") for line in', "[line for line in"),
        ("sides_words_single", '    if rules.partnership:\n        who, against, it = "a side"',
         '    if 0:\n        who, against, it = "a side"'),
        ("no_moon_words_swapped", '", which scores nothing special under these rules)" if rules.moon == "none" else ")"',
         '")" if rules.moon == "none" else ", which scores nothing special under these rules)"'),
        ("score_column_named_guarantee", 'column="Score" if p.is_over else "Guarantee"',
         'column="Guarantee"'),
        ("taken_by_every_side", "    sides = sorted({p.side(s) for s in a.players})",
         "    sides = sorted({p.side(s) for s in Seat})"),
    ]),
    *_faults("solver/position_lines.py", ANSWER_TESTS, [
        ("default_player_first", "        if player is None:\n            player = default_player",
         "        if True:\n            player = default_player"),
        ("null_id_dropped", "        if item.has_id:\n", "        if item.id is not None:\n"),
        ("unknown_field_read", "        if unknown:\n", "        if 0:\n"),
        ("blank_line_read", "        elif not text.strip(BLANKS):    # (as", "        elif not text:    # (as"),
        ("cut_line_parsed", "        if is_cut(text):\n            yield PositionLine", "        if 0:\n            yield PositionLine"),
        ("line_index_kept", "            yield _read_line(text, index, number, known, player)\n        index += 1\n",
         "            yield _read_line(text, index, number, known, player)\n"),
        ("leader_hint_unsaid", """error=f'{where}: {e} ("leader" in the line)')""", 'error=f"{where}: {e}")'),
        ("non_string_field_taken", "            if obj.get(key) is not None and not isinstance(obj[key], str):", "            if 0:"),
        ("rules_cache_loses_default", '            known[""] = default\n', "            pass\n"),
        ("cr_line_end_unhinted", """if "\\r" in line and str(e).startswith("Extra data") else "")""", 'if 0 else "")'),
        ("waits_for_a_full_chunk", "        if len(batch) >= chunk or (more_now is not None and not more_now()):",
         "        if len(batch) >= chunk:"),
        ("undecoded_byte_off", 'not UTF-8 text (byte {byte + 1})")', 'not UTF-8 text (byte {byte})")'),
        ("non_object_read", '    if not isinstance(obj, dict):\n        return PositionLine(index, where, error=f"{where}: expected a JSON object',
         '    if 0:\n        return PositionLine(index, where, error=f"{where}: expected a JSON object'),
        ("missing_deal_read", '        if "deal" not in obj:\n            raise HeartsError("no deal")',
         '        if 0:\n            raise HeartsError("no deal")'),
        ("id_lost_on_error", '        return PositionLine(index, where, ident, has_id, error=f"{where}: {e}")',
         '        return PositionLine(index, where, error=f"{where}: {e}")'),
        ("lone_surrogate_read", "    if _NOT_WIDE in text:", "    if 0:"),
        ("out_of_time_unplaced", '            out["error"] = f"{item.where}: {why}"',
         '            out["error"] = why'),
        ("answers_held_to_the_end", "    if len(questions) < 2 or all(p.cards_left < STREAM_FROM_CARDS for p, _ in questions):",
         "    if 1:"),
        ("lines_bom_kept", "            if not wide and data.startswith(codecs.BOM_UTF8):",
         "            if 0:"),
        ("short_first_line_waits", '            short_line = b"\\n" in self._head and b"\\0" not in self._head',
         "            short_line = False"),
        ("blank_line_counts_as_question", "                if self._text[scan:end].strip(BLANKS):\n                    return True",
         "                if 1:\n                    return True"),
        ("long_line_read_whole", "            if cut >= 0 and len(self._text) >= cut:", "            if 0:"),
        ("id_only_when_set", '    has_id = "id" in obj', '    has_id = obj.get("id") is not None'),
        ("position_error_line_name", '        return PositionLine(index, where, error=f"{where}: not UTF-16 or UTF-32 text (column "',
         '        return PositionLine(index, where, error=f"not UTF-16 or UTF-32 text (column "'),
    ]),
    *_faults(A, ANALYSIS_TESTS, [
        ("line_keeps_tie", "return v < beta if minimizing else v >= beta", "return v <= beta if minimizing else v >= beta"),
        ("line_beta_off", "beta = value - raw + (1 if minimizing else 0)", "beta = value - raw"),
        ("tighter_low_lower", "second.low if first.low is None else max(first.low, second.low)",
         "second.low if first.low is None else min(first.low, second.low)"),
        ("carry_unswapped", "    if sign < 0:\n        low, high = high, low", "    if 0:\n        low, high = high, low"),
        ("moves_low_first", "key=lambda r: (r.card.suit, -r.card.rank))", "key=lambda r: (r.card.suit, r.card.rank))"),
        ("points_left_no_tricks", "    return p.rules.points_of(cards) + p.rules.trick_points * (cards.bit_count() // 4)",
         "    return p.rules.points_of(cards)"),
        ("forced_choice_no_moon", "                values = [(base.guarantee, base.moon_possible)]",
         "                values = [(base.guarantee, False)]"),
        ("best_is_highest", "            best = min(r.guarantee for r in rows)",
         "            best = max(r.guarantee for r in rows)"),
        ("second_side_unmirrored", "                return total - self._value_to_go(p, 0, total - guess,",
         "                return 0 + self._value_to_go(p, 0, total - guess,"),
        ("moves_for_partner_only", "        if not moves or mover is None or p.side(mover) not in sides:",
         "        if not moves or mover is None or mover not in wanted:"),
        ("solver_setting_top_refused", "low <= value < high if below else low <= value <= high",
         "low <= value < high"),
        ("questions_forced_listed", "[str(rep) for rep, _ in groups] if len(groups) > 1 else []",
         "[str(rep) for rep, _ in groups]"),
        ("guarantee_raw_dropped", "            value = raw + self._value_to_go(p, side, 0 if guess is None else guess - raw,",
         "            value = self._value_to_go(p, side, 0 if guess is None else guess - raw,"),
        ("players_by_seat_side", "        players = BySeat({seat: by_side[p.side(seat)] for seat in wanted})",
         "        players = BySeat({seat: by_side[sides[0]] for seat in wanted})"),
        ("guess_unchecked", '            guess = _setting("guess", guess, -GUESS_RANGE, GUESS_RANGE)',
         "            pass"),
    ]),
    *_faults("solver/errors.py", ERROR_TESTS, [
        ("bidi_shown", "\\u2028-\\u202e\\u2066-\\u2069]", "\\u2028-\\u202e]"),
        ("nan_read", "return json.loads(text, parse_constant=_not_json, parse_float=_finite)",
         "return json.loads(text, parse_float=_finite)"),
        ("long_messages_whole", "    if len(message) <= limit:", "    if len(message) <= 2 * limit:"),
        ("json_bool_a_number", '    if isinstance(value, bool):\n        return "boolean"', '    if 0:\n        return "boolean"'),
        ("json_lines_column_only", "if lines or e.lineno > 1", "if e.lineno > 1"),
        ("json_at_twice", 'if e.msg.endswith(" at") else', "if 0 else"),
        ("utf8_byte_from_0", "(byte {e.start + 1})", "(byte {e.start})"),
        ("json_nesting_traceback", "    except RecursionError:\n        raise JsonError", "    except ZeroDivisionError:\n        raise JsonError"),
        ("json_digits_traceback", "    except ValueError:      # int's limit", "    except ZeroDivisionError:      # int's limit"),
        ("json_infinity_taken", "    if math.isinf(value):\n", "    if 0:\n"),
        ("show_huge_int_whole", "value.bit_length() > 128:", "value.bit_length() > 100000:"),
        ("show_json_uncut", "    return text if len(text) <= limit else text[:limit - 1]", "    return text if 1 else text[:limit - 1]"),
        ("hearts_error_unshortened", "            args = (shortened(args[0]),)\n", "            pass\n"),
        ("detail_word_prefix", r'rf"^{re.escape(self.field)}\b:? ?"', r'rf"^{re.escape(self.field)}:? ?"'),
    ]),
    *_faults("solver/bounded_lines.py", LINES_TESTS, [
        ("line_at_limit_cut", "if len(line) <= limit or line.endswith(newline):",
         "if len(line) < limit or line.endswith(newline):"),
        ("cut_line_loses_cr", "end = cr + newline if (rest[:-1] or last).endswith(cr) else newline",
         "end = newline"),
        ("long_line_uncounted", "count += content or bool(part.strip())", "count += bool(part.strip())"),
        ("last_line_uncounted", "    return count + content", "    return count"),
    ]),
    *_faults("solver/launch.py", CLI_TESTS, [
        ("wrapped_interrupt_unseen", "        e = e.__cause__\n", "        e = None\n"),
        ("interrupted_status", "    sys.exit(130)", "    sys.exit(1)"),
    ]),
    *_faults("solver/cli_common.py", COMMAND_TESTS, [
        ("seconds_nan_taken", "        if math.isnan(number):", "        if 0:"),
        ("counted_always_plural", 'return f"{n} {noun}" if n == 1 else f"{n} {noun}s"', 'return f"{n} {noun}s"'),
        ("completion_case", "startswith(incomplete.lower())]", "startswith(incomplete)]"),
        ("reader_gone_status", "        sys.exit(PIPE_STATUS)", "        sys.exit(1)"),
        ("socket_no_pipe", "return stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind)", "return stat.S_ISFIFO(kind)"),
        ("tally_never_ends", "            self.ended = True\n", "            pass\n"),
        ("os_error_unnamed", "return f\"{e.filename or ''}: {e.strerror or e}\".lstrip(\": \")",
         "return f\"{e.strerror or e}\""),
        ("proc_self_fd_unnamed", 'r"/(?:dev/fd|proc/self/fd)/(\\d+)"', 'r"/dev/fd/(\\d+)"'),
        ("seconds_negative_taken", "        super().__init__(0)\n", "        super().__init__()\n"),
        ("dumb_terminal_live", '    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"',
         "    return sys.stderr.isatty()"),
        ("count_ahead_partial", "        if not isinstance(path, str) or not countable(path):\n            return None",
         "        if not isinstance(path, str) or not countable(path):\n            continue"),
        ("ascii_unknown_dropped", '_ASCII.get(ch, "?")', '_ASCII.get(ch, "")'),
        ("output_whole_any_handler", "        if signal.getsignal(signum) in stop_handlers:", "        if 1:"),
        ("messages_raise", "        except OSError:\n            return len(data)", "        except OSError:\n            raise"),
        ("foreign_sigurg_raises", "        if seen:        # (not a SIGURG", "        if 1:        # (not a SIGURG"),
        ("stdout_epipe_a_line", "    if e.errno == errno.EPIPE:\n        sys.exit(PIPE_STATUS)", "    if 0:\n        sys.exit(PIPE_STATUS)"),
        ("tally_never_counts", "        self.taken += 1\n", "        pass\n"),
        ("rules_option_traceback", "    except HeartsError as e:\n        fail(f\"--rules: {e}\")", "    except KeyError as e:\n        fail(f\"--rules: {e}\")"),
    ]),
    # (no fault may let ``-o`` or ``--resume`` replace what is not a regular file: the tests
    # name /dev/null, which a run as root then replaced with a file of the output)
    *_faults("solver/cli_records.py", COMMAND_TESTS, [
        ("status_ignores_inputs", "return 1 if failed or unreadable or gameless else 0", "return 1 if failed else 0"),
        ("sources_unnamed", "                    if len(paths) > 1:\n", "                    if len(paths) > 2:\n"),
        ("stdin_twice_taken", '    if paths.count("-") > 1:', '    if 0:'),
        ("gameless_unsaid", "        if index == first:\n", "        if 0:\n"),
        ("resume_any_review", '"review": options.review,', ""),
        ("resume_to_stdout", 'if path in (None, "-") or descriptor_named(path) is not None:\n        fail("--resume',
         'if path is None:\n        fail("--resume'),
        ("unreadable_input_ends_all", "            unreadable.append(path)\n            continue",
         "            unreadable.append(path)\n            return"),
        ("record_index_per_file", "read_records(stream, first_index=index):", "read_records(stream, first_index=0):"),
        ("new_output_private", "os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())",
         "os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o600)"),
        ("output_mode_not_kept", "os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())",
         "os.fchmod(fd, 0o666 & ~_umask())"),
        ("failed_output_part_kept", "            if tmp is not None:\n                with suppress(OSError):\n                    os.unlink(tmp)\n        if tmp",
         "            if tmp is not None:\n                pass\n        if tmp"),
        ("planted_link_followed", '        if foreign:\n            return step, f"symbolic link {step}"',
         '        if 0:\n            return step, f"symbolic link {step}"'),
        ("planted_pipe_taken", '            if foreign and not todo and stat.S_ISFIFO(st.st_mode):',
         "            if 0:"),
        ("dask_blank_taken", "    if dask is not None and not dask.strip():\n", "    if 0:\n"),
        ("annotated_counts_all", '                        annotated += result["players"] is not None',
         "                        annotated += 1"),
        ("pipe_output_buffered", "        as_done = on_terminal or is_pipe(out)", "        as_done = on_terminal"),
        ("reader_gone_after_all_raises", "        if not (inputs.ended and records == inputs.taken):\n            raise",
         "        if 1:\n            raise"),
        ("resume_time_limit_unchecked", '"time_limit": options.time_limit,\n', "\n"),
        ("resume_names_unchecked", "    if len(inputs) > 1:         # (each record", "    if 0:         # (each record"),
        ("resume_kept_unsaid", "            if kept:\n                echo(kept, err=True)",
         "            if 0:\n                echo(kept, err=True)"),
        ("stdin_named_dash", '        name = "standard input" if path == "-" else path', "        name = path"),
        ("summary_inputs_lost_unsaid", '    lost = f", {counted(len(unreadable), \'input\')} not read to the end" if unreadable else ""',
         '    lost = ""'),
        ("planted_folder_owner_foreign", "st.st_uid not in (os.geteuid(), folder.st_uid))", "st.st_uid != os.geteuid())"),
    ]),
    *_faults("solver/cli_serve.py", SERVE_TESTS, [
        ("ipv6_unbracketed", 'bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"', 'bind = f"{host}:{port}"'),
        ("no_workers_taken", '    if getattr(args, "workers", None) == 0:', "    if 0:"),
        ("threads_of_two_taken", "threads is not None and threads > 1 and", "threads is not None and threads > 2 and"),
        ("unwritable_file_taken", 'return None if os.access(target, os.W_OK) else "not writable"', "return None"),
        ("blank_host_taken", "    if not host.strip():", "    if not host:"),
        ("bind_in_env_taken", '    if getattr(args, "bind", None):', "    if 0:"),
    ]),
    *_faults("api/config.py", SERVE_TESTS, [
        ("setting_top_refused", "        if not low <= number <= high:", "        if not low <= number < high:"),
        ("setting_fraction_cut", "        if number != value and not isinstance(value, str):", "        if 0:"),
        ("setting_typo_ignored", "n=1, cutoff=0.85)", "n=1, cutoff=0.999)"),
        ("budget_at_margin_refused", "0 < seconds <= deadline - margin", "0 < seconds < deadline - margin"),
        ("no_timeout_as_zero", "min(timeout, graceful_timeout) if timeout > 0 else graceful_timeout",
         "min(timeout, graceful_timeout)"),
    ]),
    *_faults("api/records.py", SERVICE_TESTS, [
        ("query_twice_taken", "        if len(request.args.getlist(name)) > 1:", "        if 0:"),
        ("records_limit_off", "if games_up_to(io.BytesIO(body), limit) > limit:", "if games_up_to(io.BytesIO(body), limit) >= limit:"),
        ("record_limit_own_always", "    if not left or 0 < own <= left:", "    if 1:"),
        ("query_null_documented", "    if len(values) != 1 or len(branches) != 2:", "    if 1:"),
        ("stream_buffered_by_proxy", 'headers={"X-Accel-Buffering": "no"})', "headers={})"),
        ("annotate_body_unbounded", '    request.max_content_length = current_app.config["ANNOTATE_MAX_BYTES"]',
         "    pass"),
        ("query_rules_ignored", "    rules = Rules.parse(query.rules) if query.rules is not None else None",
         "    rules = None"),
        ("no_game_answered_empty", '    if first is None:\n        raise ApiProblem.for_field("invalid-pbn"',
         '    if 0:\n        raise ApiProblem.for_field("invalid-pbn"'),
        ("media_type_always_jsonl", "mimetype=MEDIA_TYPES[query.format],", 'mimetype="application/jsonl",'),
        ("memory_logged_each_record", "                    if not short_of_memory:\n                        log_out_of_memory(e)",
         "                    if 1:\n                        log_out_of_memory(e)"),
        ("node_limit_unsaid_in_budget", '(f" (or the node limit of {nodes} nodes per search)"\n                                          if nodes else "")',
         '("")'),
        ("null_default_documented", 'if k != "anyOf" and not (k == "default" and v is None)}',
         'if k != "anyOf"}'),
    ]),
    *_faults("api/problems.py", SERVICE_TESTS, [
        ("problems_unlimited", "              for e in found[:MAX_PROBLEMS]]", "              for e in found]"),
        ("shape_tags_shown", "        if part in _TAGS:\n            continue\n", "        if 0:\n            continue\n"),
        ("index_as_field", 'path += f"[{part}]"', 'path += f".{part}"',
         "no request model validates the items of a list (/analyses reads its positions one by "
         "one, each named positions[i] by api.positions), so no error's location holds an index"),
        ("short_body_taken", "        if declared is not None and len(data) < declared:", "        if 0:"),
        ("field_path_whole", "return shortened(path, _FIELD_LIMIT) if path", "return path if path"),
        ("not_found_unnamed", '            detail = f"no resource at {request.path}"', "            pass"),
        ("problem_type_overridden", '        if key.lower() != "content-type":', "        if 1:"),
        ("empty_body_as_bad_json", '        if not self.get_data(cache=True):\n            raise ApiProblem("invalid-json", "request body is empty',
         '        if 0:\n            raise ApiProblem("invalid-json", "request body is empty'),
        ("chunked_past_limit_taken", "        if declared is None and limit is not None and len(data) >= limit \\",
         "        if 0 and limit is not None and len(data) >= limit \\"),
        ("missing_as_code", '        return "is required"', "        return kind"),
        ("unknown_field_as_code", '        return "is not a known field"', "        return kind"),
        ("expected_as_pydantic", 'return f"expected {_EXPECTED[kind]}, got {json_type(given)}"',
         'return err["msg"]'),
        ("choices_unsaid", 'return f"unknown value {show_json(given)}; expected {err[\'ctx\'][\'expected\']}"',
         'return f"unknown value {show_json(given)}"'),
        ("message_capital_kept", "return shortened(msg[0].lower() + msg[1:]) if msg else kind",
         "return shortened(msg) if msg else kind"),
        ("more_problems_uncounted", '        detail += f"; and {len(found) - MAX_PROBLEMS} more problems"',
         "        pass"),
        ("node_budget_unsaid", 'f"{nodes} nodes per search" if nodes else ""]', '""]'),
        ("allowed_methods_unsaid", "        if isinstance(e, MethodNotAllowed):", "        if 0:"),
        ("cut_chunked_body_a_bug", "        if isinstance(e, (ParseException, NoMoreData, TimeoutError)):",
         "        if 0:"),
        ("no_memory_a_bug", 'problem_of("unavailable", "this worker is out of memory',
         'problem_of("internal-error", "this worker is out of memory'),
        ("disconnect_as_http", "        if isinstance(e, ClientDisconnected):", "        if 0:"),
    ]),
    *_faults("api/problems.py", WORKER_TESTS, [     # (a client gone: tested through serve)
        ("gone_client_as_budget", "        if request.environ.get(CLIENT_GONE_KEY):", "        if 0:"),
    ]),
    *_faults("api/schemas.py", SERVICE_TESTS, [
        ("seat_case_refused", "by_key.get(v.strip().lower(), v)", "by_key.get(v, v)"),
        ("seed_past_2_53", "and abs(v) <= 2 ** 53 else v)", "else v)"),
        ("count_past_1000", "Field(ge=1, le=1000), _WHOLE]", "Field(ge=1, le=10000), _WHOLE]"),
        ("share_of_one", "share: Optional[float] = Field(None, ge=0, lt=1,", "share: Optional[float] = Field(None, ge=0, le=1,"),
        ("position_unknown_field", 'model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={\n        "examples": [{"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY, "rules": "standard"}]})',
         'model_config = ConfigDict(extra="ignore", strict=True, json_schema_extra={\n        "examples": [{"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY, "rules": "standard"}]})'),
        ("deal_unbounded", 'deal: str = Field(max_length=256, description="PBN deal: first seat',
         'deal: str = Field(description="PBN deal: first seat'),
        ("play_unbounded", "play: Optional[str] = Field(None, max_length=1024,",
         "play: Optional[str] = Field(None,"),
        ("hand_unbounded", "hand: Optional[str] = Field(None, max_length=256,",
         "hand: Optional[str] = Field(None,"),
        ("no_deals_counted", "count: Annotated[int, Field(ge=1,", "count: Annotated[int, Field(ge=0,"),
        ("seed_at_limit", "Field(ge=0, lt=SEED_LIMIT)", "Field(ge=0, le=SEED_LIMIT)"),
        ("request_seed_negative", "Field(ge=0, lt=SEED_LIMIT)", "Field(ge=-1, lt=SEED_LIMIT)"),
        ("no_positions_taken", "positions: list[Any] = Field(min_length=1,", "positions: list[Any] = Field("),
        ("share_negative", "share: Optional[float] = Field(None, ge=0, lt=1,",
         "share: Optional[float] = Field(None, ge=-1, lt=1,"),
        ("rule_value_unbounded", "RuleValue = Annotated[int, Field(ge=-VALUE_LIMIT, le=VALUE_LIMIT), BeforeValidator(whole_value)]",
         "RuleValue = Annotated[int, BeforeValidator(whole_value)]"),
        ("rule_object_loose", 'RuleSet.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)',
         'RuleSet.__pydantic_config__ = ConfigDict(extra="ignore", strict=True)'),
        ("annotate_query_loose", '    model_config = ConfigDict(extra="forbid")\n\n    format:',
         '    model_config = ConfigDict(extra="ignore")\n\n    format:'),
        ("analyses_loose", 'model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={\n        "examples": [{"positions"',
         'model_config = ConfigDict(extra="ignore", strict=True, json_schema_extra={\n        "examples": [{"positions"'),
        ("option_unstripped", "by_key.get(v.strip().lower(), v)", "by_key.get(v.lower(), v)"),
        ("request_whole_float_refused", "_WHOLE = BeforeValidator(lambda v: int(v) if isinstance(v, float) and v.is_integer()",
         "_WHOLE = BeforeValidator(lambda v: v if isinstance(v, float) and v.is_integer()"),
    ]),
    *_faults("api/app.py", SERVICE_TESTS, [
        ("env_over_config", "    app.config.update(from_environment(os.environ))\n    app.config.update(config or {})\n",
         "    app.config.update(config or {})\n    app.config.update(from_environment(os.environ))\n"),
        ("sniffing_allowed", '    resp.headers.setdefault("X-Content-Type-Options", "nosniff")\n', ""),
        ("docs_scripts_unhashed", "for script in _INLINE_SCRIPT.findall(page))", "for script in [])"),
        ("positions_cap_undocumented", 'analyses["properties"]["positions"]["maxItems"] = config["ANALYSES_MAX_POSITIONS"]', "pass"),
        ("bodies_optional", '                operation["requestBody"]["required"] = True', "                pass"),
    ]),
    *_faults("api/service.py", SERVICE_TESTS, [
        ("health_unchecked", "        if got != HEALTH_ANSWER:", "        if 0:"),
        ("health_no_table", "        allocate()\n", "        pass\n"),
    ]),
    *_faults("api/worker.py", WORKER_TESTS, [
        ("bare_lf_head_waits", 'b"\\r\\n\\r\\n" in head or b"\\n\\n" in head or', 'b"\\r\\n\\r\\n" in head or'),
        ("no_http_waited_for", "    return None if not first or first in _TOKEN else first[0]", "    return None"),
        ("tls_unhinted", 'tls = "; a TLS handshake? this service speaks plain HTTP" if first == 0x16 else ""',
         'tls = ""'),
        ("head_time_unbounded", "            client.settimeout(max(left, 0.001))\n", "            pass\n"),
        ("refusals_all_malformed", 'return "internal-error" if status >= 500 and status != 501 else "malformed-request"',
         'return "malformed-request"'),
        ("log_problem_unnamed", '        atoms["problem"] = type_ or "-"', '        atoms["problem"] = "-"'),
        ("log_unescaped", "        return {k: printable(v) if isinstance(v, str) else v for k, v in atoms.items()}",
         "        return atoms"),
    ]),
    *_faults("api/docs.py", DOCUMENT_TESTS, [
        ("no_503_documented", "for s in sorted({*statuses, 503})}", "for s in sorted(set(statuses))}"),
        ("differing_copies_merged", "if model not in schemas and all(schemas[n] == first for n in names):",
         "if model not in schemas:"),
        ("refs_in_lists_kept", "    elif isinstance(node, list):\n        for value in node:\n            _point_refs(value, renamed)",
         "    elif 0:\n        for value in node:\n            _point_refs(value, renamed)"),
        ("problem_types_unlisted", 'schema["description"] = (schema.get("description", "") + " Types: " + kinds + "; other HTTP "',
         'schema["description"] = (schema.get("description", "") + "; other HTTP "'),
        ("docstrings_left_out", "    if sys.flags.optimize < 2:\n        return\n", "    return\n"),
        ("enums_left_inline", '                if node.get("enum") == values and node.get("type", "string") == "string":',
         "                if 0:"),
        ("enum_type_kept_beside_ref", '                    node.pop("type", None)\n',
         "                    pass\n"),
        ("enum_component_overwritten", "for name, (values, _) in enums.items() if name not in schemas}",
         "for name, (values, _) in enums.items()}"),
        ("enum_undescribed", '"description": enums[name][1], "type": "string",', '"type": "string",'),
        ("merged_refs_dangling", "    if renamed:\n        _point_refs(spec, renamed)",
         "    if 0:\n        _point_refs(spec, renamed)"),
    ]),
]


def run(cmd: list[str], timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HEARTS_DD_PGO="0")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def rebuild() -> str:
    """The engine built from ``solver/`` as it is now: "" or the build's last words."""
    done = run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-e", "."])
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]


#: Whether the engine last built holds a fault its source no longer has (a fault in Python
#: needs no build of its own, but must not run on the last compiled fault's engine).
_built_with_fault = False


def try_fault(fault: Fault) -> str:
    """What the tests made of ``fault``: caught (and by which test), survived, or why not run."""
    global _built_with_fault
    source = Path(fault.path)
    text = source.read_text()
    if text.count(fault.old) != 1:
        return "stale: its text is not in the source once"
    source.write_text(text.replace(fault.old, fault.new))
    try:
        compiled = not fault.path.endswith(".py")
        failed = rebuild() if compiled or _built_with_fault else ""
        _built_with_fault = compiled
        if failed:
            return f"does not build: {failed}"
        try:
            done = run([sys.executable, "-m", "pytest", *fault.tests, "-q", "-x", "-n", "2",
                        "-p", "no:cacheprovider"], timeout=900)
        except subprocess.TimeoutExpired:
            return "caught: the tests ran past 15 minutes"
        if done.returncode == 0:
            return "survived" + (f" (harmless: {fault.harmless})" if fault.harmless else "")
        first = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        last = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or ["?"])[-1]
        return "caught by " + (first[0].split()[1] if first else f"exit status {done.returncode}: {last}")
    finally:
        source.write_text(text)


def main(names: list[str]) -> int:
    if run(["git", "diff", "--quiet", "--", "solver", "api"]).returncode != 0:
        print("solver/ or api/ has changes of its own: run this in a clone (see its docstring)")
        return 2
    repeated = sorted({f.name for f in FAULTS if [g.name for g in FAULTS].count(f.name) > 1})
    if repeated:
        print(f"fault names given twice: {', '.join(repeated)}")
        return 2
    unknown = set(names) - {f.name for f in FAULTS}
    if unknown:
        print(f"no such fault: {', '.join(sorted(unknown))}")
        return 2
    tally = {"caught": 0, "harmless": 0, "gaps": 0}
    try:
        for fault in FAULTS:
            if names and fault.name not in names:
                continue
            start = time.monotonic()
            verdict = try_fault(fault)
            kind = ("caught" if verdict.startswith("caught") else
                    "harmless" if verdict.startswith("survived") and fault.harmless else "gaps")
            tally[kind] += 1
            print(f"{fault.name}: {verdict} ({time.monotonic() - start:.0f} s)", flush=True)
    finally:
        rebuild()
    print(f"{tally['caught']} caught, {tally['harmless']} harmless, {tally['gaps']} let through "
          "or not tried")
    return 1 if tally["gaps"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
