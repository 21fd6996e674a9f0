"""``python -m benchmarks.nodes --alternate``: the comparison of engine settings deal by deal
that engine changes are measured with (benchmarks/README.md)."""
from __future__ import annotations

import re

import pytest

from benchmarks import nodes


def test_alternate_solves_each_deal_with_each_value(capsys: pytest.CaptureFixture[str]) -> None:
    # a root moon search of one node leaves the passes to climb to 26: more nodes, same answer
    nodes.main(["11,15", "--alternate", "moon_nodes=3000000,1", "--rounds", "2", "--table-mb", "8"])
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:2]] == ["seed 11", "seed 15"]
    solves = re.findall(r"(\w+)=(\d+): (\S+) nodes ([\d.]+)M", out[0])
    assert [(name, v) for name, v, _, _ in solves] == [("moon_nodes", "3000000"), ("moon_nodes", "1")]
    assert solves[0][2] == solves[1][2] == "26"
    assert float(solves[1][3]) > float(solves[0][3])  # the setting reached the engines
    # these deals are too quick to time: the summary says so rather than divide noise
    assert out[2] == "moon_nodes=1 against 3000000: no deal took 0.05 s"
    assert len(out) == 3


@pytest.mark.parametrize("argv, message", [
    (["11", "--alternate", "sweep_from"], "expected ATTR=A,B"),
    (["11", "--alternate", "sweep_from=4x"], "must be integers"),
    (["11", "--alternate", "sweep_from=40,52", "--rounds", "0"], "at least 1"),
])
def test_alternate_rejects_a_malformed_setting(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        nodes.main(argv)
    assert message in capsys.readouterr().err


def test_alternate_rejects_an_unknown_attribute() -> None:
    with pytest.raises(SystemExit, match="no attribute 'sweep_fro'"):
        nodes.main(["11", "--alternate", "sweep_fro=1,2", "--table-mb", "8"])


def test_rules_other_than_standard(capsys: pytest.CaptureFixture[str]) -> None:
    """``--rules``: the deals under another rule set (a free first lead: N leads), the answer
    that of the solver asked directly."""
    from benchmarks.seeded_deals import hearts_start
    from solver.analysis import Solver
    from solver.rules import Rules

    spec = '{"first_lead": "free", "values": {"H": 0}, "preset": "standard"}'  # the queen alone
    for seed in (0, 1):
        nodes.main([str(seed), "--rules", spec, "--seat", "E", "--table-mb", "8"])
        value = capsys.readouterr().out.splitlines()[0].split()[2]
        start = hearts_start(seed, Rules.parse(spec))
        assert start.leader0.name == "N"
        assert int(value) == Solver(table_mb=8).guarantee(start, "E")


def test_unknown_rules_are_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        nodes.main(["11", "--rules", "no-such-preset"])
    assert "no-such-preset" in capsys.readouterr().err
