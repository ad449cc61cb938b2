"""The room service (issue 17): every table of a card room joined into one store.

Tables stay autonomous: each table's journal is the truth, and its outbox
(:mod:`controller.roomlink`) sends the journal's records, numbered by the table's own
sequence, through the table's Mosquitto bridged to the room's broker. The room stores them
idempotently by ``(table, seq)`` (:mod:`room.store`), replays them through the same rules
engine to keep the archive, the meters and the open faults (:mod:`room.apply`), and
acknowledges the first record it does not hold yet (:mod:`room.service`). See docs/room.md.
"""
