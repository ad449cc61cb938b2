"""The players' side of the room store (issue 18): its own track of migrations.

Applied by :func:`room.store.open_store` through :func:`room.migrations.migrate` with its
own version table, ``room_players_schema``, so its numbered steps can never clash with the
room's own (``room_schema``, issue 17) however both grow: each track is ordered and checked
("upgrade livetable") on its own. Never edit a released step; add a new one.

Tables:

- ``room_players``: an account per player: ``player`` (the id the tables know the player by),
  ``name``, ``card`` (the room's card number, unique when given), ``created_at``;
- ``room_sessions``: a player's stay at one seat: ``table_id``, ``seat``, ``player``,
  ``started_at``/``ended_at`` (Unix s; ended NULL while seated), the chips ``buy_in``,
  ``top_ups``, ``cash_out``, ``won`` (net of rake) and ``hands`` of the stay, the journal
  positions that opened and closed it (``start_seq``/``end_seq``) and the account's meters
  at its start (``base_*``) the stay's figures are counted from;
- ``room_waitlist_log``: every change of the waiting lists (:class:`room.waitlist.Entry`).
"""

from __future__ import annotations

__all__ = ["PLAYERS_MIGRATIONS", "VERSION_TABLE"]

VERSION_TABLE = "room_players_schema"

_V1 = """
CREATE TABLE room_players (
    player     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    card       TEXT UNIQUE,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE room_sessions (
    id         {id},
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    player     TEXT NOT NULL,
    name       TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    ended_at   DOUBLE PRECISION,
    start_seq  BIGINT NOT NULL,
    end_seq    BIGINT,
    buy_in     BIGINT NOT NULL DEFAULT 0,
    top_ups    BIGINT NOT NULL DEFAULT 0,
    cash_out   BIGINT NOT NULL DEFAULT 0,
    won        BIGINT NOT NULL DEFAULT 0,
    hands      BIGINT NOT NULL DEFAULT 0,
    base_in    BIGINT NOT NULL DEFAULT 0,
    base_top   BIGINT NOT NULL DEFAULT 0,
    base_out   BIGINT NOT NULL DEFAULT 0,
    base_won   BIGINT NOT NULL DEFAULT 0,
    base_hands BIGINT NOT NULL DEFAULT 0,
    UNIQUE (table_id, start_seq, seat)
);
CREATE INDEX room_sessions_player ON room_sessions (player, started_at);
CREATE INDEX room_sessions_open ON room_sessions (table_id, ended_at);
CREATE TABLE room_waitlist_log (
    id       {id},
    at       DOUBLE PRECISION NOT NULL,
    action   TEXT NOT NULL,
    player   TEXT NOT NULL,
    game     TEXT,
    stakes   TEXT,
    by_name  TEXT NOT NULL,
    table_id TEXT,
    seat     INTEGER,
    detail   TEXT NOT NULL
);
CREATE INDEX room_waitlist_log_player ON room_waitlist_log (player, at);
"""

#: ``(version, name, {dialect: sql})`` as :data:`room.migrations.MIGRATIONS`.
PLAYERS_MIGRATIONS: list[tuple[int, str, dict[str, str]]] = [
    (1, "players' accounts, sessions and the waiting lists' log", {
        "sqlite": _V1.format(id="INTEGER PRIMARY KEY AUTOINCREMENT"),
        "postgresql": _V1.format(id="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    }),
]
