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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.engine.table.audit import audit
from controller.engine.table.state import TableState
from controller.journal import Journal, JournalEntry, JournalError, mark_path

__all__ = ["JournalRefused", "problems", "snapshot_problems", "accept", "floor_hint"]


def floor_hint(path: str | Path) -> str:
    """Return what the floor does about a refused journal at ``path`` (docs/faults.md)."""
    return (f"The table did not start. The floor: keep the table closed; "
            f"`livetable history --journal {path} --check` says what is wrong; put back the "
            f"journal's files from a backup if there is one ({path}, {path}-wal, {mark_path(path)}); "
            f"otherwise settle the hands the journal lost from the hand files (journal.history_dir) "
            f"and accept the journal as it is: `livetable history --journal {path} --accept --by NAME "
            f"--reason TEXT`, then start the table again (docs/faults.md, 'A journal the table refuses').")


class JournalRefused(JournalError):
    """The journal is missing committed events or its snapshot disagrees with its events:
    the table must not start on it (exit 3). ``problems`` lists what is wrong."""

    def __init__(self, path: str | Path, found: list[str]) -> None:
        self.problems = list(found)
        super().__init__(f"journal check failed: {path}: " + "; ".join(found[:5])
                         + (f" (and {len(found) - 5} more)" if len(found) > 5 else "")
                         + ". " + floor_hint(path))


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


def snapshot_problems(journal: Journal) -> list[str]:
    """Return how the newest snapshot disagrees with the journal (empty: it agrees).

    The newest snapshot (where recovery starts) must balance (``audit``: stacks + pots +
    rake = chips brought in, the ledger matches the stacks), and when an older snapshot is
    kept, replaying the events between them must give it exactly (table and open faults).
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
            mine = {"table": newest.get("table"), "faults": newest.get("faults", [])}
            if mine != replayed:
                where = "; ".join(_diff(mine, replayed))
                found.append(f"the snapshot at event {newest_upto} disagrees with the replay of events "
                             f"{prev_upto + 1}..{newest_upto} from the snapshot at event {prev_upto} ({where})")
    return found


def problems(journal: Journal, *, full: bool = True) -> list[str]:
    """Return everything that keeps the table from starting on ``journal`` (empty: sound):
    :meth:`Journal.check` (committed events missing, SQLite's check, gaps, non-JSON), then,
    when those pass, :func:`snapshot_problems`. ``full=False`` is start-up's check: the
    events start-up reads only (:meth:`Journal.check`), so that READY does not grow with
    the hands the journal keeps (issue 21)."""
    found = journal.check(full=full)
    if found:
        return found
    try:
        return snapshot_problems(journal)
    except JournalError as exc:
        return [str(exc)]


def accept(journal: Journal, *, by: str, reason: str, at: float) -> dict[str, Any]:
    """Accept ``journal`` as it is (the floor's decision); return what was done.

    Snapshots that disagree with the replay of the events from the oldest snapshot are
    deleted (the events are the record; recovery then replays them); then
    :meth:`Journal.accept` records a ``journal-accepted`` event (who, why, what was wrong)
    and brings the mark up to date. Returns ``{"seq": the event's seq, "dropped_snapshots":
    [upto, ...], "problems": [what was wrong]}``.

    Raises:
        ValueError: ``by`` is empty, or the journal is sound (nothing to accept).
        JournalError: the journal cannot be written, or what is wrong cannot be accepted (the
            oldest snapshot does not balance, SQLite reports a damaged file, a gap in the
            events): it must be restored from a backup or moved away.
    """
    if not by.strip():
        raise ValueError("accepting a journal needs the name of who decided it")
    before = problems(journal)
    if not before:
        raise ValueError("the journal is sound: there is nothing to accept")
    damage = journal.damage
    other = [p for p in journal.check() if p not in damage]
    if other:
        raise JournalError("this cannot be accepted (restore the journal from a backup, or move it "
                           "and its mark away to open a new table): " + "; ".join(other[:5]))
    dropped: list[int] = []
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
    seq = journal.accept(by=by, reason=reason, at=at)
    return {"seq": seq, "dropped_snapshots": dropped, "problems": before}
