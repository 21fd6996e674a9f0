"""What the packages ship and need, read from pyproject.toml and the sources (no build: fast)."""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

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
