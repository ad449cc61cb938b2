"""The devices behind one table: one adapter per device, one object for the orchestrator.

:class:`DriverAdapter` gives the orchestrator its ``translate(orch, item)`` (a driver event
becomes table events and fault operations, by the device that sent it:
:class:`~controller.devices.shuffler.ShufflerAdapter`,
:class:`~controller.devices.seats.SeatsAdapter`,
:class:`~controller.devices.mqtt.MqttAdapter`,
:class:`~controller.devices.camera.CameraAdapter`), its ``after_step`` listener (one answer
per tablet request), its idle ``tick`` (the shuffler's watchdog, the board check's timeout,
requests a paused table never stepped), and closes every device it holds.
"""

from __future__ import annotations

import logging
import subprocess
from typing import Any, Callable

from controller.devices.camera import CameraAdapter
from controller.devices.mqtt import MqttAdapter
from controller.devices.ports import DevicePorts
from controller.devices.seats import SeatsAdapter
from controller.devices.shuffler import ShufflerAdapter, ShufflerDealer
from controller.orchestrator import Orchestrator

__all__ = ["DriverAdapter"]

log = logging.getLogger("livetable.devices")


def _part(name: str, attr: str, doc: str) -> property:
    def get(self: "DriverAdapter") -> Any:
        return getattr(getattr(self, name), attr)

    def set_(self: "DriverAdapter", value: Any) -> None:
        setattr(getattr(self, name), attr, value)

    return property(get, set_, doc=doc)


class DriverAdapter:
    """Translate driver events for one orchestrator; hold and close its devices.

    Args:
        orch: the orchestrator (its ``post`` receives the drivers' events).
        ports: the :class:`DevicePorts` the orchestrator was given.
        clock: the injected clock (Unix seconds).
    """

    def __init__(self, orch: Orchestrator, ports: DevicePorts, *, clock: Callable[[], float]) -> None:
        self.orch, self.ports, self.clock = orch, ports, clock
        self.camera_part = CameraAdapter(orch, ports, clock=clock)
        self.shuffler_part = ShufflerAdapter(orch, ports, clock=clock, camera=self.camera_part)
        self.seats_part = SeatsAdapter(orch, ports, clock=clock)
        self.mqtt_part = MqttAdapter(orch, ports, clock=clock)
        self.display: subprocess.Popen[bytes] | None = None
        #: What :meth:`close` stops, in order.
        self.closers: list[Callable[[], None]] = []
        self.ports.on_fault_changed = self.shuffler_part.fault_changed
        self._by_module = (("drivers.shuffler", self.shuffler_part), ("drivers.seats", self.seats_part),
                           ("drivers.mqtt", self.mqtt_part), ("vision", self.camera_part))

    shuffler = _part("shuffler_part", "shuffler", "The shuffler driver (or None).")
    emulator = _part("shuffler_part", "emulator", "Simulation: the shuffler emulator (or None).")
    on_deck_failed = _part("shuffler_part", "on_deck_failed", "Called when a deck asked for will not come.")
    decks = _part("shuffler_part", "decks", "Decks shuffled and proven (G-5).")
    deal_timeout = _part("shuffler_part", "deal_timeout", "Watchdog: seconds without a card while owed.")
    shuffle_timeout = _part("shuffler_part", "shuffle_timeout", "Watchdog: seconds without the deck asked for.")
    camera = _part("camera_part", "camera", "The camera (vision.camera.Camera, or None).")
    boardcheck = _part("camera_part", "boardcheck", "The board check (or None).")
    sim_camera = _part("camera_part", "sim_camera", "Simulation: the simulated camera (or None).")
    board_checks = _part("camera_part", "board_checks", "Boards the camera read as dealt.")
    boards = _part("camera_part", "boards", "Hands that ended with cards on the board.")
    boards_matched = _part("camera_part", "boards_matched", "Of those, the final board read as dealt.")
    floor = _part("mqtt_part", "floor", "The floor desk (livetable floor).")

    def translate(self, orch: Orchestrator, item: Any) -> list[Any]:
        """Return what driver event ``item`` means for the table (its device's adapter says)."""
        mod = type(item).__module__
        for prefix, part in self._by_module:
            if mod.startswith(prefix):
                try:
                    return part.translate(item)
                except Exception:  # a translation bug must not stop the loop
                    log.exception("could not translate %r", item)
                    return []
        log.warning("unknown input %r", item)
        return []

    def after_step(self, orch: Orchestrator, effects: list[Any]) -> None:
        """Listener on the orchestrator: answer a tablet's request once the table decided it."""
        self.mqtt_part.after_step(orch, effects)

    def tick(self, now: float) -> None:
        """Poll time-based checks (loop thread, on idle, ``now`` from the injected clock): a
        seat request the table never stepped (refused ``F-1`` while paused), the shuffler's
        watchdog, the board check's unreadable timeout."""
        self.mqtt_part._settle_request()  # noqa: SLF001 - the part's own idle duty
        for item in self.shuffler_part._watchdog(now):  # noqa: SLF001
            self.orch.post(item)
        self.camera_part.tick(now)

    @property
    def board_settled(self) -> bool:
        """True unless the camera is still to read the board dealt."""
        return self.camera_part.board_settled

    def new_deck(self, *, on_ready: Callable[[], None]) -> None:
        """Ask the shuffler for a new, checked deck (:meth:`ShufflerAdapter.new_deck`)."""
        self.shuffler_part.new_deck(on_ready=on_ready)

    def resumed_deck(self, deck_no: int) -> None:
        """The shuffler's deck was proven again for a resumed hand (start-up)."""
        self.shuffler_part.resumed_deck(deck_no)

    def build_real(self, cfg: Any) -> None:
        """Start the devices a :class:`controller.config.Config` names, its shuffler too."""
        from controller.devices.build import build_devices, choice_from_config

        choice = choice_from_config(cfg)
        if choice.shuffler is not None:
            from drivers.shuffler.link import ShufflerDriver

            self.shuffler = ShufflerDriver(choice.shuffler, post=self.orch.post, clock=self.clock)
            self.shuffler.start()
            self.closers.insert(0, self.shuffler.stop)
            self.ports.dealer = ShufflerDealer(self.shuffler)
        build_devices(self, choice)

    def close(self) -> None:
        """Stop every device this adapter holds (in :attr:`closers` order); errors are logged."""
        for close in self.closers:
            try:
                close()
            except Exception as exc:
                log.warning("closing a device: %s", exc)
        self.closers = []
