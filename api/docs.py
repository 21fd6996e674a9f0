"""What the OpenAPI document says about errors: every error response is a ``Problem``.

APIFlask documents its own error shapes as ``application/json``; the service answers
``application/problem+json`` instead, so operations list their problem responses here and the
``Problem`` model is registered once as a component. Each model is one component
(``shared_schemas``), and so is each enumeration used in many places (``named_enums``).
"""
from __future__ import annotations

import ast
import inspect
import sys
from types import ModuleType
from typing import Any

from .kinds import KINDS, PROBLEM_JSON, TYPE_PREFIX
from .schemas import Problem

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
_REFS = "#/components/schemas/"

_WHY = {
    400: "the body could not be read whole (shorter than its Content-Length, a bad chunk, too "
         "slow to arrive) or, for a JSON body, is not valid JSON (or, for the log alone, the "
         "client closed the connection while its request was solved: `client-gone`)",
    413: "the body is over the size limit",
    422: "a field is missing, has the wrong type or an impossible value (deal, rules, leader, "
         "play, player; no game in a PBN body), or the compute budget ran out",
    503: "the service cannot solve (`/health`; or the worker is out of memory: `unavailable`), "
         "or is stopping and dropped the request unanswered (`stopping`: send it again)",
}


def problem_responses(*statuses: int) -> dict[Any, dict[str, Any]]:
    """Response entries for these statuses and 503 (a quick stop can drop any request), and
    ``default`` for any other error."""
    content = {PROBLEM_JSON: {"schema": PROBLEM_REF}}
    out: dict[Any, dict[str, Any]] = {s: {"description": "problem: " + _WHY[s], "content": content}
                                      for s in sorted({*statuses, 503})}
    out["default"] = {"description": "problem: any other error (unknown path, wrong method, ...)",
                      "content": content}
    return out


#: Kinds answered with other statuses than their own in ``KINDS``: gunicorn's refusals keep
#: its status and reason (``api/worker.py``).
STATUSES = {"malformed-request": "400, or 414, 431 or 501 with gunicorn's reason as the title"}


def add_problem_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """Register ``Problem`` and list the problem types in its description."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schema = Problem.model_json_schema(ref_template="#/components/schemas/Problem.{model}")
    for name, sub in schema.pop("$defs", {}).items():
        schemas[f"Problem.{name}"] = sub
    kinds = "; ".join(f"`{TYPE_PREFIX}{k}` ({STATUSES.get(k, status)}: {title})"
                      for k, (status, title) in KINDS.items())
    schema["description"] = (schema.get("description", "") + " Types: " + kinds + "; other HTTP "
                             "errors use `about:blank`.").strip()
    schemas["Problem"] = schema
    return spec


def shared_schemas(spec: dict[str, Any]) -> dict[str, Any]:
    """One component for each model, under its own name.

    APIFlask registers the models a body's model uses under the body's name (pydantic's
    ``$defs``: ``AnalyzeRequest.RuleSet``, ``AnalyzeResult.RuleSet``, ...): nine copies of
    ``RuleSet``, each titled ``RuleSet``, and a client generator made one class of each, or
    (openapi-python-client) refused the duplicates and left out every operation that used
    them. Copies that are the same become one component named after the model (``RuleSet``),
    every ``$ref`` pointed at it; a model whose copies differ keeps them as they were.
    """
    schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    copies: dict[str, list[str]] = {}
    for name in schemas:
        _, dot, model = name.partition(".")
        if dot:
            copies.setdefault(model, []).append(name)
    renamed = {}
    for model, names in copies.items():
        first = schemas[names[0]]
        if model not in schemas and all(schemas[n] == first for n in names):
            renamed.update({f"{_REFS}{n}": f"{_REFS}{model}" for n in names})
            for n in names:
                del schemas[n]
            schemas[model] = first
    if renamed:
        _point_refs(spec, renamed)
    return spec


def _point_refs(node: Any, renamed: dict[str, str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in renamed:
            node["$ref"] = renamed[ref]
        for value in node.values():
            _point_refs(value, renamed)
    elif isinstance(node, list):
        for value in node:
            _point_refs(value, renamed)


def named_enums(spec: dict[str, Any], enums: dict[str, tuple[list[str], str]]) -> dict[str, Any]:
    """Each of these enumerations one component, which every schema listing it refers to.

    pydantic writes a ``Literal`` out where it is used: the seats were listed in sixteen places
    (``leader``, ``player``, ``to_move``, a line's ``for``, ...), the presets in six, and a
    client generator made a type of each (``AnalyzeResultToMoveType0``,
    ``AnalyzeRequestPlayerType0``, ...), so that the seat an answer named could not be passed
    back as a request's without a conversion.
    """
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    named = {name: values for name, (values, _) in enums.items() if name not in schemas}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for name, values in named.items():
                if node.get("enum") == values and node.get("type", "string") == "string":
                    node.pop("type", None)
                    del node["enum"]
                    node["$ref"] = _REFS + name
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(spec)
    for name, values in named.items():
        schemas[name] = {"title": name, "description": enums[name][1], "type": "string",
                         "enum": values}
    return spec


def restore_docstrings(*modules: ModuleType) -> None:
    """Under ``python -OO`` (``PYTHONOPTIMIZE=2``), which drops docstrings, put back those of
    these modules' classes and functions, read from their source: the document's summaries and
    descriptions are the views' and models' docstrings, and the operations had none."""
    if sys.flags.optimize < 2:
        return
    for module in modules:
        try:
            tree = ast.parse(inspect.getsource(module))
        except (OSError, TypeError, SyntaxError):   # (no source installed: nothing to read)
            continue
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                doc, obj = ast.get_docstring(node, clean=False), getattr(module, node.name, None)
                if doc and obj is not None and obj.__doc__ is None:
                    obj.__doc__ = doc
