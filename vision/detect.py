"""Find card faces in a frame: bright, low-saturation quadrilaterals on any table.

A card face is whiter than the felt around it, whatever the felt is (green, blue, red,
dark, wooden or light beige). :func:`find_cards` scores every pixel by *whiteness* (value
minus saturation, corrected for uneven light by a large blur) and thresholds that score at
several levels, absolute, above the blurred table, and over the local white reference (the
whitest nearby, so a card in the shade counts as white as one in the light); every level
gives contours, and every contour that looks like a card (convex enough, the right aspect
ratio, four corners) becomes a candidate. Candidates found at several levels are merged by
overlap. Blobs of cards touching each other are split along their convexity defects.

Shapes: frames are ``uint8`` BGR arrays ``(H, W, 3)``; a quad is a ``float32`` array
``(4, 2)`` of ``(x, y)`` pixel coordinates in the frame, ordered so that the first edge
(corner 0 -> 1) is a short edge of the card (portrait order, clockwise).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

__all__ = ["find_cards", "order_quad", "warp_card", "CARD_W", "CARD_H"]

#: Canonical card size after the perspective warp, pixels (portrait; poker ratio ~1.4).
CARD_W = 200
CARD_H = 290

_DETECT_SIDE = 640  # the frame is reduced to this longest side for detection
_LEVELS = 4            # absolute whiteness levels between the table and the whitest 0.5%
_CANNY = ((20, 60),)   # Canny thresholds for the outline pass (light tables)
# whiteness over the local white reference (255: as white as the whitest nearby), for
# uneven light; see find_cards
_NORM_LEVELS = (215, 235)
# a candidate is kept only when its outline is seen (grey step all round) and it is whiter
# than the table just outside it; see _edge_support and _edge_contrast
_MIN_OUTLINE = 0.3      # fraction of the outline with a step: below this, never a card
_CLEAR_OUTLINE = 0.8    # ... above this, a card even when no whiter than the table
_SHARP_OUTLINE = 0.9    # ... above this, a card even when seen at one threshold level only
_MIN_CONTRAST = 10      # whiteness inside minus outside (0..255)
_SINGLE_CONTRAST = 25   # ... for a shape seen at one threshold level only
# a card found only as the convex hull of a blob of Canny edges (_blob_cards) needs a clear
# outline, and may be a little less white than a light table (a shadowed rim), not much
_BLOB_OUTLINE = 0.9
_BLOB_CONTRAST = -30
_OBLIQUE_RATIO = 3.0    # the longest a card may look (long / short edges) when ...
_OBLIQUE_TAPER = 0.8    # ... its long edges converge this much (shorter / longer)


def order_quad(pts: np.ndarray) -> np.ndarray:
    """Return the 4 points ``(4, 2)`` clockwise, starting so that edge 0->1 is a short edge.

    The start corner is the one of the two candidates nearest the image's top-left, so
    an upright card starts at its top-left corner.
    """
    p = np.asarray(pts, dtype=np.float32).reshape(4, 2)
    d = p - p.mean(axis=0)
    p = p[np.argsort(np.arctan2(d[:, 1], d[:, 0]), kind="stable")]  # clockwise (y down)
    e = np.hypot(*(np.roll(p, -1, axis=0) - p).T)
    if e[0] + e[2] > e[1] + e[3]:  # edge 0->1 is long: start one corner later
        p = p[[1, 2, 3, 0]]
    # two orderings keep a short first edge: start at 0 or at 2; pick nearer top-left
    if p[2, 0] + p[2, 1] < p[0, 0] + p[0, 1]:
        p = p[[2, 3, 0, 1]]
    return np.ascontiguousarray(p, dtype=np.float32)


def warp_card(frame: np.ndarray, quad: np.ndarray, w: int = CARD_W, h: int = CARD_H) -> np.ndarray:
    """Return the card inside ``quad`` warped to an upright ``(h, w, 3)`` image."""
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(order_quad(quad), dst)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def _whiteness(small: np.ndarray) -> np.ndarray:
    _, s, v = cv2.split(cv2.cvtColor(small, cv2.COLOR_BGR2HSV))
    return cv2.subtract(v, s)  # V - S, saturating at 0


def _quad_from_contour(cnt: np.ndarray, hull: np.ndarray | None = None) -> np.ndarray:
    peri = cv2.arcLength(cnt, True)
    hull = cv2.convexHull(cnt) if hull is None else hull
    for eps in (0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
    # rounded or clipped corners: fall back to the minimum-area rectangle
    rect = cv2.minAreaRect(cnt)
    return cv2.boxPoints(rect).astype(np.float32)


def _card_like(cnt: np.ndarray, min_area: float, max_area: float,
               wh: np.ndarray | None = None, alts: dict[int, np.ndarray] | None = None) -> np.ndarray | None:
    """The card quad ``(4, 2)`` (order_quad order) of a contour ``cnt``, or None when it is
    not card-like (area bounds in detection pixels, convexity, aspect ratio). With ``wh``
    (the detection-size whiteness map) and ``alts``, a second outline with the corners the
    contour lacks put back where the card's sides meet (index ink printed up to the
    paper's edge, :func:`_restore_corners`) is stored in ``alts`` under ``id()`` of the
    quad returned, when it differs."""
    area = cv2.contourArea(cnt)
    if area < min_area or area > max_area:
        return None
    hull = cv2.convexHull(cnt)
    harea = cv2.contourArea(hull)
    if harea <= 0 or area / harea < 0.90:
        return None
    quad = _quad_from_contour(cnt, hull)
    qarea = cv2.contourArea(quad)
    if qarea <= 0 or not (0.85 < area / qarea < 1.12):
        return None
    # the quad's corners are in order round it (a polygon fitted to the hull, or a box):
    # its edge lengths are those of order_quad's, which is only run on a quad kept
    pts = quad.tolist()
    d = [math.hypot(pts[(i + 1) % 4][0] - pts[i][0], pts[(i + 1) % 4][1] - pts[i][1]) for i in range(4)]
    short = min(d[0] + d[2], d[1] + d[3]) / 2
    long_ = max(d[0] + d[2], d[1] + d[3]) / 2
    if short <= 0:
        return None
    ratio = long_ / short
    # a card seen very obliquely is foreshortened across its long edges, which then
    # converge (the far one shorter): such a tapered quad may look up to 3 times as long
    long_pair = (d[1], d[3]) if d[0] + d[2] < d[1] + d[3] else (d[0], d[2])
    taper = min(long_pair) / max(max(long_pair), 1e-6)
    if not (1.02 < ratio < 2.2) and not (ratio < _OBLIQUE_RATIO and taper < _OBLIQUE_TAPER):
        return None
    # reject strongly non-parallelogram quads (two cards, a card and a shadow ...)
    if cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)) is False:
        return None
    out = order_quad(quad)
    if wh is not None and alts is not None:
        whole = _restore_corners(hull.reshape(-1, 2).astype(np.float32), out, wh)
        if not np.array_equal(whole, out):
            alts[id(out)] = order_quad(whole)
    return out


#: a corner of the fitted quad is put back where the card's sides meet only when it moves
#: by more than this fraction of the short side (a rounded corner moves ~0.02-0.03) ...
_CORNER_CUT = 0.06
#: ... and by no more than this (a cut larger than an index is no missing corner)
_CORNER_CUT_MAX = 0.45
#: ... and when the table just outside the restored corner is this much less white than the
#: card's paper (another card's paper there: the corner lies under that card)
_CORNER_TABLE = 25


def _restore_corners(hull: np.ndarray, quad: np.ndarray, wh: np.ndarray) -> np.ndarray:
    """Put back a card corner that the whiteness blob lacks; return the quad ``(4, 2)``.

    A deck that prints its index up to the paper's edge (the index ink touches the
    outline at detection size) leaves a white blob without those corners: its hull is a
    hexagon, and the four-corner fit cuts the card's corners off with its index (the
    reader then finds no index). The card's four sides are the four longest edges of the
    hull's polygon; where consecutive ones meet is the card's corner. A corner is moved
    there only when it moves by :data:`_CORNER_CUT` to :data:`_CORNER_CUT_MAX` of the short
    side and the whiteness just outside the two sides there is table, clearly below the
    paper's (:data:`_CORNER_TABLE`): a corner under another card has paper outside and is
    left as it was. Detection pixels; ``quad`` is returned unchanged when nothing fits.
    """
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.01 * peri, True).reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if not 5 <= n <= 8:
        return quad
    seg = np.roll(poly, -1, axis=0) - poly
    length = np.hypot(seg[:, 0], seg[:, 1])
    longest = sorted(np.argsort(-length)[:4].tolist())
    if length[longest].min() < 2.5 * max(float(np.delete(length, longest).max()), 1e-6):
        return quad  # no four clear sides
    corners = []
    for a, b in zip(longest, longest[1:] + longest[:1]):
        p, r = poly[a], seg[a]
        q, s = poly[b], seg[b]
        den = float(r[0] * s[1] - r[1] * s[0])
        if abs(den) < 1e-6 * float(length[a] * length[b]):
            return quad
        t = float((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den
        corners.append(p + t * r)
    new = np.array(corners, np.float32)
    d = [math.hypot(*(new[(i + 1) % 4] - new[i])) for i in range(4)]
    short = min(d[0] + d[2], d[1] + d[3]) / 2
    if short <= 0 or not cv2.isContourConvex(new.reshape(-1, 1, 2)):
        return quad
    c = new.mean(axis=0)
    hh, ww = wh.shape
    # the paper: inside the middle half of each side
    inner = []
    for i in range(4):
        a, b = new[i], new[(i + 1) % 4]
        for t in np.linspace(0.3, 0.7, 5):
            pt = a + (b - a) * t
            v = c - pt
            inner.append(pt + v / max(float(np.hypot(*v)), 1e-6) * 0.1 * short)
    paper = _sample(wh, np.array(inner))
    if paper is None:
        return quad
    out = quad.copy()
    for i in range(4):
        moved = [float(np.hypot(*(new[i] - qv))) for qv in quad]
        j = int(np.argmin(moved))
        if moved[j] <= _CORNER_CUT * short:
            continue
        if moved[j] > _CORNER_CUT_MAX * short:
            return quad
        pts = []
        for k in (i - 1, i + 1):  # the two sides meeting at the corner, near it
            other = new[k % 4]
            e = other - new[i]
            nv = np.array([-e[1], e[0]], np.float32) / max(float(np.hypot(*e)), 1e-6)
            if np.dot(nv, new[i] + e / 2 - c) < 0:
                nv = -nv
            for t in np.linspace(0.03, 0.2, 6):
                pts.append(new[i] + e * t + nv * 0.08 * short)
        outside = _sample(wh, np.array(pts))
        if outside is None or outside > paper - _CORNER_TABLE:
            return quad
        out[j] = new[i]
    return out


def _sample(img: np.ndarray, pts: np.ndarray) -> float | None:
    """The median of ``img`` at the points ``(n, 2)`` (x, y) that lie in it; None if none."""
    h, w = img.shape[:2]
    xs = np.round(pts[:, 0]).astype(int)
    ys = np.round(pts[:, 1]).astype(int)
    ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    if not ok.any():
        return None
    return float(np.median(img[ys[ok], xs[ok]]))


def _split_merged(cnt: np.ndarray, mask_shape: tuple[int, int]) -> list[np.ndarray]:
    """Cut a blob of touching cards along the line joining its two deepest defects."""
    hull = cv2.convexHull(cnt, returnPoints=False)
    if hull is None or len(hull) < 4:
        return []
    try:
        defects = cv2.convexityDefects(cnt, hull)
    except cv2.error:
        return []
    if defects is None or len(defects) < 2:
        return []
    d = defects.reshape(-1, 4)
    order = np.argsort(-d[:, 3])
    deep = [d[i] for i in order[:4] if d[i, 3] / 256.0 > 6]
    if len(deep) < 2:
        return []
    # drawn in the blob's bounding box only (the frame-sized mask cost more than the rest)
    x, y, w, h = cv2.boundingRect(cnt)
    off = np.array([x - 2, y - 2], np.int32)
    m = np.zeros((h + 4, w + 4), np.uint8)
    cv2.drawContours(m, [cnt - off], -1, 255, -1)
    p1 = tuple(int(v) for v in cnt[deep[0][2]][0] - off)
    p2 = tuple(int(v) for v in cnt[deep[1][2]][0] - off)
    cv2.line(m, p1, p2, 0, 3)
    cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [c + off for c in cs]


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ra = cv2.boundingRect(a.astype(np.float32))
    rb = cv2.boundingRect(b.astype(np.float32))
    x1, y1 = max(ra[0], rb[0]), max(ra[1], rb[1])
    x2, y2 = min(ra[0] + ra[2], rb[0] + rb[2]), min(ra[1] + ra[3], rb[1] + rb[3])
    if x2 <= x1 or y2 <= y1:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    ua = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / ua) if ua > 0 else 0.0


def find_cards(frame: np.ndarray, min_frac: float = 0.004, max_frac: float = 0.95,
               alternatives: list[np.ndarray | None] | None = None) -> list[np.ndarray]:
    """Return the quads ``(4, 2)`` float32 of card faces found in ``frame`` (frame pixels).

    ``min_frac``/``max_frac`` bound a card's area as a fraction of the frame's area.
    An empty, black or flat frame gives ``[]``. ``alternatives``: a list to fill, one
    entry per quad returned (same order): a second outline of that card with the corners
    its whiteness blob lacked put back (a deck printing its index up to the paper's edge,
    :func:`_restore_corners`), or None. The reader tries it on a card it cannot name.

    Raises:
        ValueError: ``frame`` is not an ``(H, W, 3)`` uint8 image.
    """
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError("vision: a frame is an (H, W, 3) uint8 BGR image")
    h, w = frame.shape[:2]
    if h < 16 or w < 16:
        return []
    scale = min(1.0, _DETECT_SIDE / max(h, w))
    small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame
    sh, sw = small.shape[:2]
    wh = _whiteness(small)
    if int(wh.max()) < 90:  # nothing white enough to be a card face
        return []
    # uneven light: compare with the local table level
    k = (max(sh, sw) // 6) | 1
    bg = cv2.blur(cv2.erode(wh, np.ones((9, 9), np.uint8)), (k, k))
    min_area = min_frac * sh * sw
    max_area = max_frac * sh * sw
    cands: list[tuple[np.ndarray, float]] = []
    alts: dict[int, np.ndarray] = {}  # id(quad in cands) -> its outline with corners put back
    row_cands: list[np.ndarray] = []  # cards cut from a row of touching cards: a last resort
    blob_cands: list[np.ndarray] = []  # the hulls of Canny edge blobs: a last resort too
    wh_blur = cv2.GaussianBlur(wh, (5, 5), 0)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    kernel = np.ones((5, 5), np.uint8)
    cum = np.cumsum(cv2.calcHist([wh_blur], [0], None, [256], [0, 256]).ravel())
    hi = float(np.searchsorted(cum, 0.995 * cum[-1]))  # 99.5th percentile
    levels = set()
    for t in np.linspace(max(60.0, hi * 0.5), hi * 0.96, _LEVELS):
        levels.add(("abs", int(t)))
    for d in (30,):
        levels.add(("rel", d))
    table = float(np.searchsorted(cum, 0.5 * cum[-1]))  # the median: most of the frame is table
    for d in (10, 20):
        if table + d < hi:
            levels.add(("abs", int(table + d)))
    norm = None
    for t in _NORM_LEVELS:
        levels.add(("norm", t))
    for kind, t in sorted(levels):
        if kind == "norm":
            if norm is None:
                # uneven light: whiteness over the local white reference (the brightest
                # nearby, a card-sized neighbourhood), so a card in the shade is as white
                # as one in the light
                ref = cv2.blur(cv2.dilate(wh_blur, np.ones((k // 2 | 1, k // 2 | 1), np.uint8)), (k, k))
                norm = cv2.divide(wh_blur, cv2.max(ref, 60), scale=255)  # type: ignore[call-overload, unused-ignore]  # OpenCV 4's stubs take no int scalar (5's do)
            m = cv2.threshold(norm, t - 1, 255, cv2.THRESH_BINARY)[1]
            m &= cv2.threshold(wh_blur, 49, 255, cv2.THRESH_BINARY)[1]  # type: ignore[misc]  # uint8 masks
        elif kind == "abs":
            m = cv2.threshold(wh_blur, t - 1, 255, cv2.THRESH_BINARY)[1]  # wh_blur >= t
        else:
            m = cv2.threshold(cv2.subtract(wh_blur, bg), t - 1, 255, cv2.THRESH_BINARY)[1]  # >= t above bg
            m &= cv2.threshold(wh_blur, 79, 255, cv2.THRESH_BINARY)[1]  # type: ignore[misc]  # and wh_blur >= 80
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in cs:
            a = cv2.contourArea(c)
            if a < min_area:
                continue
            q = _card_like(c, min_area, max_area, wh_blur, alts)
            if q is not None:
                cands.append((q, a))
                if a / max(cv2.contourArea(q), 1.0) > 0.95:  # a clean rectangle counts twice
                    cands.append((q, a))
            elif a > 2.5 * min_area:
                row = _split_row(c)
                if row and _row_seen(wh_blur, grey, cv2.boxPoints(cv2.minAreaRect(c)).astype(np.float32)):
                    row_cands.extend(row)
                for part in ([] if row else _split_merged(c, m.shape)):
                    q = _card_like(part, min_area, max_area, wh_blur, alts)
                    if q is not None:
                        cands.append((q, cv2.contourArea(part)))
    # edges: on light tables the outline is clearer than the whiteness step
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    for lo, hi_ in _CANNY:
        e = cv2.Canny(grey, lo, hi_)
        e = cv2.dilate(e, np.ones((3, 3), np.uint8))
        cs, hier = cv2.findContours(e, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if hier is None:
            continue
        for c, hh in zip(cs, hier[0]):
            if hh[3] < 0:  # an outer contour: the edge itself; its holes are regions
                blob_cands.extend(_blob_cards(c, min_area, max_area))
                continue
            a = cv2.contourArea(c)
            if a < min_area:
                continue
            q = _card_like(c, min_area, max_area, wh_blur, alts)
            if q is not None:
                # the hole lies inside the dilated outline: grow it back by ~2 px
                grown = _grow(q, 2.0)
                alt = alts.pop(id(q), None)  # q goes: its id may be reused
                if alt is not None:
                    alts[id(grown)] = _grow(alt, 2.0)
                cands.append((grown, a))
    # merge candidates seen at several levels: keep the one seen most, then largest
    groups: list[list[tuple[np.ndarray, float]]] = []
    for q, a in cands:
        for g in groups:
            if _iou(g[0][0], q) > 0.6:
                g.append((q, a))
                break
        else:
            groups.append([(q, a)])
    groups = _drop_merged_pairs(groups)
    picked: list[np.ndarray] = []
    scored = []
    for g in groups:
        con, inside = _edge_contrast(wh_blur, g[len(g) // 2][0])
        q0 = g[0][0]
        span = q0.max(axis=0) - q0.min(axis=0)
        if span[0] > 0.98 * sw and span[1] > 0.98 * sh:
            continue  # the frame's own border, not a card
        close_up = cv2.contourArea(q0) > 0.6 * sh * sw  # a card filling the frame
        es = _edge_support(grey, q0, clip=close_up)
        if es < _MIN_OUTLINE or (con < _MIN_CONTRAST and es < _CLEAR_OUTLINE) or (inside < 0.6 and not close_up):
            continue  # no outline, no whiter than the table around it, or mostly outside the frame
        scored.append((g, con, es))
    reps = [g[len(g) // 2][0] for g, _, _ in scored]
    for q in blob_cands:  # only where no other candidate was seen
        if any(_clash(q, p, 0.2) for p in reps):
            continue
        con, inside = _edge_contrast(wh_blur, q)
        es = _edge_support(grey, q)
        if inside >= 0.6 and es >= _BLOB_OUTLINE and con >= _BLOB_CONTRAST:
            scored.append(([(q, cv2.contourArea(q))] * 2, con, es))  # as if seen twice: kept
            reps.append(q)
    for g, con, es in sorted(scored, key=lambda t: (-len(t[0]), -t[1])):
        if len(g) < 2 and con < _SINGLE_CONTRAST and es < _SHARP_OUTLINE:
            # a faint shape seen at one level only is usually noise
            continue
        areas = np.array([a for _, a in g])
        q = g[int(np.argsort(areas)[len(areas) // 2])][0]  # median-area member
        if any(_clash(q, p, 0.3) for p in picked):
            continue
        picked.append(q)
    for q in row_cands:
        if not any(_clash(q, p, 0.2) for p in picked):
            picked.append(q)
    pairs = [(order_quad(q / scale), None if id(q) not in alts else order_quad(alts[id(q)] / scale))
             for q in picked]
    pairs.sort(key=lambda p: (float(p[0][:, 0].mean())))
    if alternatives is not None:
        alternatives[:] = [alt for _, alt in pairs]
    return [q for q, _ in pairs]


def _blob_cards(cnt: np.ndarray, min_area: float, max_area: float) -> list[np.ndarray]:
    """Card quads ``(4, 2)`` from the outer contour ``cnt`` of one blob of Canny edges.

    A card on a light table whose outline has a gap (and whose picture or index touches
    the outline) leaves no card-shaped hole in the edge map, but the blob's convex hull is
    still the card: ``[quad]`` when the hull is card-shaped, else ``[]``. Detection pixels;
    ``find_cards`` uses these only where no other candidate lies, and only with a clear
    outline all round (``_BLOB_OUTLINE``).
    """
    x, y, w, h = cv2.boundingRect(cnt)
    if w * h < min_area:
        return []
    hull = cv2.convexHull(cnt)
    q = _card_like(hull, min_area, max_area)
    if q is not None:
        return [_grow(q, -1.0)]  # the dilated edge lies ~1 px outside the outline
    return []


def _row_seen(wh: np.ndarray, grey: np.ndarray, box: np.ndarray) -> bool:
    """True when a row of touching cards (its box ``(4, 2)``) stands out like one card."""
    h, w = grey.shape
    span = box.max(axis=0) - box.min(axis=0)
    if span[0] > 0.98 * w and span[1] > 0.98 * h:
        return False
    con, inside = _edge_contrast(wh, box)
    return inside >= 0.6 and _edge_support(grey, box) >= 0.5 and con >= _MIN_CONTRAST


def _edge_contrast(wh: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """Return ``(contrast, inside)`` of a candidate quad on the whiteness map ``wh``.

    ``contrast``: median whiteness of a band just inside the quad (3-10% of its short side)
    minus that of a band just outside it; ``inside``: the fraction of the outer band that
    lies in the frame (a patch of table cut by the frame's edge has little).
    """
    c = q.mean(axis=0)
    d = [math.hypot(*(q[(i + 1) % 4] - q[i])) for i in range(4)]
    short = max(min(d), 4.0)
    def scaled(k: float) -> np.ndarray:
        v = q - c
        n = np.linalg.norm(v, axis=1, keepdims=True)
        return q + v / np.maximum(n, 1e-6) * (k * short)
    o2, o1, i1, i2 = scaled(0.10), scaled(0.03), scaled(-0.03), scaled(-0.10)
    h, w = wh.shape
    x0, y0 = np.floor(o2.min(axis=0)).astype(int)
    x1, y1 = np.ceil(o2.max(axis=0)).astype(int) + 1
    off = np.array([x0, y0], np.float32)
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round(o2 - off).astype(np.int32), 1)
    cv2.fillConvexPoly(m, np.round(o1 - off).astype(np.int32), 0)
    cv2.fillConvexPoly(m, np.round(i1 - off).astype(np.int32), 2)
    cv2.fillConvexPoly(m, np.round(i2 - off).astype(np.int32), 0)
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    mm = m[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    roi = wh[cy0:cy1, cx0:cx1]
    outer = roi[mm == 1]
    inner = roi[mm == 2]
    n_out = int((m == 1).sum())
    if len(inner) == 0 or len(outer) == 0:
        return 0.0, len(outer) / max(n_out, 1)
    return float(np.median(inner)) - float(np.median(outer)), len(outer) / max(n_out, 1)


def _edge_support(grey: np.ndarray, q: np.ndarray, n: int = 16, clip: bool = False) -> float:
    """Return the fraction ``0..1`` of ``4 n`` points along the quad's outline with a grey step.

    At each point the grey profile across the outline (±5% of the short side) must span at
    least 10 grey levels: a card's edge does all round, a patch of unevenly lit table does
    not. A profile that runs out of the frame counts as no step, unless ``clip`` (a
    close-up card filling the frame), where it is read up to the frame's edge.
    """
    h, w = grey.shape
    c = q.mean(axis=0)
    d = [math.hypot(*(q[(i + 1) % 4] - q[i])) for i in range(4)]
    r = max(2.0, 0.05 * min(d))
    t = (np.arange(n) + 0.5) / n
    pts, nrm = [], []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        e = (b - a) / max(d[i], 1e-6)
        nv = np.array([-e[1], e[0]], np.float32)
        if np.dot(nv, (a + b) / 2 - c) < 0:
            nv = -nv
        pts.append(a[None, :] + (b - a)[None, :] * t[:, None])
        nrm.append(np.repeat(nv[None, :], n, axis=0))
    P = np.concatenate(pts)
    N = np.concatenate(nrm)
    offs = np.linspace(-r, r, 7)
    S = P[:, None, :] + N[:, None, :] * offs[None, :, None]  # (4n, 7, 2)
    xs = np.round(S[..., 0]).astype(int)
    ys = np.round(S[..., 1]).astype(int)
    ok = ((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)).all(axis=1)
    if clip:  # a close-up card: a profile running out of the frame is read up to its edge
        ok[:] = True
    if not ok.any():
        return 0.0
    vals = grey[ys[ok].clip(0, h - 1), xs[ok].clip(0, w - 1)].astype(np.int16)
    step = vals.max(axis=1) - vals.min(axis=1)
    return float((step >= 10).sum()) / len(P)


def _clash(a: np.ndarray, b: np.ndarray, iou: float) -> bool:
    """True when quads ``a`` and ``b`` overlap by more than ``iou`` or one contains the other.

    Quads whose bounding boxes do not meet are told apart without the polygon tests (in a
    13-card grid most pairs are such).
    """
    xa, ya, wa, ha = cv2.boundingRect(a)
    xb, yb, wb, hb = cv2.boundingRect(b)
    if xa >= xb + wb or xb >= xa + wa or ya >= yb + hb or yb >= ya + ha:
        return False
    return _iou(a, b) > iou or _contains(b, a) or _contains(a, b)


def _contains(outer: np.ndarray, inner: np.ndarray) -> bool:
    c = inner.sum(axis=0) / 4  # the mean of the 4 corners (ndarray.mean costs more)
    if cv2.pointPolygonTest(outer.reshape(-1, 1, 2).astype(np.float32), (float(c[0]), float(c[1])), False) < 0:
        return False
    return cv2.contourArea(inner) < 0.7 * cv2.contourArea(outer)


def _grow(q: np.ndarray, d: float) -> np.ndarray:
    c = q.mean(axis=0)
    v = q - c
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return (q + v / np.maximum(n, 1e-6) * d * 1.41).astype(np.float32)


def _drop_merged_pairs(groups: list[list[tuple[np.ndarray, float]]]) -> list[list[tuple[np.ndarray, float]]]:
    """Drop a shape that is two touching cards seen as one.

    Two portrait cards side by side make a landscape rectangle of about a card's aspect
    ratio; when two separate card shapes fill it (seen at a stricter level), keep those.
    """
    reps = [g[len(g) // 2][0] for g in groups]
    areas = [cv2.contourArea(q) for q in reps]
    drop = set()
    for i, big in enumerate(reps):
        inside = [j for j in range(len(reps)) if j != i and areas[j] < 0.7 * areas[i]
                  and _contains(big, reps[j]) and areas[j] > 0.3 * areas[i]]
        for a in range(len(inside)):
            for b in range(a + 1, len(inside)):
                ja, jb = inside[a], inside[b]
                if _iou(reps[ja], reps[jb]) < 0.1 and 0.75 * areas[i] < areas[ja] + areas[jb] < 1.1 * areas[i]:
                    drop.add(i)
    return [g for i, g in enumerate(groups) if i not in drop]


def _split_row(cnt: np.ndarray) -> list[np.ndarray]:
    """Cut a rectangle of 3..7 cards touching side by side into one quad per card.

    The rectangle's long side is k card widths (a card is 0.65..0.72 as wide as tall).
    Returns [] when the blob is not such a rectangle.
    """
    rect = cv2.minAreaRect(cnt)
    (w, h) = rect[1]
    if min(w, h) <= 0 or cv2.contourArea(cnt) < 0.9 * w * h:
        return []
    long_, short = max(w, h), min(w, h)
    r = long_ / short
    for aspect in (0.714, 0.65):
        k = int(round(r / aspect))
        if 3 <= k <= 7 and abs(r / k - aspect) < 0.06:
            break
    else:
        return []
    box = order_quad(cv2.boxPoints(rect))  # edge 0->1 is a short edge: walk along 1->2
    a0, a1, b1, b0 = box[0], box[1], box[2], box[3]
    out = []
    for i in range(k):
        t0, t1 = i / k, (i + 1) / k
        p0 = a0 + (b0 - a0) * t0
        p1 = a1 + (b1 - a1) * t0
        p2 = a1 + (b1 - a1) * t1
        p3 = a0 + (b0 - a0) * t1
        out.append(order_quad(np.array([p0, p1, p2, p3], np.float32)))
    return out
