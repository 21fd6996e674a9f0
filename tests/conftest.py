"""Fixtures shared by the test modules."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from forked import Forker
from solver import analysis


@pytest.fixture
def parallel_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Multi-thread solvers hand their questions to other threads and lend helpers however
    small the position, as they otherwise do only far from the end: so that the small
    positions of the tests exercise those paths."""
    for name in ("PARALLEL_FROM_CARDS", "PARALLEL_LIST_FROM_CARDS", "PARALLEL_CARDS_FROM"):
        monkeypatch.setattr(analysis, name, 0)


@pytest.fixture(scope="session")
def forker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Forker]:
    """The command's runs as processes forked from one that has loaded it (tests/forked.py)."""
    forker = Forker(tmp_path_factory.mktemp("forked"))
    yield forker
    forker.close()
