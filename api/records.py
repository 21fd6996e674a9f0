"""``POST /annotate``: PBN hand records in, annotations streamed out record by record.

The body is read whole (it is capped at ``ANNOTATE_MAX_BYTES`` and ``ANNOTATE_MAX_RECORDS``
games), the output is streamed: each
record is annotated by ``solver.batch.annotate_record`` (exactly as ``hearts-dd annotate``
does) and written as soon as it is done, so a client sees the first records at once. A bad
record gets its own line with an ``error``, as in the CLI (SPEC §6). The whole request shares
one compute budget (``ANNOTATE_TIME_LIMIT``, each record at most ``SOLVER_TIME_LIMIT``);
records left when it runs out are answered with an error line, not dropped. The answer says
``X-Accel-Buffering: no``: nginx, in front as README advises, buffers a proxied answer by
default, and its client got every record at the end instead of each as it was done.

The stream takes the worker's solver one record at a time (``api.solving.turn``), never across
a ``yield``: in a threaded server other requests are answered between its records, and a
client that reads slowly holds no solver. Records are still read, solved and written one after
another, in order, each written before the next is read. The budget runs from the start of the
stream, turns waited for included, so a stream still ends within it. A client that closes its
connection ends the stream within a fraction of a second (``api.solving.client_watched``), the
record being solved given up: it went on to the end of that record's budget, and then solved the
next one, for nobody, until a write failed.
"""
from __future__ import annotations

import io
import time
from dataclasses import replace
from itertools import chain
from typing import Any, Iterator

from apiflask import APIBlueprint
from flask import Response, current_app, request, stream_with_context

from solver.analysis import SearchAborted, Solver
from solver.batch import AnnotateOptions, annotate_record, not_annotated
from solver.pbn import Record, games_up_to, read_records
from solver.rules import Rules
from solver.writers import make_writer

from .config import API_PREFIX
from .docs import problem_responses
from .kinds import PROBLEM_TYPE_KEY, TYPE_PREFIX
from .problems import ApiProblem, log_out_of_memory
from .schemas import AnnotateQuery
from .solving import CLIENT_GONE_KEY, alive, budget, client_watched, turn

bp = APIBlueprint("records", __name__, tag="Hand records")

ANNOTATE_PATH = API_PREFIX + "/annotate"
# media type of each output format
MEDIA_TYPES = {"jsonl": "application/jsonl", "pbn": "application/x-pbn", "csv": "text/csv",
               "text": "text/plain"}


@bp.post("/annotate")
@bp.input(AnnotateQuery, location="query", arg_name="query")
@bp.doc(operation_id="annotate", responses=problem_responses(400, 413, 422))
def annotate(query: AnnotateQuery) -> Response:
    """Annotate PBN hand records, streamed record by record

    The body is a PBN file (UTF-8 or Latin-1; UTF-16 with a byte-order mark, read and written
    back as UTF-8). Every record gets the guarantee and moon
    feasibility of every seat before the first card and, with a `[Play]` section, the review
    of the recorded play, exactly as `hearts-dd annotate` writes them: `jsonl` (SPEC §6: one
    object per record with `index`, `deal`, `players`, `error`), `pbn` (the input with
    annotation tags added), `csv` or `text` (the readable report). A bad record is reported in
    its own `error` and never stops the others. A body of more than 10,000 games (unless the
    service's `HEARTS_DD_ANNOTATE_MAX_RECORDS` says otherwise) is refused 413.
    """
    for name in request.args:       # (the schema saw the first of each: the rest went unread)
        if len(request.args.getlist(name)) > 1:
            raise ApiProblem.for_field("invalid-request", name, "given more than once")
    request.max_content_length = current_app.config["ANNOTATE_MAX_BYTES"]
    body = request.get_data()  # a body over the limit is a 413 problem here
    rules = Rules.parse(query.rules) if query.rules is not None else None  # a preset: checked
    # (each game gets its line, read and written after the budget too: 1 MiB of "*" games was
    # 350,000 error lines, 79 MB, 25 s of a worker)
    limit = current_app.config["ANNOTATE_MAX_RECORDS"]
    if games_up_to(io.BytesIO(body), limit) > limit:
        raise ApiProblem.for_field("too-large", "body", f"more than {limit} games; at most "
                                   f"{limit} a request (send fewer at a time)")
    records = read_records(io.BytesIO(body))
    first = next(records, None)
    if first is None:
        raise ApiProblem.for_field("invalid-pbn", "body", "no PBN game found (expected tag pairs "
                                   'such as [Deal "N:..."])')
    options = AnnotateOptions(rules=rules)
    stream = _annotated(chain([first], records), options, query.format)
    return Response(stream_with_context(stream), mimetype=MEDIA_TYPES[query.format],
                    headers={"X-Accel-Buffering": "no"})    # (nginx: pass each record on)


def _annotated(records: Iterator[Record], options: AnnotateOptions, fmt: str) -> Iterator[bytes]:
    """Each record's output as soon as it is annotated."""
    config = current_app.config
    buffer = io.BytesIO()
    writer = make_writer(fmt, buffer)
    request_budget = budget(config["ANNOTATE_TIME_LIMIT"])
    beat = _Beats(request_budget.deadline)
    short_of_memory = False     # (said once in the log, not for every record)
    # (one watcher for the stream: it stops this thread's calls only, whoever's turn it is)
    with client_watched(request_budget.solver):
        for done, record in enumerate(records):
            beat()
            with turn():    # a record at a time: other requests' turns come between records
                try:
                    solver = request_budget.limited()
                    result = annotate_record(record, _record_options(
                        options, solver, bool(request_budget.deadline)), solver)
                except SearchAborted:
                    result = _not_annotated(record, config["ANNOTATE_TIME_LIMIT"], options)
                except MemoryError as e:    # (as annotate's workers answer it: the stream
                    # was cut off at its first record, a 500, with a traceback in the log)
                    if not short_of_memory:
                        log_out_of_memory(e)
                    short_of_memory = True
                    result = not_annotated(record, f"out of memory ({e})", options)
            if request.environ.get(CLIENT_GONE_KEY):    # (not the next record solved for nobody)
                current_app.logger.warning("Client gone: %s %s stopped after %d records",
                                           request.method, request.path, done)
                # (the access log's type, as for a request answered "client-gone": api.worker)
                request.environ[PROBLEM_TYPE_KEY] = TYPE_PREFIX + "client-gone"
                return
            writer.write(record, result)
            yield _take(buffer)
            beat()
    writer.close()
    yield _take(buffer)


class _Beats:
    """Says the worker is alive (``api.solving.alive``) after each record's reading and each
    record's writing, until it first does so past the stream's ``deadline``: reading a record
    is no solving but can take seconds (1 MiB of PBN about 5), and a worker was killed reading
    the record after one that spent the budget (5 s below the worker timeout). The stream
    still ends within the worker timeout of that last beat, as a client reading slowly would
    otherwise hold the worker a write's timeout for each record."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline
        self._over = False

    def __call__(self) -> None:
        if not self._over:
            self._over = bool(self._deadline) and time.monotonic() >= self._deadline
            alive()


def _record_options(options: AnnotateOptions, solver: Solver, deadline: bool) -> AnnotateOptions:
    """``options`` with a record's time limit: its own, or what is left of the request's
    (``solver``'s limits now), whose running out the record's error then names."""
    config = current_app.config
    own = config["SOLVER_TIME_LIMIT"]
    left = solver.time_limit if deadline else 0.0
    if not left or 0 < own <= left:
        return replace(options, time_limit=own)
    nodes = solver.node_limit
    return replace(options, time_limit=left, out_of_time=_budget_spent(
        config["ANNOTATE_TIME_LIMIT"]) + (f" (or the node limit of {nodes} nodes per search)"
                                          if nodes else ""))


def _not_annotated(record: Record, seconds: float, options: AnnotateOptions) -> dict[str, Any]:
    """The SPEC §6 line of a record the request's budget left no time for."""
    return not_annotated(record, _budget_spent(seconds), options)


def _budget_spent(seconds: float) -> str:
    return f"the request's compute budget of {seconds:g} s ran out; send fewer records at a time"


def _take(buffer: io.BytesIO) -> bytes:
    data = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return data


def document_body(spec: dict[str, Any]) -> dict[str, Any]:
    """The request body is PBN text and the answer a stream, which APIFlask cannot declare."""
    op = spec.get("paths", {}).get(ANNOTATE_PATH, {}).get("post")
    if op is not None:
        # (as bytes too: openapi-python-client, for one, cannot send a text/plain body, and
        # generated no annotate at all)
        op["requestBody"] = {"required": True, "description": "PBN text (UTF-8 or Latin-1; UTF-16 "
                             "with a byte-order mark); the Content-Type is not looked at "
                             "(text/plain, application/octet-stream, application/x-pbn, ...)",
                             "content": {"text/plain": {"schema": {"type": "string"}},
                                         "application/octet-stream": {
                                             "schema": {"type": "string", "format": "binary"}}}}
        op["responses"]["200"] = {
            "description": "one annotation per record, in input order, streamed as each is done",
            "content": {media: {"schema": {"type": "string"}} for media in MEDIA_TYPES.values()}}
        for param in op.get("parameters", []):
            param["schema"] = _not_null(param["schema"])
    return spec


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional query parameter's schema without pydantic's null: a query string has none to
    send (``?rules=`` and ``?rules=null`` are refused 422); a client leaves the parameter out."""
    branches = schema.get("anyOf", [])
    values = [b for b in branches if b != {"type": "null"}]
    if len(values) != 1 or len(branches) != 2:
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf" and not (k == "default" and v is None)}
    return {**values[0], **rest}
