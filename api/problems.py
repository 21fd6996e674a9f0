"""Every error as an RFC 9457 problem (``application/problem+json``), and nothing else.

Bad input is answered with a 4xx whose ``detail`` names the field and what is wrong with it;
validation errors also list each field problem under ``errors`` (the first ``MAX_PROBLEMS``). A bug still gets a problem
body (500) without a traceback; the traceback goes to the log.
"""
from __future__ import annotations

import json
from contextlib import suppress
from typing import Any, Iterable, Mapping

from apiflask import APIFlask
from apiflask.exceptions import HTTPError
from flask import Request, Response, current_app, has_request_context, request
from flask.json.provider import DefaultJSONProvider
from gunicorn.http.errors import NoMoreData, ParseException
from pydantic import ValidationError
from werkzeug.datastructures import Headers
from werkzeug.exceptions import ClientDisconnected, HTTPException, MethodNotAllowed, RequestEntityTooLarge

from solver.analysis import SearchAborted
from solver.errors import json_type, read_json, shortened, show_json
from solver.results import proven_so_far

from .kinds import KINDS, PROBLEM_JSON, PROBLEM_TYPE_KEY, TYPE_PREFIX, problem_body
from .schemas import RULES_AS_OBJECT, RULES_AS_PRESET
from .solving import CLIENT_GONE_KEY

_TAGS = {RULES_AS_PRESET, RULES_AS_OBJECT}
_EXPECTED = {"string_type": "a string", "int_type": "an integer", "bool_type": "true or false",
             "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
             "typed_dict_type": "an object", "int_from_float": "an integer"}
_DRAIN_CAP = 16 << 20
#: The longest field path given whole: a key of the request's own (an unknown field, a seat of
#: ``known``) is part of it, and came back whole in the problem, twice.
_FIELD_LIMIT = 80
#: Field problems listed at most, the rest counted: each unknown key of a body is one, and
#: 90,000 of them in 1 MB were 7.5 MB of problem.
MAX_PROBLEMS = 20


class ApiProblem(Exception):
    """Raised anywhere in a request to answer with a problem of a known kind."""

    def __init__(self, kind: str, detail: str, errors: list[dict[str, str]] | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.errors = errors

    @classmethod
    def for_field(cls, kind: str, field: str, message: str) -> "ApiProblem":
        return cls(kind, f"{field}: {message}", [{"field": field, "problem": message}])


def problem(status: int, type_: str, title: str, detail: str, *,
            errors: list[dict[str, str]] | None = None,
            headers: Headers | None = None) -> Response:
    body = problem_body(status, type_, title, detail, errors)
    resp = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    if has_request_context():
        request.environ[PROBLEM_TYPE_KEY] = type_       # (for the access log: api.worker.Logger)
    for key, value in (headers or {}).items():
        if key.lower() != "content-type":
            resp.headers[key] = value
    return resp


def problem_of(kind: str, detail: str, errors: list[dict[str, str]] | None = None) -> Response:
    status, title = KINDS[kind]
    return problem(status, TYPE_PREFIX + kind, title, detail, errors=errors)


# -- reading the body ------------------------------------------------------------------------
class ProblemRequest(Request):
    """A request whose unreadable JSON body is a 400 problem saying why, and whose body is read
    whole or not at all: shorter than its Content-Length is a 400, and a chunked body over the
    limit a 413 (werkzeug stops reading such a body at the limit and says nothing)."""

    def get_data(self, cache: bool = True, as_text: bool = False,  # type: ignore[override]
                 parse_form_data: bool = False) -> bytes | str:
        data = super().get_data(cache=cache, as_text=False, parse_form_data=parse_form_data)
        assert isinstance(data, bytes)
        declared, limit = self.content_length, self.max_content_length
        if declared is not None and len(data) < declared:
            raise ApiProblem("incomplete-body", f"request body ended after {len(data)} of its "
                             f"{declared} bytes")
        if declared is None and limit is not None and len(data) >= limit \
                and self.environ["wsgi.input"].read(1):
            raise RequestEntityTooLarge()
        return data.decode("utf-8", "replace") if as_text else data

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:  # pragma: no cover - bodies are always read with force=True
            raise ApiProblem("invalid-json", "expected a JSON body (Content-Type: application/json)")
        if not self.get_data(cache=True):
            raise ApiProblem("invalid-json", "request body is empty; expected a JSON object")
        raise ApiProblem("invalid-json", f"request body is not valid JSON: {e}")   # read_json's


class SafeJSONProvider(DefaultJSONProvider):
    """JSON in the order the solver writes it; a nesting bomb or a number of thousands of digits
    is a parse error with a plain message, not a crash or a hint for Python programmers."""

    sort_keys = False

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return read_json(s, lines=True)     # its JsonError is a ValueError, as Flask expects


# -- validation errors -----------------------------------------------------------------------
def _field_path(loc: Iterable[Any]) -> str:
    path = ""
    for part in loc:
        if part in _TAGS:
            continue
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + str(part)
    return shortened(path, _FIELD_LIMIT) if path else "body"


def _describe(err: Mapping[str, Any]) -> str:
    kind = err["type"]
    given = err.get("input")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {json_type(given)}"
    if kind == "literal_error":
        return f"unknown value {show_json(given)}; expected {err['ctx']['expected']}"
    msg: str = err["msg"]
    return shortened(msg[0].lower() + msg[1:]) if msg else kind


def validation_problem(error: ValidationError) -> Response:
    found = error.errors(include_url=False)
    errors = [{"field": _field_path(e["loc"]), "problem": _describe(e)}
              for e in found[:MAX_PROBLEMS]]
    detail = "; ".join(f"{e['field']}: {e['problem']}" for e in errors)
    if len(found) > MAX_PROBLEMS:
        detail += f"; and {len(found) - MAX_PROBLEMS} more problems"
    return problem_of("invalid-request", detail, errors)


# -- handlers --------------------------------------------------------------------------------
def _drain_body() -> None:
    """Read and drop an unread body so the client sees the answer rather than a reset."""
    stream = request.environ.get("wsgi.input")
    left = request.content_length or 0
    if left > _DRAIN_CAP:       # more than is worth waiting for: the client may see a reset
        return
    with suppress(OSError, ValueError, ParseException):   # a client too slow or gone: no matter
        while stream is not None and left > 0:
            chunk = stream.read(min(left, 1 << 16))
            if not chunk:
                break
            left -= len(chunk)


def log_out_of_memory(e: MemoryError) -> None:
    """One log line for a request the worker had no memory to solve, naming the setting."""
    current_app.logger.error("Out of memory: %s %s: %s (a smaller HEARTS_DD_SOLVER_TABLE_MB may fit)",
                             request.method, request.path, str(e) or "no reason given")


def install(app: APIFlask) -> None:
    """Route every error the app can meet to a problem response."""

    @app.errorhandler(ApiProblem)
    def on_problem(e: ApiProblem) -> Response:
        return problem_of(e.kind, e.detail, e.errors)

    @app.errorhandler(SearchAborted)
    def on_budget(e: SearchAborted) -> Response:
        if request.environ.get(CLIENT_GONE_KEY):    # (an answer for the access log alone)
            current_app.logger.warning("Client gone: %s %s stopped unsolved", request.method,
                                       request.path)
            return problem_of("client-gone", "the client closed the connection before the answer")
        seconds = current_app.config["SOLVER_TIME_LIMIT"]
        nodes = current_app.config["SOLVER_NODE_LIMIT"]
        limits = [f"{seconds:g} s" if seconds else "", f"{nodes} nodes per search" if nodes else ""]
        return problem_of("budget-exceeded", "no answer within the compute budget of this service "
                          f"({', '.join(x for x in limits if x)}){proven_so_far(e)}; ask about a "
                          "position with fewer cards to go")

    @app.error_processor
    def on_apiflask_error(e: HTTPError) -> Response:
        # request validation: the pydantic error is the cause of APIFlask's own
        if isinstance(e.__cause__, ValidationError):
            return validation_problem(e.__cause__)
        return problem(e.status_code, "about:blank", e.message or "Error", str(e.detail or e.message),
                       headers=Headers(e.headers))

    @app.errorhandler(HTTPException)
    def on_http(e: HTTPException) -> Response:
        if isinstance(e, ClientDisconnected):
            return problem_of("incomplete-body", "request body was cut off, or did not arrive in time")
        if isinstance(e, RequestEntityTooLarge):
            _drain_body()
            limit = request.max_content_length
            return problem_of("too-large", f"request body is larger than the limit of {limit} bytes")
        status = e.code or 500
        detail = e.description or e.name
        if isinstance(e, MethodNotAllowed):
            detail = f"{request.method} is not allowed here; allowed: " + ", ".join(e.valid_methods or [])
        elif status == 404:
            detail = f"no resource at {request.path}"
        return problem(status, "about:blank", e.name, detail, headers=Headers(e.get_headers()))

    @app.errorhandler(MemoryError)
    def on_no_memory(e: MemoryError) -> Response:
        # (the worker's table, allocated at its first request, beyond a memory limit: a 500
        # and a traceback in the log for each request, while /health answered "ok")
        log_out_of_memory(e)
        return problem_of("unavailable", "this worker is out of memory; the error is in its log")

    @app.errorhandler(Exception)
    def on_bug(e: Exception) -> Response:
        if isinstance(e, (ParseException, NoMoreData, TimeoutError)):
            # gunicorn's reader of a chunked body, or the socket's timeout (gunicorn.conf.py)
            return problem_of("incomplete-body", f"request body could not be read: {e or type(e).__name__}")
        app.logger.exception("unhandled error in %s %s", request.method, request.path)
        return problem_of("internal-error", "the service failed to answer this request; "
                          "the error is in its log")
