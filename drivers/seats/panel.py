"""The seat panel: gpiozero buttons in, events out; table state in, lights out.

Use (the orchestrator of issue 9 composes it)::

    from drivers.seats import SeatPanel, DEFAULT_PIN_MAP, mock_pin_factory
    panel = SeatPanel(pin_map, pin_factory, post=loop_queue.put)   # clock=time.time
    panel.update(public_state, private_views)    # after every table change (docs/state.md)
    ...
    panel.close()                                # or use it as a context manager

``post`` receives :mod:`drivers.seats.events` records from gpiozero's threads; it must be
quick and thread-safe (``queue.Queue.put``, ``loop.call_soon_threadsafe``...). If it raises,
the panel logs the error and flashes the error pattern (the press is lost; the player sees
it was not taken); nothing is raised into gpiozero's threads.

Inputs. One gpiozero input per wired button, ``pull_up=True`` (the button shorts the pin to
ground), ``bounce_time`` from the pin map: a ``Button`` (``hold_time`` from the pin map,
``hold_repeat=False``) for the sit buttons, which act on a hold, and a plain
``DigitalInputDevice`` for the others, which act on the press (gpiozero gives every ``Button``
a hold thread that wakes ten times a second; 19 of them would only cost CPU on a Pi). The
callbacks only stamp the time with ``clock``, judge the press against the last
:class:`~drivers.seats.lights.PanelView` and either post an event or start an error blink:

- fold, check/call, bet/raise act on the press, when legal for that seat now (A-1);
- sit in / sit out acts only when held ``hold_time`` seconds (T-5), posting
  ``SeatButtonHeld``; a short press gets an error blink (a hint to hold it);
- console start / pause / confirm act on the press (see ``PanelView.console_legal``).

An illegal press is never posted: the seat's light (or the console light) flashes the error
pattern. Debounce: gpiozero passes ``bounce_time`` to the pin factory (lgpio filters in the
library), but gpiozero's ``MockPin`` ignores it, so the panel also drops any edge that comes
less than ``bounce_time`` after the previous edge of the same button (by ``clock``). A button
held down does nothing more: no repeat until it is released and pressed again.

Races. A press is judged against the newest state the panel was given; the event carries that
state's ``seq``. A press that crosses a state change (the turn moved on between the state and
the press reaching the loop) can therefore be posted for a turn that has just ended, or be
refused for a turn that has just begun (the player sees the error blink and presses again).
The orchestrator is the single writer and must re-check every posted press against the
current state (A-1), dropping it when the action is no longer legal (``seq`` tells it how old
the panel's judgement was); the panel's check only spares it obvious junk and gives the player
immediate feedback.

Lights. Each seat's light (and the optional console light) is a pure function of the view, the
time and the panel's own error-blink deadlines (device-private, not table state:
:func:`drivers.seats.lights.lights`); the panel applies a pattern to the gpiozero
``LED``/``PWMLED`` only when it changes (``on()``, ``off()``, ``blink()``, ``pulse()``). A
small ticker thread re-applies at the moments :func:`~drivers.seats.lights.next_change`
names (timer thresholds, end of an error blink); with ``auto_refresh=False`` (tests with a
fake clock) the owner calls :meth:`SeatPanel.tick` instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

from gpiozero import LED, PWMLED, Button, DigitalInputDevice
from gpiozero.exc import GPIOZeroError
from gpiozero.pins import Factory

from drivers.seats.events import (ConsoleButton, ConsoleButtonPressed, PanelEvent, SeatButton,
                                  SeatButtonHeld, SeatButtonPressed)
from drivers.seats.lights import (CONSOLE, ERROR_SECONDS, LightKey, LightPattern, PanelView,
                                  PatternKind, lights, next_change, project)
from drivers.seats.pinmap import ConfigError, LedKind, Pin, PinMap

log = logging.getLogger(__name__)

#: Longest the ticker sleeps between refreshes, real seconds. The wait until the next
#: threshold is computed in ``clock`` seconds; the cap keeps the lights in step when the clock
#: is not real time (``livetable simulate --speed N``'s ScaledClock, a wall-clock jump).
TICK_CAP = 0.25

ButtonKey = tuple[int | str, str]  # (seat number or CONSOLE, button value)


class SeatPanel:
    """The seat buttons, seat lights and dealer console of one table, on gpiozero.

    ``pin_map``: a checked :class:`~drivers.seats.pinmap.PinMap`. ``pin_factory``: a gpiozero
    pin factory, passed explicitly to every device (``mock_pin_factory()`` in tests and
    ``livetable simulate``, ``real_pin_factory()`` on a Pi). ``post``: called with each
    :data:`~drivers.seats.events.PanelEvent`, from gpiozero's threads. ``clock``: Unix seconds
    (float), the same clock as the state's ``turn.deadline``. ``auto_refresh``: run the
    ticker thread that re-applies lights as the timer runs down.

    Raises :class:`~drivers.seats.pinmap.ConfigError` (naming the pin's TOML key) when the
    factory refuses a pin (not on this board, already in use, no PWM); devices built so far
    are closed first.
    """

    def __init__(self, pin_map: PinMap, pin_factory: Factory,
                 post: Callable[[PanelEvent], None], clock: Callable[[], float] = time.time,
                 *, auto_refresh: bool = True) -> None:
        self.pin_map = pin_map
        self._factory = pin_factory
        self._post = post
        self._clock = clock
        self._pwm = pin_map.led_kind is LedKind.PWM
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._closed = False
        self._view = PanelView()
        self._errors: dict[LightKey, float] = {}
        self._applied: dict[LightKey, LightPattern] = {}
        self._last_edge: dict[ButtonKey, float] = {}
        self._sit_held: dict[int, bool] = {}
        self._buttons: dict[ButtonKey, DigitalInputDevice] = {}
        self._leds: dict[LightKey, LED | PWMLED] = {}
        try:
            self._build()
        except BaseException:
            self._close_devices()
            raise
        with self._lock:
            self._refresh_locked(self._clock())
        self._ticker: threading.Thread | None = None
        if auto_refresh:
            self._ticker = threading.Thread(target=self._run_ticker, name="seat-lights",
                                            daemon=True)
            self._ticker.start()

    # -- construction -------------------------------------------------------------------

    def _device(self, make: Callable[[], Any], pin: Pin) -> Any:
        try:
            return make()
        except (GPIOZeroError, ValueError) as exc:
            raise ConfigError(pin.key, f"{pin.name} (header pin {pin.header}): {exc}") from exc

    def _make_button(self, key: ButtonKey, pin: Pin, *, hold: bool) -> DigitalInputDevice:
        bounce = self.pin_map.bounce_time or None
        if hold:
            button = self._device(lambda: Button(
                pin.name, pull_up=True, bounce_time=bounce, hold_time=self.pin_map.hold_time,
                hold_repeat=False, pin_factory=self._factory), pin)
        else:
            button = self._device(lambda: DigitalInputDevice(
                pin.name, pull_up=True, bounce_time=bounce, pin_factory=self._factory), pin)
        self._buttons[key] = button
        return button

    def _make_led(self, key: LightKey, pin: Pin) -> None:
        kind = PWMLED if self._pwm else LED
        self._leds[key] = self._device(lambda: kind(pin.name, pin_factory=self._factory), pin)

    def _build(self) -> None:
        for seat in self.pin_map.seats:
            for name, pin in seat.buttons.items():
                button = self._make_button((seat.seat, name.value), pin,
                                           hold=name is SeatButton.SIT)
                button.when_activated = self._seat_callback(self._on_seat_press, seat.seat,
                                                            name)
                button.when_deactivated = self._seat_callback(self._on_seat_release,
                                                              seat.seat, name)
                if name is SeatButton.SIT:
                    button.when_held = self._seat_callback(self._on_seat_held, seat.seat, name)
            if seat.led is not None:
                self._make_led(seat.seat, seat.led)
        for cname, pin in self.pin_map.console.buttons.items():
            button = self._make_button((CONSOLE, cname.value), pin, hold=False)
            button.when_activated = self._console_callback(cname)
            button.when_deactivated = self._console_release_callback(cname)
        if self.pin_map.console.led is not None:
            self._make_led(CONSOLE, self.pin_map.console.led)

    def _seat_callback(self, handler: Callable[[int, SeatButton], None], seat: int,
                       name: SeatButton) -> Callable[[], None]:
        def callback() -> None:
            handler(seat, name)
        return callback

    def _console_callback(self, name: ConsoleButton) -> Callable[[], None]:
        def callback() -> None:
            self._on_console_press(name)
        return callback

    def _console_release_callback(self, name: ConsoleButton) -> Callable[[], None]:
        def callback() -> None:
            self._edge((CONSOLE, name.value), self._clock())
        return callback

    # -- public API ---------------------------------------------------------------------

    @property
    def view(self) -> PanelView:
        """The last :class:`PanelView` the panel judged presses against."""
        return self._view

    def update(self, public: Mapping[str, Any] | None,
               private: Mapping[int | str, Mapping[str, Any] | None] | None = None) -> bool:
        """Tell the panel the table's state: the docs/state.md public state and the private
        seat views (seat -> view; missing seats are judged from the public state).

        Call from the controller's loop after every change. A state whose ``seq`` is lower
        than the last one is dropped (returns ``False``); otherwise the lights are refreshed
        at once and ``True`` is returned. Never raises on a partial state.
        """
        return self.update_view(project(public, private))

    def update_view(self, view: PanelView) -> bool:
        """Like :meth:`update`, from a ready :class:`PanelView`."""
        with self._lock:
            if (view.seq is not None and self._view.seq is not None
                    and view.seq < self._view.seq):
                log.debug("seat panel: dropped stale state seq %s < %s", view.seq,
                          self._view.seq)
                return False
            self._view = view
            self._refresh_locked(self._clock())
            self._wake.notify_all()
            return True

    def tick(self, now: float | None = None) -> None:
        """Re-apply the lights for time ``now`` (default: the clock). The ticker thread does
        this by itself; call it when ``auto_refresh`` is off."""
        with self._lock:
            self._refresh_locked(self._clock() if now is None else now)

    def patterns(self) -> dict[LightKey, LightPattern]:
        """The pattern each light shows now: ``{seat: pattern, CONSOLE: pattern}``."""
        with self._lock:
            return dict(self._applied)

    def button(self, seat: int | str, name: SeatButton | ConsoleButton | str
               ) -> DigitalInputDevice:
        """The gpiozero input of a seat's (``seat`` 1..N) or the console's (``"console"``)
        button: a ``Button`` for ``sit``, else a ``DigitalInputDevice``. ``KeyError`` when
        that button is not wired. Simulators press it with ``.pin.drive_low()``."""
        return self._buttons[(seat, str(name))]

    def led(self, key: LightKey) -> LED | PWMLED:
        """The gpiozero light of a seat or of the console (``"console"``); ``KeyError`` if
        not wired."""
        return self._leds[key]

    def close(self) -> None:
        """Stop the ticker, switch the lights off and release every pin. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wake.notify_all()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join(timeout=5)
        self._close_devices()

    def __enter__(self) -> SeatPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- input callbacks (gpiozero threads) ---------------------------------------------

    def _edge(self, key: ButtonKey, now: float) -> bool:
        """Record an edge of ``key``; ``False`` when it is bounce (too soon after the last)."""
        with self._lock:
            last = self._last_edge.get(key)
            self._last_edge[key] = now
            return last is None or now - last >= self.pin_map.bounce_time

    def _on_seat_press(self, seat: int, name: SeatButton) -> None:
        now = self._clock()
        event: PanelEvent | None = None
        with self._lock:
            if self._closed or not self._edge((seat, name.value), now):
                return
            if name is SeatButton.SIT:
                self._sit_held[seat] = False
                return
            if self._view.seat_legal(seat, name):
                event = SeatButtonPressed(seat, name, now, self._view.seq)
            else:
                log.info("seat %s: %s pressed when not legal (seq %s): ignored", seat,
                         name.value, self._view.seq)
                self._error_locked(seat, now)
        if event is not None:
            self._send(event)

    def _on_seat_release(self, seat: int, name: SeatButton) -> None:
        now = self._clock()
        with self._lock:
            if self._closed or not self._edge((seat, name.value), now):
                return
            if name is SeatButton.SIT and not self._sit_held.get(seat, True):
                log.info("seat %s: sit button released before %.2f s: hold it to sit in/out",
                         seat, self.pin_map.hold_time)
                self._error_locked(seat, now)
            self._sit_held[seat] = True

    def _on_seat_held(self, seat: int, name: SeatButton) -> None:
        now = self._clock()
        event: PanelEvent | None = None
        with self._lock:
            if self._closed:
                return
            self._sit_held[seat] = True
            if self._view.seat_legal(seat, name):
                event = SeatButtonHeld(seat, name, now, self._view.seq)
            else:
                log.info("seat %s: %s held when not legal: ignored", seat, name.value)
                self._error_locked(seat, now)
        if event is not None:
            self._send(event)

    def _on_console_press(self, name: ConsoleButton) -> None:
        now = self._clock()
        event: PanelEvent | None = None
        with self._lock:
            if self._closed or not self._edge((CONSOLE, name.value), now):
                return
            if self._view.console_legal(name):
                event = ConsoleButtonPressed(name, now, self._view.seq)
            else:
                log.info("console: %s pressed when not legal: ignored", name.value)
                self._error_locked(CONSOLE, now)
        if event is not None:
            self._send(event)

    def _send(self, event: PanelEvent) -> None:
        """Post ``event``; if the loop's ``post`` fails the press is lost, so say so: log it
        and flash the error pattern (the player presses again). Never raises into gpiozero."""
        try:
            self._post(event)
        except Exception:
            log.exception("seat panel: could not post %r", event)
            key: LightKey = getattr(event, "seat", CONSOLE)
            with self._lock:
                self._error_locked(key, self._clock())

    # -- lights -------------------------------------------------------------------------

    def _error_locked(self, key: LightKey, now: float) -> None:
        if key not in self._leds:
            return
        self._errors[key] = now + ERROR_SECONDS
        self._applied.pop(key, None)  # restart the flashes even if one is running
        self._refresh_locked(now)
        self._wake.notify_all()

    def _refresh_locked(self, now: float) -> None:
        if self._closed:
            return
        self._errors = {k: until for k, until in self._errors.items() if until > now}
        seats = cast("list[int]", [k for k in self._leds if k != CONSOLE])  # the seats' keys are ints
        wanted = lights(self._view, now, seats, console=CONSOLE in self._leds, pwm=self._pwm,
                        errors=self._errors)
        for key, pattern in wanted.items():
            if self._applied.get(key) != pattern:
                self._apply(self._leds[key], pattern)
                self._applied[key] = pattern

    def _apply(self, led: LED | PWMLED, pattern: LightPattern) -> None:
        kind = pattern.kind
        if kind is PatternKind.OFF:
            led.off()
        elif kind is PatternKind.ON:
            led.on()
        elif kind is PatternKind.PULSE and isinstance(led, PWMLED):
            # A pulse fades in from dark: go dark now, in this thread, so the change shows
            # without waiting for gpiozero's pulse thread to be scheduled.
            led.off()
            led.pulse(fade_in_time=pattern.on_time, fade_out_time=pattern.off_time,
                      n=pattern.count, background=True)
        else:
            # A blink starts with its on phase: light up now, in this thread (the blink
            # thread's first write is then no change), then hand the timing to gpiozero.
            led.on()
            led.blink(on_time=pattern.on_time, off_time=pattern.off_time, n=pattern.count,
                      background=True)

    def _run_ticker(self) -> None:
        with self._lock:
            while not self._closed:
                now = self._clock()
                due = next_change(self._view, now, self._errors)
                wait = TICK_CAP if due is None else min(max(due - now, 0.0), TICK_CAP)
                self._wake.wait(wait)
                if not self._closed:
                    self._refresh_locked(self._clock())

    def _close_devices(self) -> None:
        # Like gpiozero's own _threads_shutdown: signal every hold thread first, then join
        # them one by one (each would otherwise take up to 0.1 s to notice).
        for button in self._buttons.values():
            hold_thread = getattr(button, "_hold_thread", None)
            if hold_thread is not None:
                hold_thread.stopping.set()
        for button in self._buttons.values():
            button.close()
        for led in self._leds.values():
            led.close()
        self._buttons.clear()
        self._leds.clear()
