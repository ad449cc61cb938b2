"""One JSON codec for the table's events and effects (frozen dataclasses).

Each registered class has a ``kind`` (kebab-case, e.g. ``"action-taken"``);
``to_json(x)`` gives ``{"kind": ..., field: value, ...}`` with tuples as lists, and
``from_json(d)`` rebuilds the object, turning lists back into tuples. The journal (issue 9)
stores ``kind`` and the payload; replaying the decoded events gives the same state.
"""

from __future__ import annotations

import re
from dataclasses import MISSING, fields
from typing import Any, TypeVar

__all__ = ["CodecError", "register", "to_json", "from_json", "KINDS", "shorten", "lengthen", "SHORT_KEYS",
           "SHORT_KINDS", "SHORT_UNNAMED", "SHORT_ACTIONS", "unnamed_kind"]

T = TypeVar("T")

#: kind -> class, for every registered event and effect.
KINDS: dict[str, type] = {}
_FIELDS: dict[type, tuple[str, ...]] = {}
_DEFAULTS: dict[type, dict[str, Any]] = {}  # plain defaults only (a default_factory is always written)


class CodecError(ValueError):
    """A JSON payload is not a known event or effect, or its fields do not fit."""


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def register(cls: type[T]) -> type[T]:
    """Register a frozen dataclass under ``cls.kind`` (default: its name in kebab-case)."""
    kind = cls.__dict__.get("kind_name") or _kebab(cls.__name__)
    cls.kind = kind  # type: ignore[attr-defined]
    KINDS[kind] = cls
    _FIELDS[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    _DEFAULTS[cls] = {f.name: f.default for f in fields(cls)  # type: ignore[arg-type]
                      if f.default is not MISSING}
    return cls


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def to_json(obj: Any, *, defaults: bool = True) -> dict[str, Any]:
    """Return ``{"kind": ..., **fields}`` for a registered event or effect (JSON-ready).

    ``defaults=False`` leaves out every field that holds its class's default (an action's
    ``"amount": null``, ``"discards": []``, ``"action_id": ""``): what the journal stores
    (issue 21); :func:`from_json` gives the same object back from either form.

    Raises:
        CodecError: the object's class is not registered.
    """
    names = _FIELDS.get(type(obj))
    if names is None:
        raise CodecError(f"not an event or effect: {type(obj).__name__}")
    out: dict[str, Any] = {"kind": obj.kind}
    plain = None if defaults else _DEFAULTS[type(obj)]
    for name in names:
        value = getattr(obj, name)
        if plain is not None and name in plain and _same(value, plain[name]):
            continue
        out[name] = _plain(value)
    return out


def _same(value: Any, default: Any) -> bool:
    """True when ``value`` is ``default`` exactly (``0`` is not ``False``, ``()`` not ``None``)."""
    return type(value) is type(default) and value == default


def from_json(data: dict[str, Any]) -> Any:
    """Return the event or effect for ``data`` (as made by :func:`to_json`).

    Lists become tuples; dict fields stay dicts.

    Raises:
        CodecError: unknown ``kind``, unknown or missing fields, or a value the class refuses.
    """
    if not isinstance(data, dict):
        raise CodecError(f"payload must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = KINDS.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise CodecError(f"unknown kind {kind!r}")
    names = _FIELDS[cls]
    extra = sorted(set(data) - set(names) - {"kind"})
    if extra:
        raise CodecError(f"{kind}: unknown field {extra[0]!r}")
    try:
        return cls(**{k: _frozen(v) for k, v in data.items() if k != "kind"})
    except TypeError as exc:
        raise CodecError(f"{kind}: {exc}") from exc


#: The journal's short names (format 3, issue 21) of the fields every hand writes many times.
#: The two commonest events, an action and a card, are stored without their kind (the key
#: :data:`SHORT_UNNAMED` gives tells which) and an action with its action's short name:
#: ``{"a": "c", "q": 199, "s": 10}`` rather than ``{"action": "call", "kind": "action-taken",
#: "seat": 10, "seq": 199}`` (24 bytes, not 60), ``{"c": "As"}`` rather than ``{"card": "As",
#: "kind": "card-dealt"}``; any other event with ``"k"``, its kind's short name
#: (:data:`SHORT_KINDS`) or its own. Some 2 KB a hand at 10 seats. Fixed for ever once
#: written (a journal keeps them): a new entry may be added, none changed. No event or effect
#: has a field of one letter, so a short name is never a long one
#: (tests/controller/test_journal_size.py).
SHORT_KEYS: dict[str, str] = {"kind": "k", "seat": "s", "action": "a", "amount": "m", "seq": "q",
                              "card": "c", "discards": "d", "action_id": "i"}
#: The short names of the kinds of table event every hand writes (values of ``"k"``); any
#: other kind is stored under its own name.
SHORT_KINDS: dict[str, str] = {"bought-in": "b", "hand-start-requested": "h", "timer-expired": "t"}
#: The kinds stored without ``"k"``, each by the short key only it has: a short event without
#: ``"k"`` is an ``action-taken`` when it has ``"a"``, else a ``card-dealt``.
SHORT_UNNAMED: dict[str, str] = {"action-taken": "a", "card-dealt": "c"}
#: The short names of an action-taken's ``action`` (A-1).
SHORT_ACTIONS: dict[str, str] = {"fold": "f", "check": "x", "call": "c", "bet": "b", "raise": "r",
                                 "all_in": "A", "draw": "d", "show": "s", "muck": "m"}
_LONG_KEYS = {v: k for k, v in SHORT_KEYS.items()}
_LONG_KINDS = {v: k for k, v in SHORT_KINDS.items()}
_LONG_ACTIONS = {v: k for k, v in SHORT_ACTIONS.items()}


def unnamed_kind(data: dict[str, Any]) -> str:
    """The kind of a short event stored without ``"k"`` (:data:`SHORT_UNNAMED`)."""
    return "action-taken" if "a" in data else "card-dealt"


def shorten(data: dict[str, Any]) -> dict[str, Any]:
    """Return :func:`to_json`'s ``data`` with the journal's short names (:data:`SHORT_KEYS`,
    :data:`SHORT_KINDS`, :data:`SHORT_ACTIONS`; no kind for :data:`SHORT_UNNAMED`); top-level
    keys only, other values untouched. :func:`lengthen` gives ``data`` back. A ``data``
    without a ``"kind"`` string is returned as it is."""
    kind = data.get("kind")
    if not isinstance(kind, str):
        return data
    out = {SHORT_KEYS.get(k, k): v for k, v in data.items() if k != "kind"}
    if kind not in SHORT_UNNAMED or SHORT_UNNAMED[kind] not in out:
        out["k"] = SHORT_KINDS.get(kind, kind)
    elif kind == "action-taken" and isinstance(out["a"], str):
        out["a"] = SHORT_ACTIONS.get(out["a"], out["a"])
    return out


def lengthen(data: dict[str, Any]) -> dict[str, Any]:
    """Return the event ``data`` as :func:`to_json` made it from its short form (:func:`shorten`).
    An object with ``"kind"`` (the long form, format 1 and 2 journals) is returned as it is."""
    if "kind" in data:
        return data
    out = {_LONG_KEYS.get(k, k): v for k, v in data.items() if k != "k"}
    if "k" in data:
        kind = data["k"]
        out["kind"] = _LONG_KINDS.get(kind, kind) if isinstance(kind, str) else kind
    else:
        out["kind"] = unnamed_kind(data)
        if out["kind"] == "action-taken" and isinstance(out.get("action"), str):
            out["action"] = _LONG_ACTIONS.get(out["action"], out["action"])
    return out
