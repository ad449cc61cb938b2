"""Finished table hands written out (issue 9): PHH text and the tablets' hand summary.

- :func:`record_to_phh` turns the ``hand-finished`` record of the table
  (``controller.engine.table.play.finish_hand``, docs/table.md) into PHH text (TOML) that
  ``livetable replay`` plays back to the same finishing stacks. Standard PHH keys plus our
  extension keys (docs/history.md): table, hand number, time, seat names, button and blind
  seats, antes, dead blinds (T-6), rake (R-1), mucked hands (P-4), and ``_void`` for a
  voided hand.
- :func:`hand_summary` is what the tablets' history topics carry of a finished hand (P-4).

Part of :mod:`controller.history` (which re-exports these names); read-only.
"""

from __future__ import annotations

import json
import tomllib
from datetime import datetime, timezone
from typing import Any

from controller.engine import phh
from controller.engine.hand import Hand
from controller.engine.rake import rake_paid
from controller.engine.settings import PlayerSetup

__all__ = ["record_to_phh", "hand_summary", "hand_from_record", "rake_paid", "phh_order"]


def hand_summary(record: dict[str, Any]) -> dict[str, Any]:
    """Return the summary of one finished hand that the tablets' history topics carry (P-4).

    ``record``: the table's ``HandFinished`` record (``controller/engine/table/play.py``). The
    summary keeps only what docs/mqtt.md lists: ``hand``, ``table``, ``game``, ``limit``,
    ``started``, ``ended``, ``voided``, ``board`` (the cards dealt face up), ``seats``
    (``seat``, ``name``, ``cards``, ``showed``, ``net`` chips won or lost in the hand),
    ``pots`` (``amount``, ``winners``, ``hand`` in words) and ``rake``. Every seat's
    ``cards`` are still here; :func:`drivers.mqtt.codec.history_views` blanks them per view.
    Nothing else of the record (the engine's events, every hole card in ``result``) is
    copied, so no private card reaches the history topics by another field.
    """
    res = record.get("result") or {}
    board = (record.get("hand_record") or {}).get("board") or []
    seats = []
    for s in record.get("seats") or []:
        start, end = s.get("start"), s.get("end")
        net = end - start if isinstance(start, int) and isinstance(end, int) else None
        seats.append({"seat": s.get("seat"), "name": s.get("name"), "cards": s.get("cards"),
                      "showed": s.get("showed"), "net": net})
    pots = [{"amount": a.get("amount"), "winners": list(a.get("winners") or []), "hand": a.get("hand")}
            for a in res.get("awards") or []]
    return {"hand": record.get("hand"), "table": record.get("table"), "game": record.get("game"),
            "limit": record.get("limit"), "started": record.get("started"), "ended": record.get("ended"),
            "voided": bool(record.get("voided")), "board": [c for c in board if isinstance(c, str)],
            "seats": seats, "pots": pots, "rake": res.get("rake", 0)}


def hand_from_record(record: dict[str, Any]) -> Hand:
    """Return the finished hand engine :class:`Hand` rebuilt from a ``hand-finished`` record.

    Replays ``record["hand_record"]`` (settings, players with posts, button/blinds, events).

    Raises:
        KeyError: the record has no ``hand_record``.
        HandError (ValueError): the record's events do not replay (a corrupt record).
    """
    return Hand.from_snapshot(record["hand_record"])


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r} as TOML")


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(float(at), tz=timezone.utc)


def record_to_phh(record: dict[str, Any]) -> str:
    """Return a finished (or voided) table hand as PHH text (TOML).

    Args:
        record: the ``hand-finished`` record (docs/table.md): ``hand``, ``table``, ``seats``
            (seat, name, player, cards, showed, start, end), ``started``/``ended`` (Unix
            seconds), ``button``, ``sb_seat``, ``bb_seat``, ``hand_record``, ``result``,
            ``voided``.

    Returns:
        PHH TOML text written by :func:`controller.engine.phh.dump` (variant, antes,
        blinds, stakes, starting stacks, ``seats``, ``dead_posts``, the actions with every
        hole card known, mucked ones included: P-4) followed by the standard optional keys
        ``table``, ``hand``, ``players`` (names, p1..pN), ``day``/``month``/``year``,
        ``time`` and ``time_zone`` (UTC), and user-defined keys (PHH: names starting with
        ``_``, which readers ignore): ``_player_ids``, ``_button``, ``_small_blind_seat``
        (0 = dead), ``_big_blind_seat``, ``_started``/``_ended`` (Unix seconds),
        ``_smallest_chip`` (S-10: splits and rake are made to it, P-3), ``_cap_bets`` and
        ``_cap_lifted_heads_up`` (S-6 fixed-limit cap), ``_rake``
        (total), the rake settings ``_rake_percent`` (a fraction as text, ``"5"``),
        ``_rake_cap``, ``_rake_caps`` (``[[players, cap], ...]``), ``_no_flop_no_drop``,
        ``_draw_counts_as_flop``, ``_rake_paid`` (per player, p1..pN), ``_shown`` and
        ``_mucked`` (p-numbers), ``_auto`` (``["p3", "fold", "A-2"]``: what the table did for
        a player), and for a voided hand ``_void = true`` and ``_void_reason`` plus a first
        line comment ``# VOID: ...``. ``finishing_stacks`` are the table's stacks after rake;
        a voided hand's are its starting stacks (every wager returned) while its actions stop
        where the hand was voided.

    Raises:
        KeyError / ValueError: a record without ``hand_record`` or whose events do not replay;
            ValueError: an ``auto`` entry for a seat not dealt in; PHHError (a ValueError): a
            record whose fields contradict each other as :func:`controller.engine.phh.load`
            refuses them (``_small_blind_seat`` not the seat that posted the small blind, a
            hand both ``_shown`` and ``_mucked``...), with the PHH key named.
    """
    hand = hand_from_record(record)
    order = [p.seat for p in phh_order(hand)]
    pno = {seat: k + 1 for k, seat in enumerate(order)}
    by_seat = {int(s["seat"]): s for s in record.get("seats") or []}
    text = phh.dump(hand)
    lines: list[str] = []
    voided = bool(record.get("voided") or (record.get("result") or {}).get("voided"))
    reason = ""
    if voided:
        reason = next((e.get("reason", "") for e in record["hand_record"].get("events", [])
                       if e.get("t") == "void"), "")
        lines.append(f"# VOID: hand {record.get('hand')} was voided ({_one_line(reason)}); "
                     "every wager was returned")
    lines.append(text.rstrip("\n"))
    meta: list[tuple[str, Any]] = []
    if record.get("table") is not None:
        meta.append(("table", str(record["table"])))
    if record.get("hand") is not None:
        meta.append(("hand", int(record["hand"])))
    meta.append(("players", [str(by_seat.get(s, {}).get("name") or f"Seat {s}") for s in order]))
    if record.get("started") is not None:
        t = _utc(record["started"])
        meta += [("day", t.day), ("month", t.month), ("year", t.year)]
    meta.append(("_player_ids", [str(by_seat.get(s, {}).get("player") or "") for s in order]))
    meta.append(("_button", int(record.get("button") or hand.button)))
    sb = record.get("sb_seat", hand.sb_seat)
    meta.append(("_small_blind_seat", int(sb or 0)))
    meta.append(("_big_blind_seat", int(record.get("bb_seat") or hand.bb_seat)))
    if record.get("started") is not None:
        meta.append(("_started", float(record["started"])))
    if record.get("ended") is not None:
        meta.append(("_ended", float(record["ended"])))
    res = record.get("result") or {}
    hs = hand.settings
    # betting settings a reader needs beyond the PHH keys (S-10, P-3, S-6)
    meta += [("_smallest_chip", int(hs.smallest_chip)), ("_cap_bets", int(hs.cap_bets)),
             ("_cap_lifted_heads_up", bool(hs.cap_lifted_heads_up))]
    rake = hs.rake
    meta.append(("_rake", int(res.get("rake") or 0)))
    if rake is not None:  # what a reader needs to take the same rake
        meta.append(("_rake_percent", str(rake.percent)))
        if rake.cap is not None:
            meta.append(("_rake_cap", int(rake.cap)))
        meta.append(("_rake_caps", [[int(n), int(c)] for n, c in rake.caps]))
        meta.append(("_no_flop_no_drop", bool(rake.no_flop_no_drop)))
        meta.append(("_draw_counts_as_flop", bool(rake.draw_counts_as_flop)))
    paid = rake_paid(record)
    meta.append(("_rake_paid", [paid.get(s, 0) for s in order]))
    meta.append(("_shown", [f"p{pno[int(s)]}" for s in (res.get("shown") or {}) if int(s) in pno]))
    meta.append(("_mucked", [f"p{pno[int(s)]}" for s in (res.get("mucked") or []) if int(s) in pno]))
    strays = [a for a in record.get("auto") or [] if int(a[0]) not in pno]
    if strays:  # what the table did for a player who was not dealt in: a record that contradicts itself
        raise ValueError(f"record of hand {record.get('hand')}: auto names seat {strays[0][0]}, "
                         f"not dealt in (seats {', '.join(map(str, order))})")
    meta.append(("_auto", [[f"p{pno[int(a[0])]}", str(a[1]), str(a[2])] for a in record.get("auto") or []]))
    if voided:
        meta += [("_void", True), ("_void_reason", str(reason))]
    written = set(tomllib.loads(text))  # a key the writer already gives is not repeated (TOML)
    for k, v in meta:
        if k not in written:
            lines.append(f"{k} = {_toml(v)}")
    if record.get("started") is not None and "time" not in written:
        t = _utc(record["started"])
        lines.append(f"time = {t.strftime('%H:%M:%S')}")  # a TOML local time, as PHH wants
        lines.append('time_zone = "UTC"')
    out = "\n".join(lines) + "\n"
    phh.load(out)  # what the reader refuses is never written: fields that contradict each other, named
    return out


def phh_order(hand: Hand) -> list[PlayerSetup]:
    """Return the hand's players in PHH order: p1 = first seat left of the button."""
    seats = sorted(p.seat for p in hand.setup)
    first = next((k for k, s in enumerate(seats) if s > hand.button), 0)
    ordered = seats[first:] + seats[:first]
    setup = {p.seat: p for p in hand.setup}
    return [setup[s] for s in ordered]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
