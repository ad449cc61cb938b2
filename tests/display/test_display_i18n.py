"""The dealer display in English and Dutch with gettext (issue 20): the catalog covers every
word the display draws, the committed .mo is the compiled .po, numbers follow the language,
and the language is chosen with --language / LIVETABLE_LANGUAGE."""

from __future__ import annotations

import gettext
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import display_states as S
from display.app import main
from display.i18n import LOCALE_DIR, chips, current, language, set_language
from display.layout import layout

REPO = Path(__file__).resolve().parents[2]
PO = LOCALE_DIR / "nl" / "LC_MESSAGES" / "livetable.po"
MO = PO.with_suffix(".mo")
MARKED = re.compile(r'\bN?_\("((?:[^"\\]|\\.)*)"\)')


def _po_entries(text: str) -> dict[str, str]:
    return {k: v for k, v in re.findall(r'^msgid "(.*)"\nmsgstr "(.*)"$', text, re.M) if k}


def test_every_marked_word_has_a_dutch_translation() -> None:
    marked = {m for path in (REPO / "display").glob("*.py") for m in MARKED.findall(path.read_text())}
    assert len(marked) > 40, "the display's words are marked for translation"
    entries = _po_entries(PO.read_text())
    missing = sorted(m for m in marked if not entries.get(m))
    assert missing == [], f"no Dutch for {missing} in {PO}"
    for msgid, msgstr in entries.items():  # the placeholders survive the translation
        assert sorted(re.findall(r"\{\w+\}", msgid)) == sorted(re.findall(r"\{\w+\}", msgstr)), msgid


def test_the_committed_mo_is_the_compiled_po(tmp_path: Path) -> None:
    if shutil.which("msgfmt") is None:
        pytest.skip("msgfmt (gettext) is not installed")
    out = tmp_path / "livetable.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(out), str(PO)], check=True, capture_output=True)
    with open(out, "rb") as a, open(MO, "rb") as b:
        fresh, committed = gettext.GNUTranslations(a), gettext.GNUTranslations(b)
    assert fresh._catalog == committed._catalog, "run msgfmt -o livetable.mo livetable.po"  # type: ignore[attr-defined]


def test_dutch_words_and_numbers_on_the_display() -> None:
    state = S.split_showdown()
    state.update(street="waiting", rake=150)
    state["seats"][1]["stack"] = 12_345
    with language("nl"):
        assert current() == "nl" and chips(1_234_567) == "1.234.567"
        lay = layout(state, (1280, 720))
        texts = [t.text for t in lay.pot_texts]
        assert texts[0] == "Hoofdpot 2.400 gedeeld: Ann 1.200, Bob 1.200"
        assert texts[1] == "Straat, aas hoog"  # the controller's "Straight, ace high"
        assert texts[-1] == "Rake 150"
        assert next(t.text for t in lay.seat(2).texts if t.role == "stack") == "12.345"
        assert next(t.text for t in lay.seat(4).texts if t.role == "info") == "GEPAST"
        assert lay.header_texts[0].text == "Table 1 \u00b7 Hand 57"
        lay = layout(S.preflop_blinds(), (1280, 720))
        assert lay.timer is not None and lay.timer.label.text == "Farouk is aan de beurt"
    assert current() == "en" and chips(1_234_567) == "1,234,567"
    assert layout(S.preflop_blinds(), (1280, 720)).timer.label.text == "Farouk to act"


def test_language_option_and_a_language_without_catalog(tmp_path: Path, capsys, monkeypatch) -> None:
    with pytest.raises(ValueError, match="en, nl"):
        set_language("fr")
    state = tmp_path / "s.json"
    state.write_text('{"schema": 1, "seq": 1}')
    assert main(["--language", "fr", "--snapshot", str(state), str(tmp_path / "o.png")]) == 2
    assert "--language" in capsys.readouterr().err
    monkeypatch.setenv("LIVETABLE_LANGUAGE", "nl")
    try:
        assert main(["--snapshot", str(state), str(tmp_path / "o.png")]) == 0
        assert current() == "nl"
    finally:
        set_language("en")


def test_hands_in_words_in_dutch() -> None:
    from display.i18n import hand_words

    with language("nl"):
        assert hand_words("Two pair, kings and fives") == "Twee paar, heren en vijven"
        assert hand_words("Full house, kings full of fives") == "Full house, heren vol vijven"
        assert hand_words("Pair of aces") == "Paar azen"
        assert hand_words("Three of a kind, sevens") == "Three of a kind, zevens"
        assert hand_words("Royal flush") == "Royal flush"
    assert hand_words("Pair of aces") == "Pair of aces"
