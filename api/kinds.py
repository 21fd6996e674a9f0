"""The problem types of the service (RFC 9457), for the app (``api.problems``) and for
gunicorn's arbiter (``api.worker``, which must not import the app: see ``api/__init__.py``)."""
from __future__ import annotations

from typing import Any

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:hearts-dd:problem:"
#: The WSGI environ key of the problem type a request was answered with (its access log line's).
PROBLEM_TYPE_KEY = "hearts_dd.problem_type"

# kind -> (status, title); the type URI is TYPE_PREFIX + kind.
KINDS: dict[str, tuple[int, str]] = {
    "invalid-json": (400, "Request body is not valid JSON"),
    "incomplete-body": (400, "Request body could not be read"),
    "malformed-request": (400, "Malformed HTTP request"),
    "request-timeout": (408, "Request head not received in time"),
    "too-large": (413, "Request body too large"),
    "invalid-request": (422, "Request does not match the schema"),
    "invalid-deal": (422, "Invalid deal"),
    "invalid-rules": (422, "Invalid rules"),
    "invalid-leader": (422, "Invalid leader"),
    "illegal-play": (422, "Illegal play"),
    "invalid-pbn": (422, "No PBN game in the body"),
    "budget-exceeded": (422, "Compute budget exceeded"),
    "client-gone": (400, "Client closed the connection"),
    "internal-error": (500, "Internal server error"),
    "unavailable": (503, "Service cannot solve"),
    "stopping": (503, "Service is stopping"),
}


def problem_body(status: int, type_: str, title: str, detail: str,
                 errors: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A problem's JSON object (RFC 9457), for the app's responses and the worker's own."""
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    if errors:
        body["errors"] = errors
    return body
