"""Builds the Cython engine; everything else is in pyproject.toml."""
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

MODULES = ["_ttable", "_search"]
# The search counts bits all the time; without this x86-64 compilers call a library routine.
FLAGS = ["-O3"] + (["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else [])

setup(
    ext_modules=cythonize(
        [Extension(f"solver.{m}", [f"solver/{m}.pyx"], extra_compile_args=FLAGS) for m in MODULES],
        compiler_directives={"language_level": "3"},
    ),
)
