"""Glyph advances of pygame's bundled font, so the layout can measure text without SDL.

The dealer display draws every text in ``freesansbold.ttf`` (``pygame.font.get_default_font()``).
:func:`approx_measure` gives an upper bound of the pixel size pygame renders a text at, from
the glyph advances and heights below (1/1000 em: what ``Font.size`` gives at 1000 px). It ignores kerning and
adds 3 % plus a pixel per glyph for hinting and an eighth of the size for overhangs, so it never under-measures
(``tests/display/test_display_layout.py`` checks that against the real font). Characters not in
the table count as the widest glyph.

Regenerate the table with ``python -m display.fontmetrics`` (prints the module body).
"""

from __future__ import annotations

__all__ = ["approx_measure", "advance_units"]

_CHARS = (
    ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFG'
    'HIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmno'
    'pqrstuvwxyz{|}~\xa0¡¢£¤¥¦§¨©ª«¬\xad®¯°±²³´µ¶·¸'
    '¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßà'
    'áâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ…—–·•×’‘“'
    '”€'
)
_WIDTHS = (
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 614,
    556, 556, 643, 556, 633, 618, 556, 627, 626, 333, 333, 584, 584, 584, 611, 975, 722,
    722, 722, 722, 667, 611, 778, 722, 278, 556, 798, 611, 833, 722, 778, 667, 859, 722,
    667, 611, 722, 667, 944, 753, 667, 611, 333, 301, 333, 584, 600, 333, 556, 672, 556,
    672, 556, 333, 673, 611, 278, 278, 656, 278, 889, 611, 611, 672, 672, 389, 556, 436,
    611, 556, 778, 656, 556, 564, 389, 280, 389, 584, 432, 333, 556, 556, 556, 556, 280,
    556, 333, 765, 370, 556, 584, 432, 765, 333, 606, 584, 351, 351, 333, 611, 556, 278,
    333, 351, 365, 556, 869, 869, 869, 611, 722, 722, 722, 722, 722, 722, 1000, 722, 667,
    667, 667, 667, 288, 290, 318, 296, 722, 722, 778, 778, 778, 778, 778, 584, 778, 722,
    722, 722, 722, 667, 667, 611, 556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556,
    556, 288, 290, 318, 296, 611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611,
    611, 556, 611, 556, 1000, 1010, 566, 278, 350, 584, 278, 278, 500, 500, 556,
)
_HEIGHTS = (
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1018, 1000, 1000, 1018, 1000, 1000, 1000, 1000, 1000, 1018, 1018, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1019, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1001, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1020, 1000, 1000, 1020, 1000, 1000, 1000, 1000, 1000, 1000,
    1004, 1136, 1135, 1136, 1128, 1123, 1149, 1000, 1020, 1136, 1136, 1136, 1123, 1136,
    1136, 1136, 1123, 1000, 1128, 1136, 1136, 1136, 1128, 1123, 1000, 1000, 1136, 1136,
    1136, 1123, 1136, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1020, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000, 1019, 1018, 1019, 1000, 1000, 1000, 1000, 1000,
    1000, 1000, 1000, 1000, 1000, 1000,
)

_ADVANCE: dict[str, int] = dict(zip(_CHARS, _WIDTHS))
_WIDEST = max(_WIDTHS)
_HEIGHT: dict[str, int] = dict(zip(_CHARS, _HEIGHTS))
_TALLEST = max(_HEIGHTS)


def advance_units(text: str) -> int:
    """Return the sum of the glyph advances of ``text`` in 1/1000 em (unknown glyphs: widest)."""
    return sum(_ADVANCE.get(ch, _WIDEST) for ch in text)


def approx_measure(text: str, size: int) -> tuple[int, int]:
    """Return an upper bound ``(width, height)`` in pixels of ``text`` drawn at ``size`` px.

    ``size`` is the pygame font size in pixels (``pygame.font.Font(path, size)``); the
    height is the font's line height (the tallest glyph's, which accents raise). Pure: needs no SDL.

    Raises:
        ValueError: ``size`` is not a positive integer.
    """
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"font size must be a positive integer of pixels, got {size!r}")
    if not text:
        return 0, size + 1
    units = advance_units(text)
    tall = max(_HEIGHT.get(ch, _TALLEST) for ch in text)
    width = -(-(units * size * 103) // 100_000) + len(text) + -(-size // 8) + 2
    height = -(-(tall * size) // 1000) + -(-size // 25) + 2
    return width, height


def _generate() -> str:  # pragma: no cover - maintenance helper
    import os

    import pygame

    pygame.font.init()
    path = os.path.join(os.path.dirname(pygame.__file__), pygame.font.get_default_font())
    font = pygame.font.Font(path, 1000)
    # the widest of: the glyph's advance, its box alone, its advance in a run; the line height
    return "\n".join(
        f"{ch!r}: {max(font.metrics(ch)[0][4], font.size(ch)[0], -(-(font.size(ch * 11)[0] - font.size(ch)[0]) // 10))}"
        f" {font.size(ch)[1]}" for ch in _CHARS
    )


if __name__ == "__main__":  # pragma: no cover
    print(_generate())
