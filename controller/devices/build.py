"""Which devices a table has, and building them (issue 16: one composition).

A :class:`DeviceChoice` names each device: the real one (``livetable run``'s config) or its
simulation (``livetable simulate``): the shuffler on a serial port or the emulator on a pty
(or the internal seeded dealer), the seat panel on the Pi's GPIO or on gpiozero's
MockFactory, the MQTT link on a broker, the camera from its config or the simulated one, the
display process. :func:`build_devices` starts all but the shuffler (which start-up opens
first, to ask what it holds) behind one :class:`~controller.devices.adapter.DriverAdapter`.
Nothing above the adapters can tell a real device from a simulated one.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["DeviceChoice", "choice_from_config", "build_devices"]

log = logging.getLogger("livetable.devices")


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    """The devices of one table.

    Attributes:
        table: the table id (MQTT topics); ``seats``: how many seats.
        shuffler: a serial URL (``/dev/serial/by-id/...``, a pty), ``"emulator"`` (start the
            shuffler emulator on a pty, simulation) or None (the internal seeded dealer).
        emulator_seed: the emulator's shuffle seed.
        internal_seed: the internal dealer's seed (``shuffler`` None).
        pins: ``"gpio"`` (the Pi's pins, ``pin_map``), ``"mock"`` (gpiozero's MockFactory,
            the default map) or None (no seat panel).
        pin_map: the config's ``[gpio]`` table for ``"gpio"``.
        mqtt: connect the MQTT link (``mqtt_host``/``mqtt_port``, login ``mqtt_user`` with
            ``mqtt_password``, or anonymous).
        camera: the config's ``[camera]`` (a :class:`controller.config` camera section),
            ``"simulated"`` (frames drawn of the dealt board) or None.
        display: start the dealer display process.
        history_dir: where finished hands are written (None: kept in memory only).
    """

    table: str
    seats: int
    shuffler: str | None = None
    emulator_seed: int = 0
    internal_seed: int = 0
    pins: str | None = None
    pin_map: dict[str, Any] | None = None
    mqtt: bool = True
    mqtt_host: str = "127.0.0.1"
    mqtt_port: int = 1883
    mqtt_user: str | None = None
    mqtt_password: str | None = None
    camera: Any = None
    display: bool = False
    history_dir: str | None = None


def choice_from_config(cfg: Any) -> DeviceChoice:
    """Return the devices a :class:`controller.config.Config` names (``livetable run``).

    Raises:
        OSError: ``mqtt.password_file`` cannot be read.
        ValueError: it is not a regular file (a FIFO, a device), too large or not UTF-8.
    """
    from controller.config import read_small_text

    password = (read_small_text(cfg.mqtt.password_file, what="password file").strip()
                if cfg.mqtt.password_file else None)  # never blocks on a FIFO, never reads /dev/zero
    return DeviceChoice(
        table=cfg.table.id, seats=cfg.table.seats,
        shuffler=cfg.shuffler.port if cfg.shuffler is not None else None,
        pins="gpio" if cfg.gpio is not None else None, pin_map=cfg.gpio,
        mqtt=True, mqtt_host=cfg.mqtt.host, mqtt_port=cfg.mqtt.port, mqtt_user=cfg.mqtt.username,
        mqtt_password=password, camera=cfg.camera, display=False, history_dir=cfg.journal.history_dir)


def build_devices(adapter: Any, choice: DeviceChoice) -> None:
    """Start every device of ``choice`` but the shuffler, behind ``adapter``.

    Raises whatever a device raises when it cannot start (the caller reports it).
    """
    ports, orch, clock = adapter.ports, adapter.orch, adapter.clock
    if choice.pins is not None:
        from drivers.seats import DEFAULT_PIN_MAP, SeatPanel, mock_pin_factory, parse_pin_map, real_pin_factory

        if choice.pins == "gpio":
            assert choice.pin_map is not None  # "gpio" comes with the config's [gpio] table (DeviceChoice)
            ports.panel = SeatPanel(parse_pin_map(choice.pin_map), real_pin_factory(), post=orch.post, clock=clock)
        else:
            try:
                ports.panel = SeatPanel(DEFAULT_PIN_MAP, mock_pin_factory(), post=orch.post, clock=clock)
            except Exception as exc:  # the panel is optional in a simulation
                log.warning("seat panel not simulated: %s", exc)
        if ports.panel is not None:
            adapter.closers.insert(0, ports.panel.close)
    if choice.mqtt:
        from drivers.mqtt.link import TableLink

        # One M-9 limit for every table: a tablet (or a simulated tablet) sends at most 10
        # actions a second; in-process simulated players do not go through the link.
        link = TableLink(choice.table, host=choice.mqtt_host, port=choice.mqtt_port,
                         username=choice.mqtt_user, password=choice.mqtt_password, post=orch.post,
                         clock=clock, max_seats=choice.seats)
        link.start()
        ports.link = link
        adapter.closers.insert(0, link.stop)
    if choice.camera == "simulated":
        _start_sim_camera(adapter)
    elif choice.camera is not None:
        _start_camera(adapter, choice.camera)
    if choice.display:
        _start_display(adapter, choice)


def _start_camera(adapter: Any, cam: Any) -> None:
    from vision.boardcheck import BoardCheck
    from vision.camera import Camera
    from vision.recognizer import Recognizer

    region = enrolment = None
    if cam.calibration:
        from vision import calibration

        try:
            region = calibration.load_region(cam.calibration)
        except (OSError, ValueError) as exc:  # the table runs on: the whole frame is searched
            log.error("camera.calibration %s not used: %s; reading the whole frame", cam.calibration, exc)
    if cam.enrolment:
        from vision.enroll import Enrollment

        try:
            enrolment = Enrollment.load(cam.enrolment)
        except (OSError, ValueError) as exc:  # the synthetic glyph bank still reads cards
            log.error("camera.enrolment %s not used (%s); reading with the synthetic glyphs only",
                      cam.enrolment, exc)
    try:
        recognizer = Recognizer(enrollment=enrolment, corners=cam.corners)
    except Exception as exc:  # noqa: BLE001 - an enrolment Enrollment.load let through
        if enrolment is None:
            raise
        log.error("camera.enrolment %s not used (%s: %s); reading with the synthetic glyphs only",
                  cam.enrolment, type(exc).__name__, exc)
        recognizer = Recognizer(enrollment=None, corners=cam.corners)
    part = adapter.camera_part
    part.boardcheck = BoardCheck(adapter.clock, timeout=cam.read_timeout)
    part.camera = Camera(cam.source, adapter.orch.post, adapter.clock, recognizer=recognizer,
                         region=region, stall_timeout=cam.stall_timeout).start()
    adapter.closers.insert(0, part.camera.stop)


def _start_sim_camera(adapter: Any, *, timeout: float = 10.0, period: float = 0.05) -> None:
    from controller.simcamera import SimulatedCamera
    from vision.boardcheck import BoardCheck
    from vision.camera import Camera

    part = adapter.camera_part
    part.boardcheck = BoardCheck(adapter.clock, timeout=timeout)
    board = lambda: list(part.dealt_board)  # noqa: E731 - what lies on the felt
    part.sim_camera = SimulatedCamera(board, period=period)
    part.camera = Camera("simulated", adapter.orch.post, adapter.clock, capture_factory=part.sim_camera.capture,
                         reopen_backoff=0.1, max_backoff=0.5).start()
    adapter.closers.insert(0, part.camera.stop)


def _start_display(adapter: Any, choice: DeviceChoice) -> None:
    cmd = [sys.executable, "-m", "controller", "display", "--table", choice.table, "--host", choice.mqtt_host,
           "--port", str(choice.mqtt_port)]
    try:
        display = subprocess.Popen(cmd)
    except OSError as exc:
        log.warning("display not started: %s", exc)
        return
    adapter.display = display

    def stop_display() -> None:
        display.terminate()
        try:
            display.wait(5)
        except subprocess.TimeoutExpired:
            display.kill()

    adapter.closers.append(stop_display)
