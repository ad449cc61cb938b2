"""The journal damage matrix (issue 16, item 4): a table never starts silently on fewer
events than were committed.

A table plays 8 hands and is stopped the way kill -9 or a power cut stops it (the journal
never closed: its events are in the ``-wal``). Each case damages a copy of what it left -
the ``-wal`` truncated, deleted or with a flipped bit at several points of its valid frames
(:func:`_valid_end`: never in the zeros written ahead past them), the events table
dropped, the newest snapshot edited or not JSON, the journal or its mark gone - and opens
the table on it as ``livetable run`` does (:func:`controller.runtime.open_table`). Each case
must either be refused (:class:`JournalRefused`, exit 3) or start on every committed event.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.journal import Journal, JournalError, read_mark
from controller.journal_check import JournalRefused, accept
from controller.orchestrator import SNAPSHOT_EVERY
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SIM = ["--devices", "none", "--headless", "--quiet", "--seed", "5", "--seats", "4"]


def _killed_table(folder: Path, hands: int = 8) -> Path:
    """Play ``hands`` hands and stop without closing the journal (os._exit: what kill -9
    leaves, at a moment the test chooses, with no sleep)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "j.sqlite"
    code = ("import os, controller.journal as j\n"
            "j.Journal.close = lambda self: os._exit(0)\n"
            "from controller.simulate import main\n"
            f"main({[*SIM, '--journal', str(path), '--hands', str(hands)]!r})\n")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=120,
                   stdout=subprocess.DEVNULL)
    assert _valid_end(Path(str(path) + "-wal")) > 100_000, "the events should be in the -wal's frames"
    return path


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> tuple[Path, int]:
    """The killed table's folder and how many events it committed."""
    # Past a snapshot (one every SNAPSHOT_EVERY hands) and into the hands after it.
    path = _killed_table(tmp_path_factory.mktemp("killed"), hands=SNAPSHOT_EVERY + 2)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    committed = db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
    db.close()
    assert committed > 200
    return path.parent, committed


def _copy(killed: tuple[Path, int], tmp_path: Path) -> Path:
    dst = tmp_path / "table"
    shutil.copytree(killed[0], dst)
    return dst / "j.sqlite"


def _wal(path: Path) -> Path:
    return Path(str(path) + "-wal")


def _valid_end(wal: Path) -> int:
    """Where the ``-wal``'s last valid commit ends (bytes): the frames after its 32-byte header
    that carry the header's salts (SQLite's file format, www.sqlite.org/fileformat.html 4.1),
    up to the last commit frame (its second word, the database size, not 0). What follows it -
    the journal's write-ahead zeros (controller.journal.WAL_PREALLOC), frames of an earlier
    round - SQLite never reads, so damage there tests nothing: the cases aim inside."""
    data = wal.read_bytes()
    _magic, _version, page, _seq, salt1, salt2 = struct.unpack(">6I", data[:24])
    off = end = 32
    while off + 24 + page <= len(data):
        _pgno, commit, fsalt1, fsalt2 = struct.unpack(">4I", data[off:off + 16])
        if (fsalt1, fsalt2) != (salt1, salt2):
            break
        off += 24 + page
        if commit:
            end = off
    return end


def _truncate(frac: float):
    def damage(path: Path) -> None:
        os.truncate(_wal(path), int(_valid_end(_wal(path)) * frac))
    return damage


def _flip(frac: float):
    def damage(path: Path) -> None:
        size = _valid_end(_wal(path))
        off = min(int(size * frac), size - 1)
        with open(_wal(path), "r+b") as fh:
            fh.seek(off)
            b = fh.read(1)
            fh.seek(off)
            fh.write(bytes([b[0] ^ 0x10]))
    return damage


def _sql(*statements: str):
    def damage(path: Path) -> None:
        db = sqlite3.connect(path)
        for s in statements:
            db.execute(s)
        db.commit()
        db.close()
    return damage


def _edit_newest_snapshot(balanced: bool):
    """Add 5,000 chips to seat 1's stack in the newest snapshot (and, ``balanced``, to the
    room's and the player's buy-ins, so that the snapshot's own books balance)."""
    def damage(path: Path) -> None:
        db = sqlite3.connect(path)
        upto, text = db.execute("SELECT upto, state FROM snapshots ORDER BY upto DESC LIMIT 1").fetchone()
        state = json.loads(text)
        seat = next(s for s in state["table"]["seats"] if s)
        seat["stack"] += 5000
        if balanced:
            ledger = state["table"]["ledger"]
            ledger["total_in"] += 5000
            next(a for a in ledger["accounts"] if a["player"] == seat["player"])["bought_in"] += 5000
        db.execute("UPDATE snapshots SET state = ? WHERE upto = ?", (json.dumps(state), upto))
        db.commit()
        db.close()
    return damage


def _remove(*suffixes: str):
    def damage(path: Path) -> None:
        for s in suffixes:
            os.remove(str(path) + s)
    return damage


CASES = {
    "wal-deleted": (_remove("-wal"), "committed events 1.."),
    **{f"wal-truncated-{f}": (_truncate(f), "committed events") for f in (0, 0.01, 0.25, 0.5, 0.9)},
    "wal-truncated-last-bytes": (_truncate(0.9995), None),  # may or may not cut a commit
    **{f"wal-bit-flipped-{f}": (_flip(f), "committed events") for f in (0.00001, 0.3, 0.6)},
    "wal-bit-flipped-last-byte": (_flip(1.0), None),
    "events-table-dropped": (_sql("DROP TABLE events"), "events table is missing"),
    "snapshot-5000-chips-added": (_edit_newest_snapshot(False), "does not balance"),
    "snapshot-5000-chips-added-books-balanced": (_edit_newest_snapshot(True), "disagrees with the replay"),
    "snapshot-not-json": (_sql("UPDATE snapshots SET state = '{not json' "
                               "WHERE upto = (SELECT MAX(upto) FROM snapshots)"), "not a JSON object"),
    "journal-deleted": (_remove("", "-wal", "-shm"), "journal file"),
    "mark-deleted": (_remove(".mark"), "mark"),
    "mark-damaged": (lambda p: Path(str(p) + ".mark").write_bytes(b"livetable-mark 1 seq=999"), "damaged"),
}


def _open(path: Path):
    return open_table(path, TableSettings(id="sim", seats=4), clock=lambda: 2e9)


@pytest.mark.parametrize("case", list(CASES))
def test_damaged_journal_is_refused_or_complete(case, killed, tmp_path):
    damage, expect = CASES[case]
    path = _copy(killed, tmp_path)
    damage(path)
    try:
        orch, rec = _open(path)
    except JournalRefused as exc:
        if expect is not None:
            assert expect in str(exc)
        assert "--accept --by NAME" in str(exc)  # the floor is told how to go on
        return
    try:  # started: only on every committed event, never on fewer
        assert expect is None, f"{case} started: {rec}"
        assert rec.upto == killed[1]  # every committed event read (events: those replayed)
    finally:
        orch.journal.close()


def test_matrix_counts_no_silent_start_on_fewer_events(killed, tmp_path):
    """The issue's figure: of every case, how many started on fewer events than committed."""
    silent, refused, whole = [], 0, 0
    for case, (damage, _expect) in CASES.items():
        path = _copy(killed, tmp_path / case)
        damage(path)
        try:
            orch, rec = _open(path)
        except JournalRefused:
            refused += 1
            continue
        if rec.upto < killed[1]:
            silent.append((case, rec.upto))
        whole += 1
        orch.journal.close()
    assert silent == [], f"started silently on fewer events: {silent} (refused {refused}, whole {whole})"
    assert refused >= len(CASES) - 2


def test_intact_killed_journal_starts_on_every_event(killed, tmp_path):
    path = _copy(killed, tmp_path)
    orch, rec = _open(path)
    try:
        assert rec.upto == killed[1] and rec.outcome in ("clean", "resumed", "voided")
        last = orch.journal.last_seq
        assert last > killed[1]  # the recovery entry
    finally:
        orch.journal.close()
    assert read_mark(path).seq == last  # every event marked


def test_floor_accepts_a_journal_with_a_lost_wal_and_the_table_starts(killed, tmp_path):
    path = _copy(killed, tmp_path)
    _truncate(0.5)(path)
    with pytest.raises(JournalRefused):
        _open(path)
    with Journal(path) as j:
        assert j.damage
        with pytest.raises(JournalError, match="not written until the floor accepts"):
            j.append("table", {"kind": "x"}, 0)  # the evidence is kept until the floor decides
        kept = j.last_seq
        done = accept(j, by="floor:Anna", reason="power cut", at=2e9)
        assert done["seq"] == kept + 1
    with Journal(path) as j:
        last = list(j.entries(after=kept))
    assert [(e.kind, e.payload["by"], e.payload["mark"]) for e in last] == [
        ("journal-accepted", "floor:Anna", killed[1])]
    orch, rec = _open(path)
    orch.journal.close()
    assert rec.upto == kept + 1


def test_floor_accept_drops_a_snapshot_the_events_do_not_give(killed, tmp_path):
    path = _copy(killed, tmp_path)
    with Journal(path) as j:
        total_in = j.latest_snapshot()[1]["table"]["ledger"]["total_in"]
    _edit_newest_snapshot(True)(path)
    with pytest.raises(JournalRefused):
        _open(path)
    with Journal(path) as j:
        newest = j.snapshot_index()[-1][0]
        done = accept(j, by="floor:Anna", reason="", at=2e9)
        assert done["dropped_snapshots"] == [newest]
    orch, _rec = _open(path)  # recovery replays the events instead: no chips from nowhere
    try:
        assert orch.state.ledger.total_in == total_in
        assert audit(orch.state) == []
    finally:
        orch.journal.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_simulate_refuses_a_lost_wal_with_exit_3_and_the_floors_way(killed, tmp_path):
    path = _copy(killed, tmp_path)
    _remove("-wal")(path)
    res = _cli("simulate", *SIM, "--journal", str(path), "--hands", "1")
    assert res.returncode == 3, res.stderr[-2000:]
    assert "committed events 1.." in res.stderr and "Traceback" not in res.stderr
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 3 and "committed events 1.." in check.stdout
    acc = _cli("history", "--journal", str(path), "--accept", "--by", "floor:Anna", "--reason", "wal lost")
    assert acc.returncode == 0, acc.stderr
    assert _cli("history", "--journal", str(path), "--check").returncode == 0


def test_history_check_and_accept_usage(killed, tmp_path):
    path = _copy(killed, tmp_path)
    assert _cli("history", "--journal", str(path), "--accept").returncode == 2  # no --by
    res = _cli("history", "--journal", str(path), "--accept", "--by", "floor:Anna")
    assert res.returncode == 2 and "nothing to accept" in res.stderr


@pytest.fixture()
def emulator():
    from drivers.shuffler.emulator import Emulator

    emu = Emulator(seed=3)
    path = emu.start()
    yield path
    emu.stop()


@pytest.mark.parametrize("case", ["wal-deleted", "snapshot-not-json"])
def test_run_refuses_with_exit_3_and_no_traceback(case, killed, tmp_path, emulator):
    path = _copy(killed, tmp_path)
    CASES[case][0](path)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "sim"\nseats = 4\nbig_blind = 100\n[shuffler]\nport = "{emulator}"\n'
                   f'[journal]\npath = "{path}"\nhistory_dir = "{tmp_path / "hands"}"\n')
    res = _cli("run", "--config", str(cfg))
    assert res.returncode == 3, res.stderr[-2000:]
    assert "Traceback" not in res.stderr and "livetable history --journal" in res.stderr


def test_a_truncated_journal_file_is_refused_with_what_the_floor_does(tmp_path, emulator):
    """A journal file cut short (a copy that stopped half-way, a card that lost its end): start-up
    said only "database disk image is malformed". Now, still exit 3: the file named, said to be
    damaged, and the floor's way on, which works: the damaged files moved aside, a new journal
    accepted beside the hand files, and the table plays on from the hand after the last."""
    path, hands = tmp_path / "j.sqlite", tmp_path / "hands"
    sim = _cli("simulate", *SIM, "--journal", str(path), "--history-dir", str(hands), "--hands", "6")
    assert sim.returncode == 0, sim.stderr[-2000:]
    assert not Path(str(path) + "-wal").exists()  # stopped cleanly: every event is in the file
    os.truncate(path, path.stat().st_size // 2)
    cut = path.read_bytes()
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "sim"\nseats = 4\nbig_blind = 100\n[shuffler]\nport = "{emulator}"\n'
                   f'[journal]\npath = "{path}"\nhistory_dir = "{hands}"\n')
    res = _cli("run", "--config", str(cfg))
    err = res.stderr
    assert res.returncode == 3, err[-2000:]
    assert "Traceback" not in err
    # cut on a page boundary: fewer pages than its header counts (read before SQLite opens it)
    assert f"the journal file {path} is damaged: cut short: " in err and "pages its header counts" in err
    aside = f"{path}.damaged"
    assert f"`mkdir {aside} && mv {path} {path}.mark {aside}/`" in err  # the files there, kept
    accept_cmd = f"livetable history --journal {path} --history-dir {hands} --accept --by NAME --reason TEXT"
    assert accept_cmd in err and "livetable floor seat SEAT PLAYER AMOUNT" in err
    assert path.read_bytes() == cut  # the refusal wrote nothing into the damaged file
    # The floor's way on, as the message says it.
    os.mkdir(aside)
    for name in (path, Path(f"{path}.mark")):
        shutil.move(name, aside)
    acc = _cli("history", "--journal", str(path), "--history-dir", str(hands), "--accept", "--by", "floor:Anna",
               "--reason", "journal file damaged")
    assert acc.returncode == 0, acc.stderr[-2000:]
    again = _cli("simulate", *SIM, "--journal", str(path), "--history-dir", str(hands), "--hands", "1")
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((hands / "hand-000007.json").read_text())["hand"] == 7
    assert (Path(aside) / "j.sqlite").read_bytes() == cut


def test_a_journal_whose_newest_pages_are_overwritten_is_refused_as_damaged(tmp_path):
    """SQLite opens the file but the start-up's check reads a damaged page: the same refusal as
    a file it cannot open (not the --accept of a journal that lost events, which cannot read it)."""
    from tests.controller.test_history_support import Table

    settings = TableSettings(id="dmg", seats=4, small_blind=50, big_blind=100)
    t = Table(tmp_path / "j.sqlite", settings, seats=[1, 2, 3, 4], seed=3)
    t.orch.snapshot_every = 20
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(80)
    t.journal.close()
    path = tmp_path / "j.sqlite"
    with open(path, "r+b") as f:  # 64 bytes over a page the start-up reads (its newest events)
        f.seek(int(path.stat().st_size * 0.9) // 4096 * 4096)
        f.write(b"\xa5" * 64)
    Journal(path).close()  # SQLite opens it: the damage is found by the check
    with pytest.raises(JournalRefused) as refused:
        open_table(path, settings, clock=lambda: 2e9, history_dir=tmp_path / "hands")
    text = str(refused.value)
    assert f"the journal file {path} is damaged: SQLite cannot read it" in text
    assert f"`mkdir {path}.damaged && mv {path} {path}.mark {path}.damaged/`" in text
    assert "settle the hands the journal lost" not in text  # not the accept of the journal as it is


def test_systemd_does_not_restart_a_refused_journal():
    """Exit 3 is a person's to decide: the unit must not restart it in a loop."""
    text = (REPO / "systemd" / "livetable.service").read_text()
    lines = [ln.split("=", 1)[1].split() for ln in text.splitlines() if ln.startswith("RestartPreventExitStatus=")]
    assert any("3" in codes for codes in lines)


@pytest.mark.parametrize("kind,payload", [("table", "[1, 2]"), ("table", "null"), ("table", '"text"'),
                                          ("fault-raised", "[1]"), ("table", '{"kind": "action-taken"}'),
                                          ("table", '{"kind": "hand-started", "seats": {"a": 1}}')])
def test_history_names_an_event_of_the_wrong_shape(kind, payload, killed, tmp_path, capsys):
    """`livetable history` on a hand-edited event: a message naming it, exit 2, no traceback."""
    from controller.history_cli import main as history

    path = _copy(killed, tmp_path)
    db = sqlite3.connect(path)
    seq = db.execute("SELECT MAX(seq) FROM events WHERE kind = 'table'").fetchone()[0] - 2
    db.execute("UPDATE events SET kind = ?, payload = ? WHERE seq = ?", (kind, payload, seq))
    db.commit()
    db.close()
    assert history(["--journal", str(path), "--hands", "2"]) == 2
    err = capsys.readouterr().err
    assert f"event {seq}" in err


@pytest.mark.parametrize("case", ["wal-truncated-0.5", "wal-bit-flipped-0.3", "wal-bit-flipped-1e-05"])
def test_a_refused_start_keeps_the_damaged_wal_as_it_was_found(case, killed, tmp_path):
    """Issue 16 a: SQLite's write-capable open and the close after the refusal recover and
    checkpoint the damaged -wal away; the start-up copies the files aside first, and the
    refusal says where."""
    path = _copy(killed, tmp_path)
    CASES[case][0](path)
    found = {name: Path(str(path) + name).read_bytes() for name in ("", "-wal")}
    with pytest.raises(JournalRefused) as refused:
        _open(path)
    copy = refused.value.evidence
    assert copy is not None and copy in str(refused.value)
    for name, data in found.items():
        assert (Path(copy) / (path.name + name)).read_bytes() == data, f"{name or 'journal'} changed"
    assert (Path(copy) / (path.name + ".mark")).exists()
    assert oct(Path(copy).stat().st_mode & 0o777) in ("0o750", "0o700")
    # What the copy is for: SQLite has had the -wal by now.
    wal = Path(str(path) + "-wal")
    assert not wal.exists() or wal.read_bytes() != found["-wal"]
    # `history --check` afterwards still refuses, and makes no second copy.
    with Journal(path) as j:
        assert j.damage and j.evidence is None


def test_a_sound_kill_9_journal_makes_no_copy(killed, tmp_path):
    path = _copy(killed, tmp_path)
    orch, _rec = _open(path)
    orch.journal.close()
    assert not list(path.parent.glob("*.found-*"))
