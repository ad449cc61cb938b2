"""``livetable display``: the overhead dealer display (issue 8).

Two ways to run it::

    livetable display --snapshot STATE.json OUT.png [--size 1280x720] [--elapsed S]
    livetable display --table t1 [--host 127.0.0.1] [--port 1883] [--fullscreen] [--fps N]
                      [--size WxH] [--credentials FILE]
    livetable display --config /etc/livetable/table.toml --fullscreen     (as the systemd unit)

The live display runs in its own process, fed by the retained public state on MQTT
(:mod:`display.feed`), so a crash of the display never stops a hand and a restarted display
catches up at once from the retained message. On the Pi it runs on the console with
``SDL_VIDEODRIVER=kmsdrm`` (systemd/livetable-display.service); tests use SDL's ``dummy``.

:class:`DisplayLoop` is one frame step: it repaints the whole screen when the feed has
something new (state, presence, connection) and otherwise only the timer area when the bar
moved by a pixel, changed colour or the seconds ticked (A-2); else nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from display.geometry import parse_size  # the [display] size check, shared with controller.config

__all__ = ["main", "DisplayLoop", "render_state", "snapshot", "parse_size"]

log = logging.getLogger("livetable.display")

DEFAULT_SIZE = (1280, 720)
DEFAULT_FPS = 15
#: SDL video drivers that draw into memory only: nobody sees them
NO_SCREEN_DRIVERS = ("offscreen", "dummy")
#: exit status when the config disables the display (the unit does not restart it)
DISABLED = 3


def render_state(state: dict[str, Any], size: tuple[int, int], *, now: float,
                 notices: tuple[str, ...] = (), renderer: Any = None) -> tuple[Any, Any]:
    """Render one public state off-screen; return ``(pygame.Surface, Layout)``.

    ``now`` (Unix seconds) places the timer bar. Needs no video mode, only ``pygame.font``.
    Raises :class:`display.layout.LayoutError` for a screen or table it cannot lay out.
    """
    import pygame

    from display.layout import layout
    from display.render import Renderer

    renderer = renderer or Renderer()
    surface = pygame.Surface(size)
    lay = layout(state, size, measure=renderer.measure, notices=notices, now=now)
    renderer.draw(surface, lay, now)
    return surface, lay


def snapshot(state_path: Path, out_path: Path, size: tuple[int, int] = DEFAULT_SIZE, *,
             elapsed: float = 0.0, notices: tuple[str, ...] = ()) -> Any:
    """Render the state in ``state_path`` (JSON) to the PNG ``out_path``; return the Layout.

    The timer bar is drawn ``elapsed`` seconds into the turn (0: full). Raises OSError for
    unreadable/unwritable files, :class:`display.state.StateError` for a bad state (also a
    file that is not JSON in UTF-8).
    """
    import pygame

    from display.state import StateError, check_state

    try:
        state = check_state(json.loads(Path(state_path).read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise StateError(f"{state_path}: not JSON: {exc}") from None
    except UnicodeDecodeError as exc:  # a ValueError main() did not expect: it ended in a traceback
        raise StateError(f"{state_path}: not UTF-8 text (a public state is JSON in UTF-8): {exc}") from None
    turn = state.get("turn") if isinstance(state.get("turn"), dict) else None
    now = float(turn.get("started") or 0.0) + elapsed if turn else 0.0
    surface, lay = render_state(state, size, now=now, notices=notices)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surface, str(out_path))
    return lay


class DisplayLoop:
    """Draw the feed on ``surface`` one step at a time, repainting only what changed.

    ``source()`` returns a :class:`display.feed.FeedSnapshot`; ``clock()`` the time in Unix
    seconds (injected so tests and the bench control the timer). :meth:`step` returns the
    boxes it repainted: the whole screen, the timer area, or nothing.
    """

    def __init__(self, surface: Any, source: Callable[[], Any], *, clock: Callable[[], float] = time.time,
                 renderer: Any = None, waiting: tuple[str, str] = ("LIVETABLE", "Waiting for the table")) -> None:
        from display.render import Renderer

        self.surface = surface
        self.source = source
        self.clock = clock
        self.renderer = renderer or Renderer()
        self.waiting = waiting
        self.layout: Any = None
        self._version: int | None = None
        self._held_second = -1  # issue 18: the second a held seat's countdown was last drawn at
        self.full_redraws = 0
        self.timer_redraws = 0

    def invalidate(self) -> None:
        """Force a full repaint at the next step (after a resize or expose)."""
        self._version = None

    def step(self) -> list[Any]:
        """Repaint what changed; return the repainted boxes (``[]`` when nothing)."""
        from display.layout import Box, layout

        snap = self.source()
        now = self.clock()
        w, h = self.surface.get_size()
        held = self.layout.holds_until if self.layout is not None else None
        if held is not None and int(now) != self._held_second:  # issue 18: a held seat's countdown
            self._held_second = int(now)
            self._version = None  # lay the screen out again with the seconds left
        moved = self.layout.moves_until if self.layout is not None else None
        if moved is not None and now >= moved:  # issue 19: the room's move notices have ended
            self._version = None
        if snap.version != self._version:
            self._version = snap.version
            if snap.state is None:
                title, message = self.waiting
                if snap.notices:
                    from display.i18n import _

                    message = " \u00b7 ".join(_(n) for n in snap.notices)
                self.renderer.draw_message(self.surface, title, message)
                self.layout = None
                self.full_redraws += 1
                return [Box(0, 0, w, h)]
            try:
                lay = layout(snap.state, (w, h), measure=self.renderer.measure, notices=snap.notices, now=now)
                self.renderer.draw(self.surface, lay, now)
            except Exception:  # a state we cannot draw must not take the display down
                log.exception("cannot draw state seq %s; keeping the last frame", snap.state.get("seq"))
                return []
            self.layout = lay
            self._held_second = int(now)
            self.full_redraws += 1
            log.debug("drew state seq %s with notices %s", snap.state.get("seq"), snap.notices)
            return [Box(0, 0, w, h)]
        areas: list[Box] = []
        if self.layout is not None and self.layout.timer is not None:
            area = self.renderer.draw_timer(self.surface, self.layout, now)
            if area is not None:
                self.timer_redraws += 1
                areas.append(area)
        if self.layout is not None and self.layout.tournament is not None:  # issue 19: the level's clock
            area = self.renderer.draw_tournament_clock(self.surface, self.layout, now)
            if area is not None:
                areas.append(area)
        return areas


def _settings(args: argparse.Namespace) -> dict[str, Any] | int:
    """Resolve table, broker, credentials and size from the options and ``--config``.

    Options win over the config file. Returns the settings, or an exit code: 1 for an
    unreadable config or credentials, 2 for no table, ``DISABLED`` when the config says
    ``display.enabled = false``.
    """
    out: dict[str, Any] = {"table": args.table, "host": args.host, "port": args.port, "size": args.size,
                           "username": None, "password": None}
    try:
        if args.config:
            from controller.config import load_config

            cfg = load_config(args.config)
            if not cfg.display.enabled:
                print(f"livetable display: {args.config} says display.enabled = false", file=sys.stderr)
                return DISABLED
            out["table"] = out["table"] or cfg.table.id
            out["host"] = out["host"] or cfg.mqtt.host
            out["port"] = out["port"] or cfg.mqtt.port
            if out["size"] is None and cfg.display.size:
                out["size"] = parse_size(cfg.display.size)
            if cfg.mqtt.username:
                out["username"] = cfg.mqtt.username
                if cfg.mqtt.password_file:
                    from controller.config import read_small_text  # a FIFO or /dev/zero is never read

                    out["password"] = read_small_text(cfg.mqtt.password_file, what="password file").strip()
        if args.credentials:
            from display.feed import load_credentials

            out["username"], out["password"] = load_credentials(Path(args.credentials))
    except (OSError, ValueError) as exc:  # ConfigError is a ValueError
        print(f"livetable display: {exc}", file=sys.stderr)
        return 1
    from drivers.mqtt.provision import CONTROLLER_USER

    if out["username"] == CONTROLLER_USER:
        # The broker gives each client its login as its id: a display logged in as the
        # controller would end the controller's session and pause the table (issue 16).
        print("livetable display: the table config's [mqtt] login is the controller's; the display "
              "needs its own: --credentials /etc/livetable/mosquitto/credentials/_shared.json "
              "(made by livetable tablets provision; install-pi.sh puts it in /etc/livetable/display.env)",
              file=sys.stderr)
        return 2
    if not out["table"]:
        print("livetable display: give --snapshot STATE.json OUT.png, --table TABLE or --config FILE",
              file=sys.stderr)
        return 2
    out["host"] = out["host"] or "127.0.0.1"
    out["port"] = out["port"] or 1883
    return out


def _language(args: argparse.Namespace) -> str:
    """The language on screen (issue 20): ``--language``, else the config's
    ``[display] language``, else ``$LIVETABLE_LANGUAGE``, else the config's ``[table]
    language`` (the table's, also the tablets' default), else ``en``. A config that cannot
    be read gives no language here; :func:`_settings` reports it."""
    cfg = None
    if args.config and not args.snapshot:
        from controller.config import load_config

        try:
            cfg = load_config(args.config)
        except (OSError, ValueError):
            cfg = None
    return str(args.language or (cfg.display.language if cfg else None) or os.environ.get("LIVETABLE_LANGUAGE")
               or (cfg.table.language if cfg else None) or "en")


def _run_live(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    import pygame

    from display.feed import MqttFeed

    table, host, port = settings["table"], settings["host"], settings["port"]
    feed = MqttFeed(table, host, port, username=settings["username"], password=settings["password"])
    flags = pygame.FULLSCREEN if args.fullscreen else 0
    size = settings["size"] or ((0, 0) if args.fullscreen else DEFAULT_SIZE)
    try:
        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(size, flags)
    except pygame.error as exc:  # no monitor, no DRM device, no permission
        log.error("cannot open the screen with SDL_VIDEODRIVER=%s: %s",
                  os.environ.get("SDL_VIDEODRIVER", "(default)"), exc)
        pygame.quit()
        return 1
    driver = pygame.display.get_driver()
    if driver in NO_SCREEN_DRIVERS and os.environ.get("SDL_VIDEODRIVER") != driver:
        # SDL found no screen and fell back to drawing into memory: say so instead of
        # running for nobody (issue 20); SDL_VIDEODRIVER=dummy (tests, bench) is asked for
        log.error("no screen: SDL fell back to its %r video driver, which shows nothing; on the Pi run "
                  "with SDL_VIDEODRIVER=kmsdrm (systemd/livetable-display.service), on a desktop from "
                  "its session (DISPLAY or WAYLAND_DISPLAY set); --snapshot renders without a screen",
                  driver)
        pygame.quit()
        return 1
    pygame.display.set_caption(f"livetable {table}")
    pygame.mouse.set_visible(False)
    log.info("display %dx%d on SDL %s, following table %s on %s:%s at %d fps",
             *screen.get_size(), driver, table, host, port, args.fps)
    from display.i18n import _

    loop = DisplayLoop(screen, feed.feed.snapshot, clock=time.time,
                       waiting=(_("TABLE {table}").format(table=table.upper()),
                                _("Waiting for the table on {host}:{port}").format(host=host, port=port)))
    stop = {"now": False}

    def on_term(signum: int, frame: Any) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)  # Ctrl-C stops it like SIGTERM (it ended in a traceback)
    log.info("connecting to the broker at %s:%s", host, port)
    feed.start()
    tick = pygame.time.Clock()
    try:
        while not stop["now"]:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    stop["now"] = True
                elif event.type == pygame.KEYDOWN and event.key in (pygame.K_ESCAPE, pygame.K_q):
                    stop["now"] = True
                elif event.type in (pygame.VIDEORESIZE, pygame.WINDOWEXPOSED, pygame.WINDOWSIZECHANGED):
                    loop.invalidate()
            boxes = loop.step()
            if boxes:
                pygame.display.update([pygame.Rect(b.as_tuple()) for b in boxes])
            tick.tick(args.fps)
    finally:
        feed.stop()
        pygame.quit()
    log.info("display stopped")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="livetable display", description="The overhead dealer display (issue 8).")
    p.add_argument("--snapshot", nargs=2, metavar=("STATE.json", "OUT.png"),
                   help="render one public state to a PNG and exit")
    p.add_argument("--size", type=_size_arg, help="screen size WIDTHxHEIGHT (snapshot default 1280x720; "
                   "live: the console's size with --fullscreen)")
    p.add_argument("--elapsed", type=float, default=0.0,
                   help="snapshot: seconds into the turn to draw the timer bar at (default 0: full)")
    p.add_argument("--table", help="table id to follow (live display)")
    p.add_argument("--host", help="MQTT broker host (default: the config's, else 127.0.0.1)")
    p.add_argument("--port", type=int, help="MQTT broker port (default: the config's, else 1883)")
    p.add_argument("--config", help="the table's TOML config: table.id, mqtt.*, display.size/enabled")
    p.add_argument("--credentials", help="provisioning JSON with the 'display' user (livetable tablets provision); "
                   "overrides the config's mqtt user")
    p.add_argument("--fullscreen", action="store_true", help="take the whole screen (on the Pi console)")
    p.add_argument("--fps", type=int, default=DEFAULT_FPS, help=f"frames per second (default {DEFAULT_FPS})")
    p.add_argument("--language", default=None,
                   help="the language on screen: en or nl (default: the config's display.language, "
                        "else its table.language, else $LIVETABLE_LANGUAGE, else en)")
    p.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    return p


def _size_arg(text: str) -> tuple[int, int]:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str]) -> int:
    """Run ``livetable display``; return 0, 1 on a bad state or file, 2 on a usage error,
    3 (``DISABLED``) when the config turns the display off."""
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from display.i18n import set_language

    try:
        set_language(_language(args))
    except (ValueError, OSError) as exc:  # OSError: the catalog is missing from the install
        print(f"livetable display: --language: {exc}", file=sys.stderr)
        return 2
    if args.snapshot:
        from display.layout import LayoutError
        from display.state import StateError

        try:
            lay = snapshot(Path(args.snapshot[0]), Path(args.snapshot[1]), args.size or DEFAULT_SIZE,
                           elapsed=args.elapsed)
        except (OSError, StateError, LayoutError) as exc:
            print(f"livetable display: {exc}", file=sys.stderr)
            return 1
        print(f"wrote {args.snapshot[1]} ({lay.size[0]}x{lay.size[1]}, {len(lay.seats)} seats)")
        return 0
    if not 1 <= args.fps <= 60:
        print("livetable display: --fps must be 1..60", file=sys.stderr)
        return 2
    settings = _settings(args)
    if isinstance(settings, int):
        return settings
    return _run_live(args, settings)
