"""Is the journal whole? The start-up check that refuses a damaged journal (issue 16, item 4).

SQLite keeps every committed transaction whole, but it cannot know about a transaction that
is gone: a ``-wal`` truncated, deleted or with a flipped bit is read up to its last valid
commit (or not at all), and a table that opened such a journal used to start on an older
state - often a fresh one - with every seat and chip forgotten. Two witnesses catch that:

- **the mark** (:mod:`controller.journal`): the newest committed seq, kept beside the
  journal; a journal that ends before it, a mark missing or damaged, a dropped table;
- **the newest snapshot against the replay**: the events since the snapshot before it are
  replayed (what recovery would do) and must give the newest snapshot exactly, and its
  chips must balance (``audit``: a snapshot with chips added is refused, not played on).

:func:`problems` lists what is wrong, :class:`JournalRefused` is raised by the runtime
with a message saying what is missing and how the floor goes on (``docs/faults.md``, "A
journal the table refuses"); ``livetable run`` and ``livetable simulate`` exit 3 on it and
systemd does not restart them (``RestartPreventExitStatus``). :func:`accept` is the floor's
explicit way to take the journal as it is (``livetable history --accept``).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.engine.table.audit import audit
from controller.engine.table.state import TableState
from controller.journal import (Journal, JournalEntry, JournalError, JournalRefused, evidence_note, floor_hint,
                                found_copies, mark_path, read_regular)

__all__ = ["JournalRefused", "problems", "snapshot_problems", "accept", "floor_hint", "evidence_note",
           "history_problems", "history_hint", "last_hand_file", "later_hand_file", "journal_missing",
           "accept_beside_history",
           "HISTORY_HANDS_META", "GIVEN_UP_META", "tournament_problems", "found_copies", "hands_problems",
           "replay_problems", "replayed_table"]


#: A hand file in ``journal.history_dir`` (:func:`controller.compaction.history_files`:
#: six digits or more, any number of them: hand 10^12 is ``hand-1000000000000.json``).
_HAND_FILE = re.compile(r"hand-(\d{1,18})\.(?:json|phh)")
#: ``meta`` key: the highest hand the floor gave up when accepting a journal that lost hands
#: (``livetable history --accept``): hand files up to it no longer refuse the journal.
GIVEN_UP_META = "hands_given_up"
#: ``meta``: when the floor gave those hands up (seconds since the epoch, the accept's time).
GIVEN_UP_AT_META = "hands_given_up_at"
#: Hand files read (highest number first) to find the table's newest: a few that are not
#: this table's hands (another table's, empty, damaged) are passed over.
_HANDS_READ = 20
#: Hand numbers after the journal's last hand whose files start-up looks for by name
#: (:func:`later_hand_file`): a table writes a file for every hand it finishes, voided ones
#: too, so the hands a journal lost begin at its next hand; a few hands without a file (a
#: full disk then, a hand unfinished at a kill) are stepped over.
_LATER_HANDS = 64
#: A hand file larger than this is not one (a record is a few KB).
_HAND_FILE_MAX = 4 * 1024 * 1024
#: ``meta`` key: the last hand of the history folder the floor accepted a new journal beside
#: (``livetable history --accept --history-dir``); the new journal numbers hands after it.
HISTORY_HANDS_META = "history_hands"


def last_hand_file(history_dir: str | Path | None, table: str | None = None) -> int:
    """Return the highest hand number of ``table``'s hand files in ``history_dir`` (0: none,
    or no folder); ``table`` None: any table's.

    A hand counts when its ``hand-N.json`` is a regular file holding a record of hand ``N``
    (``"hand": N``) of ``table``: an empty file, another table's hand, a FIFO or a device
    named like one is passed over (never opened for long: :func:`controller.journal.read_regular`),
    so it can neither hang the table nor move its numbering. The highest
    :data:`_HANDS_READ` numbers are read, highest first.
    """
    if not history_dir:
        return 0
    try:
        names = os.listdir(history_dir)
    except OSError:
        return 0
    numbers = sorted({int(m.group(1)) for n in names if (m := _HAND_FILE.fullmatch(n))}, reverse=True)
    for number in numbers[:_HANDS_READ]:
        if hand_file_record(history_dir, number, table) is not None:
            return number
    return 0


def later_hand_file(history_dir: str | Path | None, after: int, table: str | None = None) -> int:
    """Return the number of a hand file of ``table`` in ``history_dir`` numbered after ``after``
    (0: none, or no folder); ``table`` None: any table's.

    Start-up's look for hands the journal lost (:func:`hands_problems`) without reading the
    folder's listing: after 50,000 hands it holds 100,000 files, and a listing and a match
    of every name took 160-330 ms of READY on a loaded 2-core x86 (issue 21). Every hand the
    table finishes has its files (voided ones too), so the hands a journal lost start at
    its next hand: ``hand-N.json`` is looked for by name for each of the next
    :data:`_LATER_HANDS` numbers (a missing file costs a failed open, microseconds), each
    counted as :func:`hand_file_record` counts it. When one is found the folder is read
    whole (:func:`last_hand_file`, a table that is refused anyway) and the highest is
    returned.
    """
    if not history_dir:
        return 0
    for number in range(after + 1, after + 1 + _LATER_HANDS):
        if hand_file_record(history_dir, number, table) is not None:
            return max(number, last_hand_file(history_dir, table))
    return 0


def hand_file_record(history_dir: str | Path, number: int, table: str | None) -> dict[str, Any] | None:
    """Return the record in ``history_dir``'s ``hand-N.json`` when it is a regular file holding
    hand ``number`` of ``table`` (None: any table's); None otherwise (missing, empty, another
    table's, a FIFO or a device: never opened for long)."""
    name = os.path.join(history_dir, f"hand-{number:06d}.json")
    try:
        data = read_regular(name, _HAND_FILE_MAX + 1)
        record = json.loads(data) if len(data) <= _HAND_FILE_MAX else None
    except (OSError, ValueError):
        return None
    if (isinstance(record, dict) and record.get("hand") == number
            and (table is None or record.get("table") == table)):
        return record
    return None


def hands_problems(journal: Journal, hands: int, history_dir: str | Path | None,
                   table: str | None) -> list[str]:
    """Return how the table replayed from ``journal`` (``hands`` started) falls short of what
    else knows its last hand (issue 16: a replay that stopped taking events, a backup put
    back, a lost ``-wal``): the mark's hand count, and a hand file of ``table`` in
    ``history_dir`` numbered after the hands started (:func:`later_hand_file`: looked for
    by name, not by reading the whole folder). Hands the floor gave up when accepting the
    journal (``meta`` :data:`GIVEN_UP_META`) do not count. Empty: nothing is missing."""
    try:
        given_up = int(journal.meta(GIVEN_UP_META) or 0)
    except ValueError:
        given_up = 0
    found = []
    mark = journal.found_mark
    if mark is not None and mark.hands > max(hands, given_up):
        found.append(f"the journal's replay ends with {hands} hands started, but its mark says hand "
                     f"{mark.hands} had started by event {mark.seq}: hands {hands + 1}..{mark.hands} "
                     "are missing from the journal")
    if given_up > hands and history_dir:
        # After an accept the table numbers its next hands from the journal's own count (hands
        # + 1, ...) inside the given-up range, where the check below cannot see them: the next
        # hand's file, played after the accept, tells that the journal lost it (a backup taken
        # at the accept put back: a second breaker's finding).
        try:
            accepted_at = float(journal.meta(GIVEN_UP_AT_META) or "nan")
        except ValueError:
            accepted_at = float("nan")
        nxt = hand_file_record(history_dir, hands + 1, table)
        started = nxt.get("started") if nxt is not None else None
        if isinstance(started, (int, float)) and not isinstance(started, bool) and started >= accepted_at:
            found.append(f"the journal's replay ends with {hands} hands started, but the history folder "
                         f"{history_dir} holds hand {hands + 1} of table {table}, played after the floor "
                         "accepted the journal: hands played since the accept are missing from the "
                         "journal (a backup taken at the accept put back?)")
    last = later_hand_file(history_dir, max(hands, given_up), table)
    if last > max(hands, given_up):
        found.append(f"the journal's replay ends with {hands} hands started, but the history folder "
                     f"{history_dir} holds the hand file of hand {last} of table {table}: hands "
                     f"{hands + 1}..{last} are missing from the journal (an older backup put back, "
                     "its -wal lost, or events the table refuses)")
    return found


def replayed_table(journal: Journal, *, check: bool = True) -> tuple[int, str | None] | None:
    """Replay ``journal`` as start-up does (:meth:`Orchestrator.recover`) and return the
    table's ``(hands started, table id)``; None when there is nothing to replay from (events
    but no snapshot). An empty journal gives ``(hands it numbers after, None)``.
    ``check=False`` replays without the start-up check and the mark's comparison (the
    floor's accept, on a journal that fails them).

    Raises:
        JournalError: the replay refuses the journal (recovery's own message).
    """
    from controller.orchestrator import Orchestrator

    snap = journal.latest_snapshot()
    if snap is None:
        if journal.last_seq - journal.compacted_upto <= 0:
            try:
                return int(journal.meta(HISTORY_HANDS_META) or 0), None
            except ValueError:
                return 0, None
        return None

    def fresh() -> TableState:  # pragma: no cover - there is a snapshot
        raise JournalError("no snapshot to start from")

    source: Any = journal if check else _Window(journal, snap, journal.last_seq)
    orch = Orchestrator.recover(source, fresh, clock=lambda: 0.0)
    return orch.state.hands, orch.state.settings.id


def replay_problems(journal: Journal, history_dir: str | Path | None) -> list[str]:
    """Return what start-up finds wrong past :func:`problems`: the replay refused
    (:meth:`Orchestrator.recover`: a kind the table does not know, events it refuses that the
    table took), or hands missing (:func:`hands_problems`). Empty: the table starts on it."""
    try:
        got = replayed_table(journal)
    except JournalError as exc:
        return [str(exc)]
    if got is None:
        return []
    return hands_problems(journal, got[0], history_dir, got[1])


def journal_missing(path: str | Path) -> bool:
    """True when nothing of the journal at ``path`` is left: no file, no ``-wal``, no mark."""
    return not any(os.path.exists(str(path) + s) for s in ("", "-wal", ".mark"))


def history_hint(path: str | Path, history_dir: str | Path, last: int) -> str:
    """What the floor does when ``history_dir`` holds hands up to ``last`` and the journal at
    ``path`` is gone (docs/faults.md, 'Hand files but no journal')."""
    return (f"The table did not start: it would number its hands from 1 again beside them. The floor: "
            f"put back the journal's files from a backup if there is one ({path}, {path}-wal, "
            f"{mark_path(path)}); or start a new history folder (set journal.history_dir to an empty "
            f"folder and keep {history_dir} as it is); or accept a new journal beside these hand files "
            f"(its hands are numbered from {last + 1}): `livetable history --journal {path} --history-dir "
            f"{history_dir} --accept --by NAME --reason TEXT`, then start the table again "
            f"(docs/faults.md, 'Hand files but no journal').")


def history_problems(path: str | Path, history_dir: str | Path | None) -> list[str]:
    """Return why the table must not start a new journal at ``path`` beside ``history_dir``
    (empty: it may): the journal, its ``-wal`` and its mark are all gone while the history
    folder holds hand files (issue 16 b: the new table would write its hands 1, 2, ... over
    them). A journal that exists is checked by :func:`problems` instead."""
    if not history_dir or not journal_missing(path):
        return []
    last = last_hand_file(history_dir)
    if not last:
        return []
    return [f"the journal {path} is missing (no journal, -wal or mark) but the history folder "
            f"{history_dir} holds the hand files of hands up to {last}: the journal that wrote them is "
            f"gone, with every seat and chip"]


class _Window:
    """A read-only view of a journal for :meth:`Orchestrator.recover`: the snapshot at
    ``base`` (or none) and the events after it up to ``upto``."""

    def __init__(self, journal: Journal, base: tuple[int, dict[str, Any]] | None, upto: int) -> None:
        self.journal, self.base, self.upto = journal, base, upto

    def check(self, *, full: bool = True) -> list[str]:
        return []

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        return self.base

    def entries(self, after: int = 0, *, kinds: tuple[str, ...] = ()) -> Iterator[JournalEntry]:
        for entry in self.journal.entries(after, kinds=kinds):
            if entry.seq > self.upto:
                return
            yield entry


def _replay(journal: Journal, base: tuple[int, dict[str, Any]] | None, upto: int,
            fresh: TableState | None) -> dict[str, Any]:
    """Return ``{"table", "faults"}`` as recovery rebuilds it from ``base`` up to ``upto``."""
    from controller.orchestrator import Orchestrator  # the recovery itself, not a copy of it

    def start() -> TableState:
        if fresh is None:
            raise JournalError("no snapshot to start from")
        return fresh

    orch = Orchestrator.recover(_Window(journal, base, upto), start, clock=lambda: 0.0)  # type: ignore[arg-type]
    state = {"table": orch.state.to_json(), "faults": [f.to_json() for f in orch.faults.open]}
    return json.loads(json.dumps(state, sort_keys=True))  # as the journal stores it


def _diff(a: Any, b: Any, where: str = "", out: list[str] | None = None, limit: int = 3) -> list[str]:
    """Return up to ``limit`` paths where ``a`` (the snapshot) and ``b`` (the replay) differ."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            _diff(a.get(k, "<none>"), b.get(k, "<none>"), f"{where}.{k}" if where else str(k), out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{where}[{i}]", out, limit)
    elif a != b:
        out.append(f"{where}: snapshot {json.dumps(a)[:60]}, replay {json.dumps(b)[:60]}")
    return out


def _empty(value: Any) -> bool:
    """True for a value a field added since an older livetable has at its default: None,
    false, 0, "", [] or {} (``info.button_waits`` [], ``settings.big_blind_ante`` 0, a hand
    record's ``settings.big_blind_first`` false: issue 19)."""
    return value is None or (isinstance(value, (bool, int, float, str, list, dict)) and not value)


def _without_added_fields(snapshot: Any, replay: Any) -> Any:
    """Return ``replay`` without the keys ``snapshot`` lacks whose value is empty
    (:func:`_empty`), at every depth: a snapshot an older livetable wrote lacks the fields
    added since, which this livetable's replay writes at their defaults (a journal written
    before an upgrade was refused at start for each of them: issue 21's breaker). A key the
    snapshot lacks with any other value stays, and the comparison reports it."""
    if isinstance(snapshot, dict) and isinstance(replay, dict):
        return {k: _without_added_fields(snapshot[k], v) if k in snapshot else v
                for k, v in replay.items() if k in snapshot or not _empty(v)}
    if isinstance(snapshot, list) and isinstance(replay, list) and len(snapshot) == len(replay):
        return [_without_added_fields(a, b) for a, b in zip(snapshot, replay)]
    return replay


def snapshot_problems(journal: Journal) -> list[str]:
    """Return how the newest snapshot disagrees with the journal (empty: it agrees).

    The newest snapshot (where recovery starts) must balance (``audit``: stacks + pots +
    rake = chips brought in, the ledger matches the stacks), and when an older snapshot is
    kept, replaying the events between them must give it exactly (table and open faults),
    both read through this livetable's :class:`TableState` (a snapshot an older livetable
    wrote lacks the fields added since: read, they take their defaults), and but for the
    fields of the records it keeps as written (the last hand's) that the snapshot lacks and
    the replay has at an empty value (:func:`_without_added_fields`).
    At most ``SNAPSHOT_EVERY`` hands' events are replayed (controller.orchestrator).

    Raises:
        JournalError: a snapshot is not JSON (also reported by :meth:`Journal.check`).
    """
    index = journal.snapshot_index(newest=2)  # not every snapshot: READY must not grow with them
    if not index:
        return []
    newest_upto = index[-1][0]
    newest = journal.snapshot_at(newest_upto)
    assert newest is not None
    found: list[str] = []
    try:
        state = TableState.from_json(newest["table"])
    except Exception as exc:  # noqa: BLE001 - any shape problem is a snapshot that cannot be used
        return [f"the snapshot at event {newest_upto} is not a table state: {type(exc).__name__}: {exc}"]
    for p in audit(state):
        found.append(f"the snapshot at event {newest_upto} does not balance: {p}")
    if len(index) >= 2:
        prev_upto = index[-2][0]
        prev = journal.snapshot_at(prev_upto)
        try:
            replayed = _replay(journal, (prev_upto, prev or {}), newest_upto, None)
        except JournalError as exc:
            found.append(f"the events {prev_upto + 1}..{newest_upto} do not replay from the snapshot "
                         f"at event {prev_upto}: {exc}")
        else:
            # The newest snapshot as this livetable reads it, as the replay is (the fields added
            # since an older livetable wrote it at their defaults: ``settings.language`` "en");
            # then the empty fields of the records kept as written (the last hand's record).
            table = json.loads(json.dumps(state.to_json(), sort_keys=True))
            mine = {"table": table, "faults": newest.get("faults", [])}
            replayed = _without_added_fields(mine, replayed)
            if mine != replayed:
                where = "; ".join(_diff(mine, replayed))
                found.append(f"the snapshot at event {newest_upto} disagrees with the replay of events "
                             f"{prev_upto + 1}..{newest_upto} from the snapshot at event {prev_upto} ({where})")
    return found


def _is_time(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def event_problem(entry: JournalEntry) -> str | None:
    """Decode ``entry`` the way recovery reads it (:meth:`Orchestrator.recover`); return what
    is wrong with its shape (None: it decodes).

    ``table`` events through the table's codec (every field checked by the event's
    constructor); ``fault-raised`` (``kind`` a fault kind, ``message`` text), ``fault-ended``
    (``kind``, ``exit`` a fault exit, ``by`` text, ``at`` a time, ``note`` text) and
    ``rejected`` (``seq`` an event number) by their fields. Other kinds are not read by
    recovery and are not checked.
    """
    p, kind = entry.payload, entry.kind
    try:
        if kind == "table":
            from controller.engine.table.codec import from_json

            from_json(p)
        elif kind in ("fault-raised", "fault-ended"):
            from controller.faults import FaultExit, FaultKind

            FaultKind(p["kind"])
            if kind == "fault-raised" and not isinstance(p["message"], str):
                return "message is not text"
            if kind == "fault-ended":
                FaultExit(p["exit"])
                if not isinstance(p["by"], str) or not p["by"].strip():
                    return "by (who decided) is not a name"
                if not _is_time(p["at"]):
                    return f"at is not a time: {p['at']!r}"
                if not isinstance(p.get("note", ""), str):
                    return "note is not text"
        elif kind == "rejected":
            seq = p["seq"]
            if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq < entry.seq:
                return f"seq is not an earlier event's number: {seq!r}"
            if "by" not in p and seq != entry.seq - 1:
                # The live table marks only the event it just failed on; the floor's set-aside has ``by``.
                return f"it sets aside event {seq}, not the event just before it (no floor's name)"
        else:
            from controller.orchestrator import KNOWN_KINDS

            if kind not in KNOWN_KINDS:
                return "a kind the table does not know (recovery refuses it)"
    except KeyError as exc:
        return f"field {exc.args[0]!r} is missing"
    except (TypeError, ValueError) as exc:  # CodecError is a ValueError
        return str(exc)
    return None


def event_problems(journal: Journal, *, full: bool = True, limit: int = 5) -> list[str]:
    """Return the first ``limit`` events of the wrong shape (:func:`event_problem`), each as
    ``event SEQ (KIND: table kind) is of the wrong shape: what``, skipping the events the
    floor set aside (a ``rejected`` event naming them: :func:`accept`).

    ``full=False`` (start-up) reads the events start-up reads (:meth:`Journal.check`'s
    window), ``full=True`` (``livetable history --check``) every event kept.

    Raises:
        JournalError: a payload is not a JSON object (also reported by :meth:`Journal.check`).
    """
    after = journal.compacted_upto if full else journal.startup_window()
    set_aside = set(rejected_seqs(journal, after))
    found: list[str] = []
    for entry in journal.entries(after):
        if entry.seq in set_aside:
            continue
        what = event_problem(entry)
        if what is not None:
            sub = entry.payload.get("kind") if entry.kind == "table" else None
            name = f"{entry.kind}: {sub}" if isinstance(sub, str) else entry.kind
            found.append(f"event {entry.seq} ({name}) is of the wrong shape: {what}")
            if len(found) >= limit:
                break
    return found


def rejected_seqs(journal: Journal, after: int) -> list[int]:
    """Return the events after ``after`` that a ``rejected`` event sets aside (recovery skips them)."""
    from controller.orchestrator import set_aside_seqs  # recovery's own reading

    return sorted(set_aside_seqs(journal, after))


def problems(journal: Journal, *, full: bool = True) -> list[str]:
    """Return everything that keeps the table from starting on ``journal`` (empty: sound):
    :meth:`Journal.check` (committed events missing, SQLite's check, gaps, non-JSON), then,
    when those pass, the events of the wrong shape (:func:`event_problems`: each event decoded
    as recovery decodes it, voided hands' too), then :func:`snapshot_problems`, then a
    tournament's events (:func:`tournament_problems`). ``full=False`` is start-up's check: the
    events start-up reads only (:meth:`Journal.check`), so that READY does not grow with
    the hands the journal keeps (issue 21)."""
    found = journal.check(full=full)
    if found:
        return found
    try:
        found = event_problems(journal, full=full)
        return found or snapshot_problems(journal) or tournament_problems(journal)
    except JournalError as exc:
        return [str(exc)]


def tournament_problems(journal: Journal) -> list[str]:
    """Return why a single-table tournament could not start on ``journal`` (empty: it can,
    or the journal is not one: its meta ``plays``, or when unmarked its first tournament
    record as :func:`controller.tournament_run.journal_plays` reads it, says otherwise): its tournament
    events replayed read-only (:func:`controller.tournament_run.replay_problem`, one pass).
    A bust naming a player with no entry used to pass as sound and stop the table on a
    traceback (``TournamentError: journal event N: ...``)."""
    from controller.tournament_run import JOURNAL_KIND, PLAYS_META, plays_of_first, replay_problem

    try:
        plays = journal.meta(PLAYS_META)
        if plays is None:  # not marked yet (a table killed before it marked it): its first record says
            first = next(journal.entries(kinds=(JOURNAL_KIND,)), None)
            plays = None if first is None else plays_of_first(first.payload)
        if plays != "tournament":
            return []
        found = replay_problem(journal)
    except sqlite3.Error:
        # Older pages SQLite cannot read (beyond what start-up reads): a cash table starts on
        # them, and compaction's failing is shown to the floor (JournalKeeper.health); a
        # tournament's replay, which reads them, says so itself.
        return []
    return [] if found is None else [found]


def accept(journal: Journal, *, by: str, reason: str, at: float,
           history_dir: str | Path | None = None) -> dict[str, Any]:
    """Accept ``journal`` as it is (the floor's decision); return what was done.

    Snapshots that disagree with the replay of the events from the oldest snapshot are
    deleted (the events are the record; recovery then replays them); then
    :meth:`Journal.accept` records a ``journal-accepted`` event (who, why, what was wrong)
    and brings the mark up to date. Events of the wrong shape (:func:`event_problems`) are set
    aside first: a ``rejected`` event names each (``{"seq", "error", "by"}``) and recovery
    skips it, as it skips an event the live table could not take. Returns ``{"seq": the
    event's seq, "dropped_snapshots": [upto, ...], "problems": [what was wrong], "set_aside":
    [seq, ...], "hands_given_up": {"first", "last"} or None}``.

    What start-up's replay finds wrong counts too (:func:`replay_problems`, with the hand
    files of ``history_dir``): the hands the journal, as accepted, no longer holds (up to the
    mark's count and the table's highest hand file) are listed in the ``journal-accepted``
    event (``hands_given_up``) and in ``meta`` :data:`GIVEN_UP_META`, so that the next start
    passes knowingly.

    Raises:
        ValueError: ``by`` is empty or holds control characters, ``reason`` too long or
            with control characters, or the journal is sound (nothing to accept).
        JournalError: the journal cannot be written, or what is wrong cannot be accepted (the
            oldest snapshot does not balance, SQLite reports a damaged file, a gap in the
            events): it must be restored from a backup or moved away.
    """
    check_decision(by, reason)
    before = problems(journal)
    if not before:
        before = replay_problems(journal, history_dir)
    if not before:
        raise ValueError("the journal is sound: there is nothing to accept")
    damage = journal.damage
    other = [p for p in journal.check() if p not in damage]
    if other:
        raise JournalError("this cannot be accepted (restore the journal from a backup, or move it "
                           "and its mark away to open a new table): " + "; ".join(other[:5]))
    dropped: list[int] = []
    set_aside = _set_aside_bad_events(journal, by, at) if not damage else []
    if not damage:
        index = journal.snapshot_index()
        base_upto = index[0][0] if index else None
        if base_upto is not None:
            base = journal.snapshot_at(base_upto) or {}
            try:
                bad = audit(TableState.from_json(base["table"]))
            except Exception as exc:  # noqa: BLE001
                bad = [f"{type(exc).__name__}: {exc}"]
            if bad:
                raise JournalError(f"the oldest snapshot (event {base_upto}) does not balance ({bad[0]}): "
                                   "nothing older to replay from; restore the journal from a backup")
            start: tuple[int, dict[str, Any]] = (base_upto, base)
            for upto, _hands, _between in index[1:]:
                snap = journal.snapshot_at(upto) or {}
                mine = {"table": snap.get("table"), "faults": snap.get("faults", [])}
                try:
                    replayed = _replay(journal, start, upto, None)
                except JournalError as exc:
                    raise JournalError(f"the events up to {upto} do not replay ({exc}): restore the "
                                       "journal from a backup") from None
                if mine != replayed:
                    dropped.append(upto)
                start = (upto, replayed)  # the replay goes on from what the events say
            journal.drop_snapshots(dropped)
    given_up, upto = _hands_given_up(journal, history_dir)
    seq = journal.accept(by=by, reason=reason, at=at, note={"hands_given_up": given_up})
    if upto:
        journal.set_meta(GIVEN_UP_META, str(upto))
        journal.set_meta(GIVEN_UP_AT_META, repr(float(at)))
    if damage:
        set_aside = _set_aside_bad_events(journal, by, at)
    return {"seq": seq, "dropped_snapshots": dropped, "problems": before, "set_aside": set_aside,
            "hands_given_up": given_up}


#: The longest ``--reason`` kept (characters): a sentence or two, not a file.
REASON_MAX = 1000
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def check_decision(by: str, reason: str) -> None:
    """Refuse a floor decision's ``by`` (who) and ``reason`` that would mislead whoever reads
    them later: empty ``by``, control or format characters (a newline printing a fake line,
    ESC, U+202E turning text around), ``by`` over 100 or ``reason`` over :data:`REASON_MAX`
    characters.

    Raises:
        ValueError: what is wrong, naming the field.
    """
    if not by.strip():
        raise ValueError("accepting a journal needs the name of who decided it")
    for name, text, most in (("--by", by, 100), ("--reason", reason, REASON_MAX)):
        if len(text) > most:
            raise ValueError(f"{name} is {len(text)} characters long; at most {most}")
        bad = _CONTROL.search(text)
        if bad:
            raise ValueError(f"{name} holds a control or format character (U+{ord(bad.group()):04X}): "
                             "plain text only")


def _hands_given_up(journal: Journal, history_dir: str | Path | None) -> tuple[dict[str, int] | None, int]:
    """Return the hands the journal as accepted no longer holds, ``{"first", "last"}`` (those
    after its replay's last, up to the mark's count and the table's highest hand file; None:
    none), and the highest of them (0: none)."""
    try:
        got = replayed_table(journal, check=False)
    except JournalError:
        got = None
    mark = journal.found_mark
    known = max(mark.hands if mark is not None else 0, last_hand_file(history_dir, got[1] if got else None))
    if got is None:  # the replay fails: at least the last is lost
        return (None, 0) if not known else ({"first": known, "last": known}, known)
    if known <= got[0]:
        return None, 0
    return {"first": got[0] + 1, "last": known}, known


def _set_aside_bad_events(journal: Journal, by: str, at: float) -> list[int]:
    """Append a ``rejected`` event for every event of the wrong shape (recovery skips them, as
    it skips what the live table could not take); return their seqs."""
    bad: list[int] = []
    while True:
        found = event_problems(journal, full=True, limit=1000)
        if not found:
            return bad
        for text in found:
            seq = int(text.split()[1])
            journal.append("rejected", {"seq": seq, "error": text, "by": by}, at)
            bad.append(seq)


def accept_beside_history(path: str | Path, history_dir: str | Path, *, by: str, reason: str,
                          at: float) -> dict[str, Any]:
    """Accept a new journal at ``path`` beside the hand files of ``history_dir`` (the floor's
    decision after :func:`history_problems`); return ``{"seq", "problems", "history_hands"}``.

    The journal is created with one ``journal-accepted`` event (who, why, what was wrong,
    ``history_hands``: the folder's last hand) and ``meta`` :data:`HISTORY_HANDS_META`, so the
    table it starts numbers its hands after the folder's (no hand file is written over).

    Raises:
        ValueError: ``by`` is empty, or there is nothing to accept (a journal is there, or
            the folder holds no hand file).
        JournalError: the journal cannot be created.
    """
    check_decision(by, reason)
    found = history_problems(path, history_dir)
    if not found:
        raise ValueError(f"nothing to accept beside {history_dir}: the journal {path} is there, or the "
                         "folder holds no hand file")
    last = last_hand_file(history_dir)
    with Journal(path) as journal:
        journal.set_meta(HISTORY_HANDS_META, str(last))
        seq = journal.accept(by=by, reason=reason, at=at, note={"history_hands": last,
                                                                "history_dir": str(history_dir)},
                             damage=found)
    return {"seq": seq, "problems": found, "history_hands": last}
