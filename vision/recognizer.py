"""The board recognizer: one frame in, a list of :class:`Reading` out (no camera here).

Pipeline (docs/vision.md):

1. :func:`vision.detect.find_cards` finds card-face quads on any table.
2. Each quad is warped to an upright canonical card; both upright orientations are tried
   (a card lies either way up; its two indices are printed 180 degrees apart).
3. The corner index is cut into the rank (one or two characters) and the suit pip below it;
   each is matched against synthetic glyphs (:mod:`vision.glyphs`) or, when a deck was
   enrolled, against that deck's own glyphs (:mod:`vision.enroll`). The ink colour (red or
   black) decides between the suits' two colour groups.
4. A card is named only when the rank and the suit each win by a margin and both readings
   of the card agree; otherwise the reading has ``card=None`` (*unsure*): the table asks the
   dealer rather than guess (issue 6).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import NamedTuple, Sequence

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from controller.engine.cards import parse_card
from vision.decide import Params, _said_rank, decide
from vision.detect import find_cards, order_quad
from vision.glyphs import RANK_LABELS, SUIT_LABELS, GlyphBank, glyph_feature, load_glyph_bank
from vision.ink import (_colour_pixels, _colourless, _has_hole, _ink, _ink_cut, _ink_red, _inkness, _local_ink,
                        _looks_like_ten, _median, _white_balance)
from vision.reading import INDEX_STRIP, CornerRead, FrameError, PipRead, Reading, as_frame

__all__ = ["Reading", "Recognizer", "FrameError", "CornerRead", "as_frame"]

W, H = 240, 336  # canonical card size for reading (portrait, ratio 1.4)
CW, CH = int(W * 0.24), int(H * 0.36)  # the top-left index box of an upright card
#: the index box searched when nothing in :data:`CW` x :data:`CH` is an index: a design
#: with a large index (ornamental, tango) whose rank runs out of the usual box
BIG_CW, BIG_CH = int(W * 0.34), int(H * 0.42)
TEN_SCORE, TEN_MARGIN = 0.9, 0.1  # how sure the bar-and-ring shape of "10" makes a reading
MIN_RANK_WIDTH = 0.2  # a rank's ink box is at least this wide for its height (a "J" ~0.4)
#: how much likelier (summed probabilities) the classifier may find the other suit of the
#: colour before a suit resting on index pips alone is refused (see Recognizer._net_doubts)
NET_LEAN = 0.01
#: the fewest ink pixels (of the upright 200x290 card's corner) an index pip needs to carry
#: a suit on its own: a tiny, far card's few-pixel pip cannot tell a club from a spade
#: (dev photos and their changes: the smallest such pip read right has 219)
MIN_INDEX_PIP_INK = 60
#: the ink colour of a suit resting on index pips alone must be clear of the red/black cut
#: (28): black at most this median red chroma, red at least :data:`RED_INK_MIN`. Washed-out
#: red drifts towards black (a pale camera, strong JPEG: 23-26 on a red court card read
#: black); dev index-only cards: black <= 10, red >= 32
BLACK_INK_MAX = 20
RED_INK_MIN = 31
#: the least probability the corner classifier must give the named suit on one of the index
#: pips of a suit resting on them alone: a pip it sees as no suit at all (a blurred or
#: blocky blob) cannot carry a suit (dev photos: the named suit's least such is 0.47)
NET_SEES_SUIT = 0.05
#: ... and the least it must give a court rank that the glyph bank reads below
#: ``Params.strong_score`` on one of the rank masks (a diagonally blurred K read J 0.61-0.71
#: by the bank is "neither" at 0.94-1.0 for the classifier; dev court ranks: >= 0.67)
NET_SEES_RANK = 0.5


class _Corner:
    """The top-left index of one upright card, white-balanced once, with its ink cuts and
    readings memoised per threshold scale (a weak corner is cut at several scales, and the
    scale 0.5 is shared by both tries of :meth:`Recognizer.read_corner`)."""

    def __init__(self, card: np.ndarray, cw: int = CW, ch: int = CH, recall: bool = True) -> None:
        self.cw, self.ch = cw, ch
        self.recall = recall  # also look for an index pip merged with the big pip beside it
        self.inkness, self.chroma, self.otsu = _inkness(_white_balance(card[:ch, :cw]))
        self.cuts: dict[float, tuple[np.ndarray | None, np.ndarray | None, bool | None]] = {}
        self.reads: dict[float, CornerRead] = {}

    def cut(self, scale: float) -> tuple[np.ndarray | None, np.ndarray | None, bool | None]:
        if scale not in self.cuts:
            ink = _ink_cut(self.inkness, self.otsu, scale)
            self.cuts[scale] = Recognizer._cut_index(ink, self.chroma, self.cw, self.ch, self.recall)
        return self.cuts[scale]

    def glyphs(self, scales: Sequence[float]
               ) -> tuple[float | None, tuple[np.ndarray | None, np.ndarray | None, bool | None]]:
        """The first scale whose cut gives both a rank and a suit (else the last), and its cut."""
        out: tuple[np.ndarray | None, np.ndarray | None, bool | None] = (None, None, None)
        scale = None
        for scale in scales:
            out = self.cut(scale)
            if out[0] is not None and out[1] is not None:
                break
        return scale, out


class Recognizer:
    """Name the cards in a frame, or say it is unsure (issue 6).

    Args:
        bank: synthetic glyphs; the shipped ``vision/data/glyphs.npz`` by default.
        enrollment: a :class:`vision.enroll.Enrollment` of the house deck, or None.
        params: the thresholds of :func:`decide` (:class:`Params` defaults, tuned so that
            no dev photo gives a wrong card).
        cv_threads: OpenCV worker threads and NumPy's BLAS threads for the whole process
            (``cv2.setNumThreads`` and threadpoolctl's BLAS limit); 1 by default, None
            leaves both settings alone.
        corners: also read cards of which only a corner index shows (fans, rows, a card
            partly under another), :mod:`vision.corners`. Off by default: board cards never
            overlap, and the pass triples a cold frame's CPU (``[camera] corners``,
            ``livetable recognize`` turns it on).

    Raises:
        ValueError: the glyph bank file is unreadable.
    """

    def __init__(self, bank: GlyphBank | None = None, enrollment: object | None = None,
                 params: Params | None = None, cv_threads: int | None = 1,
                 corners: bool = False) -> None:
        if cv_threads is not None:
            # the images are small: OpenCV's worker threads cost more CPU than they save
            # (and compete with the table's other work on a Pi); process-wide setting
            cv2.setNumThreads(cv_threads)
            # the glyph matching is one small matrix product per glyph: BLAS's threads would
            # only contend (a hundred times slower on a loaded machine), one thread is fast
            threadpool_limits(limits=cv_threads, user_api="blas")
        self.bank = bank or load_glyph_bank()
        self.params = params or Params()
        self.corners = corners  # also read partly covered cards from their corner index
        self.enrollment = enrollment
        rx, ry, sx, sy = self.bank.rank_x, self.bank.rank_y, self.bank.suit_x, self.bank.suit_y
        if enrollment is not None:
            rx, ry, sx, sy = enrollment.features(self.bank)  # type: ignore[attr-defined]
        self._ranks = _Matcher(rx, ry.astype(np.int64), RANK_LABELS)
        self._proj = None if self.bank.proj is None else np.ascontiguousarray(self.bank.proj, np.float32)
        self._suits = _Matcher(sx, sy.astype(np.int64), SUIT_LABELS)

    # -- public ---------------------------------------------------------------------------

    def recognize(self, image: np.ndarray, region: np.ndarray | None = None) -> list[Reading]:
        """Return one :class:`Reading` per card-shaped object in ``image``.

        ``image``: ``(H, W, 3)`` uint8 BGR (greyscale/BGRA accepted). ``region``: an
        optional ``(4, 2)`` board quad in frame pixels; only cards whose centre lies inside
        are returned. Readings are ordered left to right.

        Raises:
            FrameError: the image is not an image (see :func:`as_frame`).
        """
        frame = as_frame(image)
        colourless = _colourless(frame)
        out = []
        alts: list[np.ndarray | None] = []
        quads = find_cards(frame, alternatives=alts) if region is None else _find_in_region(frame, region, alts)
        for quad, alt in zip(quads, alts):
            if region is not None:
                c = quad.mean(axis=0)
                if cv2.pointPolygonTest(np.asarray(region, np.float32).reshape(-1, 1, 2),
                                        (float(c[0]), float(c[1])), False) < 0:
                    continue
            halves = _seam_split(frame, quad)
            if halves is not None:  # two touching cards seen as one: read each half
                parts = [self.read_quad(frame, h) for h in halves]
                if any(pr.card is not None for pr in parts):
                    # two small cards touching (narrower than RECALL_MIN_WIDTH each): a half's
                    # outline, cut at the seam, may not hold one whole card, and its index is
                    # a few pixels tall (rendered 47 px cards: a Td half read 8d); they stay
                    # unsure, and the blob is not read as one card either
                    parts = [pr if pr.card is None or _short_side(order_quad(h)) >= RECALL_MIN_WIDTH
                             else Reading(None, 0.3, pr.outline, f"{pr.card}: half of two small cards touching")
                             for h, pr in zip(halves, parts)]
                    # a half of a row of overlapping cards: named from its index strip only
                    parts = [pr if self._half_is_whole(frame, h, pr) else replace(pr, why=INDEX_STRIP)
                             for h, pr in zip(halves, parts)]
                    for pr in parts:
                        out.append(Reading(None, 0.0, pr.outline, "colourless") if colourless else pr)
                    continue
            r = self.read_quad(frame, quad)
            if r.card is None and alt is not None and _short_side(alt) >= RECALL_MIN_WIDTH:
                # the card's whiteness lacked a corner (an index printed up to the paper's
                # edge): its outline with the corners put back may show the whole index
                whole = self.read_quad(frame, alt)
                if whole.card is not None:
                    r = whole
            if colourless:  # a grey frame cannot tell hearts from spades: never guess
                r = Reading(None, 0.0, r.outline, "frame has no colour")
            out.append(r)
        if self.corners and not colourless:
            from vision.corners import add_corner_readings  # noqa: PLC0415

            out = add_corner_readings(self, frame, out, region)
        return out

    def _half_is_whole(self, frame: np.ndarray, half: np.ndarray, reading: Reading) -> bool:
        """False when ``reading`` of a seam ``half`` ``(4, 2)`` names a number card (A to 10)
        whose face in ``half`` shows no pip: the half is then not one whole card.

        The seam split takes a blob for two touching cards, each half a whole card. A row of
        overlapping cards (each covered but for its index strip) has card edges all along it
        and splits too; a half then names the card whose index lies at its corner from that
        index alone (the half's centre holds only bare strips), and its outline covers the
        neighbours' index strips, which :mod:`vision.corners` does not search inside a named
        card. Such a reading is kept with ``why == INDEX_STRIP`` (the corner reader then
        searches its outline). A court card has no pips to count and is not checked.
        """
        if reading.card is None or reading.card.rank in (11, 12, 13):
            return True
        card = self._warp(frame, _shrink(order_quad(half), 0.012))
        return self.read_pips(card).count > 0

    def read_quad(self, frame: np.ndarray, quad: np.ndarray) -> Reading:
        """Read the card inside ``quad`` ``(4, 2)`` of ``frame``; return its :class:`Reading`."""
        q = order_quad(quad)
        outline = tuple((float(x), float(y)) for x, y in q)
        q = _shrink(q, 0.012)  # keep the table's edge out of the corner
        recall = _short_side(q) >= RECALL_MIN_WIDTH
        name, conf, why, found, clipped, _, bare = self._read_warped(frame, q, recall)
        if name is not None and clipped:
            # the rank's ink runs to the cut's top edge: the shrink (and an outline fitted a
            # little inside the card) may have cut off the top of a "3" that then reads J;
            # read the whole outline again and refuse when it names another card
            whole, _, why2, *_ = self._read_warped(frame, order_quad(quad), recall)
            if whole is not None and whole != name:
                name, conf, why = None, 0.3, f"{name}, or {whole} from the whole outline: the index may be cut"
            elif whole is None and why2.startswith("indices disagree"):
                # the whole outline's reading contradicts itself (one index uncut, one cut):
                # a cut changed what the index says
                name, conf, why = None, 0.3, f"{name}, but the whole outline reads: {why2}: the index may be cut"
            elif bare and whole is None and _said_rank(why2) not in (None, "10" if name[0] == "T" else name[:-1]):
                # a number card with no pip counted (its indices are all it has): unsure, but
                # its best index reading is another rank (a "6" cut at its left read 5;
                # uncut, it reads 6, if not surely): a cut changed the rank
                name, conf, why = None, 0.3, f"{name}, but the whole outline reads: {why2}: the index may be cut"
        if name is None and not found:
            # an oblique camera can make a card's long side look the shorter one: when no
            # index was found, try the card a quarter turn round
            d = [math.hypot(*(q[(i + 1) % 4] - q[i])) for i in range(4)]
            if (d[1] + d[3]) < 1.6 * (d[0] + d[2]):
                turned = self._read_warped(frame, np.roll(q, -1, axis=0), recall)
                if turned.name is not None and turned.recounted:
                    # read sideways, a heart's pips look like diamonds, and a recount that
                    # only confirms the index has nothing else to check the suit against
                    name, conf, why = None, 0.3, f"{turned.name} only read a quarter turn round, on pips counted again"
                elif turned.name is not None or turned.found:
                    name, conf, why = turned.name, turned.conf, turned.why
        return Reading(parse_card(name) if name else None, conf, outline, why)

    def _read_warped(self, frame: np.ndarray, q: np.ndarray, recall: bool = True) -> "_Warped":
        """Warp ``q`` upright and decide (:class:`_Warped`)."""
        card = self._warp(frame, q)
        # the other index: only its corner is turned (the same pixels as turning the card)
        corners = [_Corner(card, recall=recall),
                   _Corner(cv2.rotate(card[H - CH:, W - CW:], cv2.ROTATE_180), recall=recall)]
        reads = [self.read_corner(c) for c in corners]
        pips = self.read_pips(card)
        name, conf, why = decide(reads, pips, self.params)
        first = None  # the usual box's reading, when a larger box was read instead
        if recall and name is None and why == "no index read":
            # nothing in the usual index box is an index: a large index (its rank or pip
            # runs out of the box) is looked for in a larger one
            big = [_Corner(card, BIG_CW, BIG_CH),
                   _Corner(cv2.rotate(card[H - BIG_CH:, W - BIG_CW:], cv2.ROTATE_180), BIG_CW, BIG_CH)]
            big_reads = [self.read_corner(c) for c in big]
            name2, conf2, why2 = decide(big_reads, pips, self.params)
            if name2 is not None and not all(
                    r.rank == ("10" if name2[0] == "T" else name2[:-1]) and r.suit is not None for r in big_reads):
                # the larger box reaches further into the card (and, on a blob of two
                # touching cards, into the other card): both indices must name the card
                name2, conf2, why2 = None, 0.3, f"{name2} from one large index only"
            if name2 is not None or why2 != "no index read":
                first = corners, reads, why
                corners, reads, name, conf, why = big, big_reads, name2, conf2, why2
        recounted = False
        if name is None and why.startswith("index says") and why.endswith(" pips"):
            # glare hides pips, it never adds them: count again against the paper's local
            # level, and take the count only when it finds more pips than before
            # and only for the rank the index says (no pip-count rescue to another rank)
            said = why.split()[2].rstrip(",")
            again = self.read_pips(card, local=True)
            if again.count > pips.count:
                name2, conf2, why2 = decide(reads, again, self.params)
                if name2 is not None and name2[:-1] == ("T" if said == "10" else said):
                    name, conf, why = name2, conf2, why2
                    pips, recounted = again, True
        if name is None and why.startswith("index says") and why.endswith(" pips"):
            # a design with a large index and small centre pips: the big index pips were
            # counted (two, or four with a second pip), the centre pips were too small to
            # count. Count again, smaller pips too, leaving out whatever touches the
            # indices' glyphs; the count again only ever confirms the index's own rank
            said = why.split()[2].rstrip(",")
            if recall and said.isdigit() and int(said) > pips.count:
                small = self.read_pips(card, min_pip=SMALL_PIP, exclude=_index_ink(reads, corners))
                if small.count == int(said):
                    name2, conf2, why2 = decide(reads, small, self.params)
                    if name2 is not None and name2[:-1] == ("T" if said == "10" else said):
                        name, conf, why = name2, conf2, why2
                        pips, recounted = small, True
        if name is not None and first is not None and not all(
                r.rank == ("10" if name[0] == "T" else name[:-1]) and r.suit is not None for r in reads):
            # named from the larger boxes (by a pip count that only agreed with one of them):
            # both indices must name the card there, whatever named it (two touching cards
            # read as one: a 9h index, a 6c index and nine pips of both read 9h)
            name, conf, why = None, 0.3, f"{name} from one large index only"
        if name is None and first is not None:
            # the larger box named nothing: what the card says is still "no index read"
            # (a row of overlapping cards read as one is then searched by the corner pass;
            # an unnamed card with no index found is tried a quarter turn round)
            corners, reads, why = first
        if name is not None and (name[0] in "JQK" or pips.suit is None):
            # the suit rests on the two small index pips alone
            if _index_pip_ink(name, reads) < MIN_INDEX_PIP_INK:
                name, conf, why = None, 0.3, f"suit {name[-1]}: index pips too small to tell"  # type: ignore[index]
            elif not _index_colour_clear(name, reads, corners):
                name, conf, why = (None, 0.3,  # name is a str here
                                   f"suit {name[-1]}: the index ink is too pale to tell red from black")  # type: ignore[index]
            else:
                weak = name[0] in "JQK" and max((r.rank_score for r in reads if r.rank == name[0]), default=0.0) \
                    < self.params.strong_score
                # a number card with no big pip counted (thin-stemmed clubs are not solid
                # enough to count) rests on its indices alone, printed alike: the classifier
                # must see the rank too
                weak = weak or (name[0] not in "JQK" and pips.count == 0)
                doubt = self._net_doubts(name, reads, weak)
                if doubt:
                    name, conf, why = None, 0.3, doubt
        clipped = False
        if name is not None:
            rank = "10" if name[0] == "T" else name[:-1]
            # a number card with no big pip counted rests on its two indices alone, printed
            # alike and cut alike: an index starting at the corner's left edge too may
            # have lost its left side (a "6" whose left stroke was cut read 5)
            left = name[0] not in "JQK" and pips.count == 0
            clipped = any(r.rank == rank and r.rank_mask is not None and _touches_edge(r.rank_mask, left=left)
                          for r in reads)
        bare = name is not None and name[0] not in "JQK" and pips.count == 0
        return _Warped(name, conf, why, any(r.rank is not None for r in reads), clipped, recounted, bare)

    @staticmethod
    def _net_doubts(name: str, reads: Sequence[CornerRead], weak_court: bool = False) -> str:
        """Why the corner glyph classifier (:mod:`vision.index_net`) doubts ``name``
        (``"Kd"``), whose suit rests on its index pips alone; ``""`` when it does not.

        Shown the index pips of the ``reads`` that named the card, it doubts the suit when
        it finds the other suit of the colour likelier (summed over the pips, by
        :data:`NET_LEAN`: blurred sideways, a spade's index pip can match a club better in the
        glyph bank; the classifier, trained on blurred font pips, sees it otherwise) or sees the
        named suit in none of them (probability below :data:`NET_SEES_SUIT`: the pip is a
        blob, blurred or blocky, that the glyph bank matched to a suit only for want of
        better). ``weak_court``: the card is a court card whose rank the glyph bank read
        below ``Params.strong_score`` (backed by the court picture, which says J, Q or K but
        not which); the classifier must then also see that rank in one of the rank masks
        (probability :data:`NET_SEES_RANK`): diagonal motion blur turns a K into a shape the
        bank matches to a J. The caller also passes it for a number card with no big pip
        counted (thin-stemmed clubs): its two indices, printed alike, are its only evidence.
        """
        from vision.corners import _net  # noqa: PLC0415 - the classifier, loaded on first use
        from vision.index_net import CLASSES  # noqa: PLC0415

        pips = [m for m in _index_pips(name, reads) if cv2.countNonZero(m) > 0]
        rank = "10" if name[0] == "T" else name[:-1]
        ranks = [r.rank_mask for r in reads if weak_court and r.rank == rank and r.rank_mask is not None
                 and cv2.countNonZero(r.rank_mask) > 0]
        if not pips and not ranks:
            return ""
        pr = _net().probs(pips + ranks)  # one batch: the classifier reads each glyph alone
        if pips and _lean(name, pr[:len(pips)]) > NET_LEAN:
            return f"suit {name[-1]}: the index pips look more like the other suit"
        if pips and float(pr[:len(pips), CLASSES.index(name[-1])].max()) < NET_SEES_SUIT:
            return f"suit {name[-1]}: the index pips do not look like a suit pip"
        if ranks and float(pr[len(pips):, CLASSES.index(rank)].max()) < NET_SEES_RANK:
            return f"rank {rank}: the index does not look like a {rank} to the classifier"
        return ""

    def read_pips(self, card: np.ndarray, local: bool = False, min_pip: float = 0.01,
                  exclude: np.ndarray | None = None) -> "PipRead":
        """Count the large, solid, equal-sized pips of a warped card and read their suit.

        Number cards show as many pips as their rank; the suit of a big pip is easier to
        read than the small index one. ``local``: measure the ink against the paper's
        local level (its brightest nearby pixels) instead of one cut for the whole card,
        for a card half under glare (its washed-out pips are then still solid).
        ``min_pip``: the least pip area, a fraction of the card's. ``exclude``: a ``(H, W)``
        uint8 mask (ink > 0) of the indices' glyphs; a shape touching it is not a pip.
        Returns a :class:`PipRead`.
        """
        wb = _white_balance(card)
        hsv = cv2.cvtColor(wb[int(H * 0.2):int(H * 0.8), int(W * 0.2):int(W * 0.8)], cv2.COLOR_BGR2HSV)
        # yellow, green, blue (not pip red, not black ink whose hue is noise):
        # 18 < hue < 140, saturation > 90, value > 110
        colourful = cv2.inRange(hsv, (19, 91, 111), (139, 255, 255))
        picture = cv2.countNonZero(colourful) / float(colourful.size)
        ink, chroma = _local_ink(wb) if local else _ink(wb)
        ink[:4, :] = 0
        ink[-4:, :] = 0
        ink[:, :4] = 0
        ink[:, -4:] = 0
        n, lab, st, _ = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
        area = W * H
        comps = []
        for i in range(1, n):
            x, y, w, h, a = st[i]
            if a < min_pip * area or a > 0.08 * area or w > 0.45 * W or h > 0.35 * H:
                continue
            m = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
            if exclude is not None and cv2.countNonZero(exclude[y:y + h, x:x + w] & m):
                continue
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            hull = cv2.contourArea(cv2.convexHull(max(cs, key=cv2.contourArea)))
            if hull <= 0 or a / hull < 0.75:
                continue
            comps.append((int(a), i))
        if not comps:
            return PipRead(picture=picture)
        areas = np.array([a for a, _ in comps])
        best = (0, 0, 0)
        for a, i in comps:
            c = int(((areas >= 0.7 * a) & (areas <= 1.4 * a)).sum())
            if (c, a) > best[:2]:
                best = (c, a, i)
        count, a, i = best
        # pips in the upper half are printed upright (a card reads the same either way up);
        # take one of those when there is one, else read the pip both ways up
        group = [j for aj, j in comps if 0.7 * a <= aj <= 1.4 * a]
        upper = [j for j in group if st[j][1] + st[j][3] / 2 < 0.42 * H]
        i = upper[0] if upper else i
        x, y, w, h = st[i][:4]
        mask = (lab[y:y + h, x:x + w] == i).astype(np.uint8) * 255
        red = _ink_red(chroma[y:y + h, x:x + w][mask > 0], 45)
        if red is None:  # blue or green pips: not a card of a standard deck's colours
            return PipRead(count, a / area, None, 0.0, None, picture)
        allowed = ("d", "h") if red else ("c", "s")
        views = (mask,) if upper else (mask, mask[::-1, ::-1])
        feats = [glyph_feature(m) for m in views]
        suit, score, margin = max((self._suits(f, allowed) for f in feats), key=lambda t: t[1])
        shape = max((self._suits(f) for f in feats), key=lambda t: t[1])[0]
        return PipRead(count, a / area, suit, margin, red, picture, shape)

    # -- internals ------------------------------------------------------------------------

    @staticmethod
    def _warp(frame: np.ndarray, q: np.ndarray) -> np.ndarray:
        dst = np.array([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]], dtype=np.float32)
        m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
        return cv2.warpPerspective(frame, m, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)

    def corner_glyphs(self, card: np.ndarray, scales: Sequence[float] = (1.0, 0.5)
                      ) -> tuple[np.ndarray | None, np.ndarray | None, bool | None]:
        """Cut the top-left index of an upright card ``(H, W, 3)`` into glyph masks.

        Returns ``(rank_mask, suit_mask, red)``: uint8 masks (ink 255) of the rank
        character(s) and of the suit pip under them (None when not found), and whether the
        ink is red (None when unknown). ``scales``: the ink cuts tried in turn (fractions
        of Otsu's threshold; faint, pale red indices need a lower cut); the first that
        gives both a rank and a suit is returned.
        """
        return _Corner(card).glyphs(scales)[1]

    @staticmethod
    def _cut_index(ink: np.ndarray, chroma: np.ndarray, cw: int, ch: int, neck: bool = True
                   ) -> tuple[np.ndarray | None, np.ndarray | None, bool | None]:
        # a strip of table left in the warp: ignore a border band
        ink[:, :3] = 0
        ink[:3, :] = 0
        n, lab, st, cen = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
        comps = []
        runout = []  # shapes running out of the index zone: an index pip may be merged in one
        for i in range(1, n):
            x, y, w, h, a = st[i]
            if a < 15 or h < 6:
                continue
            if h > 0.7 * ch:  # frame lines of a face card, edges
                continue
            if x + w >= cw - 1 and w > 0.35 * cw:  # runs out of the index zone: a pip or picture
                runout.append((i, x, y, w, h, a))
                continue
            if w > 0.8 * cw:  # frame lines of a face card, edges
                continue
            comps.append((i, x, y, w, h, a))
        if not comps:
            return None, None, None
        # rank: the topmost component of index height in the left part of the corner
        # (in the larger box of a large index: up to 0.2 of the card's height, its middle up
        # to 0.15 of the card's width scaled as the box)
        big = cw > CW
        cand = [c for c in comps if c[4] >= 0.045 * H and c[4] <= (0.2 if big else 0.16) * H
                and c[1] + c[3] / 2 < 0.15 * W * (cw / CW if big else 1.0)]
        if not cand:
            return None, None, None
        top = min(cand, key=lambda c: c[2])
        rank = [top]
        for c in comps:  # the other half of "10", or a broken stroke
            if c is top:
                continue
            ov = min(top[2] + top[4], c[2] + c[4]) - max(top[2], c[2])
            gap = max(c[1] - (top[1] + top[3]), top[1] - (c[1] + c[3]))
            if c[1] + c[3] >= cw - 1:  # cut by the corner's edge: a big pip beside the index
                continue
            if ov > 0.6 * min(top[4], c[4]) and gap < 0.35 * top[4] and c[4] > 0.5 * top[4]:
                rank.append(c)
        rx0 = min(c[1] for c in rank)
        rx1 = max(c[1] + c[3] for c in rank)
        ry1 = max(c[2] + c[4] for c in rank)
        rh = max(c[4] for c in rank)
        if rx1 - rx0 < MIN_RANK_WIDTH * rh:
            # a bare bar (the "1" of a pale "10" whose "0" fell below the cut) is no rank;
            # stretched to the glyph box it is a solid block that matches nothing honestly
            return None, None, None
        rmask = np.isin(lab, [c[0] for c in rank]).astype(np.uint8) * 255
        # suit: the nearest component below the rank, under it
        # (not a shape cut by the corner's right edge: a big pip or the picture beside it)
        below = [c for c in comps if c not in rank and c[1] + c[3] < cw - 1
                 and c[2] >= ry1 - 2 and c[2] - ry1 < 0.8 * rh
                 and rx0 - 0.5 * rh <= c[1] + c[3] / 2 <= rx1 + 0.5 * rh
                 and 0.3 * rh <= c[4] <= 1.3 * rh]
        smask = None
        if below:
            s = min(below, key=lambda c: c[2])
            smask = (lab == s[0]).astype(np.uint8) * 255
        else:  # the pip may touch a court card's frame line: open the ink and look again
            smask = Recognizer._pip_apart(ink, rmask, (rx0, rx1, ry1, rh), cw)
            if smask is None:  # ... or the big pip beside it (clubs and spades printed close)
                smask = Recognizer._pip_at_neck(lab, runout, (rx0, rx1, ry1, rh)) if neck else None
        pix = _colour_pixels(rmask, smask)  # a solid pip's colour, when there is one
        red = None if pix is None else _ink_red(chroma[pix], 28)
        if smask is not None and _has_hole(smask):
            smask = None  # a ring ("O" of JOKER, a "0"), not a solid suit pip
        return rmask, smask, red

    @staticmethod
    def _pip_apart(ink: np.ndarray, rmask: np.ndarray, rank_box: tuple[int, int, int, int], cw: int
                   ) -> np.ndarray | None:
        """The suit pip (uint8 mask, ink 255) under a rank whose pip touched something else.

        At a court card's corner the index pip can touch the picture's thin frame line and
        be lost in one component with it. An opening (3x3) cuts thin lines off solid
        shapes; the pip is then the piece under the rank (``rank_box``: its left and right
        x, bottom y and height, corner pixels), nearest the rank's middle, clear of the
        corner's right edge (where the picture runs out of the index zone). None when
        there is none.
        """
        rx0, rx1, ry1, rh = rank_box
        opened = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        opened[rmask > 0] = 0
        n, lab, st, _ = cv2.connectedComponentsWithStats(opened, connectivity=8, ltype=cv2.CV_16U)
        mid = (rx0 + rx1) / 2
        best, dist = 0, float("inf")
        for i in range(1, n):
            x, y, w, h, a = (int(v) for v in st[i])
            if a < 15 or x + w >= cw - 1 or not 0.3 * rh <= h <= 1.3 * rh:
                continue
            if y < ry1 - 2 or y - ry1 >= 0.8 * rh or not rx0 - 0.5 * rh <= x + w / 2 <= rx1 + 0.5 * rh:
                continue
            if abs(x + w / 2 - mid) < dist:
                best, dist = i, abs(x + w / 2 - mid)
        return (lab == best).astype(np.uint8) * 255 if best else None

    @staticmethod
    def _pip_at_neck(lab: np.ndarray, runout: Sequence[tuple[int, int, int, int, int, int]],
                     rank_box: tuple[int, int, int, int]) -> np.ndarray | None:
        """The index pip (uint8 mask, ink 255) merged with a big pip beside it, or None.

        A design that prints its big pips close to the index (French designs: a club's
        leaves touch the index pip under the rank once blurred) gives one shape, running
        out of the index zone, in ``runout`` (component stats ``(label, x, y, w, h, area)``
        of ``lab``). Under the rank (``rank_box``: left and right x, bottom y, height) the
        shape is cut at its thinnest column between the rank's middle and a rank height
        right of the rank; the left piece is the pip when it is pip-sized and lies under
        the rank. Corner pixels.
        """
        rx0, rx1, ry1, rh = rank_box
        for i, x, y, w, h, _ in runout:
            if y < ry1 - 2 or y - ry1 >= 0.8 * rh or x > rx1:
                continue
            m = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
            cols = m.sum(axis=0)
            lo, hi = max(int((rx0 + rx1) / 2) - x, 1), min(int(rx1 + rh) - x, w - 1)
            if hi <= lo:
                continue
            neck = lo + int(np.argmin(cols[lo:hi]))
            if cols[neck] > 0.5 * rh:  # no narrow join: one broad shape
                continue
            piece = m.copy()
            piece[:, neck:] = 0
            k, plab, pst, _ = cv2.connectedComponentsWithStats(piece, connectivity=8)
            if k < 2:
                continue
            j = 1 + int(np.argmax(pst[1:, 4]))
            px, py, pw, ph, pa = (int(v) for v in pst[j])
            if pa < 15 or not 0.3 * rh <= ph <= 1.3 * rh or not rx0 - 0.5 * rh <= x + px + pw / 2 <= rx1 + 0.5 * rh:
                continue
            out = np.zeros(lab.shape, np.uint8)
            out[y:y + h, x:x + w][plab == j] = 255
            return out
        return None

    def read_corner(self, card: np.ndarray | _Corner) -> CornerRead:
        """Read the top-left index of an upright card image ``(H, W, 3)``.

        When the usual ink cut gives a weak rank reading (a pale index cut into fragments
        while a bold pip beside it sets the threshold), a lower cut is read too and the
        reading kept is one with both a rank and a suit pip, then the higher rank score.
        """
        corner = card if isinstance(card, _Corner) else _Corner(card)
        first = self._read_corner_at(corner, (1.0, 0.5))
        if first.rank_score >= self.params.strong_score:
            return first
        low = self._read_corner_at(corner, (0.5, 0.3))

        def key(r: CornerRead) -> tuple[bool, float]:  # a rank with its suit pip first
            return r.rank is not None and r.suit is not None, r.rank_score

        return low if key(low) > key(first) else first

    def _read_corner_at(self, corner: _Corner, scales: Sequence[float]) -> CornerRead:
        scale, (rmask, smask, red) = corner.glyphs(scales)
        assert scale is not None
        if scale not in corner.reads:  # the same cut reads the same
            corner.reads[scale] = self._read_glyphs(rmask, smask, red)
            corner.reads[scale].rank_mask = rmask
        return corner.reads[scale]

    def _read_glyphs(self, rmask: np.ndarray | None, smask: np.ndarray | None, red: bool | None) -> CornerRead:
        out = CornerRead(red=red)
        if rmask is None:
            return out
        f = glyph_feature(rmask)
        out.rank_feat = f
        out.rank, out.rank_score, out.rank_margin = self._ranks(self._project(f))
        out.rank_scores = self._ranks.last.copy()
        if _looks_like_ten(rmask):  # a bar and a ring side by side: card fonts' tight "10"
            k = RANK_LABELS.index("10")
            others = np.delete(out.rank_scores, k)
            out.rank_scores[k] = max(float(out.rank_scores[k]), TEN_SCORE)
            out.rank, out.rank_score = "10", float(out.rank_scores[k])
            out.rank_margin = max(out.rank_score - float(others.max()), TEN_MARGIN)
        if smask is not None and red is not None:
            g = glyph_feature(smask)
            out.suit_feat = g
            out.shape_suit = self._suits(g)[0]
            out.suit_mask = smask
            allowed = ("d", "h") if red else ("c", "s")
            out.suit, out.suit_score, out.suit_margin = self._suits(g, allowed)
        return out

    def _project(self, f: np.ndarray) -> np.ndarray:
        """:meth:`GlyphBank.project` of one feature, as a BLAS product (see ``cv_threads``)."""
        if self._proj is None:
            return f
        y = f @ self._proj
        return (y / (np.linalg.norm(y, axis=-1, keepdims=True) + 1e-9)).astype(np.float32)

    def timed(self, image: np.ndarray) -> tuple[list[Reading], float]:
        """Return ``(readings, milliseconds)`` for one frame."""
        t = time.perf_counter()
        r = self.recognize(image)
        return r, (time.perf_counter() - t) * 1000.0


class _Matcher:
    """Nearest-glyph matcher: features sorted by label for a fast per-class maximum."""

    def __init__(self, x: np.ndarray, y: np.ndarray, labels: Sequence[str]) -> None:
        order = np.argsort(y, kind="stable")
        self.x = np.ascontiguousarray(x[order], dtype=np.float32)
        y = y[order]
        self.present = np.unique(y)
        self.starts = np.searchsorted(y, self.present)
        self.labels = list(labels)

    def __call__(self, f: np.ndarray, allowed: Sequence[str] | None = None) -> tuple[str | None, float, float]:
        """Return ``(label, best similarity, margin over the best other label)``."""
        sims = self.x @ f  # BLAS, one thread (Recognizer's cv_threads)
        per = np.maximum.reduceat(sims, self.starts)
        best = np.full(len(self.labels), -1.0, np.float32)
        best[self.present] = per
        if allowed is not None:
            best[[lab not in allowed for lab in self.labels]] = -1.0
        self.last = best
        order = np.argsort(-best)
        b, s = float(best[order[0]]), float(best[order[1]])
        if b <= -1.0:
            return None, 0.0, 0.0
        return self.labels[order[0]], b, (b - s) if s > -1.0 else b


class _Warped(NamedTuple):
    """One upright read of a card: the card's name or None, its confidence and why; whether
    any index was cut out (``found``); whether the named rank's ink runs to its corner's
    top edge (``clipped``: the cut may have lost the top of the glyph); whether the name
    rests on the pips counted again against the paper's local level (``recounted``); whether
    it is a number card named with no pip counted (``bare``: its indices are its only
    evidence, so a left edge counts for ``clipped`` too)."""

    name: str | None
    conf: float
    why: str
    found: bool
    clipped: bool = False
    recounted: bool = False  # named on pips counted again against the paper's local level
    bare: bool = False  # a number card named with no pip counted: on its indices alone


def _touches_edge(mask: np.ndarray, band: int = 4, left: bool = False) -> bool:
    """True when the ink of ``mask`` (a corner-sized uint8 mask) starts within ``band``
    pixels of its top edge (:meth:`Recognizer._cut_index` blanks the first 3 rows), or,
    with ``left``, of its left edge (and columns): the glyph may run past the cut. (The left
    edge is checked only where the caller asks: on the dev photos a quarter of the index
    glyphs start there, and a glyph losing its top, a "3" read J, is the confusion seen
    most; a number card with no pip counted also checks it: a cut "6" read 5.)"""
    return bool(cv2.countNonZero(mask[:band + 1, :])) or (left and bool(cv2.countNonZero(mask[:, :band + 1])))


def _shrink(q: np.ndarray, f: float) -> np.ndarray:
    """Move each corner of ``q`` towards the opposite one by ``f`` of the diagonal."""
    out = q.copy()
    for i in range(4):
        out[i] = q[i] + (q[(i + 2) % 4] - q[i]) * f
    return out.astype(np.float32)


def _seam_split(frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the two halves of ``quad`` when it holds two touching cards, else None.

    Two portrait cards side by side make a blob of about one card's aspect ratio; the line
    where they meet crosses the blob's long axis at its middle as a straight edge from
    side to side, which a single card does not have.
    """
    q = order_quad(quad)
    w, h = 100, 140
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    grey = cv2.cvtColor(cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    gy = np.abs(cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3))
    inner = gy[:, 5:w - 5]
    y0, y1 = int(h * 0.42), int(h * 0.58)  # the rows y0..y1-1, each with its neighbours
    rows = np.maximum(np.maximum(inner[y0 - 1:y1 - 1], inner[y0:y1]), inner[y0 + 1:y1 + 1])
    best = float((rows > 35).mean(axis=1).max())
    if best < 0.9:
        return None
    mid_a = (q[0] + q[3]) / 2  # the long edges are 1->2 and 3->0
    mid_b = (q[1] + q[2]) / 2
    return (np.array([q[0], q[1], mid_b, mid_a], np.float32), np.array([mid_a, mid_b, q[2], q[3]], np.float32))


#: the narrowest card (its outline's short side, frame pixels) on which the recall round's
#: ways of naming an unsure card are tried (the outline with corners put back, the larger
#: index box, the small centre pips, an index pip cut from the big pip beside it): below
#: it the index is a few pixels tall (rendered tango cards 50 px wide: a 2c read 2s from
#: the larger box); the dev photos' narrowest card named is 71 px wide
RECALL_MIN_WIDTH = 70.0


def _short_side(q: np.ndarray) -> float:
    """The mean length of the two shorter opposite sides of a quad ``(4, 2)``, pixels."""
    d = [math.hypot(*(q[(i + 1) % 4] - q[i])) for i in range(4)]
    return min(d[0] + d[2], d[1] + d[3]) / 2


#: the least centre pip area (fraction of the card) when the pips are counted again with the
#: indices left out (:meth:`Recognizer._read_warped`); the first count's least is 0.01
SMALL_PIP = 0.003


def _index_ink(reads: Sequence[CornerRead], corners: Sequence["_Corner"]) -> np.ndarray:
    """A ``(H, W)`` uint8 mask of the index glyphs (rank and pip) that ``reads`` cut, in the
    upright card's pixels: the first read's from the top-left corner, the second's from the
    bottom-right one, turned back (``corners``: the :class:`_Corner` each came from)."""
    out: np.ndarray = np.zeros((H, W), np.uint8)
    for k, (r, c) in enumerate(zip(reads, corners)):
        m: np.ndarray = np.zeros((c.ch, c.cw), np.uint8)
        for g in (r.rank_mask, r.suit_mask):
            if g is not None and g.shape == m.shape:
                m |= g
        # grown a little: the pips' cut differs from the corner's
        m = cv2.dilate(m, np.ones((3, 3), np.uint8))
        if k == 0:
            out[:c.ch, :c.cw] |= m
        else:
            out[H - c.ch:, W - c.cw:] |= cv2.rotate(m, cv2.ROTATE_180)
    return out


def _index_pips(name: str, reads: Sequence[CornerRead]) -> list[np.ndarray]:
    """The index pip masks (uint8) of the ``reads`` that named ``name``'s rank (``"Ac"``)."""
    rank = "10" if name[0] == "T" else name[:-1]
    return [r.suit_mask for r in reads if r.rank == rank and r.suit is not None and r.suit_mask is not None]


def _index_pip_ink(name: str, reads: Sequence[CornerRead]) -> int:
    """The ink pixels of the largest index pip among ``reads`` that named ``name``'s rank."""
    return max((cv2.countNonZero(m) for m in _index_pips(name, reads)), default=0)


def _lean(name: str, probs: np.ndarray) -> float:
    """How much likelier the classifier finds the other suit of ``name``'s colour than its
    own, summed over the pips' class probabilities ``probs`` ``(n, len(CLASSES))``."""
    from vision.index_net import CLASSES  # noqa: PLC0415

    other = {"s": "c", "c": "s", "h": "d", "d": "h"}[name[-1]]
    return float((probs[:, CLASSES.index(other)] - probs[:, CLASSES.index(name[-1])]).sum())


def _index_colour_clear(name: str, reads: Sequence[CornerRead], corners: Sequence[_Corner]) -> bool:
    """True when the ink of the index reads that named ``name`` (``"Kd"``) is clearly its
    colour: median red chroma at most :data:`BLACK_INK_MAX` for a black suit, at least
    :data:`RED_INK_MIN` for a red one, taken as the reader took the colour (the solid pip's
    pixels, or rank and pip together). ``corners``: the :class:`_Corner` each read came from
    (same order); their masks are in its pixels."""
    rank = "10" if name[0] == "T" else name[:-1]
    red = name[-1] in "dh"
    for r, c in zip(reads, corners):
        if r.rank != rank or r.suit is None or r.suit_mask is None:
            continue
        pix = _colour_pixels(r.rank_mask, r.suit_mask)
        if pix is None:
            continue
        med = _median(c.chroma[pix])
        if (med < RED_INK_MIN) if red else (med > BLACK_INK_MAX):
            return False
    return True


def _find_in_region(frame: np.ndarray, region: np.ndarray,
                    alternatives: list[np.ndarray | None] | None = None) -> list[np.ndarray]:
    """Find cards in the board region's bounding box (widened by 10%) only.

    Faster than the whole frame, and the board is seen at a higher detection resolution.
    ``alternatives``: filled as :func:`vision.detect.find_cards` fills it (frame pixels).
    """
    quad = np.asarray(region, np.float32).reshape(4, 2)
    h, w = frame.shape[:2]
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    mx, my = 0.1 * (x1 - x0), 0.1 * (y1 - y0)
    x0, y0 = max(0, int(x0 - mx)), max(0, int(y0 - my))
    x1, y1 = min(w, int(np.ceil(x1 + mx))), min(h, int(np.ceil(y1 + my)))
    if x1 - x0 < 16 or y1 - y0 < 16:
        if alternatives is not None:
            alternatives[:] = []
        return []
    off = np.array([x0, y0], np.float32)
    alts: list[np.ndarray | None] = []
    quads = [q + off for q in find_cards(np.ascontiguousarray(frame[y0:y1, x0:x1]), alternatives=alts)]
    if alternatives is not None:
        alternatives[:] = [None if a is None else a + off for a in alts]
    return quads
