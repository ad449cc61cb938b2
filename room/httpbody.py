"""Reading a request body on the room's HTTP pages (the console, the players' desk).

Both serve with :mod:`http.server`; a body is read only after its ``Content-Length`` is a
whole number within the limit, so a length of ``-1`` (read until the client closes) or
``abc`` cannot eat the service's memory or end in a traceback (a breaker's finding, issue 17).
"""

from __future__ import annotations

from email.message import Message
from http.server import BaseHTTPRequestHandler

from io import BufferedIOBase

__all__ = ["BodyError", "read_body", "json_from_same_site", "send"]


class BodyError(ValueError):
    """A request body refused: ``status`` is the HTTP code to answer (400, 413, 415, 403)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def read_body(headers: Message, rfile: BufferedIOBase, limit: int) -> bytes:
    """Return the request's body, at most ``limit`` bytes.

    Raises:
        BodyError: 400 when ``Content-Length`` is not a whole number >= 0, 413 when it is over
            ``limit``.
    """
    raw = (headers.get("Content-Length") or "0").strip()
    if not raw.isdigit():  # "-1", "abc", "1e3": never read until the client closes
        raise BodyError(400, f"Content-Length must be a whole number of bytes, got {raw[:20]!r}")
    n = int(raw)
    if n > limit:
        raise BodyError(413, f"a request body is at most {limit} bytes")
    return rfile.read(n)


def json_from_same_site(headers: Message) -> None:
    """Refuse a state-changing request another web site could make a browser send.

    HTTP basic authentication is sent by the browser with any form another site submits, so a
    request that changes something must be JSON (``Content-Type: application/json``, which no
    HTML form can send and which a script on another site may send only after a CORS preflight
    this server never grants) and, when the browser names its ``Origin``, come from this host.

    Raises:
        BodyError: 415 for another content type, 403 for another origin.
    """
    ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise BodyError(415, "send the request as JSON (Content-Type: application/json)")
    origin = headers.get("Origin")
    host = headers.get("Host")
    if origin and origin != "null" and host and origin.split("://", 1)[-1].rstrip("/") != host:
        raise BodyError(403, f"a request from {origin} is not this page's")
    if origin == "null":
        raise BodyError(403, "a request from a page with no origin is refused")


def send(handler: BaseHTTPRequestHandler, code: int, body: bytes, ctype: str,
         headers: dict[str, str] | None = None) -> None:
    """Answer ``handler``'s request with ``code`` and ``body`` of type ``ctype``, never cached,
    with any further ``headers`` (the console's and the desk's one way of answering)."""
    handler.send_response(code)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Cache-Control", "no-store")
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)
