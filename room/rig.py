"""The simulated room's rig (issue 17): the room broker and N simulated tables' brokers with
their bridges, each table ``livetable simulate`` in its own process, and the balance of the
room's store against the tables. Used by ``livetable room simulate`` (:mod:`room.simulate`),
its multi-table tournament (:mod:`room.tournament_sim`) and the tests; it imports neither
(an import circle: the command starts the tournament, the tournament uses the rig).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from drivers.mqtt.broker import REPO, BrokerProcess
from drivers.mqtt.provision import provision as provision_seats

__all__ = ["RoomRig", "balance", "table_name", "TABLE_NAMES", "ROOM_CONF", "TABLE_CONF"]

log = logging.getLogger("livetable.room.simulate")  # the rig logs as the command it serves

ROOM_CONF = REPO / "mosquitto" / "room.conf"
TABLE_CONF = REPO / "mosquitto" / "livetable.conf"
#: The simulated tables' names (issue 18: four tables all named "Simulated holdem" read alike
#: in the lobby); past the list, "Table <n>".
TABLE_NAMES = ("Aspen", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hazel", "Ivy", "Juniper",
               "Larch", "Maple", "Oak", "Pine", "Rowan", "Spruce", "Teak", "Willow", "Yew", "Alder")


def table_name(table: str) -> str:
    """Return the name of simulated table ``table`` (``t<n>``): the n-th of :data:`TABLE_NAMES`,
    or ``Table <n>`` past them (or for an id not of that form)."""
    n = int(table[1:]) if table[:1] == "t" and table[1:].isdigit() else 0
    return TABLE_NAMES[n - 1] if 1 <= n <= len(TABLE_NAMES) else f"Table {table[1:] if n else table}"


class RoomRig:
    """The room broker and N tables' brokers with their bridges, in ``workdir``.

    ``restart_timeout``: the bridges' reconnect back-off (seconds, base and cap).
    ``link_ports``: the port a table's bridge connects to on 127.0.0.1 (default: the room
    broker's MQTT port; a test puts a forwarder it can cut in between). ``bridge_tls``: the
    bridges connect with TLS; ``room_extra``: configuration appended to the room broker's
    (its TLS listener, :func:`room.provision.tls_listener_conf`).
    Use :meth:`start`, then :meth:`table_command` per table, and :meth:`stop`.
    """

    def __init__(self, workdir: Path, tables: list[str], *, restart_timeout: tuple[int, int] = (1, 2),
                 link_ports: dict[str, int] | None = None, bridge_tls: Any = None, room_extra: str = "") -> None:
        from room.provision import provision_table, room_credentials

        self.workdir = Path(workdir)
        self.tables = tables
        self.room_dir = self.workdir / "room"
        self.room_creds = room_credentials(self.room_dir / "mosquitto")
        # Brokers in sessions of their own: a Ctrl-C at the terminal stops the tables, which
        # then hand their last records to the room before the brokers are stopped.
        self.room_broker = BrokerProcess(self.room_dir / "broker", passwd=self.room_dir / "mosquitto" / "passwd",
                                         acl=self.room_dir / "mosquitto" / "acl", config=ROOM_CONF,
                                         own_session=True, extra=room_extra)
        self.brokers: dict[str, BrokerProcess] = {}
        self.controller_password: dict[str, Path] = {}
        self.outbox_password: dict[str, Path] = {}
        self.tournament_password: dict[str, Path] = {}
        for t in tables:
            tdir = self.workdir / t
            creds = provision_seats(tdir / "mosquitto", t, 6)
            pw = tdir / "mqtt-password"
            pw.write_text(creds["controller"]["password"])
            pw.chmod(0o600)
            self.controller_password[t] = pw
            # The outbox's own login: on the controller's, each would end the other's session.
            opw = tdir / "outbox-password"
            opw.write_text(creds["outbox"]["password"])
            opw.chmod(0o600)
            self.outbox_password[t] = opw
            # The room tournament link's own login (<t>-tournament), for the same reason.
            tpw = tdir / "tournament-password"
            tpw.write_text(creds["tournament"]["password"])
            tpw.chmod(0o600)
            self.tournament_password[t] = tpw
            bridge = provision_table(self.room_dir / "mosquitto", t, host="127.0.0.1",
                                     port=(link_ports or {}).get(t, self.room_broker.mqtt_port),
                                     restart_timeout=restart_timeout, tls=bridge_tls)
            conf = tdir / "table-with-bridge.conf"
            conf.write_text(TABLE_CONF.read_text() + "\n" + bridge.read_text())
            self.brokers[t] = BrokerProcess(tdir / "broker", passwd=tdir / "mosquitto" / "passwd",
                                            acl=tdir / "mosquitto" / "acl", config=conf, own_session=True)

    def start(self) -> "RoomRig":
        """Start the room broker, then every table's broker (their bridges connect)."""
        self.room_broker.start()
        for b in self.brokers.values():
            b.start()
        return self

    def stop(self) -> None:
        """Stop every broker (tables' first)."""
        for b in self.brokers.values():
            b.stop()
        self.room_broker.stop()

    def journal(self, table: str) -> Path:
        """Return ``table``'s journal file."""
        return self.workdir / table / "journal.sqlite"

    def history_dir(self, table: str) -> Path:
        """Return the folder of ``table``'s hand histories (PHH and JSON)."""
        return self.workdir / table / "hands"

    def table_command(self, table: str, hands: int, seed: int, *, resend: float = 3.0, devices: str = "all",
                      extra: list[str] | None = None) -> list[str]:
        """Return the ``livetable simulate`` command line of ``table`` (``devices``: ``all``, the
        shuffler emulator and the table's MQTT link to tablets and the floor, camera off; or
        ``none``, the internal dealer and no link but the outbox)."""
        return [sys.executable, "-m", "controller.cli", "simulate", "--table", table, "--hands", str(hands),
                "--headless", "--devices", devices, "--camera", "off", "--quiet", "--seed", str(seed),
                "--name", table_name(table),
                "--journal", str(self.journal(table)), "--history-dir", str(self.history_dir(table)),
                "--mqtt-host", "127.0.0.1", "--mqtt-port", str(self.brokers[table].mqtt_port),
                "--mqtt-user", "controller", "--mqtt-password-file", str(self.controller_password[table]),
                "--room-outbox", "--room-outbox-password-file", str(self.outbox_password[table]),
                "--room-resend", str(resend), *(extra or [])]


def balance(store: Any, summaries: dict[str, dict[str, Any]], rig: RoomRig) -> dict[str, Any]:
    """Compare the room's store with each table: its hands (the table's hand histories) and
    meters (the table's summary's ``room``); return the per-table findings and ``balanced``."""
    per_table, ok = [], True
    for t, s in sorted(summaries.items()):
        row = store.table_row(t) or {}
        hands_table = len(list(rig.history_dir(t).glob("hand-*.json")))
        held = store.hand_count(t)
        meters = s.get("room") or {}
        link = s.get("room_link") or {}
        good = (held == hands_table and all(row.get(k) == meters.get(k) for k in ("total_in", "total_out", "rake"))
                and row.get("applied_upto") == link.get("last_seq"))
        ok = ok and good
        per_table.append({"table": t, "hands": held, "table_hands": hands_table,
                          "applied": row.get("applied_upto"), "journal": link.get("last_seq"),
                          "room": {k: row.get(k) for k in ("total_in", "total_out", "rake")},
                          "table_meters": meters, "outbox": link, "table_seconds": s.get("seconds"),
                          "balanced": good})
    return {"balanced": ok and bool(per_table), "per_table": per_table}
