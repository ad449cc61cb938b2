"""The card shuffler/dealer on a serial port (issue 4): protocol codec, driver and emulator.

The wire protocol is ``docs/shuffler-protocol.md``. Modules:

- :mod:`.codec`      pure frame codec (``encode``, ``Decoder``): bytes in, frames out, no I/O.
- :mod:`.protocol`   message types, payload layouts, error codes, :class:`Target`.
- :mod:`.events`     the frozen events the driver posts (``CardDelivered``, ``DeckReady`` ...).
- :mod:`.integrity`  :class:`DeckTracker`: 52 distinct cards by identity, no card twice a hand.
- :mod:`.link`       :class:`ShufflerDriver` on pyserial's ``serial_for_url``.
- :mod:`.device`     :class:`Machine`: the emulated shuffler itself (state, commands, faults).
- :mod:`.emulator`   :class:`Emulator`: the Machine on a pty, and ``livetable shuffler-emulator``.

For the composition root (``controller/app.py``, ``controller/simulate.py``)::

    from drivers.shuffler import Emulator, Faults, ShufflerDriver, LinkTiming

    emu = Emulator(seed=42, deal_time=0.2, shuffle_time=2.0)   # simulate only
    path = emu.start()                                         # stable symlink to the pty
    drv = ShufflerDriver(path, post=loop.post, clock=loop.clock)   # or "/dev/serial/by-id/..."
    drv.start()
    rid = drv.shuffle()          # non-blocking: returns a request id, outcome comes as events
    drv.deal(3, count=2); drv.deal("burn"); drv.deal("board", 3); drv.draw(4, 2)
    drv.reset(keep_deck=True); drv.deck_check(); drv.status()
    drv.stop(); emu.stop()

Every request method returns at once; ``post`` is called from the driver's own thread.
Events with ``pauses_hand = True`` (DeckCheckFailed, Misread, CardFault, Jammed, Empty,
DoorOpened, LinkLost) mean: pause the hand and show the fault to the floor.
"""

from .emulator import Emulator, Faults
from .events import *  # noqa: F401,F403
from .events import __all__ as _event_names
from .integrity import DeckTracker
from .link import LinkTiming, ShufflerArgumentError, ShufflerDriver
from .protocol import BOARD, BURN, DeviceState, DeviceStatus, Fault, Target

__all__ = [
    "Emulator", "Faults", "DeckTracker", "LinkTiming", "ShufflerArgumentError", "ShufflerDriver",
    "BOARD", "BURN", "DeviceState", "DeviceStatus", "Fault", "Target", *_event_names,
]
