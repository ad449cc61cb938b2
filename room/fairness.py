"""An independent check of the waiting lists' fairness, from their log alone (issue 18).

Used by the tests and by ``livetable room crowd`` (simulated players); it shares no code
with :mod:`room.waitlist` but its record types, so a fault there is not copied here.

:func:`check_log` replays :attr:`room.waitlist.WaitingLists.log` into a plain model of its own
(lists in join order, table-change requests in request order, must-move players in the order
they sat at a must-move table, who sits where, the calls outstanding) and checks at every
``call`` entry that:

- the seat is open and no other call holds it (no seat offered to two players at once);
- the called player holds no other call;
- the called player is the first eligible one: first table-change requests, then must-move
  (never for a seat of a must-move table), then the list, skipping players who passed or
  lapsed on this opening, who hold a call, or who already sit at that table;
- no seat of a table offline (``offline`` … ``online`` entries) is called;
- no seat is given to two players: a seat is neither called nor accepted while its table
  reports another player sitting in it (the tables' own ``seat`` and ``open`` entries, by
  ``table:<t>``, say who sits where; the room's openings only when they name the sitter: a
  table change or must-move player leaving for another seat), and a table never reports
  sitting in a seat a player whose acceptance of it the room had taken back (an ``open``
  naming them, not by the table) while another player has accepted it since;

and after every ``lapse`` or ``pass`` that the operation's next entries, when someone was
eligible, hold the call of the next player (a lapsed call moves to the next); an operation
is the entries up to the next one not made by ``system`` (or a join, change request,
opening or lapse), so a wall clock's timestamps serve as well as a virtual one's. The log is the
only input, so it also checks the log says enough to answer "why was he seated before me".
"""

from __future__ import annotations

from typing import Any

__all__ = ["FairnessError", "check_log"]

from room.waitlist import Entry, ListKey


class FairnessError(AssertionError):
    """The log shows a call that broke a rule (the message names the entry)."""


def check_log(log: list[Entry], tables: dict[str, ListKey], feeds: dict[str, ListKey] | None = None) -> dict[str, int]:
    """Check ``log`` (see the module's text); return counts (``calls``, ``openings``, ``lapses``,
    ``passes``, ``seated``). Raises :class:`FairnessError`."""
    feeds = dict(feeds or {})
    lists: dict[ListKey, list[str]] = {}
    changes: dict[ListKey, list[str]] = {}
    must: dict[ListKey, list[str]] = {}
    seated: dict[str, tuple[str, int]] = {}
    openings: dict[tuple[str, int], dict[str, Any]] = {}  # -> {"key", "passed", "call"}
    o: dict[str, Any] | None
    counts = {"calls": 0, "openings": 0, "lapses": 0, "passes": 0, "seated": 0}

    def calling(p: str) -> bool:
        return any(o["call"] == p for o in openings.values())

    def first_eligible(key: ListKey, table: str, passed: set[str]) -> tuple[str, str] | None:
        order = [(p, "change") for p in changes.get(key, [])]
        order += [(p, "must-move") for p in must.get(key, [])]
        order += [(p, "list") for p in lists.get(key, [])]
        seen: set[str] = set()
        for p, src in order:
            if p in seen:
                continue
            seen.add(p)
            if p in passed or calling(p) or seated.get(p, ("", 0))[0] == table:
                continue
            if src == "must-move" and table in feeds:
                continue  # a must-move player is never called to a must-move table's seat
            return p, src
        return None

    def drop(p: str) -> None:
        for d in (lists, changes, must):
            for lst in d.values():
                if p in lst:
                    lst.remove(p)

    pending: dict[tuple[str, int], int] = {}  # seat -> index of the lapse/pass awaiting the next call
    sits: dict[tuple[str, int], str] = {}  # seat -> who sits there by its table's own reports
    taken: dict[tuple[str, int], str] = {}  # seat -> who accepted it (the table's report not seen yet)
    back: dict[tuple[str, int], set[str]] = {}  # seat -> whose acceptance the room took back since
    offline: set[str] = set()  # tables the room had no link to: their seats are called for nobody
    for i, e in enumerate(log):
        where = (e.table, e.seat) if e.table is not None and e.seat is not None else None
        if where is not None and e.by.startswith("table:"):
            if e.action == "seat" and e.player in back.get(where, ()) and taken.get(where, e.player) != e.player:
                raise FairnessError(f"entry {i}: the table seats {e.player} in {where}, which the room gave "
                                    f"{taken[where]} after taking it back from {e.player} (a seat given twice)")
            if e.action in ("open", "seat"):
                taken.pop(where, None)
                back.pop(where, None)
            if e.action == "open":
                sits.pop(where, None)
            elif e.action == "seat":
                sits[where] = e.player
        elif where is not None and e.action == "open" and e.player and taken.get(where) == e.player:
            back.setdefault(where, set()).add(taken.pop(where))
        if where is not None and e.action == "open" and e.player and sits.get(where) == e.player \
                and seated.get(e.player) not in (None, where):
            sits.pop(where)  # the room moves its sitter (a table change, a must-move): the table reports it later
        elif where is not None and e.action == "seat" and e.detail.startswith("accepted"):
            taken[where] = e.player
        if where is not None and (e.action == "call" or e.action == "seat" and e.detail.startswith("accepted")) \
                and sits.get(where, e.player) != e.player:
            raise FairnessError(f"entry {i}: seat {where} given to {e.player} ({e.action}) while its table reports "
                                f"{sits[where]} sitting in it (a seat given to two players)")
        if e.action == "offline" and e.table is not None:
            offline.add(e.table)
        elif e.action == "online" and e.table is not None:
            offline.discard(e.table)
        elif e.action == "feed":
            feeds[e.table] = e.key  # type: ignore[index, assignment]
        elif e.action == "join":
            lists.setdefault(e.key, []).append(e.player)  # type: ignore[arg-type]
        elif e.action == "change-request":
            changes.setdefault(e.key, []).append(e.player)  # type: ignore[arg-type]
        elif e.action in ("leave", "remove"):
            if e.key is not None and e.player in lists.get(e.key, []):
                lists[e.key].remove(e.player)
            for o in openings.values():
                if o["call"] == e.player and o["key"] == e.key and e.detail != "seated without a call":
                    o["call"] = None
        elif e.action == "open":
            counts["openings"] += 1
            if e.player and seated.get(e.player) == where:
                del seated[e.player]
                for d in (changes, must):
                    for lst in d.values():
                        if e.player in lst:
                            lst.remove(e.player)
            openings[where] = {"key": e.key, "passed": set(), "call": None}  # type: ignore[index]
        elif e.action == "call":
            counts["calls"] += 1
            o = openings.get(where)  # type: ignore[arg-type]
            if o is None:
                raise FairnessError(f"entry {i}: {e.player} called for {where}, which is not open")
            if e.table in offline:
                raise FairnessError(f"entry {i}: {e.player} called for {where}, a table offline")
            if o["call"] is not None:
                raise FairnessError(f"entry {i}: seat {where} offered to {e.player} while held for {o['call']}")
            if calling(e.player):
                raise FairnessError(f"entry {i}: {e.player} called while holding another call")
            want = first_eligible(o["key"], e.table, o["passed"])  # type: ignore[arg-type]
            if want is None or want[0] != e.player or not e.detail.startswith(want[1]):
                raise FairnessError(f"entry {i}: {e.player} called for {where} ({e.detail}); first eligible: {want}")
            o["call"], o["source"] = e.player, want[1]
            pending.pop(where, None)  # type: ignore[arg-type]
        elif e.action in ("pass", "lapse"):
            counts["passes" if e.action == "pass" else "lapses"] += 1
            o = openings.get(where)  # type: ignore[arg-type]
            if o is None or o["call"] != e.player:
                raise FairnessError(f"entry {i}: {e.action} by {e.player} for {where}, not their call")
            o["call"] = None
            o["passed"].add(e.player)
            if e.action == "lapse" and o.get("source") == "change" and e.player in changes.get(o["key"], []):
                changes[o["key"]].remove(e.player)
            pending[where] = i  # type: ignore[index]
        elif e.action == "cancel":
            openings.pop(where, None)  # type: ignore[arg-type]
            pending.pop(where, None)  # type: ignore[arg-type]
            if e.detail.startswith("accepted seat taken") and seated.get(e.player) == where:
                del seated[e.player]
        elif e.action == "seat":
            counts["seated"] += 1
            old = seated.get(e.player)
            if e.detail.startswith("accepted"):
                o = openings.get(where)  # type: ignore[arg-type]
                if o is None or o["call"] != e.player:
                    raise FairnessError(f"entry {i}: {e.player} seated at {where} without its call")
                drop(e.player)
            openings.pop(where, None)  # type: ignore[arg-type]
            pending.pop(where, None)  # type: ignore[arg-type]
            if old is not None and old != where:
                openings.pop(old, None)
            seated[e.player] = where  # type: ignore[assignment]
            main = feeds.get(e.table)  # type: ignore[arg-type]
            if main is not None and e.player not in must.setdefault(main, []):
                must[main].append(e.player)
        # a lapse or pass must be followed, within the same operation, by the next call when
        # someone is eligible: checked when the operation's entries end. The lists read the
        # clock at every entry (a wall clock moves within one operation), so an operation
        # ends where the next one begins: an entry by someone other than "system" (a player,
        # the floor, a table), a join, change request, opening or lapse, or the end of the log
        nxt = log[i + 1] if i + 1 < len(log) else None
        if nxt is None or nxt.by != "system" or nxt.action in ("join", "change-request", "open", "lapse"):
            for w, j in list(pending.items()):
                o = openings.get(w)
                if o is None or o["call"] is not None or w[0] in offline:
                    pending.pop(w)
                    continue
                want = first_eligible(o["key"], w[0], o["passed"])
                if want is not None:
                    raise FairnessError(f"entry {j}: after the {log[j].action} of {log[j].player} at {w}, "
                                        f"{want[0]} was eligible but not called")
                pending.pop(w)
    return counts
