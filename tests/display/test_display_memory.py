"""The display's memory (issue 21): its cache of rendered texts is bounded in bytes, so new
pots, stacks and timer texts all night do not pile up (1,024 of them held some 35 MB)."""

from __future__ import annotations

import pygame

from display.render import Renderer


def test_rendered_texts_kept_stay_within_the_byte_budget() -> None:
    pygame.font.init()
    r = Renderer()
    surface = pygame.Surface((1280, 720))
    # A night of pots and stacks: every amount a new text, at the display's big sizes.
    for amount in range(1, 1200):
        r._render(f"POT {amount * 25:,}", 72, (255, 255, 255))  # noqa: SLF001 - what draw() calls
        r._render(f"{amount * 100:,}", 40, (250, 250, 250))  # noqa: SLF001
    held = sum(s.get_width() * s.get_height() * s.get_bytesize() for s in r._texts.values())  # noqa: SLF001
    assert held <= 2 * 1024 * 1024, f"{held / 1e6:.1f} MB of rendered texts kept"  # the display's budget
    assert held <= Renderer.CACHE_BYTES
    assert held == r.cached_bytes
    # The texts of the frame drawn now are kept: the next frame draws them from the cache.
    again = r._render("POT 29,975", 72, (255, 255, 255))  # noqa: SLF001
    assert r._render("POT 29,975", 72, (255, 255, 255)) is again  # noqa: SLF001
    surface.blit(again, (0, 0))
