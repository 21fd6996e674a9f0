"""Test sizes read from the environment, so that one command runs a suite larger than CI's."""
from __future__ import annotations

import os

import pytest


def env_int(name: str, default: int, low: int, high: int) -> int:
    """``name`` as a whole number from ``low`` to ``high`` (``default`` when unset); anything
    else stops the run with a usage error that names the variable."""
    text = os.environ.get(name, "").strip() or str(default)
    if not text.isdigit() or not low <= int(text) <= high:
        raise pytest.UsageError(f"{name}={text!r}: expected a whole number from {low} to {high}")
    return int(text)
