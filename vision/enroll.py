"""Deck enrolment: learn the house deck's own corner glyphs from photos (issue 6).

``livetable vision enroll`` takes photos of the table's deck (one card per photo, or a layout
of several cards whose identities are given left to right, row by row), finds each card,
cuts both corner indices into rank and suit glyphs and stores their features with the known
labels. The file is written at run time to a path the user gives (never shipped, never
committed). A :class:`vision.recognizer.Recognizer` built with the enrolment matches against
the house deck's glyphs; ranks or suits the enrolment lacks fall back to the synthetic bank.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from controller.engine.cards import Card, CardLike, parse_cards
from vision.detect import find_cards, order_quad
from vision.glyphs import RANK_LABELS, SUIT_LABELS, GlyphBank, glyph_feature, load_glyph_bank

__all__ = ["Enrollment", "EnrollError", "enroll_image", "layout_order"]

FORMAT = 1


class EnrollError(ValueError):
    """An enrolment photo or file is unusable (the message names what and why)."""


def layout_order(quads: Sequence[np.ndarray]) -> list[int]:
    """Return the indices of ``quads`` in reading order: rows top to bottom, each left to right."""
    if not quads:
        return []
    cs = np.array([q.mean(axis=0) for q in quads])
    hs = np.array([np.linalg.norm(q[3] - q[0]) for q in quads])
    idx = sorted(range(len(quads)), key=lambda i: cs[i][1])
    rows: list[list[int]] = []
    for i in idx:
        if rows and abs(cs[i][1] - np.mean([cs[j][1] for j in rows[-1]])) < 0.5 * float(np.median(hs)):
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for r in rows for i in sorted(r, key=lambda j: cs[j][0])]


@dataclass
class Enrollment:
    """Features of one deck's corner glyphs.

    ``rank_x`` ``(N, F)`` float32 with ``rank_y`` ``(N,)`` indices into ``RANK_LABELS``;
    ``suit_x``/``suit_y`` likewise into ``SUIT_LABELS``.
    """

    rank_x: np.ndarray
    rank_y: np.ndarray
    suit_x: np.ndarray
    suit_y: np.ndarray

    @classmethod
    def empty(cls) -> "Enrollment":
        """Return an enrolment with no glyphs."""
        from vision.glyphs import FEATURE_LEN

        z = np.zeros((0, FEATURE_LEN), np.float32)
        return cls(z, np.zeros(0, np.int16), z.copy(), np.zeros(0, np.int16))

    def add(self, rank_feat: np.ndarray | None, suit_feat: np.ndarray | None, card: Card) -> None:
        """Add one corner's features labelled with ``card``."""
        label = "10" if card.rank == 10 else str(card)[0]
        if rank_feat is not None:
            self.rank_x = np.vstack([self.rank_x, rank_feat[None]])
            self.rank_y = np.append(self.rank_y, RANK_LABELS.index(label)).astype(np.int16)
        if suit_feat is not None:
            self.suit_x = np.vstack([self.suit_x, suit_feat[None]])
            self.suit_y = np.append(self.suit_y, SUIT_LABELS.index(card.suit)).astype(np.int16)

    def features(self, bank: GlyphBank | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(rank_x, rank_y, suit_x, suit_y)`` to match against (ranks projected
        into ``bank``'s space, see :meth:`vision.glyphs.GlyphBank.project`).

        The house deck's glyphs are joined to the synthetic bank: they win where they
        match (the same deck scores near 1), and a card the enrolment never saw can still
        be read (it is not forced onto an enrolled label).
        """
        bank = bank or load_glyph_bank()
        rx, ry, sx, sy = bank.project(self.rank_x), self.rank_y, self.suit_x, self.suit_y
        rx, ry = np.vstack([rx, bank.rank_x]), np.concatenate([ry, bank.rank_y])
        sx, sy = np.vstack([sx, bank.suit_x]), np.concatenate([sy, bank.suit_y])
        return rx.astype(np.float32), ry, sx.astype(np.float32), sy

    @property
    def count(self) -> int:
        """How many rank glyphs are enrolled."""
        return len(self.rank_y)

    def save(self, path: str | os.PathLike) -> None:
        """Write the enrolment (``.npz``) to ``path``."""
        with open(path, "wb") as f:
            np.savez_compressed(f, format=FORMAT, rank_x=self.rank_x, rank_y=self.rank_y,
                                suit_x=self.suit_x, suit_y=self.suit_y)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Enrollment":
        """Read an enrolment file.

        Raises:
            EnrollError: missing, corrupt or of another format.
        """
        try:
            with np.load(path) as z:
                if int(z["format"]) != FORMAT:
                    raise EnrollError(f"vision: enrolment {path} has format {int(z['format'])}, want {FORMAT}")
                return cls(z["rank_x"].astype(np.float32), z["rank_y"].astype(np.int16),
                           z["suit_x"].astype(np.float32), z["suit_y"].astype(np.int16))
        except EnrollError:
            raise
        except (OSError, ValueError, KeyError) as e:
            raise EnrollError(f"vision: enrolment {path} is not readable: {e}") from e


def enroll_image(enrollment: Enrollment, image: np.ndarray, cards: Sequence[CardLike] | str,
                 recognizer: object | None = None) -> int:
    """Add the cards of one photo; return how many corner glyphs were added.

    ``cards`` lists the cards in the photo in reading order (rows top to bottom, left to
    right).

    Raises:
        EnrollError: the number of cards found differs from the number given, or a card
            the recognizer reads confidently is not the one given at its place.
        CardError: a card text is not a card (G-5).
    """
    from vision.recognizer import Recognizer, as_frame

    want = parse_cards(cards)
    frame = as_frame(image)
    quads = find_cards(frame)
    if len(quads) != len(want):
        raise EnrollError(f"vision: found {len(quads)} cards but {len(want)} were given "
                          f"({' '.join(str(c) for c in want)})")
    rec = recognizer if isinstance(recognizer, Recognizer) else Recognizer()
    order = layout_order(quads)
    for i, card in zip(order, want):  # a layout given in another order would teach wrong glyphs
        seen = rec.read_quad(frame, quads[i]).card
        if seen is not None and seen != card:
            raise EnrollError(f"vision: the card at place {order.index(i) + 1} reads as {seen}, not {card}: "
                              f"list the cards row by row, left to right")
    added = 0
    for i, card in zip(order, want):
        q = order_quad(quads[i])
        for k in (0, 2):
            warped = rec._warp(frame, np.roll(q, -k, axis=0))
            rmask, smask, red = rec.corner_glyphs(warped)
            # only a clean cut (rank and suit found, ink of the card's colour) teaches
            if rmask is None or smask is None or red is None or red != (card.suit in "hd"):
                continue
            enrollment.add(glyph_feature(rmask), glyph_feature(smask), card)
            added += 1
    return added
