"""Checks made before any test, doctest or benchmark runs.

An editable install keeps the compiled engine beside its Cython sources, and nothing rebuilds it
when a source changes: pytest run directly (not through `make`) would test the old engine and
pass. So a run stops at once, with one line, when a source is newer than the engine built here.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ENGINE = ("solver._search", "solver._ttable")
SOURCE_DIR = Path(__file__).resolve().parent / "solver"


def built_here(source_dir: Path = SOURCE_DIR) -> list[Path]:
    """The engine's compiled modules when they were built in `source_dir` (an editable install),
    else none: a regular install's engine was built from the sources it was installed from."""
    built = []
    for name in ENGINE:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or Path(spec.origin).resolve().parent != source_dir:
            return []
        built.append(Path(spec.origin))
    return built


def stale_engine(built: list[Path], source_dir: Path = SOURCE_DIR) -> str | None:
    """Why the compiled modules `built` are older than a Cython source in `source_dir`, or None."""
    if not built:
        return None
    oldest = min(built, key=lambda path: path.stat().st_mtime)
    sources = [*source_dir.glob("*.pyx"), *source_dir.glob("*.pxd")]
    newest = max(sources, key=lambda path: path.stat().st_mtime, default=None)
    if newest is None or newest.stat().st_mtime <= oldest.stat().st_mtime:
        return None
    return (f"solver/{newest.name} is newer than the engine built from it ({oldest.name}): "
            "rebuild it with `make demo` (about a minute) or, without profile-guided "
            "optimisation, `HEARTS_DD_PGO=0 .venv/bin/pip install -e .` (half a minute)")


def pytest_configure(config: pytest.Config) -> None:
    reason = stale_engine(built_here())
    if reason is not None:
        raise pytest.UsageError(reason)
