"""Build hook for the one compiled part of livetable: exact all-in equity in C.

Everything else is in pyproject.toml. ``controller.engine._equity_c`` is built from
``controller/engine/_equity_c.c`` by ``pip install -e .`` (scripts/setup.sh) with the
system's gcc and Python headers (issue 21: equity at least as fast as native brute force
on every street). It is optional: where it cannot be built the install still succeeds
and ``controller.engine.equity`` answers the same questions with numpy or pure Python.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "controller.engine._equity_c",
            sources=["controller/engine/_equity_c.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
