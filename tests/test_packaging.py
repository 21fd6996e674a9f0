"""What the packages ship and need, read from pyproject.toml and the sources (no build: fast)."""
from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGES: list[str] = CONFIG["tool"]["setuptools"]["packages"]


def test_every_package_ships_its_type_hints() -> None:
    """``api`` had no ``py.typed``: a caller of ``create_app`` type-checked against nothing
    ("module is installed, but missing library stubs or py.typed marker")."""
    package_data = CONFIG["tool"]["setuptools"]["package-data"]
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package
        assert "py.typed" in package_data.get(package, []), package


def _name(requirement: str) -> set[str]:
    """The distributions a requirement brings by name: ``dask[distributed]`` both."""
    m = re.match(r"([A-Za-z0-9._-]+)(?:\[([^]]*)\])?", requirement)
    assert m is not None, requirement
    names = [m[1], *(m[2].split(",") if m[2] else [])]
    return {re.sub(r"[-_.]+", "-", n.strip()).lower() for n in names}


def _imported() -> set[str]:
    """The top-level modules the packages import (the engine's Python imports as well)."""
    found: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    found |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    found.add(node.module.split(".")[0])
        for path in (ROOT / package).glob("*.pyx"):
            for m in re.finditer(r"^\s*(?:from\s+(\w+)[\w.]*\s+import|import\s+(\w+))",
                                 path.read_text(), re.M):
                found.add(m[1] or m[2])
    return found - set(sys.stdlib_module_names) - set(PACKAGES) - {"__future__"}


def test_the_dependencies_are_those_the_packages_import() -> None:
    """werkzeug and typing_extensions were imported but not declared (there only as flask's
    and pydantic's); dask only for ``--dask``, from the ``dask`` extra."""
    declared = set().union(*map(_name, CONFIG["project"]["dependencies"]))
    optional = set().union(*map(_name, CONFIG["project"]["optional-dependencies"]["dask"]))
    dists = packages_distributions()
    imported = {re.sub(r"[-_.]+", "-", dists.get(module, [module])[0]).lower()
                for module in _imported()}
    assert imported - declared - optional == set()
    assert declared - imported == set()


def _root_conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_run_stops_when_an_engine_source_is_newer_than_the_engine(tmp_path: Path) -> None:
    check = _root_conftest()
    engine = [tmp_path / "_search.so", tmp_path / "_ttable.so"]
    for path in (tmp_path / "_search.pyx", tmp_path / "_bounds.pxd", *engine):
        path.touch()
        os.utime(path, (1_000, 1_000))
    assert check.stale_engine(engine, tmp_path) is None
    os.utime(tmp_path / "_bounds.pxd", (2_000, 2_000))
    reason = check.stale_engine(engine, tmp_path)
    assert reason is not None and reason.startswith("solver/_bounds.pxd is newer than the engine")
    # a rebuild alone: `make test` rebuilt, then ran the whole suite (8 minutes on two cores)
    assert "`make test`" not in reason and "`HEARTS_DD_PGO=0 .venv/bin/pip install -e .`" in reason
    os.utime(engine[1], (3_000, 3_000))
    assert "(_search.so)" in check.stale_engine(engine, tmp_path)
    assert check.stale_engine([], tmp_path) is None


def test_the_engine_in_use_is_the_one_built_from_these_sources() -> None:
    check = _root_conftest()
    built = check.built_here()
    import solver._search
    if built:
        assert Path(solver._search.__file__) in built
    assert check.stale_engine(built) is None
