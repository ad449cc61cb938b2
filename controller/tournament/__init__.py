"""Tournaments (issue 19): settings, the clock, entries and places, payouts, deals, balancing.

Pure like ``controller.engine``: standard library only, no clock reads (time is passed in
as seconds of an injected monotonic clock), no I/O, and randomness only from a
``random.Random`` the caller passes in. Amounts are integers: chips for stacks and blinds,
the room's money unit (e.g. euro cents, or whole euros) for prices and prizes.
See docs/tournament.md for the Poker TDA rules implemented and what is not wired yet.
"""
