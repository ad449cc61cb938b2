"""Start-up sets all-in equity up off the loop, and says when the compiled module is missing
(issue 21, the breaker's 4 and 5).

``controller.engine.equity.prepare`` was never called by the controller: the first all-in of
a session paid the compiled module's set-up on the table's loop. And a clone whose set-up did
not build ``_equity_c`` counted equity with numpy, correct but at 0.1-0.2x native speed and
30 MB more, with no word in the table's log. Each case runs in a process of its own (what
the module set up is per process).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import logging, sys
    if sys.argv[2] == "without":  # a clone whose set-up did not build the compiled module
        sys.modules["controller.engine._equity_c"] = None
    if sys.argv[2] == "damaged":  # the file is there (found) but will not load
        import importlib.abc, importlib.machinery

        class Damaged(importlib.abc.MetaPathFinder, importlib.abc.Loader):
            def find_spec(self, name, path=None, target=None):
                if name == "controller.engine._equity_c":
                    return importlib.machinery.ModuleSpec(name, self, origin="_equity_c.so")
                return None

            def create_module(self, spec):
                raise ImportError("_equity_c.so: invalid ELF header")

            def exec_module(self, module):
                pass

        sys.meta_path.insert(0, Damaged())
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s: %(message)s")
    from controller.engine.table.settings import TableSettings
    from controller import runtime
    orch, rec = runtime.open_table(sys.argv[1], TableSettings(id="e21", seats=6), clock=lambda: 2e9)
    import threading
    for thread in threading.enumerate():
        if thread.name == "equity-prepare":
            thread.join(60)
    E = sys.modules.get("controller.engine.equity")
    path = None if E is None else ("c" if E._C.module is not None else "numpy" if E._NP.ready else "none")
    print("set up:", path)
    orch.journal.close()
""")


def _start(tmp_path: Path, built: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "journal.sqlite"), built], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def _built() -> bool:
    import importlib.util

    return importlib.util.find_spec("controller.engine._equity_c") is not None


def test_start_up_sets_equity_up_before_any_all_in(tmp_path):
    res = _start(tmp_path, "as-installed")
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"set up: {'c' if _built() else 'numpy'}" in res.stdout, res.stdout + res.stderr


def test_without_the_compiled_module_one_warning_names_the_build(tmp_path):
    res = _start(tmp_path, "without")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "set up: numpy" in res.stdout, res.stdout + res.stderr
    warnings = [line for line in res.stderr.splitlines() if "compiled equity module" in line]
    assert len(warnings) == 1, res.stderr
    assert "numpy" in warnings[0] and "pip install -e ." in warnings[0] and "python3-dev" in warnings[0]


def test_with_the_compiled_module_there_is_no_warning(tmp_path):
    if not _built():  # this checkout's set-up did not build it: the warning is right here
        import pytest

        pytest.skip("controller/engine/_equity_c was not built in this checkout (pip install -e .)")
    res = _start(tmp_path, "as-installed")
    assert res.returncode == 0 and "compiled equity module" not in res.stderr, res.stderr


def test_a_compiled_module_that_will_not_load_gets_the_warning(tmp_path):
    """A file that is there but will not load (a damaged or another Python's ``.so``) was
    found, so nothing was said while equity silently ran on numpy (the second breaker)."""
    res = _start(tmp_path, "damaged")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "set up: numpy" in res.stdout, res.stdout + res.stderr
    warnings = [line for line in res.stderr.splitlines() if "compiled equity module" in line]
    assert len(warnings) == 1 and "invalid ELF header" in warnings[0], res.stderr
