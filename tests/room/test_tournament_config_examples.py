"""The room tournament's examples a newcomer copies (issue 19 usability): ``config/tournament.toml``
is taken by ``livetable room serve --tournament`` (the real loader and the service's own checks
before it starts), and docs/tournament.md's ``table.toml`` for a table of the room's tournament
passes the real ``livetable run --check``."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from controller.app import main as run_main
from controller.tournament.settings import load_settings

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "config" / "tournament.toml"


def test_the_example_tournament_settings_load() -> None:
    s = load_settings(EXAMPLE.read_text())
    assert s.seats_per_table == 8 and s.starting_stack == 10000
    assert s.payouts.places_paid(2) == 1 and s.payouts.places_paid(16) == 5
    # the example a newcomer tries `livetable room director register` with (TDA 9): open for
    # the first levels, one re-entry a player
    assert s.late_registration_until_level == 3 and s.reentries == 1


def test_room_serve_takes_the_example_tournament_settings(tmp_path: Path) -> None:
    """What ``room serve --tournament config/tournament.toml --tables t1,t2`` does before it starts:
    the options read, the runner built on the room's store (the settings loaded), the store checked."""
    from room.serve import _tournament_args, build_parser
    from room.service import RoomService
    from room.store import open_store
    from room.tournament_serve import TournamentRunner, check_stored

    args = build_parser().parse_args(["--tournament", str(EXAMPLE), "--tables", "t1,t2"])
    got = _tournament_args(args)
    assert isinstance(got, tuple), got
    text, tables = got
    store = open_store(tmp_path / "room.sqlite")
    try:
        runner = TournamentRunner(store, RoomService(store, host="127.0.0.1", port=1), text, tables)
        assert not check_stored(store, runner.settings, tables)  # a new store: nothing held yet
        assert runner.settings.seats_per_table * len(tables) == 16
    finally:
        store.close()


def _docs_table_toml() -> str:
    doc = (REPO / "docs" / "tournament.md").read_text()
    at = doc.index("3. The table's `table.toml`:")
    m = re.search(r"```toml\n(.*?)\n\s*```", doc[at:], re.S)
    assert m, "docs/tournament.md: the table.toml example is gone"
    return textwrap.dedent(m.group(1))


def test_the_docs_table_toml_of_a_room_tournament_table_passes_run_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _docs_table_toml()
    for name in ("room-outbox-password", "room-tournament-password"):  # the docs' /etc paths, here
        (tmp_path / name).write_text("secret\n")
        assert f'"/etc/livetable/{name}"' in text
        text = text.replace(f'"/etc/livetable/{name}"', json.dumps(str(tmp_path / name)))
    conf = tmp_path / "table.toml"
    conf.write_text(text)
    assert run_main(["--config", str(conf), "--check"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["ok"] and out["room_tournament"] is True
    # with the room's settings in it (the comment's "optional" [tournament]): config/tournament.toml
    conf.write_text(text + "\n" + EXAMPLE.read_text())
    assert run_main(["--config", str(conf), "--check"]) == 0, capsys.readouterr().err
