# Set-up is implicit: every target builds .venv (and the Cython engine) first when needed.
# the interpreter the venv is made with (3.11 and newer): make test PYTHON=python3.13
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
SOURCES := Makefile pyproject.toml setup.py $(wildcard solver/*.pyx solver/*.pxd)

.PHONY: demo test bench clean

$(STAMP): $(SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

demo: $(STAMP)  ## annotate the bundled sample hand records: guarantees, moons, play reviews
	$(BIN)/hearts-dd annotate data/sample.pbn --format text

# (a worker a core, at most 4: each runs solvers of two threads and tables of its own)
test: $(STAMP)  ## the whole test suite
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4

bench: $(STAMP)  ## benchmarks, with DDS for comparison
	$(BIN)/python -m pytest benchmarks -q --benchmark-only

clean:
	rm -rf $(VENV) build solver/*.c solver/*.so
