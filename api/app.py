"""``create_app``: the Flask app gunicorn serves (``api:create_app()``).

Blueprints under ``/api/v1``: ``positions`` (analyze, analyses, samples, moon), ``records``
(annotate) and ``service`` (rules, health). ``/openapi.json`` is generated from the pydantic
models in ``api.schemas``; ``/docs`` is the interactive page.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path
from typing import Any, Mapping, get_args

import flask_swagger_ui
from apiflask import APIFlask
from flask import Blueprint, Response

from solver import package_version
from solver.rules import KEY_DESCRIPTIONS, PRESETS

from . import positions, problems, records, schemas, service, solving
from .config import API_PREFIX, DEFAULTS, checked, from_environment
from .docs import add_problem_schema, named_enums, restore_docstrings, shared_schemas
from .schemas import SeatName

DESCRIPTION = """Exact double-dummy analysis of Hearts deals (rules and answers: docs/SPEC.md).

Every error is an RFC 9457 problem (`application/problem+json`) whose `detail` names the field
and what is wrong with it. Solving runs under a compute budget per request; a position it cannot
settle in time is answered 422 with the problem type `urn:hearts-dd:problem:budget-exceeded`.
"""


#: /docs's scripts and style from the service itself (APIFlask's default is a CDN, which a
#: network without the internet, or a browser that blocks third parties, never reaches);
#: relative to /docs, so they are found under any URL prefix the service is mounted at.
#: swagger-ui 5 or later, as flask-swagger-ui ships it: 4 renders no OpenAPI 3.1 document
#: ("Unable to render this definition"), and APIFlask writes 3.1
_SWAGGER_UI = Path(flask_swagger_ui.__file__).with_name("dist")
_DOCS_ASSETS = {key: f"docs/assets/{name}" for key, name in (
    ("SWAGGER_UI_CSS", "swagger-ui.css"), ("SWAGGER_UI_BUNDLE_JS", "swagger-ui-bundle.js"),
    ("SWAGGER_UI_STANDALONE_PRESET_JS", "swagger-ui-standalone-preset.js"),
    ("DOCS_FAVICON", "favicon-32x32.png"))}


#: Where the API is, and where /docs finds the document: relative URLs, right whatever host,
#: scheme and prefix a proxy puts the service at. APIFlask's were absolute, from the request
#: (the spec's ``servers``: the URL of the first request for /openapi.json in each worker, cached
#: for every later one, such as the service's internal address for clients of the proxy) or
#: from the root (the page's document: /openapi.json, outside a prefix the proxy strips).
#: A server URL is relative to the document's (OpenAPI 3.1 §4.8.5), as swagger-ui resolves it.
_RELATIVE_URLS = {"SERVERS": [{"url": ".", "description": "this service (relative to the URL "
                              "this document was fetched from)"}],
                  "SWAGGER_UI_CONFIG": {"url": "openapi.json"}}


def create_app(config: Mapping[str, Any] | None = None) -> APIFlask:
    """The app, configured from defaults, ``HEARTS_DD_*`` environment variables, then ``config``."""
    restore_docstrings(positions, records, service, schemas)
    app = APIFlask(__name__, title="hearts-dd API", version=package_version(),
                   spec_path="/openapi.json", docs_path="/docs")
    app.request_class = problems.ProblemRequest
    app.json = problems.SafeJSONProvider(app)
    app.config.update(DEFAULTS)
    app.config.update(DESCRIPTION=DESCRIPTION, AUTO_VALIDATION_ERROR_RESPONSE=False,
                      AUTO_404_RESPONSE=False, **_DOCS_ASSETS, **_RELATIVE_URLS)
    app.config.update(from_environment(os.environ))
    app.config.update(config or {})
    app.config.update(checked(app.config))

    for blueprint in (positions.bp, records.bp, service.bp):
        app.register_blueprint(blueprint, url_prefix=API_PREFIX)
    app.register_blueprint(Blueprint("docs_assets", __name__, static_folder=_SWAGGER_UI,
                                     static_url_path="/docs/assets"))
    problems.install(app)
    solving.init_app(app)
    app.after_request(_safe_headers)
    # handed the spec as a dict (SPEC_PROCESSOR_PASS_OBJECT is off); APIFlask types it dict | str
    app.spec_processor(lambda spec: _finish_spec(spec, app.config))  # type: ignore[arg-type]
    return app


#: Content-Security-Policy of every answer but /docs's page: nothing in it may run or load, nor
#: may another site frame it (OWASP's headers for a REST service)
_API_POLICY = "default-src 'none'; frame-ancestors 'none'"
#: /docs's page: its scripts, styles and images from the service itself (its own inline
#: script by hash: ``_docs_policy``), calls to the service only, and no framing by another site
_DOCS_POLICY = ("default-src 'self'; script-src 'self'{hashes}; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                "form-action 'self'; frame-ancestors 'none'")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


def _safe_headers(resp: Response) -> Response:
    """Every answer as the type it names: a browser shown an annotate report (text or CSV
    with a stranger's ``[Board]``) or a problem body does not guess at HTML in it, and runs
    nothing in it even so (a content security policy); the docs page runs only its own scripts."""
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    if resp.mimetype == "text/html" and not resp.direct_passthrough:
        resp.headers.setdefault("Content-Security-Policy", _docs_policy(resp.get_data()))
    else:
        resp.headers.setdefault("Content-Security-Policy", _API_POLICY)
    return resp


def _docs_policy(page: bytes) -> str:
    """The docs page's policy, its inline scripts allowed by their SHA-256 (swagger-ui's set-up,
    which holds the page's settings: computed from the page itself, so they stay in step)."""
    hashes = "".join(" 'sha256-%s'" % base64.b64encode(hashlib.sha256(script).digest()).decode()
                      for script in _INLINE_SCRIPT.findall(page))
    return _DOCS_POLICY.format(hashes=hashes)


def _finish_spec(spec: dict[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """What APIFlask cannot say by itself: problem bodies, the PBN body, required bodies, one
    component for each model, and the limits of this service's settings."""
    spec = shared_schemas(records.document_body(add_problem_schema(spec)))
    spec = named_enums(spec, {"Seat": (list(get_args(SeatName)), "a seat; play goes clockwise, "
                                       "N, E, S, W"),
                              "Preset": (list(PRESETS), KEY_DESCRIPTIONS["preset"])})
    analyses = spec.get("components", {}).get("schemas", {}).get("AnalysesRequest")
    if analyses is not None:   # (HEARTS_DD_ANALYSES_MAX_POSITIONS: more are refused 422)
        analyses["properties"]["positions"]["maxItems"] = config["ANALYSES_MAX_POSITIONS"]
    for path in spec.get("paths", {}).values():
        for operation in path.values():
            if "requestBody" in operation:
                operation["requestBody"]["required"] = True
    return spec
