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

__all__ = ["CodecError", "register", "to_json", "from_json", "KINDS"]

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
