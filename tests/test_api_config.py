"""The service's settings (api/config.py): read from the environment and checked, each bad one
refused in one line, and the budgets against gunicorn's timeouts."""
from __future__ import annotations

import pytest

from api import create_app
from api.config import SETTINGS, checked, from_environment


def test_a_setting_misspelt_in_the_environment_is_refused(monkeypatch):
    """It was ignored: a budget of 10 s where 5 was asked. Other HEARTS_DD_* variables (the
    build's, the tests') are not the service's, and Flask's own settings are not read."""
    monkeypatch.setenv("HEARTS_DD_SOLVER_TIMELIMIT", "5")
    with pytest.raises(ValueError, match="unknown setting HEARTS_DD_SOLVER_TIMELIMIT .did you "
                                         "mean HEARTS_DD_SOLVER_TIME_LIMIT.."):
        create_app()
    monkeypatch.delenv("HEARTS_DD_SOLVER_TIMELIMIT")
    for name, value in (("SOLVER_TIME_LIMIT", "5"), ("PGO", "0"), ("SPEC_FORMAT", "yaml")):
        monkeypatch.setenv(f"HEARTS_DD_{name}", value)
    app = create_app()
    assert app.config["SOLVER_TIME_LIMIT"] == 5.0 and app.config["SPEC_FORMAT"] == "json"


def test_the_settings_given_to_create_app_win_over_the_environment_s(monkeypatch):
    """As the module says: defaults, then the environment, then the mapping given (a test's,
    an embedding program's)."""
    monkeypatch.setenv("HEARTS_DD_SOLVER_TIME_LIMIT", "5")
    assert create_app({"SOLVER_TIME_LIMIT": 7}).config["SOLVER_TIME_LIMIT"] == 7.0
    assert create_app({"SOLVER_NODE_LIMIT": 9}).config["SOLVER_TIME_LIMIT"] == 5.0


@pytest.mark.parametrize("settings, words", [
    ({"SOLVER_TIME_LIMIT": -1}, "SOLVER_TIME_LIMIT: -1 is out of range"),
    ({"SOLVER_TABLE_MB": "lots"}, "SOLVER_TABLE_MB: expected an integer"),
    ({"SOLVER_TABLE_MB": float("inf")}, "SOLVER_TABLE_MB: expected an integer, got inf"),
    ({"SOLVER_TABLE_MB": 1.5}, "SOLVER_TABLE_MB: expected an integer, got 1.5"),
    ({"SOLVER_NODE_LIMIT": 1e-300}, "SOLVER_NODE_LIMIT: expected an integer"),   # not 0: no limit
    ({"SOLVER_TIME_LIMIT": float("nan")}, "SOLVER_TIME_LIMIT: expected a number, got nan"),
    ({"ANALYSES_MAX_POSITIONS": 0}, "ANALYSES_MAX_POSITIONS: 0 is out of range"),
    ({"ANNOTATE_MAX_RECORDS": 0.5}, "ANNOTATE_MAX_RECORDS: expected an integer, got 0.5"),
])
def test_bad_settings_are_refused_with_one_line(settings, words):
    with pytest.raises(ValueError, match=words):
        create_app(settings)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_setting_takes_both_ends_of_its_range_and_nothing_past_them(name):
    setting = SETTINGS[name]
    for end in (setting.low, setting.high):
        assert checked({name: setting.kind(end)})[name] == end
    for past in (setting.low - 1, setting.high + 1):
        with pytest.raises(ValueError, match=f"^setting {name}: {setting.kind(past)!r} is out of range"):
            checked({name: setting.kind(past)})


def test_a_worker_timeout_of_0_is_none():
    """gunicorn's ``--timeout 0`` never kills a worker: only the graceful timeout bounds the
    budgets then (it was refused as "5 s below the worker timeout (0 s)")."""
    from api.config import budget_problem
    budgets = {"SOLVER_TIME_LIMIT": 10.0, "ANNOTATE_TIME_LIMIT": 20.0}
    assert budget_problem(budgets, 0, 30, 5) is None
    assert budget_problem(budgets, 0, 20, 5) == (
        "request budgets (SOLVER_TIME_LIMIT 10 s, ANNOTATE_TIME_LIMIT 20 s) must be set (not 0) and "
        "at least 5 s below the graceful timeout (20 s)")
    assert "worker timeout (12 s)" in budget_problem(budgets, 12, 30, 5)


def test_budgets_the_margin_below_both_timeouts_are_taken_and_no_higher():
    from api.config import budget_problem
    assert budget_problem({"SOLVER_TIME_LIMIT": 25, "ANNOTATE_TIME_LIMIT": 15}, 30, 40, 5) is None
    assert budget_problem({"SOLVER_TIME_LIMIT": 25.5, "ANNOTATE_TIME_LIMIT": 15}, 30, 40, 5)
    assert budget_problem({"SOLVER_TIME_LIMIT": 10, "ANNOTATE_TIME_LIMIT": 25}, 40, 30, 5) is None
    assert budget_problem({"SOLVER_TIME_LIMIT": 10, "ANNOTATE_TIME_LIMIT": 25.5}, 40, 30, 5)


def test_a_setting_of_nan_from_the_environment_is_no_number(monkeypatch) -> None:
    """It was "'nan' is out of range (0..3600)", as if a number too large."""
    with pytest.raises(ValueError, match=r"^setting SOLVER_TIME_LIMIT: expected a number, got 'nan'$"):
        checked(from_environment({"HEARTS_DD_SOLVER_TIME_LIMIT": "nan"}))


@pytest.mark.parametrize("name, text, shown", [
    ("SOLVER_TABLE_MB", "true", "expected an integer, got true"),
    ("SOLVER_TIME_LIMIT", "null", "expected a number, got null"),
    ("SOLVER_NODE_LIMIT", '{"a": [1]}', 'expected an integer, got {"a": [1]}'),
    ("SOLVER_TABLE_MB", "[" + "1, " * 100 + "1]", "expected an integer, got [1, 1, 1, "),
])
def test_a_setting_of_no_number_from_the_environment_is_shown_as_written(name, text, shown) -> None:
    """It was shown as Python's value ("got True", "got None", "{'a': [1]}"), and whole, and
    an integer's setting asked for "a number"."""
    with pytest.raises(ValueError) as refused:
        checked(from_environment({f"HEARTS_DD_{name}": text}))
    message = str(refused.value)
    assert message.startswith(f"setting {name}: {shown}") and len(message) < 100, message
