"""Builds the Cython engine; everything else is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

MODULES = ["_ttable", "_search"]

setup(
    ext_modules=cythonize(
        [Extension(f"solver.{m}", [f"solver/{m}.pyx"], extra_compile_args=["-O3"]) for m in MODULES],
        compiler_directives={"language_level": "3"},
    ),
)
