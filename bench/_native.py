"""Build the benches' native peers at bench time (issue 21: benches against the native peer).

:func:`build_program` compiles one C file of ``bench/native/`` into a program with gcc (the
MQTT anchor, ``mqtt_rtt.c`` against libmosquitto); :func:`load` builds phevaluator's own C
evaluator into a library, as follows.

phevaluator's wheel ships only its compiled Python binding; its C sources are in the sdist
(``_pheval_csrc/src``). :func:`load` fetches the sdist of the installed version with pip
(``pip download --no-binary :all: --no-deps``) unless ``--phe-sdist`` names a copy, builds
those sources with ``bench/native/phe_equity.c`` (a brute-force equity loop and a 7-card
evaluation loop, timed inside C) into a shared library in a temporary directory, and loads it
with ctypes. Nothing built is kept in the repository; the first build takes about a minute
(``tables_plo4.c`` is 93 MB of tables).
"""

from __future__ import annotations

import ctypes
import glob
import subprocess
import sys
import tarfile
import tempfile
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
_KEEP: list[tempfile.TemporaryDirectory] = []



def _work_dir(build_dir: str | Path | None, prefix: str) -> Path:
    """Return ``build_dir`` (made if missing) or, for None, a temporary directory named
    ``prefix...`` kept until the process ends."""
    if build_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix=prefix)
        _KEEP.append(tmp)
        return Path(tmp.name)
    work = Path(build_dir)
    work.mkdir(parents=True, exist_ok=True)
    return work

def load(sdist: str | None = None, cflags: str = "-O3",
         build_dir: str | None = None) -> tuple[ctypes.CDLL, str]:
    """Return (the native library, a one-line description of how it was built).

    ``sdist``: a phevaluator sdist (.tar.gz) or its unpacked folder; None downloads the
    installed version's. ``build_dir``: build there instead of a temporary directory, and
    reuse a library already built there for the same phevaluator version and harness
    (bench/all.py builds once for every bench). Raises RuntimeError when pip or gcc fails.
    """
    version = metadata.version("phevaluator")
    harness = HERE / "native" / "phe_equity.c"
    work = _work_dir(build_dir, "phe-native-")
    if build_dir is not None:
        stamp = work / "built-for.txt"
        want = f"{version} {cflags} {harness.stat().st_mtime_ns}"
        if (work / "phe_native.so").exists() and stamp.exists() and stamp.read_text() == want:
            return _wrap(ctypes.CDLL(str(work / "phe_native.so"))), (
                f"phevaluator {version} C sources + bench/native/phe_equity.c, gcc {cflags}, "
                f"built earlier in {work}")
    if sdist is None:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
             f"phevaluator=={version}", "-d", str(work)], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"pip download of phevaluator {version} failed:\n{proc.stderr}")
        sdist = glob.glob(str(work / "phevaluator-*.tar.gz"))[0]
    src = Path(sdist)
    if src.is_file():
        with tarfile.open(src) as tar:
            tar.extractall(work / "src", filter="data")
        src = work / "src"
    csrc = next(src.rglob("_pheval_csrc"))
    lib = work / "phe_native.so"
    t0 = time.perf_counter()
    # the 93 MB of PLO4 tables are data only: built at -O0 (minutes otherwise)
    objs = []
    for c in sorted((csrc / "src").glob("*.c")):
        obj = work / (c.stem + ".o")
        flags = "-O0" if c.name.startswith("tables_plo") else cflags
        cmd = ["gcc", flags, "-fPIC", "-c", str(c), "-I", str(csrc / "include"), "-I",
               str(csrc / "src"), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"gcc failed on {c.name}:\n{proc.stderr}")
        objs.append(str(obj))
    proc = subprocess.run(["gcc", cflags, "-shared", "-fPIC", str(harness), *objs, "-o", str(lib)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"gcc failed on {harness.name}:\n{proc.stderr}")
    if build_dir is not None:
        (work / "built-for.txt").write_text(want)
    how = (f"phevaluator {version} C sources (sdist) + bench/native/phe_equity.c, "
           f"gcc {cflags} (PLO4 tables -O0, data only), built in {time.perf_counter() - t0:.0f} s")
    return _wrap(ctypes.CDLL(str(lib))), how


def build_program(source: str, libs: tuple[str, ...] = (), cflags: str = "-O2",
                  build_dir: str | None = None) -> tuple[Path, str]:
    """Compile ``bench/native/<source>`` with gcc into a program; return (its path, a one-line
    description of how it was built).

    ``libs``: linked as ``-l<name>``. ``build_dir``: build there instead of a temporary
    directory (kept until the process ends), and reuse a program already built there from
    the same source and flags. Raises RuntimeError when gcc fails (its message says why: a
    missing header names the Debian package to install).
    """
    src = HERE / "native" / source
    work = _work_dir(build_dir, "bench-native-")
    exe = work / src.stem
    stamp = work / f"{src.stem}.built-for.txt"
    want = f"{cflags} {' '.join(libs)} {src.stat().st_mtime_ns}"
    if build_dir is not None and exe.exists() and stamp.exists() and stamp.read_text() == want:
        return exe, f"bench/native/{source}, gcc {cflags}, built earlier in {work}"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(["gcc", *cflags.split(), str(src), "-o", str(exe),
                               *[f"-l{lib}" for lib in libs]], capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(f"gcc could not run: {exc}") from None
    if proc.returncode:
        raise RuntimeError(f"gcc failed on {source}:\n{proc.stderr.strip()}")
    stamp.write_text(want)
    return exe, f"bench/native/{source}, gcc {cflags}, built in {time.perf_counter() - t0:.1f} s"


def _wrap(dll: ctypes.CDLL) -> ctypes.CDLL:
    """Declare the harness's functions."""
    i64p = ctypes.POINTER(ctypes.c_int64)
    ip = ctypes.POINTER(ctypes.c_int)
    dll.run_spots.restype = ctypes.c_double
    dll.run_spots.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ip, ctypes.c_int, ip,
                              i64p, i64p]
    dll.run_7cards.restype = ctypes.c_double
    dll.run_7cards.argtypes = [ctypes.c_int, ip, i64p]
    return dll


def int_array(values: list[int]) -> ctypes.Array:
    """A ctypes int array of the values."""
    return (ctypes.c_int * max(1, len(values)))(*values)


def i64_array(n: int) -> ctypes.Array:
    """A zeroed ctypes int64 array of n items."""
    return (ctypes.c_int64 * max(1, n))()
