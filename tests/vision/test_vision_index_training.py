"""The corner-index classifier's training data (issue 6, tools/vision/train_index_net.py).

The script runs without torch up to the training itself, so its font discovery, its pips
drawn from fonts and its synthetic glyphs are tested here; the shipped network is checked
on fresh synthetic glyphs it was not trained on.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from vision.glyphs import draw_suit
from vision.index_net import CLASSES, SIZE, IndexNet, RANKS, SUITS

REPO = Path(__file__).resolve().parents[2]
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture(scope="module")
def train():
    spec = importlib.util.spec_from_file_location("train_index_net", REPO / "tools" / "vision" / "train_index_net.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _touch(root: Path, *names: str) -> None:
    for n in names:
        p = root / n
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")


def test_find_fonts_takes_upright_text_faces_once(train, tmp_path):
    _touch(tmp_path / "a", "Courier Prime.otf", "Courier Prime Italic.otf", "texgyreschola-bold.otf",
           "DejaVuSans-Oblique.ttf", "StandardSymbolsPS.otf", "RobotoSlab-Thin.otf", "readme.txt",
           "LiberationSerif-Regular.ttf", "NotoSans-CondensedBold.ttf", "NotoSans-Regular.ttf",
           "NotoSansArabic-Regular.ttf", "NotoSans-CondensedLight.ttf", "NotoSerif-ExtraCondensed.ttf")
    _touch(tmp_path / "b" / "deep", "LiberationSerif-Regular.ttf", "FreeMono.ttf")
    got = train.find_fonts([str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "missing")])
    names = [os.path.basename(p) for p in got if os.path.basename(p) != "freesansbold.ttf"]
    assert names == ["Courier Prime.otf", "FreeMono.ttf", "LiberationSerif-Regular.ttf",
                     "NotoSans-CondensedBold.ttf", "NotoSans-Regular.ttf", "NotoSerif-ExtraCondensed.ttf",
                     "texgyreschola-bold.otf"]
    assert any(p.endswith("/a/LiberationSerif-Regular.ttf") for p in got)  # the first place wins


def test_font_pips_are_solid_and_of_their_own_suit(train, tmp_path):
    if not os.path.exists(DEJAVU):
        pytest.skip(f"{DEJAVU} is absent (Debian's fonts-dejavu-core)")
    bogus = tmp_path / "bogus.ttf"
    bogus.write_bytes(b"not a font")
    pips = train.font_pips([DEJAVU, str(bogus)])
    assert sorted(pips) == sorted(SUITS)
    for s, ims in pips.items():
        assert len(ims) == 1, s  # DejaVu Sans only: the bogus file gives nothing
        im = ims[0]
        # the reader knows the ink's colour: a pip must not look like the other suit of it
        other = {"c": "s", "s": "c", "d": "h", "h": "d"}[s]
        assert train._overlap(im, draw_suit(s, 96, 0.0)) > train._overlap(im, draw_suit(other, 96, 0.0)), s


def test_an_outlined_pip_is_not_solid(train):
    ring = np.zeros((100, 100), np.uint8)
    yy, xx = np.mgrid[:100, :100]
    d = np.hypot(yy - 50, xx - 50)
    ring[(d < 40) & (d > 30)] = 255
    disc = ((d < 40) * 255).astype(np.uint8)
    assert train._solid(disc) and not train._solid(ring) and not train._solid(None)


def test_make_data_gives_every_class_deterministically(train):
    x, y = train.make_data(5, per_rank=6, per_suit=6, n_other=24, fonts=[])  # Hershey fonts only
    assert x.dtype == np.float32 and x.shape == (len(y), 1, SIZE, SIZE)
    assert 0.0 <= x.min() and x.max() <= 1.0 + 1e-5
    counts = np.bincount(y, minlength=len(CLASSES))
    assert all(4 <= c <= 6 for c in counts[:len(RANKS) + len(SUITS)]), counts
    assert 18 <= counts[-1] <= 24
    x2, y2 = train.make_data(5, per_rank=6, per_suit=6, n_other=24, fonts=[])
    assert np.array_equal(y, y2) and np.array_equal(x, x2)
    x3, _ = train.make_data(6, per_rank=6, per_suit=6, n_other=24, fonts=[])
    assert not np.array_equal(x, x3)


def test_rank_drawings_use_the_given_fonts(train):
    if not os.path.exists(DEJAVU):
        pytest.skip(f"{DEJAVU} is absent (Debian's fonts-dejavu-core)")
    hershey = train.rank_drawings("7", [])
    more = train.rank_drawings("7", [DEJAVU])
    assert len(more) == len(hershey) + 1 and more[-1].any()
    tens = train.rank_drawings("10", [DEJAVU])
    assert len(tens) == len(more) + 3 * len(more)  # "10" typed, and "1" + "0" composed at 3 gaps


def test_degrade_gives_a_reader_sized_mask(train):
    rng = np.random.default_rng(0)
    im = train.rank_drawings("K", [])[0]
    heights = []
    for _ in range(20):
        m = train.degrade(im, rng)
        assert m is not None and m.dtype == np.uint8 and set(np.unique(m)) <= {0, 255}
        ys = np.nonzero(m)[0]
        heights.append(ys.max() - ys.min() + 1)
    assert 16 <= np.median(heights) <= 32  # the reader scales a rank to ~24 px


def test_the_shipped_net_reads_fresh_synthetic_glyphs(train):
    # glyphs from another seed than training, Hershey fonts only (no system font needed)
    x, y = train.make_data(4242, per_rank=12, per_suit=12, n_other=60, fonts=[])
    net = IndexNet()
    net.net.setInput(x)
    pred = net.net.forward().reshape(len(y), len(CLASSES)).argmax(axis=1)
    assert float((pred == y).mean()) >= 0.85
    glyphs = pred[y < len(RANKS) + len(SUITS)] == y[y < len(RANKS) + len(SUITS)]
    assert float(glyphs.mean()) >= 0.85
