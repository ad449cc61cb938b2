"""Run the benches and write docs/performance.md: one table of every figure, anchor, goal
and ratio (issue 21).

Run:  .venv/bin/python bench/all.py [--quick] [--out FILE] [--only NAME ...]
                                    [--also bench_run.py ...] [--update NAME ...]

Each bench runs as its own process, one after the other, with this Python; its last line
(``name: anchor ...; goal ...; ratio ...``) goes into the summary table, its per-case
figures (equity's cases, the table's seat counts) into the detail tables, and its whole
output into the document, so a reviewer can rerun any line with the command shown beside
it. phevaluator's native peer is built once into a temporary directory and shared by
bench_equity and bench_evaluator. The machine's load (``/proc/loadavg``) is recorded
before and after each bench: the ratios are measured interleaved in one run, the absolute
figures move with the load.

``--quick`` passes each bench its quick options (fewer rounds): for trying, not for the
record, so without ``--out`` it writes a new file in the system's temporary folder (named at
the end), never docs/performance.md (a newcomer's trial overwrote the record); ``--quick
--out docs/performance.md`` writes there all the same. ``--also`` adds other bench scripts
of bench/ (their last line as they print it). ``--update NAME ...`` runs only those benches
and puts their rows, detail tables and outputs into the document that is there, leaving
every other bench's as it was (the header then names what was rerun alone, and when).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: name -> (arguments, quick arguments); {native} is the shared native build folder
BENCHES = {
    "bench_equity.py": (["--native-dir", "{native}"], ["--quick", "--native-dir", "{native}"]),
    "bench_evaluator.py": (["--native-dir", "{native}"],
                           ["--native-dir", "{native}", "--hands", "100000", "--rounds", "3"]),
    "bench_hands.py": ([], ["--hands", "100", "--rounds", "3"]),
    "bench_table.py": ([], ["--hands", "400"]),
    "bench_run.py": ([], ["--ready-sizes", "1,10", "--runs", "1", "--step-hands", "20"]),
    "bench_journal.py": ([], ["--sizes", "1,10", "--runs", "1"]),
}
#: benches not run by default (``--also``, ``--update``) that take options all the same
OPTIONS = {
    "bench_mqtt.py": (["--native-dir", "{native}", "--segments"],
                      ["--native-dir", "{native}", "--actions", "100", "--segments"]),
}
UPDATED = "Rerun alone since (`bench/all.py --update NAME`): "


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "?"


def _fields(last: str) -> dict[str, str]:
    """Split a bench's last line into anchor / goal / ratio / other."""
    name, _, rest = last.partition(": ")
    out = {"name": name, "anchor": "", "goal": "", "ratio": "", "other": []}
    for part in rest.split("; "):
        p = part.strip()
        if p.startswith("anchor"):
            out["anchor"] = p[len("anchor"):].strip()
        elif p.startswith("goal"):
            out["goal"] = p[len("goal"):].strip()
        elif "ratio" in p and not out["ratio"]:
            out["ratio"] = p
        else:
            out["other"].append(p)
    out["other"] = "; ".join(out["other"])
    return out


_EQUITY_CASE = re.compile(
    r"^(holdem|omaha) (pre-flop|flop|turn) +(\d+)p +native +([\d.]+) (ms|us) +ours +([\d.]+) "
    r"(ms|us) +ratio +([\d.]+)x +\(goal >= (\d+)x")
_TABLE_SEATS = re.compile(r"^ ?(\d+) seats, (\d+) hands, ([\d.]+) players")
_TABLE_CLOCK = re.compile(r"^ +(wall|cpu) median +([\d.]+) us, p99 +([\d.]+) us, max +(\d+) us")


def main(argv: list[str] | None = None) -> int:
    """Run the benches, write the document; return 0 (1 when a bench failed)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="each bench's quick options (fewer rounds): a trial, written into the system's "
                         "temporary folder unless --out names a file")
    ap.add_argument("--out", default=None,
                    help="the document to write (default docs/performance.md; with --quick a new "
                         "performance-quick-*.md in the system's temporary folder, so a trial never "
                         "overwrites the record)")
    ap.add_argument("--only", nargs="*", default=None, help="only these benches")
    ap.add_argument("--also", nargs="*", default=[], help="other bench/ scripts to run too")
    ap.add_argument("--update", nargs="+", default=None, metavar="NAME",
                    help="run only these and update their parts of the document that is there")
    args = ap.parse_args(argv)

    native = tempfile.TemporaryDirectory(prefix="phe-native-")
    if args.update is not None:
        names = list(args.update)
    else:
        names = [n for n in BENCHES if args.only is None or n in args.only] + list(args.also)
    runs = []
    failed = False
    for name in names:
        opts = (BENCHES.get(name) or OPTIONS.get(name) or ([], []))[1 if args.quick else 0]
        opts = [o.replace("{native}", native.name) for o in opts]
        cmd = [sys.executable, str(ROOT / "bench" / name), *opts]
        shown = " ".join([".venv/bin/python", f"bench/{name}",
                          *[o if o != native.name else "DIR" for o in opts]])
        before, t0 = _load(), time.time()
        print(f"== {shown}  (load {before})", flush=True)
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        took = time.time() - t0
        lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        last = lines[-1] if lines else "(no output)"
        if proc.returncode:
            failed = True
            last = f"{name}: FAILED (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
        print(last, flush=True)
        runs.append({"name": name, "cmd": shown, "out": proc.stdout, "err": proc.stderr,
                     "last": last, "load": f"{before} -> {_load()}", "seconds": took})
    native.cleanup()

    doc = _document(runs, args.quick, args.also)
    record = Path(args.out) if args.out else ROOT / "docs" / "performance.md"
    if args.update is not None and record.exists():
        doc = splice(record.read_text(), doc, names, args.quick)
    out = record
    if args.quick and not args.out:  # a trial: the record stays as it is
        fd, name = tempfile.mkstemp(prefix="performance-quick-", suffix=".md")
        os.close(fd)
        out = Path(name)
    out.write_text(doc)
    print(f"wrote {out}" + (f" (--quick: a trial; {record.relative_to(ROOT)} is left as it was, "
                            "--out names another file)" if out != record else ""))
    return 1 if failed else 0


def _sections(doc: str, mark: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``doc`` at its lines starting with ``mark`` (``"## "``): (the text before the
    first, [(title line, the section's text from that line on)])."""
    head, out = [], []
    for ln in doc.splitlines(keepends=True):
        if ln.startswith(mark):
            out.append([ln.rstrip("\n"), ln])
        elif out:
            out[-1][1] += ln
        else:
            head.append(ln)
    return "".join(head), [(t, x) for t, x in out]


def splice(old: str, new: str, names: Sequence[str], quick: bool = False) -> str:
    """Put the parts of ``new`` (a document of only ``names``'s runs) into ``old``: their
    summary rows, the detail sections ``new`` has, their whole outputs. The header is
    ``new``'s (this all.py's prose) under ``old``'s "Written by" line, with a line naming
    the benches rerun alone and when."""
    summary, whole = "## Summary", "## Every bench's whole output"
    old_head, parts = _sections(old, "## ")
    new_head, fresh = _sections(new, "## ")
    fresh_by = dict(fresh)
    out = []
    for title, text in parts:
        if title.startswith(summary):
            new_summary = next((x for t, x in fresh if t.startswith(summary)), "")
            lines = text.rstrip("\n").splitlines()
            for row in (r for r in new_summary.splitlines() if r.startswith("| bench_")):
                at = [i for i, ln in enumerate(lines) if ln.split(" | ")[0] == row.split(" | ")[0]]
                if at:
                    lines[at[0]] = row
                else:
                    lines.insert(max(i for i, ln in enumerate(lines) if ln.startswith("|")) + 1, row)
            out.append("\n".join(lines) + "\n\n")
        elif title.startswith(whole):
            sub_head, subs = _sections(text, "### ")
            merged = dict(subs)
            merged.update(dict(_sections(fresh_by.get(title, ""), "### ")[1]))
            out.append(sub_head + "".join(merged.values()))
        else:
            out.append(fresh_by.get(title, text))
    for title, text in fresh:  # detail sections the old document did not have
        if not any(t == title for t, _ in parts) and not title.startswith((summary, whole)):
            at = next((i for i, (t, _) in enumerate(parts) if t.startswith(whole)), len(out))
            out.insert(at, text)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    done = {n: f"{n}{' (--quick)' if quick else ''} on {now}" for n in names}
    old_paras = old_head.split("\n\n")
    for para in old_paras:
        if para.startswith(UPDATED):
            for item in para.strip()[len(UPDATED):].rstrip(".").split("; "):
                done.setdefault(item.split(" ", 1)[0], item)
    written = next((p for p in old_paras if p.startswith("Written by")), None)
    paras = []
    for para in new_head.split("\n\n"):
        if para.startswith("Written by"):
            paras += [written or para, UPDATED + "; ".join(done.values()) + "."]
        else:
            paras.append(para)
    return "\n\n".join(paras) + "".join(out)


def _document(runs: list[dict], quick: bool, also: Sequence[str] = ()) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpu = "?"
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    except OSError:  # pragma: no cover
        pass
    out = [
        "# Performance: every figure, its anchor, its goal and the ratio",
        "",
        "Written by `.venv/bin/python bench/all.py" + (" --quick" if quick else "")
        + "".join(f" --also {a}" for a in also) + "` "
        f"on {now}; {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python "
        f"{platform.python_version()}. Do not edit by hand: run it again.",
        "",
        "Each bench measures ours and its peer interleaved in the same run, so the ratios hold "
        "on a loaded machine while the absolute figures move with the load (the load average, "
        "1/5/15 min, is given before -> after each bench). Equity, evaluator and hands are "
        "timed in CPU time (of the thread or process): a round of a millisecond on the wall "
        "clock of a shared 2-core machine measures the other users. The table gives both "
        "clocks. Where a peer exists the anchor is the fastest real one: phevaluator's C "
        "evaluator in a C loop built at bench time (not its Python wrapper), PokerKit on the "
        "same decisions, and for MQTT a libmosquitto C client built at bench time (not paho). "
        "`bench_run.py` and `bench_journal.py` compare with main as issue 21 measured it, and "
        "`bench_table.py`'s goal is absolute (PokerKit has no table session). Goals are issue "
        "21's (and issue 2's where it set them).",
        "",
        "Two goals are absolute times, not ratios to a peer run beside ours: the table step's "
        "p99 (250 us) and the MQTT action-to-state p99 (10 ms). Their figures hold for the "
        "machine and load given; on a shared machine they grow with the load, so measure them "
        "with the load average below 1. The p99 of `bench_mqtt.py` is its 400 actions' fifth "
        "worst: one stall decides it. `--segments` says where the time went.",
        "",
        "Set-up: `bash scripts/setup.sh --bench` (gcc and Debian's libmosquitto-dev for the "
        "native anchors). `DIR` in the commands below is a folder where the native anchors are "
        "built once and reused (`bench/all.py` gives them one of its own). The first run builds "
        "the native anchors: about 65 s and 1.8 GB of memory at the peak, nearly all of it gcc "
        "on phevaluator's 93 MB of Omaha tables (`tables_plo4.c`, data, already built at -O0: "
        "the memory is the parse of 15.3 M initialisers); a `DIR` kept between runs skips it.",
        "",
        "`bench_run.py` measures memory as the kernel's peak of each process (VmHWM, "
        "wall-clock runs of 200 hands) and READY on journals of 1k, 10k and 50k hands; "
        "`bench_journal.py` the journal's bytes per hand, READY, and compaction's longest hold "
        "of the loop. Not run by default: `bench_mqtt.py` and the device benches (`--also "
        "NAME ...` adds any bench of bench/ with its last line as printed).",
        "",
        "## Summary: one line per bench",
        "",
        "| bench | anchor | goal | ratio | also | load | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        f = _fields(r["last"])
        cells = [r["name"], f["anchor"], f["goal"], f["ratio"], f["other"], r["load"],
                 f"`{r['cmd']}`"]
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")

    eq = next((r for r in runs if r["name"] == "bench_equity.py"), None)
    if eq is not None:
        out += ["", "## Exact equity against native brute force, every case", "",
                "Per call, median of the interleaved rounds; native = phevaluator's evaluator "
                "in a C loop dealing every board (timed inside C); ours = "
                "`controller.engine.equity(...)`, the public call with card texts. Ratio = "
                "native time / ours (>= goal meets it).", "",
                "| game | street | players | native | ours | ratio | goal | meets |",
                "|---|---|---|---|---|---|---|---|"]
        for ln in eq["out"].splitlines():
            m = _EQUITY_CASE.match(ln)
            if m:
                g, st, p, nv, nu, ov, ou, ratio, goal = m.groups()
                ok = "yes" if float(ratio) >= float(goal) else "**no**"
                out.append(f"| {g} | {st} | {p} | {nv} {nu} | {ov} {ou} | {ratio}x | >= {goal}x "
                           f"| {ok} |")

    tb = next((r for r in runs if r["name"] == "bench_table.py"), None)
    if tb is not None:
        out += ["", "## Table step, every seat in the hand", "",
                "| seats | hands | players per hand | clock | median | p99 | max | p99 / 250 us |",
                "|---|---|---|---|---|---|---|---|"]
        seats = None
        for ln in tb["out"].splitlines():
            m = _TABLE_SEATS.match(ln)
            if m:
                seats = m.groups()
                continue
            m = _TABLE_CLOCK.match(ln)
            if m and seats:
                clock, med, p99, mx = m.groups()
                out.append(f"| {seats[0]} | {seats[1]} | {seats[2]} | {clock} | {med} us | "
                           f"{p99} us | {mx} us | {float(p99) / 250:.2f} |")

    out += ["", "## Every bench's whole output", ""]
    for r in runs:
        out += [f"### {r['name']}", "", f"`{r['cmd']}` ({r['seconds']:.0f} s, load {r['load']})",
                "", "```", r["out"].rstrip(), "```", ""]
        if r["err"].strip():
            out += ["stderr:", "", "```", r["err"].strip()[-2000:], "```", ""]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
