"""Shell completion of ``hearts-dd`` (click's, through the installed command): subcommands,
and the values of the options that take a few known words."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.rules import PRESETS

COMMAND = Path(sys.executable).with_name("hearts-dd")


def completions(words: str) -> list[str]:
    """What bash would offer after ``words`` (a trailing space: a new word)."""
    parts = words.split()
    env = {**os.environ, "COMP_WORDS": words, "_HEARTS_DD_COMPLETE": "bash_complete",
           "COMP_CWORD": str(len(parts) if words.endswith(" ") else len(parts) - 1)}
    result = subprocess.run([str(COMMAND)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == ""
    return [line.split(",", 1)[1] for line in result.stdout.splitlines() if line]


@pytest.mark.parametrize("words, offered", [
    ("hearts-dd a", ["analyze", "annotate"]),
    ("hearts-dd analyze --player ", ["N", "E", "S", "W"]),
    ("hearts-dd analyze --line w", ["W"]),
    ("hearts-dd analyze --rules ", list(PRESETS)),
    ("hearts-dd annotate --rules B", ["black-maria", "bridge"]),
    ("hearts-dd moon --dask ", ["local"]),
    ("hearts-dd moon --dask tcp", []),
    ("hearts-dd annotate --format ", ["csv", "jsonl", "pbn", "text"]),
])
def test_completion_offers_the_known_words(words: str, offered: list[str]) -> None:
    assert completions(words) == offered


def test_the_completion_script_loads() -> None:
    result = subprocess.run([str(COMMAND)], env={**os.environ, "_HEARTS_DD_COMPLETE": "bash_source"},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "complete -o nosort -F _hearts_dd_completion hearts-dd" in result.stdout
