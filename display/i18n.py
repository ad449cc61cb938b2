"""The dealer display's language: English (the source) or Dutch, with gettext (issue 20).

The words are marked in the code with :func:`_` (translated when drawn) or :func:`N_`
(marked only, for tables of words translated later); the Dutch catalog is
``display/locale/nl/LC_MESSAGES/livetable.po``, compiled to ``livetable.mo`` beside it
(``msgfmt -o livetable.mo livetable.po``; both are committed so the Pi needs no gettext
tools). Numbers follow the language: ``12,345`` in English, ``12.345`` in Dutch.

The language is chosen per table, per display process: ``livetable display --language nl``
(on the Pi through ``LIVETABLE_DISPLAY_ARGS`` in /etc/livetable/display.env), or the
``LIVETABLE_LANGUAGE`` environment variable. :func:`set_language` sets it for the process;
:func:`language` sets it for a ``with`` block (tests).
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["LANGUAGES", "LOCALE_DIR", "N_", "_", "chips", "current", "hand_words", "language", "set_language"]

#: the languages the display speaks: code -> thousands separator
LANGUAGES = {"en": ",", "nl": "."}
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "livetable"

_state: dict[str, Any] = {"lang": "en", "tr": gettext.NullTranslations()}


def set_language(lang: str) -> None:
    """Speak ``lang`` (``"en"`` or ``"nl"``) from now on.

    Raises:
        ValueError: a language the display has no catalog for (the message lists them).
    """
    code = (lang or "en").strip().lower().split("_")[0].split("-")[0]
    if code not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(sorted(LANGUAGES))}, got {lang!r}")
    if code == "en":
        tr: gettext.NullTranslations = gettext.NullTranslations()
    else:
        tr = gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[code])
    _state.update(lang=code, tr=tr)


def current() -> str:
    """Return the language spoken now (``"en"`` or ``"nl"``)."""
    return str(_state["lang"])


@contextmanager
def language(lang: str) -> Iterator[None]:
    """Speak ``lang`` inside a ``with`` block, then the language before."""
    before = current()
    set_language(lang)
    try:
        yield
    finally:
        set_language(before)


def _(message: str) -> str:
    """Return ``message`` in the current language (itself when there is no translation)."""
    return str(_state["tr"].gettext(message))


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it (for tables of words)."""
    return message


def chips(amount: Any) -> str:
    """Return integer chips grouped by thousands for the language (``12,345`` / ``12.345``);
    ``"?"`` for anything else."""
    if not isinstance(amount, int) or isinstance(amount, bool):
        return "?"
    return f"{amount:,}".replace(",", LANGUAGES[current()])


#: the words of the controller's hands in words (controller/engine/evaluator.py describe)
HAND_WORDS = (
    N_("Royal flush"), N_("Straight flush"), N_("Four of a kind"), N_("Full house"), N_("Flush"),
    N_("Straight"), N_("Three of a kind"), N_("Two pair"), N_("High card"),
    N_("deuce"), N_("three"), N_("four"), N_("five"), N_("six"), N_("seven"), N_("eight"), N_("nine"),
    N_("ten"), N_("jack"), N_("queen"), N_("king"), N_("ace"),
    N_("deuces"), N_("threes"), N_("fours"), N_("fives"), N_("sixes"), N_("sevens"), N_("eights"),
    N_("nines"), N_("tens"), N_("jacks"), N_("queens"), N_("kings"), N_("aces"),
)


def hand_words(text: str) -> str:
    """Return the controller's hand in words (H-6: "Two pair, kings and fives", "Straight, ace
    high", "Pair of aces") in the current language; text of another shape as it came."""
    if current() == "en" or not isinstance(text, str):
        return text
    head, _sep, rest = text.partition(", ")
    pair = re.fullmatch(r"Pair of (\w+)", head)
    if pair and not rest:
        return _("Pair of {rank}").format(rank=_(pair[1]))
    if not rest:
        return _(head)
    for pattern, key in ((r"(\w+) high", "{a} high"), (r"(\w+) full of (\w+)", "{a} full of {b}"),
                         (r"(\w+) and (\w+)", "{a} and {b}"), (r"(\w+)", "{a}")):
        m = re.fullmatch(pattern, rest)
        if m:
            words = [_(w) for w in m.groups()]
            rest = _(key).format(a=words[0], b=words[1] if len(words) > 1 else "") if key != "{a}" else words[0]
            break
    return f"{_(head)}, {rest}"
