"""``livetable floor``: the floor staff's decisions at a running table, over MQTT.

Run on the Pi or on a laptop on the room's network, against the table's broker. Each run
sends one request on ``livetable/<table>/floor/request`` (the ``floor`` user's ACL allows
only that topic) and waits for the controller's answer on ``livetable/<table>/floor/reply``
(docs/mqtt.md "Floor"; what each command does: docs/faults.md "The floor's command").

Commands::

    livetable floor status
    livetable floor deal [--method icm|chip-chop] [--unit N]   # a tournament's deal, read-only
    livetable floor deal-offer [--method icm|chip-chop] [--unit N] --by NAME   # offered on the tablets
    livetable floor deal-withdraw --by NAME [--reason TEXT]
    livetable floor resume|correction|misdeal|void FAULT --by NAME [--reason TEXT]
    livetable floor read SEAT CARD... --by NAME
    livetable floor confirm-buyin SEAT --by NAME
    livetable floor pause --by NAME [--reason TEXT]
    livetable floor seat SEAT PLAYER AMOUNT --by NAME [--reason TEXT]
    livetable floor stakes BIG_BLIND [--small-blind N] [--ante N] --by NAME [--reason TEXT]
    livetable floor close|open --by NAME [--reason TEXT]
    livetable floor clock-pause|clock-resume --by NAME [--reason TEXT]     # a tournament's clock
    livetable floor clock-add SECONDS|clock-level N --by NAME [--reason TEXT]
    livetable floor register PLAYER [--seat N] --by NAME [--reason TEXT]   # a late entry (TDA 9)
    livetable floor rebuy|addon SEAT --by NAME [--reason TEXT]             # a tournament's purchase

``seat``, ``stakes``, ``close`` and ``open`` take effect between hands (controller/floor.py).

``FAULT`` is the fault's kind (``jam``, ``hole-cards-unknown``) or its number in
``status``. Options, after the command: ``--table t1 --host 127.0.0.1 --port 1883 --user floor
--password-file FILE`` (or ``--credentials DIR``: the provisioning directory),
``--timeout 5``, ``--json`` (print the controller's reply as one JSON object).

Exit codes (:data:`EXIT_CODES`): 0 accepted (``status``: answered), 1 refused by the
table (the reason says why), 2 usage error or unreadable credentials, 3 the broker cannot
be reached or refused the login, 4 the table did not answer (its controller is offline,
or no answer within ``--timeout``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, TypeGuard

from controller.deal_cli import DealError, add_method_options, compute_deal, render_deal
from controller.tournament.words import minutes_seconds, stakes_words
from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.topics import Kind, TopicError, check_table, topic

__all__ = ["main", "FloorClient", "FloorError", "EXIT_CODES"]

ACCEPTED, REFUSED, USAGE, NO_BROKER, NO_ANSWER = 0, 1, 2, 3, 4
#: exit code -> meaning (docs/faults.md)
EXIT_CODES = {ACCEPTED: "accepted (status: answered)", REFUSED: "refused by the table",
              USAGE: "usage error or unreadable credentials", NO_BROKER: "broker unreachable or login refused",
              NO_ANSWER: "the table did not answer (controller offline or timeout)"}


class FloorError(Exception):
    """The request could not be answered; ``code`` is the exit code (3 or 4)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class FloorClient:
    """One request to one table's controller through the broker, and its answer.

    Args:
        table: the table id (``t1``); host, port: the broker; username, password: the
            ``floor`` login (None: anonymous, which a room's broker lets send nothing).
        timeout: seconds to wait for the broker, then again for the answer.
    """

    def __init__(self, table: str, *, host: str, port: int, username: str | None, password: str | None,
                 timeout: float = 5.0) -> None:
        self.table = check_table(table)
        self.host, self.port, self.username, self.password, self.timeout = host, port, username, password, timeout

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request`` (the fields of :func:`drivers.mqtt.codec.floor_request_payload`
        but ``request_id``) and return the controller's reply dict (docs/mqtt.md).

        Raises :class:`FloorError` 3 when the broker cannot be reached or refuses the login,
        4 when the controller is offline or does not answer within the timeout.
        """
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        rid = f"floor-{uuid.uuid4().hex[:16]}"
        reply_topic = topic(Kind.FLOOR_REPLY, self.table)
        presence_topic = topic(Kind.CONTROLLER_PRESENCE, self.table)
        cond = threading.Condition()
        seen: dict[str, Any] = {"connected": None, "subscribed": False, "reply": None, "online": None}

        def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            with cond:
                seen["connected"] = str(reason) if reason.is_failure else True
                cond.notify_all()
            if not reason.is_failure:
                client.subscribe([(reply_topic, 1), (presence_topic, 1)])

        def on_subscribe(client: Any, userdata: Any, mid: int, codes: Any, props: Any) -> None:
            with cond:
                seen["subscribed"] = [c.is_failure for c in codes]
                cond.notify_all()

        def on_message(client: Any, userdata: Any, msg: Any) -> None:
            with cond:
                if msg.topic == presence_topic:
                    try:
                        seen["online"] = codec.decode_presence(msg.payload) if msg.payload else False
                    except PayloadError:
                        seen["online"] = None
                else:
                    try:
                        obj = json.loads(msg.payload)
                    except ValueError:
                        return
                    if isinstance(obj, dict) and obj.get("id") == rid:
                        seen["reply"] = obj
                cond.notify_all()

        def on_connect_fail(client: Any, userdata: Any) -> None:
            with cond:
                seen["connected"] = "broker unreachable"
                cond.notify_all()

        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"livetable-floor-{uuid.uuid4().hex[:12]}",
                             protocol=mqtt.MQTTv5)
        if self.username is not None:
            client.username_pw_set(self.username, self.password)
        client.on_connect, client.on_subscribe = on_connect, on_subscribe
        client.on_message, client.on_connect_fail = on_message, on_connect_fail
        try:
            client.connect(self.host, self.port, keepalive=30)
        except OSError as exc:
            raise FloorError(NO_BROKER, f"cannot reach the broker at {self.host}:{self.port}: {exc}") from None
        client.loop_start()
        try:
            with cond:
                if not cond.wait_for(lambda: seen["connected"] is not None and (
                        seen["connected"] is not True or seen["subscribed"] is not False), self.timeout):
                    raise FloorError(NO_BROKER, f"the broker at {self.host}:{self.port} did not answer "
                                                f"within {self.timeout:g} s")
                if seen["connected"] is not True:
                    raise FloorError(NO_BROKER, f"the broker at {self.host}:{self.port} refused the login "
                                                f"{self.username or '(anonymous)'}: {seen['connected']}")
                if seen["subscribed"][0]:
                    raise FloorError(NO_BROKER, f"the broker does not let {self.username or 'anonymous'} "
                                                f"read {reply_topic}: provision the floor user "
                                                "(livetable tablets provision) and log in as it")
            client.publish(topic(Kind.FLOOR_REQUEST, self.table),
                           codec.floor_request_payload(request_id=rid, **request), qos=1)
            with cond:
                cond.wait_for(lambda: seen["reply"] is not None or seen["online"] is False, self.timeout)
                if seen["reply"] is not None:
                    return dict(seen["reply"])
                if seen["online"] is False:
                    raise FloorError(NO_ANSWER, f"table {self.table}'s controller is offline "
                                                f"(its presence on {presence_topic} says so)")
                if seen["online"] is None:
                    raise FloorError(NO_ANSWER, f"no answer within {self.timeout:g} s: no controller of table "
                                                f"{self.table} is known to this broker (is the table id right?)")
                raise FloorError(NO_ANSWER, f"no answer from table {self.table} within {self.timeout:g} s "
                                            f"(is {self.username or 'anonymous'} allowed to write "
                                            f"{topic(Kind.FLOOR_REQUEST, self.table)}?)")
        finally:
            client.disconnect()
            client.loop_stop()


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--table", default="t1", help="table id (default %(default)s)")
    common.add_argument("--host", default="127.0.0.1", help="the table's broker (default %(default)s)")
    common.add_argument("--port", type=int, default=1883)
    common.add_argument("--user", default=None, help="broker login (default: floor when a password is given)")
    common.add_argument("--password-file", type=Path, default=None, help="a file holding the login's password")
    common.add_argument("--credentials", type=Path, default=None,
                        help="the provisioning directory or its credentials/_shared.json: use its floor login "
                             f"(default {SHARED_CREDENTIALS} when readable)")
    common.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for an answer")
    common.add_argument("--json", action="store_true", help="print the controller's reply as JSON")
    p = argparse.ArgumentParser(prog="livetable floor",
                                description="floor decisions at a running table (docs/faults.md)",
                                epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()))
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("status", parents=[common], help="faults open with their exits, buy-ins waiting, hand, turn")
    dl = sub.add_parser("deal", parents=[common],
                        help="tournament: a deal of the prizes left among the players left (read-only)")
    add_method_options(dl, unit=None)
    for exit_ in sorted(codec.FLOOR_DECISIONS):
        d = sub.add_parser(exit_, parents=[common], help=f"end a fault by {exit_}")
        d.add_argument("fault", help="the fault's kind (e.g. jam) or its number in status")
        d.add_argument("--by", required=True, help="your name (recorded as floor:NAME)")
        d.add_argument("--reason", default=None, help="a note for the journal")
    r = sub.add_parser("read", parents=[common], help="enter a seat's hole cards as they lie on the felt")
    r.add_argument("seat", type=int)
    r.add_argument("cards", nargs="+", help="every hole card of the seat, e.g. As Kd")
    r.add_argument("--by", required=True)
    c = sub.add_parser("confirm-buyin", parents=[common], help="the chips of a tablet player's buy-in are here")
    c.add_argument("seat", type=int)
    c.add_argument("--by", required=True)
    pa = sub.add_parser("pause", parents=[common], help="pause the table (end it with: resume paused)")
    pa.add_argument("--by", required=True)
    pa.add_argument("--reason", default=None)
    se = sub.add_parser("seat", parents=[common], help="seat a player with a buy-in (dealt in from the next hand)")
    se.add_argument("seat", type=int)
    se.add_argument("player", help="the player's name as the table shows it")
    se.add_argument("amount", type=int, help="the buy-in, chips")
    st = sub.add_parser("stakes", parents=[common], help="change the blinds and ante between hands")
    st.add_argument("big_blind", type=int)
    st.add_argument("--small-blind", type=int, default=None)
    st.add_argument("--ante", type=int, default=None)
    for name, what in (("close", "deal no further hand (pauses once the running hand ends)"),
                       ("open", "open a closed table again")):
        o = sub.add_parser(name, parents=[common], help=what)
        o.add_argument("--by", required=True)
        o.add_argument("--reason", default=None)
    # the tournament director (issue 19, docs/tournament.md "The director")
    cp = sub.add_parser("clock-pause", parents=[common], help="tournament: stop the level's clock")
    cr = sub.add_parser("clock-resume", parents=[common], help="tournament: run the level's clock again")
    ca = sub.add_parser("clock-add", parents=[common], help="tournament: add seconds to the level's time left")
    ca.add_argument("amount", type=int, metavar="SECONDS")
    cl = sub.add_parser("clock-level", parents=[common], help="tournament: go to the start of level N")
    cl.add_argument("amount", type=int, metavar="LEVEL")
    rg = sub.add_parser("register", parents=[common],
                        help="tournament: a late entry, seated with the starting stack (TDA 9)")
    rg.add_argument("player", help="the entry's name as the table shows it")
    rg.add_argument("--seat", type=int, default=None, help="the seat (default: a free seat drawn at random)")
    rb = sub.add_parser("rebuy", parents=[common], help="tournament: book a rebuy at the seat (its chips and price)")
    rb.add_argument("seat", type=int)
    ad = sub.add_parser("addon", parents=[common], help="tournament: book the add-on at the seat (at its break)")
    ad.add_argument("seat", type=int)
    dr = sub.add_parser("decline-rebuy", parents=[common],
                        help="tournament: the player busted at the seat does not rebuy: placed now")
    dr.add_argument("seat", type=int)
    do = sub.add_parser("deal-offer", parents=[common],
                        help="tournament: offer the players left a deal on their tablets (each accepts or declines)")
    add_method_options(do, unit=None)
    dw = sub.add_parser("deal-withdraw", parents=[common], help="tournament: withdraw the deal offered")
    for q in (se, st, cp, cr, ca, cl, rg, rb, ad, dr, do, dw):
        q.add_argument("--by", required=True)
        q.add_argument("--reason", default=None)
    return p


#: Where ``scripts/install-pi.sh`` leaves the shared logins (group ``livetable`` may read it).
SHARED_CREDENTIALS = Path("/etc/livetable/mosquitto/credentials/_shared.json")


def _login(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The broker login: ``--password-file``, else the ``floor`` entry of ``--credentials``
    (the provisioning directory or its ``credentials/_shared.json``), else that file on
    the Pi when readable, else anonymous (a room's broker lets anonymous send nothing)."""
    if args.password_file is not None:
        return args.user or "floor", args.password_file.read_text().strip()
    path = args.credentials
    if path is None and os.access(SHARED_CREDENTIALS, os.R_OK):
        path = SHARED_CREDENTIALS
    if path is not None:
        if path.is_dir():
            path = path / "credentials" / "_shared.json"
        shared = json.loads(path.read_text())
        if "floor" not in shared:
            raise KeyError(f"{path} has no floor login: run livetable tablets provision again")
        return args.user or "floor", str(shared["floor"])
    return args.user, None


def _request(args: argparse.Namespace) -> dict[str, Any]:
    # ``deal`` asks the table's status (read-only) and computes the deal here (issue 19)
    req: dict[str, Any] = {"command": "status" if args.command == "deal" else args.command,
                           "by": getattr(args, "by", None)}
    if args.command in codec.FLOOR_DECISIONS:
        req["fault"] = args.fault
    if args.command in ("read", "confirm-buyin", "seat", "rebuy", "addon", "decline-rebuy"):
        req["seat"] = args.seat
    if args.command == "seat":
        req["player"], req["amount"] = args.player, args.amount
    if args.command == "register":
        req["player"] = args.player
        if args.seat is not None:
            req["seat"] = args.seat
    if args.command in ("clock-add", "clock-level"):
        req["amount"] = args.amount
    if args.command == "deal-offer":
        req["method"] = args.method
        if args.unit is not None:
            req["amount"] = args.unit
    if args.command == "stakes":
        req["stakes"] = {k: v for k, v in (("big_blind", args.big_blind), ("small_blind", args.small_blind),
                                          ("ante", args.ante)) if v is not None}
    if args.command == "read":
        req["cards"] = [_card(c) for c in args.cards]
    if getattr(args, "reason", None):
        req["reason"] = args.reason
    # the controller checks it all again; checking here gives the clearer message
    codec.decode_floor_request(codec.floor_request_payload(request_id="check", **req))
    return req


def _card(text: str) -> str:
    """``as`` -> ``As``, ``10d`` -> ``Td``: how people type cards."""
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    return t[:-1].upper() + t[-1:].lower() if len(t) == 2 else t


def render(reply: dict[str, Any]) -> str:
    """Return the human-readable text of a controller's floor reply."""
    lines = []
    if reply.get("command") != "status" or not reply.get("accepted"):
        lines.append(("accepted: " + (reply.get("detail") or "done")) if reply.get("accepted")
                     else f"refused: {reply.get('reason')}")
    st = reply.get("status")
    if st:
        turn = f"seat {st['turn']} to act" if st.get("turn") else "nobody to act"
        lines.append(f"table {st['table']}: hand {st['hand']}, {st['street']}, {turn}"
                     + (", PAUSED" if st.get("paused") else "") + (", CLOSED" if st.get("closed") else "")
                     + (", closes after this hand" if st.get("closing") else ""))
        if st.get("stakes"):
            k = st["stakes"]
            lines.append(f"  stakes {k['small_blind']}/{k['big_blind']}" + (f", ante {k['ante']}" if k["ante"] else ""))
        for f in st.get("faults") or []:
            since = time.strftime("%H:%M:%S", time.localtime(f["since"]))
            lines.append(f"  fault {f['id']} {f['kind']} since {since}: {f['message']}")
            lines.append(f"      exits: {', '.join(f['exits'])}")
        if not st.get("faults"):
            lines.append("  no fault open")
        jn = st.get("journal")
        if isinstance(jn, dict) and jn.get("compaction") == "failing":  # no fault: the table plays on
            try:
                since = time.strftime("%H:%M:%S", time.localtime(float(jn["since"])))
            except (KeyError, TypeError, ValueError, OverflowError, OSError):  # a reply is outside input
                since = "?"
            lines.append(f"  JOURNAL: compaction failing since {since} ({jn.get('failures')} hands in a row)")
            lines.append(f"      {jn.get('message') or jn.get('error')}")
        if st.get("read_seat"):
            lines.append(f"  waiting for seat {st['read_seat']}'s hole cards: livetable floor read "
                         f"{st['read_seat']} CARDS... --by NAME")
        for b in st.get("buy_ins") or []:
            lines.append(f"  buy-in waiting: seat {b['seat']} {b['name']}, {b['amount']} chips")
        tv = st.get("tournament")
        if isinstance(tv, dict) and isinstance(tv.get("level"), dict):  # issue 19: the director's view
            lv, left = tv["level"], tv.get("seconds_left")
            clock = "no end" if left is None else f"{minutes_seconds(left)} left"
            lines.append(f"  tournament: {'break before ' if tv.get('on_break') else ''}level {lv['number']} "
                         f"({stakes_words(lv)}), {clock}"
                         + ("" if tv.get("running") else ", CLOCK PAUSED")
                         + f"; players {tv.get('players_left')}/{tv.get('entries')}, pool {tv.get('prize_pool')}")
            lines += _deal_offer_lines(tv)
        ch = st.get("chips")
        if ch:
            ok = ch["brought"] - ch["taken"] == ch["on_table"] + ch["rake"]
            lines.append(f"  chips: {ch['on_table']} on the table + {ch['rake']} rake; brought {ch['brought']}, "
                         f"taken {ch['taken']} ({'balanced' if ok else 'NOT BALANCED'})")
    return "\n".join(lines)


def _deal_offer_lines(tv: dict[str, Any]) -> list[str]:
    """The deal offered on the players' tablets (issue 19), as ``floor status`` says it: the
    offer, each player's share and answer, and what the director does next; an offer given
    during a hand, made when it ends (``deal_pending``); the last offer's end while the
    screens still say it. Never raises on a view of another shape."""
    d, ended, pending = tv.get("deal_offer"), tv.get("deal_ended"), tv.get("deal_pending")
    if isinstance(pending, dict):
        return [f"  deal offer {pending.get('offer')} ({pending.get('method')}): offered when hand "
                f"{pending.get('hand')} ends; no next hand is dealt meanwhile (deal-withdraw cancels it)"]
    if isinstance(d, dict) and isinstance(d.get("players"), list):
        players = [p for p in d["players"] if isinstance(p, dict)]
        agreed = d.get("agreed") is True
        head = (f"  deal offer {d.get('offer')} ({d.get('method')}): "
                + ("AGREED by every player: pay it (livetable floor deal shows the figures) or deal-withdraw"
                   if agreed else f"{sum(1 for p in players if p.get('accepted') is True)} of {len(players)} accepted"))
        return [head] + [f"      seat {p.get('seat')} {p.get('name')}: stack {p.get('stack')}, share {p.get('share')}"
                         + (" - accepted" if p.get("accepted") is True else "") for p in players]
    if isinstance(ended, dict):
        return [f"  deal offer {ended.get('offer')} is over: {ended.get('reason')}"]
    return []


def main(argv: list[str]) -> int:
    """Run ``livetable floor COMMAND ...``; return the exit code (see :data:`EXIT_CODES`)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return USAGE if exc.code else ACCEPTED
    try:
        check_table(args.table)
        request = _request(args)
        user, password = _login(args)
    except (PayloadError, TopicError) as exc:
        print(f"livetable floor: {exc}", file=sys.stderr)
        return USAGE
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"livetable floor: cannot read the floor login: {exc!r}", file=sys.stderr)
        return USAGE
    client = FloorClient(args.table, host=args.host, port=args.port, username=user, password=password,
                         timeout=args.timeout)
    try:
        reply = client.ask(request)
    except FloorError as exc:
        if args.json:
            print(json.dumps({"error": str(exc), "exit": exc.code}))
        print(f"livetable floor: {exc}", file=sys.stderr)
        return exc.code
    if args.command == "deal" and reply.get("accepted"):
        try:
            deal = table_deal(reply.get("status") or {}, args.method, args.unit)
        except DealError as exc:
            print(f"livetable floor deal: {exc}", file=sys.stderr)
            return REFUSED
        print(json.dumps(deal) if args.json else render_deal(deal) + "".join(
            f"\nnote: {n}" for n in deal["notes"]))
        return ACCEPTED
    print(json.dumps(reply, indent=1) if args.json else render(reply))
    return ACCEPTED if reply.get("accepted") else REFUSED


def _whole(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _deal_money(info: dict[str, Any], tv: dict[str, Any]) -> tuple[list[int], int]:
    """Check the money a table's status gives a deal (its ``tournament.deal`` and view);
    return ``(prizes_left, prize_pool)``.

    ``prizes_left``: whole amounts >= 0, 1st first (never rising), at most one a player left,
    summing to at most the ``prize_pool``; ``unit``: a whole amount 1..the prize pool (1 with
    no pool).

    Raises:
        DealError: any of these not so (a table's status is outside input: never trusted).
    """
    prizes, unit = info.get("prizes_left"), info.get("unit", 1)
    pool, left = tv.get("prize_pool"), tv.get("players_left")
    if not isinstance(prizes, list) or not all(_whole(a) and a >= 0 for a in prizes):
        raise DealError(f"the table's prizes left are not amounts of money (whole, 0 or more): {str(prizes)[:80]}")
    if any(a < b for a, b in zip(prizes, prizes[1:])):
        raise DealError(f"the table's prizes left are not 1st first (a prize above a better place's): {prizes[:10]}")
    if not _whole(pool) or pool < 0 or not _whole(left) or left < 0:
        raise DealError("the table's view has no prize pool or players left (whole numbers)")
    if sum(prizes) > pool:
        raise DealError(f"the table's prizes left sum to {sum(prizes):,}, more than the prize pool {pool:,}")
    if len(prizes) > left:
        raise DealError(f"the table gives {len(prizes)} prizes left for {left} players left")
    if not _whole(unit) or not 1 <= unit <= max(pool, 1):
        raise DealError(f"the table's payout unit must be a whole amount 1..the prize pool ({pool:,}), got {unit!r}")
    return list(prizes), pool


def table_deal(status: dict[str, Any], method: str, unit: int | None = None) -> dict[str, Any]:
    """Return :func:`controller.deal_cli.compute_deal` over a tournament table's ``floor
    status`` (its ``tournament.deal``: each live player's stack by seat, the prizes of the
    places not yet taken, the payouts' unit), players named ``seat N NAME``, plus ``notes``
    (a hand in play: the stacks are those behind, without the chips in the pot).

    Raises:
        DealError: not a tournament table, players left at other tables (a deal needs all of
            them), stacks that are not chips by seat, prizes or a unit that do not add up
            (:func:`_deal_money`: prizes not whole or rising, summing above the prize pool, more
            than the players left; a unit not 1..the pool), or what :func:`compute_deal` refuses.
    """
    tv = status.get("tournament")
    info = tv.get("deal") if isinstance(tv, dict) else None
    if not isinstance(tv, dict) or not isinstance(info, dict):
        raise DealError(f"table {status.get('table')} plays no tournament (or its controller predates deals)")
    if tv.get("finished"):
        raise DealError("the tournament is over: its prizes are paid")
    prizes_left, pool = _deal_money(info, tv)
    raw = info.get("stacks")
    if not isinstance(raw, dict) or not all(isinstance(seat, str) and seat.isdigit() and _whole(chips) and chips > 0
                                            for seat, chips in raw.items()):
        raise DealError(f"table {status.get('table')}'s stacks are not chips by seat: {str(raw)[:80]}")
    stacks = {int(seat): int(chips) for seat, chips in raw.items()}
    if len(stacks) != tv.get("players_left"):
        raise DealError(f"{tv.get('players_left')} players are left, {len(stacks)} of them at this table: "
                        "a deal needs every player left (docs/tournament.md \"Deals\")")
    seats, names = sorted(stacks), info.get("names") or {}
    deal = compute_deal([stacks[n] for n in seats], prizes_left, method,
                        int(info.get("unit") or 1) if unit is None else unit,
                        [f"seat {n} {names.get(str(n), '')}".rstrip() for n in seats])
    street = status.get("street")
    deal["notes"] = [] if street in (None, "waiting", "complete") else [
        f"a hand is in play ({street}): the stacks are those behind, without the chips in the pot; "
        "ask again between hands"]
    return deal
