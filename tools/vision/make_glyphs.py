"""Write vision/data/glyphs.npz: synthetic rank and suit glyphs (fonts + drawn pips).

Usage: .venv/bin/python tools/vision/make_glyphs.py [OUT]

Only fonts that ship with the system (DejaVu, Liberation) or pygame (FreeSans Bold) and the OpenCV
Hershey fonts are drawn; no photograph is used (issue 6: no fitting to the dev photos).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vision.glyphs import BANK_PATH, build_glyph_bank  # noqa: E402


def main(argv: list[str]) -> int:
    """Build and save the bank; print its size."""
    out = Path(argv[0]) if argv else BANK_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    bank = build_glyph_bank()
    bank.save(out)
    print(f"{out}: {len(bank.rank_y)} rank glyphs, {len(bank.suit_y)} suit glyphs, {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
