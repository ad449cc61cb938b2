"""The simulated devices of ``livetable simulate`` (issue 9): a composition root.

:class:`Rig` builds, for ``--devices none``, the internal seeded dealer only; for
``--devices all`` the production drivers on simulated hardware: the shuffler driver on the
emulator's pty, the seat panel on gpiozero's MockFactory, the MQTT link on the local
Mosquitto, the simulated camera (frames drawn of the dealt board, read by the recognizer and
checked against the shuffler), and the display process. Simulated players act through the
orchestrator's inbox, after a thinking time scaled by ``--speed``.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
import subprocess
import sys
from typing import Any

from controller.adapters import DriverAdapter
from controller.bots import SimPlayers
from controller.dealer import InternalDealer
from controller.engine.table.settings import TableSettings
from controller.orchestrator import Orchestrator, Ports

__all__ = ["Rig"]

log = logging.getLogger("livetable.simulate")


class Rig:
    """Everything simulated around one table; see the module docstring.

    Args:
        args: the parsed ``livetable simulate`` options.
        settings: the table settings.
        clock: Unix seconds.
        bot_seats: seats played by simulated players.
        speed: 0 = instant players; 1 = a live pace (about a second per decision).
    """

    def __init__(self, args: Any, settings: TableSettings, *, clock: Any, bot_seats: list[int],
                 speed: float) -> None:
        self.args, self.settings, self.clock = args, settings, clock
        self.bot_seats = bot_seats
        self.speed = speed
        self.rng = random.Random(args.seed)
        self.ports = Ports()
        self.pacer: Any = None
        self.orch: Orchestrator | None = None
        self._later: list[tuple[float, int, Any]] = []
        self._n = itertools.count()
        self.adapter: DriverAdapter | None = None
        self.display: subprocess.Popen[bytes] | None = None
        self.shuffler = None
        self.emulator = None
        self.internal: InternalDealer | None = None

    # -------------------------------------------------------------- composition
    def attach(self, orch: Orchestrator) -> None:
        """Build the devices around ``orch`` and start them."""
        self.orch = orch
        self.adapter = DriverAdapter(orch, self.ports, clock=self.clock)
        orch.translate = self.adapter.translate
        if self.args.devices == "none":
            self.internal = InternalDealer(orch.post, self.clock, seed=self.args.seed)
            self.ports.dealer = self.internal
        else:
            self.adapter.build_simulated(self.args, self.settings, headless=self.args.headless)
        orch.listeners.append(SimPlayers(self.bot_seats, self._post_later, self.clock, seed=self.args.seed))
        orch.listeners.append(self.adapter.after_step)

    def new_deck(self, orch: Orchestrator) -> Any:
        """Return the pacer's ``new_deck(hand)``: a shuffle and deck check, then deck ready."""

        def new_deck(hand: int) -> None:
            if self.internal is not None:
                self.internal.seek(hand, 0)
                self.pacer.deck_ready()
            else:
                assert self.adapter is not None
                self.adapter.new_deck(on_ready=self.pacer.deck_ready)

        return new_deck

    def seek(self, hand: int, position: int) -> None:
        """Continue hand ``hand`` at card ``position`` (internal dealer; after a crash)."""
        if self.internal is not None:
            self.internal.seek(hand, position)

    def can_resume(self, orch: Orchestrator) -> tuple[bool, str]:
        """Whether the dealer can carry on an interrupted hand.

        The internal dealer always can (its deck order is a function of the hand number).
        The emulated shuffler ran inside the process that stopped: its deck is gone.
        """
        if self.args.devices == "none":
            return True, ""
        return False, "the shuffler's deck did not survive the restart"

    # -------------------------------------------------------------- pacing
    def _post_later(self, item: Any) -> None:
        if self.speed <= 0:
            assert self.orch is not None
            self.orch.post(item)
            return
        think = self.rng.uniform(0.4, 1.6) / self.speed
        heapq.heappush(self._later, (self.clock() + think, next(self._n), item))

    def tick(self, orch: Orchestrator) -> None:
        """Release simulated players' decisions whose thinking time is over; poll devices."""
        if self.pacer is not None and orch.state.hand is None:
            self.pacer.kick(orch)
        now = self.clock()
        while self._later and self._later[0][0] <= now:
            _, _, item = heapq.heappop(self._later)
            orch.post(item)
        if self.adapter is not None:
            self.adapter.tick(now)

    def close(self) -> None:
        """Stop every device (drivers, emulator, display process)."""
        if self.adapter is not None:
            self.adapter.close()
