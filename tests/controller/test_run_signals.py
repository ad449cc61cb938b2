"""``livetable run`` and a signal while the table opens (issue 16, g): the handlers are set
before :meth:`TableRun.open`, as ``livetable simulate`` sets them, so a SIGINT or SIGTERM
that comes while the shuffler and the journal open stops the table cleanly (exit 0), never
a KeyboardInterrupt traceback (130) or a signal death."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from test_run import emulator  # noqa: F401 - the shuffler emulator fixture (tests/controller is on sys.path)

from controller import app
from controller.composition import TableRun


@pytest.fixture
def handlers():
    """Put back the process's SIGINT/SIGTERM handlers that ``app.main`` replaces."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_table_opens_stops_it_cleanly(sig, tmp_path: Path, emulator, handlers,
                                                          monkeypatch):
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "sigtest"\nseats = 4\nbig_blind = 100\n[shuffler]\nport = "{emulator}"\n'
                   f'[journal]\npath = "{tmp_path / "j.sqlite"}"\nhistory_dir = "{tmp_path / "hands"}"\n')
    opened = []
    real_open = TableRun.open

    def open_with_a_signal(self: TableRun):
        signal.raise_signal(sig)  # the operator's Ctrl-C / systemd's stop, during start-up
        opened.append(True)
        return real_open(self)

    monkeypatch.setattr(TableRun, "open", open_with_a_signal)
    # SIGTERM's default would end the test process: make the old order fail as an exception.
    if sig == signal.SIGTERM:
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(SystemExit(143)))
    assert app.main(["--config", str(cfg)]) == 0
    assert opened == [True]
    # The journal was closed (and unlocked) on the way out.
    from controller.journal import Journal

    Journal(tmp_path / "j.sqlite").close()
