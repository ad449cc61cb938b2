"""``livetable room director``: the tournament director's clock at a multi-table tournament (issue 19).

Talks to the floor console's API (:mod:`room.console`, ``/api/tournament``) as the console
page does: logs in with a floor login, then asks the status or sends one clock command to
the room's tournament (:meth:`room.tournament.RoomTournament.direct`). Commands::

    livetable room director status [--json]
    livetable room director clock-pause --reason TEXT [--by NAME]
    livetable room director clock-resume --reason TEXT [--by NAME]
    livetable room director clock-add SECONDS --reason TEXT [--by NAME]   # negative: time off
    livetable room director clock-level N --reason TEXT [--by NAME]       # from each table's next hand (TDA 23)
    livetable room director register NAME [--player ID] --by NAME [--reason TEXT]  # late entry, re-entry (TDA 9)
    livetable room director rebuy PLAYER --by NAME [--reason TEXT]   # PLAYER: the room id or the name
    livetable room director addon PLAYER --by NAME [--reason TEXT]
    livetable room director deal-offer [--method icm|chip-chop] [--unit N] --by NAME [--reason TEXT]
    livetable room director deal-withdraw --by NAME [--reason TEXT]

Options: ``--console URL`` (default ``$LIVETABLE_ROOM_CONSOLE`` or http://127.0.0.1:8090/,
``livetable room serve``'s port; ``room simulate`` prints its console's address), ``--login
NAME`` (default ``$LIVETABLE_ROOM_LOGIN`` or ``floor``), the password from ``--password-file
FILE`` or ``$LIVETABLE_ROOM_PASSWORD`` (never on the command line), ``--timeout 10``.
Every clock command needs ``--reason``; its ``--by`` defaults to the login's name. ``register``
(a late entry, or a re-entry of a busted player: :meth:`room.tournament.RoomTournament.register`)
needs ``--by`` (who took the buy-in), ``--player`` is the room player id (default: the player
registered under NAME, else a new one). ``rebuy`` and ``addon`` (a seated player's purchase:
:meth:`room.tournament.RoomTournament.purchase`; the chips are brought to his seat between
hands) need ``--by`` (who took the money). ``deal-offer`` (the deal on the final table's
tablets, :meth:`room.tournament_deal.RoomDeal.offer_deal`; ``--unit``: the shares' unit, money)
and ``deal-withdraw`` need ``--by`` (the director who offers it). Each is recorded by the room (``room_floor_actions``)
with the name, the reason and the answer.

Exit codes: 0 done (``status``: answered), 1 refused by the room (a paused clock paused
again, no such level, no tournament running: the reason is printed, its rule code in words,
:data:`CODE_WORDS`), 2 usage error, no password, or the console cannot be reached or refused
the login (the message names the options and variables that set them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

__all__ = ["main", "status_lines", "refusal_words"]

COMMANDS = ("status", "clock-pause", "clock-resume", "clock-add", "clock-level", "register", "rebuy", "addon",
            "deal-offer", "deal-withdraw")


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # noqa: D102 - argparse's hook: usage errors raise, main says exit 2
        raise _Usage(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="livetable room director", description="the tournament director's clock (issue 19)")
    p.add_argument("command", help="status | clock-pause | clock-resume | clock-add SECONDS | clock-level N | "
                                   "register NAME | rebuy PLAYER | addon PLAYER | deal-offer | deal-withdraw")
    p.add_argument("value", nargs="?", help="clock-add: seconds (negative: time off); clock-level: the level; "
                                            "register: the player's name; rebuy, addon: the player (id or name)")
    p.add_argument("--player", default=None, help="register: the room player id (default: by the name)")
    p.add_argument("--method", default=None, choices=("icm", "chip-chop"), help="deal-offer: how (default icm)")
    p.add_argument("--unit", type=int, default=None, help="deal-offer: the shares' unit, money (default the payouts')")
    p.add_argument("--console", default=os.environ.get("LIVETABLE_ROOM_CONSOLE", "http://127.0.0.1:8090/"),
                   help="the floor console's address (default $LIVETABLE_ROOM_CONSOLE or %(default)s)")
    p.add_argument("--login", default=os.environ.get("LIVETABLE_ROOM_LOGIN", "floor"), help="the floor login")
    p.add_argument("--password-file", default=None, help="the login's password (else $LIVETABLE_ROOM_PASSWORD)")
    p.add_argument("--by", default=None, help="who decides (clock commands: default the login's name; register, "
                                              "rebuy, addon, deal-offer, deal-withdraw: needed)")
    p.add_argument("--reason", default=None, help="why (every clock command needs one)")
    p.add_argument("--json", action="store_true", help="print the console's answer as one JSON object")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the console")
    return p


#: What a refusal's rule code means, printed after the room's reason (docs/faults.md).
CODE_WORDS = {
    "F-3": "the tournament's present state does not allow it; nothing was changed",
}


def refusal_words(why: str) -> str:
    """The room's refusal with its rule code in words: ``F-3: the clock is paused already (F-3:
    the tournament's present state does not allow it; nothing was changed)``."""
    code = why.split(":", 1)[0].strip()
    return f"{why} ({code}: {CODE_WORDS[code]})" if code in CODE_WORDS else why


def _file_password(text: str, login: str) -> str:
    """The password in a ``--password-file``'s ``text``: the file's one line (as ``room serve``
    writes ``<floor-logins>.floor-password``); a line ``LOGIN PASSWORD`` whose first word is
    ``login`` (such a file written by an older ``room serve``) gives its second word."""
    text = text.strip()
    words = text.split()
    if len(words) == 2 and words[0] == login:
        return words[1]
    return text


def _mmss(seconds: Any) -> str:
    return "no end" if seconds is None else f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _count(n: Any, word: str, words: str | None = None) -> str:
    """``1 player``, ``3 players`` (``n`` as the console gave it: not a whole number, as it is)."""
    from controller.tournament.words import plural

    return plural(n, word, words) if isinstance(n, int) and not isinstance(n, bool) else f"{n} {words or word + 's'}"


def status_lines(st: dict[str, Any]) -> list[str]:
    """Return ``GET /api/tournament``'s status in words: the clock's line, then one line a table,
    then (where the status carries them, as the console's tournament panel shows them) the
    moves under way, the tables broken and the places so far, then the problems.

    ``level 3 (100/200, big-blind ante 200), 0:42 left, CLOCK PAUSED; next level 4 (200/400,
    big-blind ante 400); 23 players left of 40 entries, average stack 3,478, prize pool
    4,000 (9 places paid)``; ``moves under way (1):``, ``  Ann (p3): t2 Birch seat 4 -> t1
    seat 7 (balancing, TDA 11; ordered)``; ``tables broken: 1. t3 Oak``; ``places so far
    (2):``, ``  11th-12th Bob (p9)``, ``  ... 600`` (the prize in money, nothing out of the money)."""
    from controller.tournament.words import stakes_words

    lv, nxt = st.get("level") or {}, st.get("next_level")
    head = (f"break before level {lv.get('number')}" if st.get("on_break")
            else f"level {lv.get('number')} ({stakes_words(lv)})")
    if not st.get("finished"):  # over: no time is left on a clock that no longer runs
        head += f", {_mmss(st.get('seconds_left'))} left"
    if st.get("paused"):
        head += ", CLOCK PAUSED"
    if nxt:
        head += f"; next level {nxt.get('number')} ({stakes_words(nxt)})"
    head += (f"; {_count(st.get('players_left'), 'player')} left of {_count(st.get('entries'), 'entry', 'entries')}, "
             f"average stack {st.get('average_stack', 0):,}, prize pool {st.get('prize_pool', 0):,} "
             f"({_count(st.get('places_paid'), 'place')} paid)")
    if st.get("hand_for_hand"):
        head += "; hand-for-hand"
    if st.get("finished"):
        head += "; the tournament is over"
    if st.get("clock_speed"):
        # how fast, not "simulated": room serve on real tables runs a --tournament-speed clock too
        head += f" (the clock runs {st['clock_speed']}x real time)"
    lines = [head]
    for t in st.get("tables") or []:
        name = f"{t.get('table')} {t.get('name')}" if t.get("name") not in (None, t.get("table")) else t.get("table")
        lines.append(f"{name}: broken" if t.get("broken") else
                     f"{name}: {_count(t.get('players'), 'player')}, {_count(t.get('hands'), 'hand')}"
                     + (", playing a hand" if t.get("playing") else ""))
    lines += _moves_and_places(st)
    lines += [f"problem: {p}" for p in st.get("problems") or []]
    return lines


#: A move's state in words, as the console says it (``planned``: ordered; ``out``: he left his seat).
_MOVE_STATE = {"planned": "ordered", "out": "chips on the way"}


def _moves_and_places(st: dict[str, Any]) -> list[str]:
    """The console's tournament panel in lines (:meth:`room.tournament.RoomTournament.director_status`:
    ``moves``, ``broken_order``, ``busts``); nothing for a key the status does not carry."""
    from controller.tournament.words import ordinal

    names = {t.get("table"): t.get("name") for t in st.get("tables") or []}

    def table(t: Any) -> str:
        return f"{t} {names[t]}" if names.get(t) not in (None, t) else str(t)

    lines: list[str] = []
    if "moves" in st:
        moves = st.get("moves") or []
        lines.append(f"moves under way ({len(moves)}):" if moves else "moves under way: none")
        for m in moves:
            src = f"{table(m.get('from'))} seat {m.get('from_seat')}" if m.get("from") else "enters"
            lines.append(f"  {m.get('name')} ({m.get('player')}): {src} -> {table(m.get('to'))} seat "
                         f"{m.get('to_seat')} ({m.get('why')}; {_MOVE_STATE.get(m.get('state'), m.get('state'))})")
    if "broken_order" in st:
        broken = st.get("broken_order") or []
        lines.append("tables broken: " + (", ".join(f"{i}. {table(t)}" for i, t in enumerate(broken, 1))
                                          if broken else "none"))
    if "busts" in st:
        busts = st.get("busts") or []
        lines.append(f"places so far ({len(busts)}):" if busts else "places so far: nobody is out yet")
        for b in busts:
            place, tied = b.get("place"), b.get("tied_to")
            where = (f"{ordinal(place)}-{ordinal(tied)}" if isinstance(place, int) and isinstance(tied, int)
                     and tied > place else ordinal(place) if isinstance(place, int) else str(place))
            prize = b.get("prize")
            lines.append(f"  {where} {b.get('name')} ({b.get('player')})"
                         + (f" {prize:,}" if isinstance(prize, int) and prize else ""))
    deal = st.get("deal")
    if isinstance(deal, dict):  # the deal offered on the final table's tablets (room/tournament_deal.py)
        lines.append(f"deal offer {deal.get('offer')} ({deal.get('method')}) at {table(deal.get('table'))}: "
                     + ("AGREED by every player: pay it, or deal-withdraw" if deal.get("agreed")
                        else str(deal.get("words"))))
        for p in deal.get("players") or []:
            share = p.get("share")
            shown = f"{share:,}" if isinstance(share, int) and not isinstance(share, bool) else str(share)
            lines.append(f"  seat {p.get('seat')} {p.get('name')}: stack {p.get('stack')}, share {shown}"
                         + (", accepted" if p.get("accepted") else ""))
    return lines


def _request(opener: urllib.request.OpenerDirector, url: str, body: dict[str, Any] | None,
             timeout: float) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with opener.open(req, timeout=timeout) as r:
            return int(r.status), json.loads(r.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            answer = json.loads(exc.read() or b"null")
        except ValueError:
            answer = None
        return int(exc.code), answer


def main(argv: list[str]) -> int:
    """Run ``livetable room director`` (the module docstring); return the exit code."""
    try:
        args = _parser().parse_args(argv)
        if args.command not in COMMANDS:
            raise _Usage(f"unknown command {args.command!r} (known: {', '.join(COMMANDS)})")
        body: dict[str, Any] = {"command": args.command}
        if args.command in ("clock-add", "clock-level"):
            what = "SECONDS" if args.command == "clock-add" else "N (the level)"
            try:
                amount = int(str(args.value))
            except ValueError:
                raise _Usage(f"{args.command} needs {what} as a whole number, got {args.value!r}") from None
            body["seconds" if args.command == "clock-add" else "level"] = amount
        elif args.command == "register":
            if not (args.value or "").strip():
                raise _Usage("register needs the player's NAME")
            if not (args.by or "").strip():
                raise _Usage("register needs --by (who registers the player: every entry is recorded with it)")
            body.update(name=args.value, by=args.by)
            if args.player is not None:
                body["player"] = args.player
            if args.reason is not None:
                body["reason"] = args.reason
        elif args.command in ("rebuy", "addon"):
            if not (args.value or "").strip():
                raise _Usage(f"{args.command} needs the PLAYER (his room id or his name)")
            if not (args.by or "").strip():
                raise _Usage(f"{args.command} needs --by (who takes the money: every purchase is recorded with it)")
            body.update(player=args.value, by=args.by)
            if args.reason is not None:
                body["reason"] = args.reason
        elif args.command in ("deal-offer", "deal-withdraw"):
            if args.value is not None:
                raise _Usage(f"{args.command} takes no value, got {args.value!r}")
            if not (args.by or "").strip():
                raise _Usage(f"{args.command} needs --by (the director: every offer is recorded with it)")
            body["by"] = args.by
            if args.command == "deal-offer":
                body["method"] = args.method or "icm"
                if args.unit is not None:
                    body["unit"] = args.unit
            if args.reason is not None:
                body["reason"] = args.reason
        elif args.value is not None:
            raise _Usage(f"{args.command} takes no value, got {args.value!r}")
        if (args.method is not None or args.unit is not None) and args.command != "deal-offer":
            raise _Usage("--method and --unit go with deal-offer only")
        if args.command in ("register", "rebuy", "addon", "deal-offer", "deal-withdraw") or args.player is not None:
            if args.command != "register" and args.player is not None:
                raise _Usage("--player goes with register only")
        elif args.command != "status":
            if not (args.reason or "").strip():
                raise _Usage(f"{args.command} needs --reason (every floor decision is recorded with its reason)")
            body["reason"] = args.reason
            if args.by:
                body["by"] = args.by
        if args.password_file:
            try:
                with open(args.password_file) as f:
                    password = _file_password(f.read(), args.login)
            except OSError as exc:
                raise _Usage(f"--password-file: {exc}") from None
        else:
            password = os.environ.get("LIVETABLE_ROOM_PASSWORD", "")
        if not password:
            raise _Usage("no password: give --password-file FILE or set LIVETABLE_ROOM_PASSWORD")
    except _Usage as exc:
        print(f"livetable room director: {exc}", file=sys.stderr)
        print("usage: livetable room director status|clock-pause|clock-resume|clock-add SECONDS|clock-level N|"
              "register NAME [--player ID] --by NAME [--reason TEXT]|rebuy PLAYER --by NAME|addon PLAYER --by NAME|\n"
              "       deal-offer [--method icm|chip-chop] [--unit N] --by NAME|deal-withdraw --by NAME\n"
              "       [--console URL] [--login NAME] [--password-file FILE] [--json]",
              file=sys.stderr)
        return 2
    base = args.console if args.console.endswith("/") else args.console + "/"
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    try:
        code, answer = _request(opener, base + "login", {"name": args.login, "password": password}, args.timeout)
        if code != 200:
            why = (answer or {}).get("error") if isinstance(answer, dict) else None
            print(f"livetable room director: the console at {base} refused the login {args.login!r}: "
                  f"{why or code} (the login: --login NAME or $LIVETABLE_ROOM_LOGIN; its password: "
                  f"--password-file FILE or $LIVETABLE_ROOM_PASSWORD)", file=sys.stderr)
            return 2
        code, answer = _request(opener, base + "api/tournament", None if args.command == "status" else body,
                                args.timeout)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"livetable room director: cannot reach the floor console at {base}: {reason} (its address: "
              f"--console URL or $LIVETABLE_ROOM_CONSOLE; livetable room serve serves it on its --http-port, "
              f"default 8090; livetable room simulate prints it)", file=sys.stderr)
        return 2
    if code != 200:
        why = answer.get("error") if isinstance(answer, dict) else None
        if args.json:
            print(json.dumps({"ok": False, "status": code, "error": why}))
        print(f"livetable room director: refused: {refusal_words(str(why)) if why else f'HTTP {code}'}",
              file=sys.stderr)
        return 1 if code in (400, 409) else 2
    if args.json:
        print(json.dumps(answer))
    elif args.command == "status":
        print("\n".join(status_lines(answer)))
    else:
        print(f"done: {answer.get('detail')}")
        if answer.get("status"):
            print(status_lines(answer["status"])[0])
    return 0
