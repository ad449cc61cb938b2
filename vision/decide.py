"""Naming a card from what its indices and centre pips say, or refusing (issue 6: never guess).

:func:`decide` weighs the two corner readings and the pip reading of one upright card
against the thresholds of :class:`Params`; :func:`_said_rank` reads back the rank a refusal
names. Pure: no image here. Moved out of :mod:`vision.recognizer` (issue 22).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from vision.glyphs import RANK_LABELS
from vision.reading import CornerRead, PipRead

__all__ = ["Params", "decide"]


@dataclass
class Params:
    """Thresholds of :func:`decide` (cosine similarities and margins)."""

    strong_score: float = 0.86   # one index alone
    strong_margin: float = 0.05
    wide_score: float = 0.78     # one index far ahead of any other rank
    wide_margin: float = 0.25
    pair_score: float = 0.75     # both indices read the same rank
    pair_margin: float = 0.03
    court_margin: float = 0.06   # J, Q, K have no pip count to back them: a wider margin
    court_suit_margin: float = 0.08  # ... and their suit rests on the small index pips alone
    pip_score: float = 0.55      # the index and the pip count (or court picture) agree
    court_pip_score: float = 0.60  # ... a court picture: it backs J/Q/K, not which of them
    pip_margin: float = 0.01
    court_pip_margin: float = 0.04  # ... a court picture: the index must lead by more
    suit_margin: float = 0.08    # the suit vote (index and pip margins) needed
    pair_suit_margin: float = 0.03
    pip_suit_margin: float = 0.04  # a big pip's suit
    picture: float = 0.04        # colourful centre fraction that means a court card
    pip_rescue: float = 0.04     # how close the pip-count rank must score to the index's best
    faint_picture: float = 0.01  # a pale court picture, enough when both indices agree:
    court_pair_score: float = 0.65
    court_pair_margin: float = 0.08


_RANK_VALUE = {"A": 1, "J": 11, "Q": 12, "K": 13, "10": 10}


def _rank_value(rank: str) -> int:
    return _RANK_VALUE.get(rank) or int(rank)


def decide(reads: Sequence[CornerRead], pips: PipRead, p: Params) -> tuple[str | None, float, str]:
    """Name a card from its two index readings and its pips, or refuse.

    Returns ``(card text or None, confidence 0..1, why-not text)``. The rank is named only
    when a strong index reading, both indices, or an index and the pip count back it; the
    suit when the colour agrees and the index and pip shapes together vote for it by a
    margin. Any clear contradiction (two credible indices naming different ranks, a pip
    count or a strong suit vote that disagrees) makes the card unsure (issue 6: never
    guess).
    """
    # a rank cut with no suit pip under it is suspect (the pip may have merged into it)
    rs = [r for r in reads if r.rank is not None and r.suit is not None]
    if not rs:
        return None, 0.0, "no index read"
    # ---- rank
    rs.sort(key=lambda r: -r.rank_score)
    top = rs[0]
    rank = top.rank
    assert rank is not None
    val = _rank_value(rank)
    same = [r for r in rs if r.rank == rank]
    for r in rs[1:]:
        if r.rank != rank and r.rank_score >= p.pair_score and r.rank_margin >= p.pair_margin:
            return None, 0.0, f"indices disagree: {rank} or {r.rank}"
    both = len(same) == 2
    court = pips.picture >= p.picture
    if pips.count == 10 and pips.area >= 0.012 and rank != "10":
        if top.rank_score >= p.strong_score and top.rank_margin >= p.strong_margin:
            return None, 0.0, f"index says {rank}, 10 pips"
        rank, val, top = "10", 10, CornerRead(rank="10", rank_score=p.pip_score, rank_margin=p.pip_margin)
        same = [r for r in rs if r.rank in ("10", None)] or rs
    elif pips.count == 10 and pips.area >= 0.012 and top.rank_score < p.pip_score:
        # ten pips carry the rank as they do above, where the index names another rank: an
        # index that names 10 itself, only weakly, must not count for less
        top = replace(top, rank_score=p.pip_score, rank_margin=max(top.rank_margin, p.pip_margin))
    pip_ok = (2 <= val <= 10 and pips.count == val) or (val >= 11 and court) or \
        (val == 1 and pips.count == 1 and pips.area >= 0.02 and pips.picture < p.faint_picture)
    if val <= 10 and pips.picture >= 1.25 * p.picture:
        return None, 0.0, f"index says {rank}, picture seen"
    faint_court = val >= 11 and pips.picture >= p.faint_picture and both and \
        min(r.rank_score for r in same) >= p.court_pair_score and \
        min(r.rank_margin for r in same) >= p.court_pair_margin
    rank_ok = faint_court or (top.rank_score >= p.strong_score and top.rank_margin >= p.strong_margin) or \
        (top.rank_score >= p.wide_score and top.rank_margin >= p.wide_margin) or \
        (both and min(r.rank_score for r in same) >= p.pair_score
         and min(r.rank_margin for r in same) >= (p.court_margin if val >= 11 else p.pair_margin)) or \
        (pip_ok and top.rank_score >= (p.court_pip_score if val >= 11 else p.pip_score)
         and top.rank_margin >= (p.court_pip_margin if val >= 11 else p.pip_margin))
    if 2 <= val <= 10 and pips.count >= 2 and pips.count != val:
        # the pips are counted right far more often than an index glyph is read right:
        # take their count when the index finds that rank nearly as likely as its best
        alt = str(pips.count)
        k = RANK_LABELS.index(alt) if alt in RANK_LABELS else -1
        near = [r for r in rs if k >= 0 and r.rank_scores is not None and r.rank_scores[k] >= p.pip_score
                and r.rank_scores[k] >= r.rank_score - p.pip_rescue]
        if pips.area < 0.012 or not near or any(
                r.rank == rank and r.rank_margin >= p.strong_margin and r.rank_score >= p.strong_score for r in rs):
            return None, 0.0, f"index says {rank}, {pips.count} pips"
        rank, val = alt, pips.count
        top = CornerRead(rank=alt, rank_score=max(float(r.rank_scores[k]) for r in near),  # type: ignore[index]
                         rank_margin=p.pip_margin)  # (near holds readings with rank_scores only)
        same = [r for r in rs if r in near]
    if val == 1 and pips.count >= 2:
        return None, 0.0, f"index says A, {pips.count} pips"
    if val >= 11 and pips.count >= 5:
        return None, 0.0, f"index says {rank}, {pips.count} pips"
    if val >= 11 and 2 <= pips.count <= 10 and pips.picture < p.faint_picture and any(
            r.rank_scores is not None and r.rank_scores[RANK_LABELS.index(str(pips.count))] >= p.pip_score
            for r in rs):
        # equal big pips and no picture: a number card whose index (its top cut off, say)
        # matched a court rank; the index finds the counted rank credible too
        return None, 0.0, f"index says {rank}, {pips.count} pips and no picture"
    if val >= 11 and pips.count == 1 and pips.area >= 0.02 and pips.picture < p.faint_picture:
        return None, 0.0, f"index says {rank}, but the centre holds one big pip, no picture"
    if val >= 11 and pips.count == 0 and pips.picture < p.faint_picture:
        # a court name with nothing in the centre to back it (no picture, no pip): an index
        # whose number lost its left side reads a court rank as surely (a 5c read Jc)
        return None, 0.0, f"index says {rank}, but no picture"
    if not rank_ok:
        return None, 0.3, f"rank {rank} not sure enough ({top.rank_score:.2f}/{top.rank_margin:.2f})"
    # ---- suit: colour first, then a signed vote within the colour
    # a court card's "pips" are parts of its picture: their colour and shape say nothing
    use_pips = val <= 10 and pips.suit is not None
    reds = [r.red for r in same if r.red is not None]
    if use_pips and pips.red is not None:
        reds.append(pips.red)
    if not reds or len(set(reds)) > 1:
        return None, 0.3, "ink colour unclear"
    red = reds[0]
    pair = ("h", "d") if red else ("s", "c")
    if use_pips and pips.shape_suit is not None and pips.shape_suit not in pair:
        # a big pip shaped like the other colour's suit (a heart under washed-out red ink
        # that reads black): shape and colour disagree
        return None, 0.3, f"ink looks {'red' if red else 'black'}, the pips are shaped like {pips.shape_suit}"
    vote = 0.0
    votes = []
    for r in same:
        if r.suit in pair:
            v = r.suit_margin if r.suit == pair[0] else -r.suit_margin
            votes.append(v)
            vote += v
    if use_pips and pips.suit in pair:
        v = (pips.suit_margin if pips.suit == pair[0] else -pips.suit_margin) * 1.5
        votes.append(v)
        vote += v
    if not votes:
        return None, 0.3, "no suit read"
    suit = pair[0] if vote > 0 else pair[1]
    strong_against = [v for v in votes if (v > 0) != (vote > 0) and abs(v) >= 1.5 * p.suit_margin]
    need = p.suit_margin if len(votes) == 1 else p.pair_suit_margin + p.suit_margin * 0.5
    if not use_pips:  # no big pip to back the small index pips (court cards, aces with none)
        need = max(need, p.court_suit_margin)
    if abs(vote) < need or strong_against:
        return None, 0.3, f"suit not sure enough ({vote:+.2f})"
    text = ("T" if rank == "10" else rank) + suit
    conf = 0.5 + 0.2 * min(top.rank_margin / 0.2, 1.0) + 0.1 * both + 0.1 * pip_ok + 0.1 * min(abs(vote) / 0.3, 1.0)
    return text, min(conf, 1.0), ""


def _said_rank(why: str) -> str | None:
    """The rank that :func:`decide`'s refusal ``why`` says the best index reads ("rank 6 not
    sure enough ...", "index says 6, 2 pips" -> "6"), or None when it names none."""
    for head in ("rank ", "index says "):
        if why.startswith(head):
            word = why[len(head):].split(" ", 1)[0].rstrip(",")
            return word if word in RANK_LABELS else None
    return None
