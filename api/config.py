"""Settings of the service: defaults, then ``HEARTS_DD_*`` environment variables (read as
JSON, as Flask reads them, e.g. ``HEARTS_DD_SOLVER_TIME_LIMIT=5``; only these settings, and a
name a letter or two from one is refused), then the mapping given to ``create_app``.

Under gunicorn the time budgets must stay below the worker timeout (``api/gunicorn.conf.py``
checks at start-up), so a slow question is answered with a problem, never a killed worker.
"""
from __future__ import annotations

import difflib
import json
import os
import sys
from typing import Any, Mapping, NamedTuple

from solver.analysis import MAX_TABLE_MB, WORKER_TABLE_MB
from solver.errors import show_json

ENV_PREFIX = "HEARTS_DD"
API_PREFIX = "/api/v1"

class Setting(NamedTuple):
    default: float
    kind: type
    low: float
    high: float
    what: str           # for ``hearts-dd serve --help``


# (SOLVER_TIME_LIMIT: a minute answers most whole deals on a worker's one thread, where 10 s
# left many a 422, and SPEC §5 asks for the command line's answer)
SETTINGS: dict[str, Setting] = {
    "SOLVER_TIME_LIMIT": Setting(60.0, float, 0, 3600, "seconds of solving for a request, and at "
                                 "most for each record of annotate (0: none, refused under gunicorn)"),
    "SOLVER_NODE_LIMIT": Setting(0, int, 0, 10**15, "nodes for each single search (0: no limit)"),
    "SOLVER_TABLE_MB": Setting(WORKER_TABLE_MB, int, 1, MAX_TABLE_MB,
                               "each worker's transposition table, in MB"),
    "ANNOTATE_TIME_LIMIT": Setting(60.0, float, 0, 3600, "seconds for a whole annotate request "
                                   "(records past it get an error line; 0 refused under gunicorn)"),
    "MAX_CONTENT_LENGTH": Setting(1 << 20, int, 1, 1 << 30, "largest JSON body, in bytes (413 "
                                  "above): 1,000 sampled positions sent on to analyses fit"),
    "ANNOTATE_MAX_BYTES": Setting(1 << 20, int, 1, 1 << 30,
                                  "largest PBN body of annotate, in bytes (413 above)"),
    "ANNOTATE_MAX_RECORDS": Setting(10_000, int, 1, 10**7, "most games in one annotate body "
                                    "(413 above): each is answered, in the budget or not"),
    "ANALYSES_MAX_POSITIONS": Setting(1000, int, 1, 10**6, "most positions in one analyses "
                                      "request (422 above): as many as one samples request draws"),
}

DEFAULTS: dict[str, Any] = {name: s.kind(s.default) for name, s in SETTINGS.items()}


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings the ``HEARTS_DD_*`` variables of ``environ`` give. Other variables of the
    prefix (the build's, the tests') are not the service's, but one whose name nearly is a
    setting's is a typo (it would be ignored: the default budget where 5 s was asked), a ValueError."""
    out: dict[str, Any] = {}
    for key, text in environ.items():
        name = key.removeprefix(ENV_PREFIX + "_")
        if name == key:
            continue
        if name in SETTINGS:
            try:
                out[name] = json.loads(text)
            except ValueError:
                out[name] = text
        elif close := difflib.get_close_matches(name, SETTINGS, n=1, cutoff=0.85):
            raise ValueError(f"unknown setting {key} (did you mean {ENV_PREFIX}_{close[0]}?)")
    return out


def checked(config: Mapping[str, Any]) -> dict[str, Any]:
    """The service settings of ``config``, converted and range-checked; one-line errors."""
    out: dict[str, Any] = {}
    for name, (default, kind, low, high, _) in SETTINGS.items():
        value = config.get(name, default)
        expected = "an integer" if kind is int else "a number"
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            # (as the environment's JSON wrote it: true, null, not Python's True, None)
            raise ValueError(f"setting {name}: expected {expected}, got {show_json(value)}")
        try:
            number = kind(value)
        except (ValueError, OverflowError):     # (int of an infinity overflows)
            raise ValueError(f"setting {name}: expected {expected}, got {value!r}") from None
        if number != number:                    # ("nan" from the environment: no number)
            raise ValueError(f"setting {name}: expected {expected}, got {value!r}")
        if number != value and not isinstance(value, str):   # int() cut a fraction off
            raise ValueError(f"setting {name}: expected {expected}, got {value!r}")
        if not low <= number <= high:
            raise ValueError(f"setting {name}: {value!r} is out of range ({low:g}..{high:g})")
        out[name] = number
    return out


def budget_problem(config: Mapping[str, Any], timeout: float, graceful_timeout: float,
                   margin: float) -> str | None:
    """Why these request budgets do not suit a server whose workers are killed after
    ``timeout`` seconds and given ``graceful_timeout`` to finish when it stops (None when they
    do): each budget must be set and ``margin`` seconds below both (below the graceful timeout
    alone when ``timeout`` is 0, gunicorn's "none"), so that a slow question is answered
    "budget exceeded" rather than cut off."""
    # (gunicorn's timeout 0 is none: only a stop's graceful timeout then ends a request)
    deadline = min(timeout, graceful_timeout) if timeout > 0 else graceful_timeout
    budgets = {name: config[name] for name in ("SOLVER_TIME_LIMIT", "ANNOTATE_TIME_LIMIT")}
    if all(0 < seconds <= deadline - margin for seconds in budgets.values()):
        return None
    given = ", ".join(f"{name} {seconds:g} s" for name, seconds in budgets.items())
    worker = f"the worker timeout ({timeout:g} s) and " if timeout > 0 else ""
    return (f"request budgets ({given}) must be set (not 0) and at least {margin:g} s below "
            f"{worker}the graceful timeout ({graceful_timeout:g} s)")


def environment_problem(environ: Mapping[str, str], timeout: float, graceful_timeout: float,
                        margin: float) -> str | None:
    """What the workers' start-up check will refuse in the ``HEARTS_DD_*`` settings of
    ``environ`` under these timeouts (``budget_problem``), or a bad setting (None if none)."""
    try:
        settings = checked({**DEFAULTS, **from_environment(environ)})
    except ValueError as e:
        return f"{e} (from the HEARTS_DD_* environment)"
    return budget_problem(settings, timeout, graceful_timeout, margin)


if __name__ == "__main__":
    # ``python -m api.config TIMEOUT GRACEFUL_TIMEOUT MARGIN``: gunicorn.conf.py's on_reload
    # asks here, with the reloaded code, as the arbiter imports none of the app
    print(environment_problem(os.environ, *map(float, sys.argv[1:4])) or "")
