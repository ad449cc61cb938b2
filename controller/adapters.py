"""Driver events in, table events out; table effects out to the devices (issue 9).

The only module that knows both the drivers' events and the table's. :class:`DriverAdapter`
plays two roles for the orchestrator:

- ``translate(orch, item)``: a shuffler, seat-panel, MQTT or camera event becomes table
  events, fault operations (``RaiseFault`` / ``DeviceBack`` / ``FloorDecision`` /
  ``ManualPause``) or nothing;
- the :class:`~controller.orchestrator.Ports` it fills: the dealer (the shuffler driver),
  the public and private views to the MQTT link, the lights to the seat panel, refusals to
  the tablets' reply topics, finished hands to the history.

It also composes the devices: :meth:`build_simulated` (``livetable simulate``: the shuffler
emulator on a pty, MockFactory pins, the local broker, a camera seeing drawn frames of the
dealt board, the display process) and :meth:`build_real` (``livetable run``).

Fault mapping (docs/state.md kinds): shuffler link lost -> ``shuffler-lost``; jam, empty,
door open, a failed request -> ``jam``; deck check failed -> ``deck-check``; misread or a
card reported twice -> ``misread``; camera and shuffler disagree -> ``board-mismatch``;
a dealt board card unread in time -> ``card-unreadable``; camera lost -> ``camera-lost``;
broker lost -> ``broker-lost``. The dealer console's ``confirm`` ends the oldest fault by
``correction`` (or ``resume`` where correction is not an exit), decided by ``dealer``.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from controller import views
from controller.engine.table import events as ev
from controller.faults import ALLOWED_EXITS, FaultExit, FaultKind
from controller.orchestrator import DeviceBack, FloorDecision, ManualPause, Orchestrator, Ports, RaiseFault

__all__ = ["DriverAdapter", "DevicePorts", "HistoryWriter"]

log = logging.getLogger("livetable.adapters")


class HistoryWriter:
    """Write every finished hand as PHH (``hand-<n>.phh``) plus its JSON record.

    Args:
        folder: where hand files go (created). ``None``: keep only the last hands in memory.
        keep: how many recent records :attr:`recent` holds (for ``livetable/<table>/history``).
    """

    def __init__(self, folder: str | Path | None, keep: int = 20) -> None:
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.keep = keep
        self.recent: list[dict[str, Any]] = []

    def write(self, hand: int, record: dict[str, Any]) -> None:
        """Record hand ``hand``; a write error is logged, never raised (the hand is in the journal)."""
        self.recent = (self.recent + [record])[-self.keep:]
        if self.folder is None:
            return
        try:
            (self.folder / f"hand-{hand:06d}.json").write_text(json.dumps(record, sort_keys=True))
            phh = _phh_text(record)
            if phh:
                (self.folder / f"hand-{hand:06d}.phh").write_text(phh)
        except OSError as exc:
            log.error("could not write hand %s to %s: %s", hand, self.folder, exc)


def _phh_text(record: dict[str, Any]) -> str | None:
    try:
        from controller.engine import phh

        fn = getattr(phh, "record_to_phh", None)
        return fn(record) if fn is not None else None
    except Exception as exc:  # the history must never stop the table
        log.warning("PHH export failed: %s", exc)
        return None


class DevicePorts(Ports):
    """Ports wired to the concrete drivers (any of them may be None: not present)."""

    def __init__(self) -> None:
        self.dealer: Any = None
        self.link: Any = None
        self.panel: Any = None
        self.history: HistoryWriter | None = None
        self.on_board: Callable[[list[str]], None] | None = None

    def publish_public(self, view: dict[str, Any]) -> None:
        if self.link is not None:
            self.link.publish_state(view)
        if self.on_board is not None:
            self.on_board(view.get("board") or [])

    def publish_private(self, seat: int, view: dict[str, Any] | None) -> None:
        if self.link is not None:
            self.link.publish_private(seat, view)

    def reply(self, seat: int, action_id: str, accepted: bool, reason: str | None) -> None:
        if self.link is not None and action_id:
            self.link.reply(seat, action_id, accepted, reason)

    def lights(self, public: dict[str, Any], privates: dict[int, dict[str, Any]]) -> None:
        if self.panel is not None:
            self.panel.update(public, privates)

    def hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        if self.history is not None:
            self.history.write(hand, record)
            if self.link is not None:
                self.link.publish_history(self.history.recent)


class ShufflerDealer:
    """The table's dealer port on the shuffler driver: DealCards -> deal/draw requests."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def deal(self, *, target: str, count: int, seat: int | None, reshuffle: bool, hand: int) -> None:
        if target == "seat":
            self.driver.deal(seat, count=count)
        elif target == "draw":
            self.driver.draw(seat, count=count)
        elif target == "burn":
            for _ in range(count):
                self.driver.deal("burn")
        else:
            self.driver.deal("board", count=count)


class _SimCapture:
    """A cv2.VideoCapture stand-in: frames drawn of the board the shuffler dealt."""

    def __init__(self, board: Callable[[], list[str]], period: float) -> None:
        self.board, self.period = board, period
        self._last = 0.0
        self._stop = threading.Event()

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        return not self._stop.is_set()

    def read(self) -> tuple[bool, Any]:
        # The device's own frame pacing (a camera delivers frames at its rate).
        wait = self._last + self.period - time.monotonic()
        if wait > 0:
            self._stop.wait(wait)
        self._last = time.monotonic()
        from vision.render import render_board

        cards = self.board()
        return True, render_board(cards, size=(1280, 720), background="green")

    def grab(self) -> bool:
        return True

    def release(self) -> None:
        self._stop.set()


class DriverAdapter:
    """Translate driver events for one orchestrator and compose its devices.

    Args:
        orch: the orchestrator (its ``post`` receives the drivers' events).
        ports: a :class:`DevicePorts` (a plain Ports is upgraded in place).
        clock: Unix seconds.
    """

    def __init__(self, orch: Orchestrator, ports: Ports, *, clock: Callable[[], float]) -> None:
        self.orch, self.clock = orch, clock
        if not isinstance(ports, DevicePorts):
            ports.__class__ = DevicePorts
            DevicePorts.__init__(ports)  # type: ignore[misc]
        self.ports: DevicePorts = ports  # type: ignore[assignment]
        self.shuffler: Any = None
        self.emulator: Any = None
        self.camera: Any = None
        self.boardcheck: Any = None
        self.display: subprocess.Popen[bytes] | None = None
        self._on_deck: Callable[[], None] | None = None
        self._dealt_board: list[str] = []
        self._closers: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ translate
    def translate(self, orch: Orchestrator, item: Any) -> list[Any]:
        """Return what driver event ``item`` means for the table (see the module docstring)."""
        mod = type(item).__module__
        try:
            if mod.startswith("drivers.shuffler"):
                return self._shuffler(item)
            if mod.startswith("drivers.seats"):
                return self._seats(item)
            if mod.startswith("drivers.mqtt"):
                return self._mqtt(item)
            if mod.startswith("vision"):
                return self._vision(item)
        except Exception:  # a translation bug must not stop the loop
            log.exception("could not translate %r", item)
            return []
        log.warning("unknown input %r", item)
        return []

    def _shuffler(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name == "CardDelivered":
            card = str(e.card)
            if str(getattr(e.target, "name", e.target)).lower() == "board":
                self._board_dealt(card)
            return [ev.CardDealt(at=e.at, card=card)]
        if name == "DeckReady":
            if self._on_deck is not None and e.dealt == 0:
                cb, self._on_deck = self._on_deck, None
                cb()
            return []
        if name == "DeckCheckFailed":
            return [RaiseFault(FaultKind.DECK_CHECK.value, f"deck check failed: {_describe(e)}")]
        if name in ("Jammed", "Empty", "DoorOpened"):
            return [RaiseFault(FaultKind.JAM.value, f"shuffler {name.lower()}: {_describe(e)}")]
        if name in ("Misread", "CardFault"):
            return [RaiseFault(FaultKind.MISREAD.value, f"{name.lower()}: {_describe(e)}")]
        if name == "RequestFailed":
            return [RaiseFault(FaultKind.JAM.value, f"shuffler refused a request: {_describe(e)}")]
        if name == "LinkLost":
            return [RaiseFault(FaultKind.SHUFFLER_LOST.value, "the shuffler's serial link is lost")]
        if name == "LinkRestored":
            return [DeviceBack(FaultKind.SHUFFLER_LOST.value, f"link restored: {_describe(e)}")]
        return []

    def _seats(self, e: Any) -> list[Any]:
        name = type(e).__name__
        state = self.orch.state
        if name == "ConsoleButtonPressed":
            button = str(e.name)
            if button == "pause":
                return [ManualPause("paused by the dealer")]
            if button == "confirm":
                fault = self.orch.faults.current
                if fault is None:
                    return []
                allowed = ALLOWED_EXITS[fault.kind]
                exit = FaultExit.CORRECTION if FaultExit.CORRECTION in allowed else FaultExit.RESUME
                return [FloorDecision(fault.kind.value, exit.value, "dealer")]
            if button == "start" and state.hand is None:
                return [ev.HandStartRequested(at=e.at)]
            return []
        seat = e.seat
        button = str(e.button)
        if name == "SeatButtonHeld" and button == "sit":
            s = state.seat(seat)
            if s is None:
                return []
            return [ev.SatIn(at=e.at, seat=seat, post=True) if s.sitting_out else ev.SatOut(at=e.at, seat=seat)]
        if name != "SeatButtonPressed":
            return []
        view = views.private_view(state, seat)
        legal = (view or {}).get("legal")
        if not legal:
            return []  # the turn moved on: the panel's check raced a state change
        if button == "fold":
            return [ev.ActionTaken(at=e.at, seat=seat, action="fold")] if legal.get("fold") else []
        if button == "check_call":
            if legal.get("check"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="check")]
            if legal.get("call"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="call")]
            return []
        if button == "bet_raise":
            for kind in ("raise", "bet"):
                if legal.get(kind):
                    return [ev.ActionTaken(at=e.at, seat=seat, action=kind, amount=legal[kind]["min"])]
        return []

    def _mqtt(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name == "BrokerConnection":
            if e.up:
                return [DeviceBack(FaultKind.BROKER_LOST.value, "broker connection restored")]
            return [RaiseFault(FaultKind.BROKER_LOST.value, f"broker lost: {e.reason or 'no reason'}")]
        if name == "TabletPresence":
            cls = ev.TabletConnected if e.online else ev.TabletDisconnected
            return [cls(at=e.at, seat=e.seat)]
        if name == "ChatReceived":
            if self.ports.link is not None:
                s = self.orch.state.seat(e.seat)
                who = (s.name or s.player) if s is not None else f"Seat {e.seat}"
                self.ports.link.publish_chat(e.seat, who, e.text, chat_id=e.chat_id)
            return []
        if name != "ActionReceived":
            return []
        a = e.action
        common = dict(at=e.at, seat=e.seat)
        if a in ("fold", "check", "call", "bet", "raise", "all_in", "draw"):
            return [ev.ActionTaken(**common, action=a, amount=e.amount if a in ("bet", "raise") else None,
                                   discards=tuple(e.cards), seq=e.seq_seen, action_id=e.action_id)]
        self._accept(e)
        if a == "preselect":
            if e.choice in (None, "", "none", "clear"):
                return [ev.PreselectCleared(**common)]
            return [ev.PreselectSet(**common, choice=e.choice, amount=e.amount)]
        if a == "sit_out":
            return [ev.SatOut(**common)]
        if a in ("sit_in", "post_bb"):
            return [ev.SatIn(**common, post=True)]
        if a == "wait_bb":
            return [ev.SatIn(**common, post=False)]
        if a == "top_up":
            return [ev.ToppedUp(**common, amount=int(e.amount or 0))]
        if a == "stand_up":
            return [ev.StoodUp(**common)]
        return []

    def _accept(self, e: Any) -> None:
        # Seat management requests are answered when received; a refusal from the table
        # follows on the same reply topic with the rule id.
        if self.ports.link is not None:
            self.ports.link.reply(e.seat, e.action_id, True, None)

    def _vision(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name == "CameraLost":
            return [RaiseFault(FaultKind.CAMERA_LOST.value, f"camera lost: {e.reason}")]
        if name == "CameraBack":
            return [DeviceBack(FaultKind.CAMERA_LOST.value, "camera back")]
        if name == "BoardRead" and self.boardcheck is not None:
            return self._board_events(self.boardcheck.seen(e))
        return []

    def _board_events(self, results: list[Any]) -> list[Any]:
        out: list[Any] = []
        for r in results:
            kind = type(r).__name__
            if kind == "BoardMismatch":
                out.append(RaiseFault(FaultKind.BOARD_MISMATCH.value, _describe(r)))
            elif kind == "BoardUnreadable":
                out.append(RaiseFault(FaultKind.CARD_UNREADABLE.value,
                                      f"dealer: please straighten the board card(s): {_describe(r)}"))
            elif kind == "BoardMatch" and any(
                f.kind is FaultKind.CARD_UNREADABLE for f in self.orch.faults.open
            ):
                out.append(FloorDecision(FaultKind.CARD_UNREADABLE.value, "resume", "system: camera read it"))
        return out

    def _board_dealt(self, card: str) -> None:
        self._dealt_board.append(card)
        if self.boardcheck is not None:
            self.boardcheck.dealt(list(self._dealt_board))

    # ------------------------------------------------------------------ per step / tick
    def after_step(self, orch: Orchestrator, effects: list[Any]) -> None:
        """Reset the board check at a new hand (listener on the orchestrator)."""
        if orch.state.hand is None and self._dealt_board:
            self._dealt_board = []
            if self.boardcheck is not None:
                self.boardcheck.reset()

    def tick(self, now: float) -> None:
        """Poll time-based checks (the board check's unreadable timeout)."""
        if self.boardcheck is not None and not self.orch.faults.paused:
            for item in self._board_events(self.boardcheck.poll()):
                self.orch.post(item)

    def new_deck(self, *, on_ready: Callable[[], None]) -> None:
        """Ask the shuffler for a new, checked deck; call ``on_ready`` when it is proved."""
        self._on_deck = on_ready
        self.shuffler.shuffle()

    # ------------------------------------------------------------------ composition
    def build_simulated(self, args: Any, settings: Any, *, headless: bool) -> None:
        """Start the simulated devices of ``livetable simulate --devices all``."""
        from drivers.shuffler.emulator import Emulator
        from drivers.shuffler.link import ShufflerDriver

        self.emulator = Emulator(seed=args.seed)
        path = self.emulator.start()
        self._closers.append(self.emulator.stop)
        self.shuffler = ShufflerDriver(path, post=self.orch.post, clock=self.clock)
        self.shuffler.start()
        self._closers.insert(0, self.shuffler.stop)
        self.ports.dealer = ShufflerDealer(self.shuffler)

        try:
            from drivers.seats import DEFAULT_PIN_MAP, SeatPanel, mock_pin_factory

            self.ports.panel = SeatPanel(DEFAULT_PIN_MAP, mock_pin_factory(), post=self.orch.post,
                                         clock=self.clock)
            self._closers.insert(0, self.ports.panel.close)
        except Exception as exc:  # the panel is optional in a simulation
            log.warning("seat panel not simulated: %s", exc)

        self._start_mqtt(args.table, args.mqtt_host, args.mqtt_port, None, None, settings.seats)
        if getattr(args, "camera", "on") == "on":
            self._start_sim_camera()
        if not headless:
            self._start_display(args.table, args.mqtt_host, args.mqtt_port)

    def build_real(self, cfg: Any) -> None:
        """Start the devices named in a :class:`controller.config.Config` (``livetable run``)."""
        if cfg.shuffler is not None:
            from drivers.shuffler.link import ShufflerDriver

            self.shuffler = ShufflerDriver(cfg.shuffler.port, post=self.orch.post, clock=self.clock)
            self.shuffler.start()
            self._closers.insert(0, self.shuffler.stop)
            self.ports.dealer = ShufflerDealer(self.shuffler)
        if cfg.gpio is not None:
            from drivers.seats import SeatPanel, parse_pin_map, real_pin_factory

            self.ports.panel = SeatPanel(parse_pin_map(cfg.gpio), real_pin_factory(), post=self.orch.post,
                                         clock=self.clock)
            self._closers.insert(0, self.ports.panel.close)
        password = None
        if cfg.mqtt.password_file:
            password = Path(cfg.mqtt.password_file).read_text().strip()
        self._start_mqtt(cfg.table.id, cfg.mqtt.host, cfg.mqtt.port, cfg.mqtt.username, password,
                         cfg.table.seats)
        if cfg.camera is not None:
            from vision.boardcheck import BoardCheck
            from vision.camera import Camera

            region = None
            if cfg.camera.calibration and Path(cfg.camera.calibration).exists():
                from vision import calibration

                region = calibration.load_region(cfg.camera.calibration)
            self.boardcheck = BoardCheck(self.clock, timeout=cfg.camera.read_timeout)
            self.camera = Camera(cfg.camera.source, self.orch.post, self.clock, region=region).start()
            self._closers.insert(0, self.camera.stop)

    def _start_mqtt(self, table: str, host: str, port: int, user: str | None, password: str | None,
                    seats: int) -> None:
        from drivers.mqtt.link import TableLink

        link = TableLink(table, host=host, port=port, username=user, password=password,
                         post=self.orch.post, clock=self.clock, max_seats=seats)
        link.start()
        self.ports.link = link
        self._closers.insert(0, link.stop)

    def _start_sim_camera(self) -> None:
        from vision.boardcheck import BoardCheck
        from vision.camera import Camera

        self.boardcheck = BoardCheck(self.clock, timeout=10.0)
        board = lambda: list(self._dealt_board)  # noqa: E731 - what lies on the felt
        self.camera = Camera("simulated", self.orch.post, self.clock,
                             capture_factory=lambda _src: _SimCapture(board, period=0.5)).start()
        self._closers.insert(0, self.camera.stop)

    def _start_display(self, table: str, host: str, port: int) -> None:
        cmd = [sys.executable, "-m", "controller", "display", "--table", table, "--host", host,
               "--port", str(port)]
        try:
            self.display = subprocess.Popen(cmd)
        except OSError as exc:
            log.warning("display not started: %s", exc)
            return

        def stop_display() -> None:
            assert self.display is not None
            self.display.terminate()
            try:
                self.display.wait(5)
            except subprocess.TimeoutExpired:
                self.display.kill()

        self._closers.append(stop_display)

    def close(self) -> None:
        """Stop every device this adapter started (newest first); errors are logged."""
        for close in self._closers:
            try:
                close()
            except Exception as exc:
                log.warning("closing a device: %s", exc)
        self._closers = []


def _describe(e: Any) -> str:
    fields = getattr(e, "__dataclass_fields__", {})
    parts = [f"{k}={getattr(e, k)}" for k in fields if k not in ("at",)]
    return ", ".join(parts) or type(e).__name__
