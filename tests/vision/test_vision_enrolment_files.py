"""Enrolment files: every damaged file is one clear error, and saving never leaves half a file
(issue 6: bad input gives a clear error, the table keeps running)."""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest

from controller.cli import main as livetable
from vision import cli_vision
from vision.enroll import Enrollment, EnrollError
from vision.glyphs import FEATURE_LEN


def _small(n: int = 3, seed: int = 0) -> Enrollment:
    """A valid enrolment of ``n`` random glyph features (quick to write and read)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, FEATURE_LEN)).astype(np.float32)
    return Enrollment(x, np.arange(n, dtype=np.int16) % 13, x.copy(), np.arange(n, dtype=np.int16) % 4)


def _arrays(e: Enrollment) -> dict[str, np.ndarray]:
    return {"format": np.array(1), "rank_x": e.rank_x, "rank_y": e.rank_y, "suit_x": e.suit_x, "suit_y": e.suit_y}


def _bad_files(tmp_path) -> dict[str, tuple[str, str]]:
    """Write one damaged file per way an enrolment can be wrong; ``{name: (path, words)}``."""
    good = tmp_path / "good.npz"
    _small().save(good)
    data = good.read_bytes()
    files: dict[str, tuple[str, str]] = {}

    def put(name: str, content: bytes, words: str) -> None:
        (tmp_path / name).write_bytes(content)
        files[name] = (str(tmp_path / name), words)

    for cut in (10, 100, len(data) // 2, len(data) - 10):  # a power cut while copying
        put(f"cut{cut}.npz", data[:cut], "truncated or corrupt")
    put("junk.npz", b"not an enrolment", "not an enrolment file")
    put("pkjunk.npz", b"PK\x03\x04junk", "truncated or corrupt")
    put("empty.npz", b"", "not an enrolment file")
    np.save(tmp_path / "array.npy", np.zeros((3, 3)))  # np.save, not savez: a bare array
    files["array.npy"] = (str(tmp_path / "array.npy"), "single NumPy array")
    np.savez(tmp_path / "objects.npz", **{**_arrays(_small()), "rank_x": np.array([{"a": 1}], dtype=object)})
    files["objects.npz"] = (str(tmp_path / "objects.npz"), "Python objects")
    np.savez(tmp_path / "nokeys.npz", something=np.zeros(3))
    files["nokeys.npz"] = (str(tmp_path / "nokeys.npz"), "lacks format, rank_x")
    np.savez(tmp_path / "shape.npz", **{**_arrays(_small()), "rank_x": np.zeros((3, 7), np.float32)})
    files["shape.npz"] = (str(tmp_path / "shape.npz"), f"want float (N, {FEATURE_LEN})")
    np.savez(tmp_path / "count.npz", **{**_arrays(_small()), "suit_y": np.zeros(5, np.int16)})
    files["count.npz"] = (str(tmp_path / "count.npz"), "want 3 integer labels")
    np.savez(tmp_path / "label.npz", **{**_arrays(_small()), "rank_y": np.array([0, 1, 13], np.int16)})
    files["label.npz"] = (str(tmp_path / "label.npz"), "outside 0..12")
    nan = _small()
    nan.suit_x[1, 5] = np.nan
    np.savez(tmp_path / "nan.npz", **_arrays(nan))
    files["nan.npz"] = (str(tmp_path / "nan.npz"), "non-finite")
    np.savez(tmp_path / "format.npz", **{**_arrays(_small()), "format": np.array(7)})
    files["format.npz"] = (str(tmp_path / "format.npz"), "format 7, want 1")
    files["missing.npz"] = (str(tmp_path / "missing.npz"), "cannot be read")
    files["a directory"] = (str(tmp_path), "cannot be read")
    return files


def test_every_damaged_enrolment_file_is_one_clear_value_error(tmp_path):
    for name, (path, words) in _bad_files(tmp_path).items():
        with pytest.raises(EnrollError) as info:
            Enrollment.load(path)
        msg = str(info.value)
        assert isinstance(info.value, ValueError)
        assert path in msg and words in msg, (name, msg)
        assert "allow_pickle" not in msg and "pickle.load" not in msg, (name, msg)
    ok = Enrollment.load(tmp_path / "good.npz")
    assert ok.count == 3 and ok.rank_x.shape == (3, FEATURE_LEN) and ok.suit_y.tolist() == [0, 1, 2]


def test_recognize_and_enroll_append_refuse_a_damaged_enrolment_in_one_line(tmp_path, capsys):
    files = _bad_files(tmp_path)
    photo = tmp_path / "As.png"
    photo.write_bytes(b"")  # never read: the enrolment is refused first
    for name in ("cut100.npz", "array.npy", "junk.npz", "shape.npz", "objects.npz"):
        path, words = files[name]
        capsys.readouterr()
        assert livetable(["recognize", "--enroll", path, str(photo)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and path in err and words in err and "Traceback" not in err, err
        before = open(path, "rb").read()
        assert cli_vision.main(["enroll", str(photo), "--append", "--out", path]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot --append" in err and words in err, err
        assert open(path, "rb").read() == before  # the damaged file is left for the room to look at


def test_save_is_atomic_a_failed_write_leaves_the_old_file_and_no_litter(tmp_path, monkeypatch):
    path = tmp_path / "deck.npz"
    _small(3).save(path)
    old = path.read_bytes()
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])

    def dies_half_way(f, **arrays):  # a full disk or a crash in the middle of the archive
        f.write(b"PK\x03\x04 half an archive")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", dies_half_way)
    with pytest.raises(OSError, match="No space"):
        _small(5).save(path)
    assert path.read_bytes() == old and sorted(p.name for p in tmp_path.iterdir()) == ["deck.npz"]
    monkeypatch.undo()
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    _small(5, seed=1).save(path)
    assert synced  # flushed to the disk before the rename
    assert Enrollment.load(path).count == 5 and sorted(p.name for p in tmp_path.iterdir()) == ["deck.npz"]
    assert zipfile.is_zipfile(path)
    with pytest.raises(IsADirectoryError):
        _small().save(tmp_path)
    with pytest.raises(FileNotFoundError):
        _small().save(tmp_path / "no-such-dir" / "deck.npz")


def test_enroll_cli_refuses_a_bad_out_path_or_labels_file_before_reading_photos(tmp_path, capsys):
    photo = tmp_path / "As.png"
    photo.write_bytes(b"")  # never read: the arguments are refused first
    labels_wrong = tmp_path / "labels.csv"
    labels_wrong.write_text("name,card\nAs.png,As\n")
    labels_binary = tmp_path / "labels.bin"
    labels_binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    cases = [
        (["--out", str(tmp_path / "no-such-dir" / "deck.npz")], "does not exist"),
        (["--out", str(tmp_path)], "is a directory"),
        (["--out", str(tmp_path / "d.npz"), "--labels", str(labels_wrong)], "no 'file' or 'cards' column"),
        (["--out", str(tmp_path / "d.npz"), "--labels", str(labels_binary)], "not a UTF-8 text CSV"),
        (["--out", str(tmp_path / "d.npz"), "--labels", str(tmp_path / "none.csv")], "none.csv"),
    ]
    for args, words in cases:
        capsys.readouterr()
        assert cli_vision.main(["enroll", str(photo), *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("livetable vision enroll:") and err.count("\n") == 1 and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["As.png", "labels.bin", "labels.csv"]


def test_enroll_cli_reads_a_labels_file_with_spaces_in_its_header(tmp_path, capsys):
    from vision.cli_vision import _read_labels

    labels = tmp_path / "labels.csv"
    labels.write_text("file, cards\nphotos/Qh.png, Qh\n")
    assert _read_labels(str(labels)) == {"Qh.png": " Qh"}
