"""``livetable recognize IMAGE...``: read the cards in photos, one JSON line per image.

Each line: ``{"file": ..., "cards": ["As", "Td"], "unsure": N, "ms": ...}`` where ``unsure``
counts card-shaped objects found but not named. A file that cannot be read, or is damaged
(truncated or corrupt: :func:`vision.imagefile.read_image`), gives the same object with
``"cards": []`` and an ``"error"`` text; the exit code is then 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import cv2

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command; return 0, 1 if any image could not be read, 2 on usage errors."""
    ap = argparse.ArgumentParser(prog="livetable recognize", description="read the cards in photos")
    ap.add_argument("images", nargs="+", metavar="IMAGE")
    ap.add_argument("--enroll", metavar="FILE", help="house-deck enrolment from `livetable vision enroll`")
    ap.add_argument("--region", metavar="FILE", help="board calibration from `livetable vision calibrate`")
    ap.add_argument("--outline", action="store_true", help="also print each card's outline and confidence")
    ap.add_argument("--no-corners", action="store_true",
                    help="whole cards only: do not read partly covered cards from their corner index")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    from vision.imagefile import read_image
    from vision.recognizer import Recognizer

    enr = region = None
    try:
        if a.enroll:
            from vision.enroll import Enrollment

            enr = Enrollment.load(a.enroll)
        if a.region:
            from vision.calibration import BoardRegion

            region = BoardRegion.load(a.region)
    except ValueError as e:
        print(f"livetable recognize: {e}", file=sys.stderr)
        return 2
    rec = Recognizer(enrollment=enr, corners=not a.no_corners)
    status = 0
    for path in a.images:
        t = time.perf_counter()
        out: dict = {"file": path, "cards": [], "unsure": 0}
        try:
            img = read_image(path)  # a truncated or corrupt file is an error
            if region is not None:
                region.check_frame(img)
            reads = rec.recognize(img, region=region.quad if region is not None else None)
            out["cards"] = [str(r.card) for r in reads if r.card is not None]
            out["unsure"] = sum(1 for r in reads if r.card is None)
            if a.outline:
                out["readings"] = [{"card": str(r.card) if r.card else None, "confidence": round(r.confidence, 3),
                                    "outline": [[round(x, 1), round(y, 1)] for x, y in r.outline]} for r in reads]
        except (ValueError, cv2.error) as e:
            out["error"] = str(e)
            status = 1
        except Exception as e:  # noqa: BLE001 - one bad image must not stop the others
            out["error"] = f"recognizer error: {type(e).__name__}: {e}"
            status = 1
        out["ms"] = round((time.perf_counter() - t) * 1000, 1)
        print(json.dumps(out), flush=True)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
