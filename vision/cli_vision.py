"""``livetable vision enroll|calibrate``: house-deck enrolment and board calibration.

- ``livetable vision enroll --out DECK.npz PHOTO... [--cards "As Kd" | --labels CSV] [--append]``
  enrols the table's own deck. Each photo's cards come from ``--cards`` (one photo), from a
  CSV with ``file,cards`` columns, or from the file name (``As.jpg``, ``Jh_8c_3d.png``).
- ``livetable vision calibrate --out BOARD.json (IMAGE | --quad x,y,x,y,x,y,x,y --frame W,H)``
  writes the board region, found from the cards laid out in IMAGE or given by hand.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

import numpy as np

from vision.imagefile import ImageFileError, read_image

__all__ = ["main"]


def _cards_for(path: str, given: str | None, labels: dict[str, str]) -> str:
    if given:
        return given
    base = os.path.basename(path)
    if base in labels:
        return labels[base]
    stem = os.path.splitext(base)[0].replace("_", " ").replace("-", " ")
    return stem


def _read_labels(path: str) -> dict[str, str]:
    """Return ``{photo file name: cards}`` from a CSV with ``file`` and ``cards`` columns.

    Raises:
        OSError: the file cannot be read.
        ValueError: not UTF-8 text, or the header lacks ``file`` or ``cards``.
    """
    with open(path, newline="", encoding="utf-8") as f:
        rows = csv.DictReader(f)
        try:
            cols = [c.strip() for c in rows.fieldnames or []]
        except UnicodeDecodeError:
            raise ValueError("not a UTF-8 text CSV file") from None
        missing = [c for c in ("file", "cards") if c not in cols]
        if missing:
            raise ValueError(f"no {' or '.join(repr(c) for c in missing)} column: the first line must be "
                             f"`file,cards` (found {', '.join(repr(c) for c in cols) or 'nothing'})")
        rows.fieldnames = cols
        try:
            return {os.path.basename((r["file"] or "").strip()): (r["cards"] or "") for r in rows}
        except UnicodeDecodeError:
            raise ValueError("not a UTF-8 text CSV file") from None


def _enroll(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="livetable vision enroll", description="enrol the house deck")
    ap.add_argument("photos", nargs="+", metavar="PHOTO")
    ap.add_argument("--out", required=True, help="enrolment file to write (.npz)")
    ap.add_argument("--cards", help="the cards in the photo, reading order (one photo)")
    ap.add_argument("--labels", help="CSV with file,cards columns")
    ap.add_argument("--append", action="store_true", help="add to an existing enrolment file")
    a = ap.parse_args(argv)
    from controller.engine.cards import CardError
    from vision.enroll import Enrollment, EnrollError, enroll_image

    err = "livetable vision enroll:"
    out_dir = os.path.dirname(os.path.abspath(a.out))
    if os.path.isdir(a.out):
        print(f"{err} --out {a.out} is a directory: give the enrolment file's name (e.g. {a.out}/deck.npz)",
              file=sys.stderr)
        return 2
    if not os.path.isdir(out_dir):
        print(f"{err} --out {a.out}: the directory {out_dir} does not exist", file=sys.stderr)
        return 2
    labels: dict[str, str] = {}
    if a.labels:
        try:
            labels = _read_labels(a.labels)
        except (OSError, ValueError, csv.Error) as e:
            print(f"{err} labels {a.labels}: {e}", file=sys.stderr)
            return 2
    enr = Enrollment.empty()
    if a.append and os.path.exists(a.out):
        try:
            enr = Enrollment.load(a.out)
        except EnrollError as e:
            print(f"{err} cannot --append: {e}", file=sys.stderr)
            return 2
    bad = 0
    for p in a.photos:
        try:
            img = read_image(p)  # a truncated or corrupt photo is not enrolled
        except ImageFileError as e:
            print(f"{p}: {e}, skipped", file=sys.stderr)
            bad += 1
            continue
        try:
            n = enroll_image(enr, img, _cards_for(p, a.cards, labels))
            print(f"{p}: {n} corner glyphs")
        except CardError as e:
            if a.cards or os.path.basename(p) in labels:
                print(f"{p}: {e}, skipped", file=sys.stderr)
            else:  # the file name was taken for the cards
                print(f"{p}: no cards given for this photo (--cards \"As Kd\", --labels files.csv, or a file "
                      f"name such as As.jpg or Jh_8c_3d.png; read from its name: {e}), skipped", file=sys.stderr)
            bad += 1
        except EnrollError as e:
            print(f"{p}: {e}, skipped", file=sys.stderr)
            bad += 1
    if enr.count == 0:
        print("livetable vision enroll: nothing enrolled", file=sys.stderr)
        return 1
    try:
        enr.save(a.out)
    except OSError as e:
        print(f"{err} cannot write {a.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {a.out}: {enr.count} rank glyphs ({bad} photos skipped)")
    return 0 if bad == 0 else 1


def _numbers(text: str, n: int, what: str, form: str) -> list[float]:
    try:
        v = [float(x) for x in text.split(",")]
    except ValueError:
        v = []
    if len(v) != n:
        raise ValueError(f"{what} needs {n} numbers {form}, got {text!r}")
    return v


def _quad_and_frame(quad: str, frame: str | None) -> tuple[np.ndarray, tuple[float, float]]:
    """Parse ``--quad`` and ``--frame``; the values themselves are checked by ``BoardRegion``."""
    if not frame:
        raise ValueError("--quad needs --frame W,H: the size of the camera's frames in pixels")
    q = _numbers(quad, 8, "--quad", "x,y,x,y,x,y,x,y (the board's corners in frame pixels)")
    fw, fh = _numbers(frame, 2, "--frame", "W,H (e.g. 1280,720)")
    return np.array(q, np.float64).reshape(4, 2), (fw, fh)


def _joined_values(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``--quad -20,5,...`` as ``--quad=-20,5,...``: argparse takes a value starting with
    "-" (a corner left of or above the frame: ``-20``, ``-.5``, ``-inf``) for an option and
    would say only "expected one argument"; joined, the value reaches the check that says
    what is wrong with it. An abbreviated option (``--qu``) is joined under its full name."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name = next((o for o in options if arg.startswith("--") and len(arg) > 2 and o.startswith(arg)), None)
        if name is not None and i + 1 < len(argv) and argv[i + 1].startswith("-") and not argv[i + 1].startswith("--"):
            out.append(f"{name}={argv[i + 1]}")  # an abbreviation as argparse allows it
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _calibrate(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="livetable vision calibrate", description="set the board region")
    ap.add_argument("image", nargs="?", help="a frame with the board cards laid out")
    ap.add_argument("--out", required=True, help="calibration file to write (.json)")
    ap.add_argument("--quad", help="x,y,x,y,x,y,x,y in frame pixels, clockwise")
    ap.add_argument("--frame", help="W,H of the frames (with --quad)")
    a = ap.parse_args(_joined_values(argv, ("--quad", "--frame")))
    from vision.calibration import BoardRegion, CalibrationError, calibrate_from_image

    try:
        if a.quad:
            region = BoardRegion(*_quad_and_frame(a.quad, a.frame))  # type: ignore[arg-type]  # checked there
        elif a.image:
            try:
                img = read_image(a.image)
            except ImageFileError as e:
                raise CalibrationError(str(e)) from None
            region = calibrate_from_image(img)
        else:
            raise CalibrationError("vision: give an IMAGE or --quad and --frame")
    except (CalibrationError, ValueError) as e:
        print(f"livetable vision calibrate: {e}", file=sys.stderr)
        return 2
    try:
        region.save(a.out)
    except OSError as e:
        print(f"livetable vision calibrate: cannot write {a.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(region.to_json())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``enroll`` / ``calibrate``; return the exit code (2 on usage errors)."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: livetable vision enroll|calibrate [options]  (--help for each)"
    if args[:1] in (["-h"], ["--help"]):
        print(usage)
        return 0
    if not args or args[0] not in ("enroll", "calibrate"):
        print(usage, file=sys.stderr)
        return 2
    try:
        return (_enroll if args[0] == "enroll" else _calibrate)(args[1:])
    except SystemExit as e:  # argparse
        return int(e.code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
