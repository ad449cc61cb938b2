"""Deck enrolment: learn the house deck's own corner glyphs from photos (issue 6).

``livetable vision enroll`` takes photos of the table's deck (one card per photo, or a layout
of several cards whose identities are given left to right, row by row), finds each card,
cuts both corner indices into rank and suit glyphs and stores their features with the known
labels. The file is written at run time to a path the user gives (never shipped, never
committed). A :class:`vision.recognizer.Recognizer` built with the enrolment matches against
the house deck's glyphs; ranks or suits the enrolment lacks fall back to the synthetic bank.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from controller.engine.cards import Card, CardLike, parse_cards
from vision.detect import find_cards, order_quad
from vision.glyphs import RANK_LABELS, SUIT_LABELS, GlyphBank, glyph_feature, load_glyph_bank

__all__ = ["BankCheck", "Enrollment", "EnrollError", "bank_check", "enroll_image", "layout_order"]

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
        """Write the enrolment (``.npz``) to ``path`` atomically.

        The archive is written to a temporary file in the same directory, flushed to disk
        (``fsync``) and renamed over ``path`` (``os.replace``), so a power cut leaves either
        the old file or the new one, never a truncated one.

        Raises:
            OSError: the directory is missing or not writable, or ``path`` is a directory.
        """
        path = os.fspath(path)
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "is a directory, not an enrolment file", path)
        fd, tmp = tempfile.mkstemp(prefix=".enrol-", suffix=".tmp", dir=os.path.dirname(path) or ".")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez_compressed(f, format=FORMAT, rank_x=self.rank_x, rank_y=self.rank_y,
                                    suit_x=self.suit_x, suit_y=self.suit_y)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):  # the rename itself survives a power cut
            dfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Enrollment":
        """Read and check an enrolment file written by :meth:`save`.

        Every array is checked: ``rank_x``/``suit_x`` ``(N, FEATURE_LEN)`` finite floats,
        ``rank_y``/``suit_y`` ``(N,)`` integer labels in range. Nothing in the file is
        unpickled.

        Raises:
            EnrollError: (a ``ValueError``) the file is missing, unreadable, truncated,
                not an ``.npz`` archive, of another format, or its arrays have the wrong
                names, shapes or values; the message names the file and what is wrong.
        """
        where = f"vision: enrolment {os.fspath(path)}"
        try:
            with open(path, "rb") as f:
                head = f.read(6)
        except OSError as e:
            raise EnrollError(f"{where} cannot be read: {e.strerror or e}") from e
        if head == b"\x93NUMPY":
            raise EnrollError(f"{where} is a single NumPy array (.npy), not an enrolment archive: "
                              "write it with `livetable vision enroll`")
        if not head.startswith(b"PK"):
            raise EnrollError(f"{where} is not an enrolment file (not an .npz archive): "
                              "write it with `livetable vision enroll`")
        try:
            with np.load(path, allow_pickle=False) as z:
                names = set(z.files)
                missing = [k for k in ("format", "rank_x", "rank_y", "suit_x", "suit_y") if k not in names]
                if missing:
                    raise EnrollError(f"{where} lacks {', '.join(missing)}: not an enrolment file")
                arrays = {k: z[k] for k in ("format", "rank_x", "rank_y", "suit_x", "suit_y")}
        except EnrollError:
            raise
        except (zipfile.BadZipFile, EOFError, zlib.error) as e:
            raise EnrollError(f"{where} is truncated or corrupt (a damaged .npz archive: {e}): "
                              "enrol the deck again") from e
        except ValueError as e:  # an object array: nothing of ours is ever pickled
            why = "holds Python objects" if "pickle" in str(e) else str(e)
            raise EnrollError(f"{where} is not an enrolment file ({why})") from e
        except Exception as e:  # noqa: BLE001 - a damaged file must not escape as anything else
            raise EnrollError(f"{where} is not readable: {type(e).__name__}: {e}") from e
        return cls._checked(where, arrays)

    @classmethod
    def _checked(cls, where: str, a: dict[str, np.ndarray]) -> "Enrollment":
        from vision.glyphs import FEATURE_LEN

        fmt = a["format"]
        if fmt.shape != () or fmt.dtype.kind not in "iu":
            raise EnrollError(f"{where} has no format number: not an enrolment file")
        if int(fmt) != FORMAT:
            raise EnrollError(f"{where} has format {int(fmt)}, want {FORMAT}: enrol the deck again")
        out: list[np.ndarray] = []
        for x_name, y_name, n_labels in (("rank_x", "rank_y", len(RANK_LABELS)),
                                         ("suit_x", "suit_y", len(SUIT_LABELS))):
            x, y = a[x_name], a[y_name]
            if x.dtype.kind != "f" or x.ndim != 2 or x.shape[1] != FEATURE_LEN:
                raise EnrollError(f"{where}: {x_name} is {x.dtype} {x.shape}, want float (N, {FEATURE_LEN}) "
                                  "glyph features: enrol the deck again")
            if y.dtype.kind not in "iu" or y.shape != (len(x),):
                raise EnrollError(f"{where}: {y_name} is {y.dtype} {y.shape}, want {len(x)} integer labels")
            if len(y) and (int(y.min()) < 0 or int(y.max()) >= n_labels):
                raise EnrollError(f"{where}: {y_name} holds labels outside 0..{n_labels - 1}")
            if not np.isfinite(x).all():
                raise EnrollError(f"{where}: {x_name} holds non-finite numbers")
            out += [x.astype(np.float32), y.astype(np.int16)]
        return cls(*out)


# How far the synthetic glyph bank may prefer another label over the one given before an
# enrolment corner counts as contradicting it (cosine similarity of the bank's best glyph of
# each label, see :class:`BankCheck`). Measured on correctly labelled dev photos (single
# cards as shot, blurred sigma 2.5 and 4, shrunk to 0.35; boards as shot and blurred 2.5):
# no card of theirs is refused; the most contradicted correct card (counting its better
# corner) lay 0.143 from its rank (a pale "10" read as a Q) and 0.042 from its suit, while a
# photo labelled with the next rank of the same colour lay 0.30-0.47 (a blurred Js given as
# Qs: 0.46).
RANK_CONTRADICTION = 0.20
SUIT_CONTRADICTION = 0.08


@dataclass(frozen=True)
class BankCheck:
    """What the synthetic glyph bank reads in one enrolment corner, against the card given.

    ``rank``/``suit``: the label given (``"10"``, ``"J"``, ``"s"``...); ``rank_other``/
    ``suit_other``: the bank's best other label (the suit's within the ink's colour);
    ``*_score``: the bank's best cosine similarity (-1..1) for each.
    """

    rank: str
    rank_score: float
    rank_other: str
    rank_other_score: float
    suit: str
    suit_score: float
    suit_other: str
    suit_other_score: float

    @property
    def contradicts(self) -> str | None:
        """``"rank"`` or ``"suit"`` when the bank prefers another label by more than
        :data:`RANK_CONTRADICTION` / :data:`SUIT_CONTRADICTION`, else None."""
        if self.rank_other_score - self.rank_score > RANK_CONTRADICTION:
            return "rank"
        if self.suit_other_score - self.suit_score > SUIT_CONTRADICTION:
            return "suit"
        return None

    @property
    def supports(self) -> bool:
        """True when the bank puts the given rank and suit first."""
        return self.rank_score >= self.rank_other_score and self.suit_score >= self.suit_other_score

    def message(self, place: int, card: Card) -> str:
        """The refusal, naming the place and both ranks (or suits)."""
        if self.contradicts == "suit":
            part, seen, given = "pip", _SUIT_NAMES[self.suit_other], _SUIT_NAMES[self.suit]
            scores = f"{self.suit_other} {self.suit_other_score:.2f}, {self.suit} {self.suit_score:.2f}"
        else:
            part, seen, given = "index", self.rank_other, self.rank
            scores = f"{self.rank_other} {self.rank_other_score:.2f}, {self.rank} {self.rank_score:.2f}"
        return (f"vision: the card at place {place} is given as {card} but its {part} reads as {_a(seen)}, "
                f"not {_a(given)} (glyph bank {scores}): check the photo's name or the cards given")


_SUIT_NAMES = {"c": "club", "d": "diamond", "h": "heart", "s": "spade"}


def _a(label: str) -> str:
    return f"an {label}" if label in ("A", "8") else f"a {label}"


def _best_per_label(x: np.ndarray, y: np.ndarray, f: np.ndarray, n: int) -> np.ndarray:
    best = np.full(n, -1.0)
    np.maximum.at(best, y.astype(np.int64), x @ f)
    return best


def bank_check(bank: GlyphBank, rank_mask: np.ndarray, suit_mask: np.ndarray, red: bool, card: Card) -> BankCheck:
    """Ask the synthetic glyph bank about one enrolment corner of ``card``.

    ``rank_mask``/``suit_mask``: uint8 glyph masks (ink 255) as
    :meth:`vision.recognizer.Recognizer.corner_glyphs` cuts them; ``red``: the ink colour
    (the suit is weighed against the other suit of that colour). A bar-and-ring "10" scores
    as the recognizer scores it. Only the synthetic bank is asked, never an enrolment, so a
    mislabelled photo cannot vouch for the next one.
    """
    from vision.ink import _looks_like_ten  # the recognizer's own "10" rule
    from vision.recognizer import TEN_SCORE

    given = "10" if card.rank == 10 else str(card)[0]
    ranks = _best_per_label(bank.rank_x, bank.rank_y, bank.project(glyph_feature(rank_mask)[None])[0],
                            len(RANK_LABELS))
    if _looks_like_ten(rank_mask):
        k = RANK_LABELS.index("10")
        ranks[k] = max(ranks[k], TEN_SCORE)
    g = RANK_LABELS.index(given)
    other = int(np.argmax(np.where(np.arange(len(ranks)) == g, -2.0, ranks)))
    suits = _best_per_label(bank.suit_x, bank.suit_y, glyph_feature(suit_mask), len(SUIT_LABELS))
    pair = ("d", "h") if red else ("c", "s")
    alt = pair[1] if card.suit == pair[0] else pair[0]
    return BankCheck(given, float(ranks[g]), RANK_LABELS[other], float(ranks[other]),
                     card.suit, float(suits[SUIT_LABELS.index(card.suit)]), alt,
                     float(suits[SUIT_LABELS.index(alt)]))


def enroll_image(enrollment: Enrollment, image: np.ndarray, cards: Sequence[CardLike] | str,
                 recognizer: object | None = None) -> int:
    """Add the cards of one photo; return how many corner glyphs were added.

    ``cards`` lists the cards in the photo in reading order (rows top to bottom, left to
    right).

    A corner whose glyphs the synthetic bank reads clearly as another rank or suit
    (:attr:`BankCheck.contradicts`) teaches nothing, and when no corner of that card has
    the given rank and suit as the bank's first choice (:attr:`BankCheck.supports`) the
    photo is refused: a mislabelled photo that the recognizer only reads *unsure* (blurred,
    small) would otherwise teach, say, a jack's glyph as a queen's, and every jack would then
    read as a queen. (A contradicted corner beside one that supports the card is a bad cut,
    e.g. of the picture: it is only left out.) Nothing is added from a refused photo.

    Raises:
        EnrollError: the number of cards found differs from the number given, a card
            the recognizer reads confidently is not the one given at its place, or the
            glyph bank contradicts a card given at its place (the message names the
            place and both ranks or suits).
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
    teach: list[tuple[np.ndarray, np.ndarray, Card]] = []
    for place, (i, card) in enumerate(zip(order, want), start=1):
        q = order_quad(quads[i])
        clean: list[tuple[np.ndarray, np.ndarray]] = []
        checks: list[BankCheck] = []
        for k in (0, 2):
            warped = rec._warp(frame, np.roll(q, -k, axis=0))
            rmask, smask, red = rec.corner_glyphs(warped)
            # only a clean cut (rank and suit found, ink of the card's colour) teaches
            if rmask is None or smask is None or red is None or red != (card.suit in "hd"):
                continue
            checks.append(bank_check(rec.bank, rmask, smask, red, card))
            if checks[-1].contradicts is None:
                clean.append((rmask, smask))
        against = [c for c in checks if c.contradicts is not None]
        if against and not any(c.supports for c in checks):  # a mislabelled card
            raise EnrollError(against[0].message(place, card))
        teach += [(glyph_feature(r), glyph_feature(sm), card) for r, sm in clean]
    for rank_feat, suit_feat, card in teach:
        enrollment.add(rank_feat, suit_feat, card)
    return len(teach)
