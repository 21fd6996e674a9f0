"""The app (api/app.py): what it serves besides the API, such as the interactive /docs page."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
from typing import Any, Iterator, cast
from urllib.parse import urljoin

import pytest
import requests

from api import create_app
from api.docs import named_enums, shared_schemas
from solver.rules import PRESETS, VALUE_LIMIT


def test_the_docs_page_needs_nothing_from_another_host() -> None:
    """/docs loaded swagger-ui and its icon from a CDN: on a network without the internet the
    page stayed blank. Each script, style and icon now comes from the service, by a URL
    relative to the page (so a service mounted under a prefix finds them too)."""
    client = create_app().test_client()
    for root in ("", "/hearts"):
        base = "http://localhost" + root
        page = client.get("/docs", base_url=base)
        assert page.status_code == 200
        assets = re.findall(r'(?:src|href)="([^"]+)"', page.get_data(as_text=True))
        assert len(assets) == 4 and not [a for a in assets if re.match(r"\w+:|/", a)], assets
        for asset in assets:
            url = urljoin(root + "/docs", asset).removeprefix(root)
            got = client.get(url, base_url=base, buffered=True)   # (its file read and closed)
            assert got.status_code == 200 and got.data, (asset, got.status_code)


def test_the_docs_page_s_swagger_ui_renders_the_service_s_openapi_version() -> None:
    """swagger-ui-bundle's swagger-ui 4 rendered only OpenAPI 3.0 ("Unable to render this
    definition"), and the document is 3.1: the page showed no operation."""
    client = create_app().test_client()
    major, minor, _ = client.get("/openapi.json").get_json()["openapi"].split(".")
    script = client.get("/docs/assets/swagger-ui-bundle.js", buffered=True).get_data(as_text=True)
    assert f"openapi: {major}.{minor}." in script


def test_every_answer_but_the_docs_page_may_run_or_load_nothing() -> None:
    """An annotate report or a problem opened in a browser ran nothing even if it were taken
    for HTML, and no other site may frame any of the service's pages."""
    client = create_app().test_client()
    answers = [client.get("/openapi.json"), client.get("/api/v1/rules"), client.get("/no/such"),
               client.get("/docs/assets/swagger-ui-bundle.js", buffered=True),   # (its file closed)
               client.post("/api/v1/analyze", json={"deal": "x"}),
               client.post("/api/v1/annotate?format=text", data=b'[Board "<b>"]\n[Deal "x"]\n')]
    assert [a.headers.get("Content-Security-Policy") for a in answers] == \
        ["default-src 'none'; frame-ancestors 'none'"] * len(answers)
    policy = dict(d.strip().split(" ", 1) for d in
                  client.get("/docs").headers["Content-Security-Policy"].split(";"))
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"


@pytest.mark.parametrize("root", ["", "/hearts"])
def test_the_docs_page_s_policy_allows_its_own_scripts_and_no_other(root: str) -> None:
    """The page's inline script (swagger-ui's set-up, with the page's settings) is allowed by
    its hash, computed from the page as served, so a setting that changes it stays allowed;
    no other inline script, nor any other host's."""
    page = create_app().test_client().get("/docs", base_url="http://localhost" + root)
    scripts = re.findall(rb"<script>(.*?)</script>", page.data, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0]).digest()).decode()
    policy = dict(d.strip().split(" ", 1) for d in page.headers["Content-Security-Policy"].split(";"))
    assert policy["script-src"] == f"'self' 'sha256-{digest}'"
    assert policy["default-src"] == policy["connect-src"] == "'self'"


BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.mark.skipif(BROWSER is None, reason="no Chromium to render /docs with (apt install chromium)")
def test_a_browser_renders_the_docs_page_under_its_policy(tmp_path) -> None:
    """The policies above checked by a browser: every operation of the document rendered, and
    no script, style or image refused (a policy without the inline script's hash showed none)."""
    from api.testing import served
    with served(workers=1) as base:
        shown = subprocess.run([str(BROWSER), "--headless", "--no-sandbox", "--disable-gpu",
                                f"--user-data-dir={tmp_path}", "--virtual-time-budget=10000",
                                "--enable-logging=stderr", "--v=0", "--dump-dom", base + "/docs"],
                               capture_output=True, text=True, timeout=120)
        operations = requests.get(base + "/openapi.json", timeout=10).json()["paths"]
    assert "violates the following Content Security Policy" not in shown.stderr, shown.stderr
    rendered = set(re.findall(r'class="opblock-summary-path" data-path="([^"]+)"', shown.stdout))
    assert rendered == set(operations), (rendered, shown.stderr[-2000:])


def test_the_document_is_the_same_under_python_OO() -> None:
    """``-OO`` drops docstrings, which are the operations' summaries and descriptions and the
    models' descriptions: the document lost them all (and the Problem model its first line)."""
    shown = subprocess.run([sys.executable, "-OO", "-c", "import json, api; print(json.dumps("
                            "api.create_app().test_client().get('/openapi.json').get_json()))"],
                           capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(shown.stdout) == create_app().test_client().get("/openapi.json").get_json()


def test_every_operation_documents_the_503_of_a_quick_stop() -> None:
    """A quick stop answers any request in flight 503 ``stopping``; only /health listed a 503."""
    spec = create_app().test_client().get("/openapi.json").get_json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert "stopping" in operation["responses"]["503"]["description"], (method, path)


def _document_url(page: str) -> str:
    """The URL /docs's swagger-ui reads the OpenAPI document from, as the page gives it."""
    url = re.search(r'url: "([^"]*)"', page)
    assert url is not None
    user = re.search(r"var userConfig = (\{.*\})", page)
    return str(json.loads(user.group(1)).get("url", url.group(1)) if user else url.group(1))


@pytest.mark.parametrize("served_at, public", [
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000/"),        # no proxy
    ("http://127.0.0.1:8000", "https://example.org/"),          # behind a proxy, at its root
    ("http://127.0.0.1:8000", "https://example.org/hearts/"),   # under a prefix the proxy strips
    ("https://example.org/hearts", "https://example.org/hearts/"),  # ... or says (SCRIPT_NAME)
])
def test_the_docs_page_and_the_document_find_the_service_where_its_clients_see_it(
        served_at: str, public: str) -> None:
    """Behind a proxy, /docs read the document at /openapi.json, outside a prefix the proxy
    strips (another application's, or a 404), and the document's server was the URL of the
    first request for it (cached for every later one): the service's internal address, the
    proxy's without its port, http for an https page. swagger-ui resolves the page's document
    URL against the page and the server URL against the document's, as this test does."""
    client = create_app().test_client()
    assert client.get("/openapi.json", base_url="http://10.0.0.5:8000").status_code == 200
    page = client.get("/docs", base_url=served_at).get_data(as_text=True)
    document_url = urljoin(public + "docs", _document_url(page))
    assert document_url == public + "openapi.json"
    spec = client.get("/openapi.json", base_url=served_at).get_json()
    assert urljoin(document_url, spec["servers"][0]["url"]) == public


# -- the OpenAPI document as a client's generator reads it ----------------------------------
def _document() -> dict[str, Any]:
    return cast(dict[str, Any], create_app().test_client().get("/openapi.json").get_json())


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in the document, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def test_the_document_bounds_rule_values_as_the_service_does() -> None:
    """A rule value's bounds were in the document as pydantic's ``ge`` and ``le``, which are no
    JSON Schema keywords: the document let a client send ``{"values": {"SQ": 5000}}`` or
    ``{"trick_points": 5000}``, and the service refused both 422."""
    spec = _document()
    numbers = [n for n in _nodes(spec) if n.get("type") in ("integer", "number")]
    assert not [n for n in numbers if {"ge", "gt", "le", "lt"} & n.keys()]
    rule_sets = [s for s in spec["components"]["schemas"].values() if s.get("title") == "RuleSet"]
    assert rule_sets
    for rule_set in rule_sets:
        for bounded in (rule_set["properties"]["values"]["additionalProperties"],
                        rule_set["properties"]["trick_points"]):
            assert (bounded["minimum"], bounded["maximum"]) == (-VALUE_LIMIT, VALUE_LIMIT)
    client = create_app({"SOLVER_NODE_LIMIT": 20_000}).test_client()
    deal = "N:.A..2 .2..3 .3..4 .4..5"
    for rules in ({"values": {"SQ": VALUE_LIMIT + 1}}, {"trick_points": -VALUE_LIMIT - 1}):
        assert client.post("/api/v1/analyze", json={"deal": deal, "rules": rules}).status_code == 422
    for rules in ({"values": {"SQ": VALUE_LIMIT}}, {"trick_points": -VALUE_LIMIT}):
        assert client.post("/api/v1/analyze", json={"deal": deal, "rules": rules}).status_code == 200


def test_each_model_is_one_component_that_every_reference_finds() -> None:
    """APIFlask registered a body's models under the body's name: nine copies of ``RuleSet``
    (``AnalyzeRequest.RuleSet``, ``AnalyzeResult.RuleSet``, ...) and two of ``Line``, ``MoveValue``
    and ``PlayerValue``, each with the model's title. openapi-python-client refused the
    duplicates and generated no function for analyze, analyses, samples or moon."""
    spec = _document()
    schemas = spec["components"]["schemas"]
    titles = [schema.get("title", name) for name, schema in schemas.items()]
    assert not {t for t in titles if titles.count(t) > 1}
    assert {"RuleSet", "Line", "MoveValue", "PlayerValue", "FieldProblem"} <= schemas.keys()
    refs = {node["$ref"] for node in _nodes(spec) if "$ref" in node}
    assert refs and {ref.removeprefix("#/components/schemas/") for ref in refs} <= schemas.keys()
    assert all(ref.startswith("#/components/schemas/") for ref in refs)


def test_copies_of_a_model_that_differ_stay_apart() -> None:
    rule = {"type": "string"}
    spec = {"components": {"schemas": {
        "A": {"$ref": "#/components/schemas/A.Same"}, "A.Same": rule, "B.Same": dict(rule),
        "A.Other": {"type": "integer"}, "B.Other": rule,
        "C": {"items": {"$ref": "#/components/schemas/B.Other"}}}}}
    schemas = shared_schemas(spec)["components"]["schemas"]
    assert schemas == {"A": {"$ref": "#/components/schemas/Same"}, "Same": rule,
                       "A.Other": {"type": "integer"}, "B.Other": rule,
                       "C": {"items": {"$ref": "#/components/schemas/B.Other"}}}


def test_every_operation_has_its_own_operation_id() -> None:
    """No operation had an ``operationId``: a generated client named its functions after the
    paths (``post_api_v1_analyze``, and so on), which change with the version prefix."""
    spec = _document()
    ids = [operation.get("operationId") for operations in spec["paths"].values()
           for operation in operations.values()]
    assert all(isinstance(i, str) and re.fullmatch(r"[a-z][A-Za-z]*", i) for i in ids), ids
    assert len(set(ids)) == len(ids)
    assert spec["paths"]["/api/v1/analyze"]["post"]["operationId"] == "analyze"


def test_every_request_body_is_required_as_the_service_requires_it() -> None:
    """A POST without a body is refused (400, or 422 for annotate's PBN): the document must not
    call the body optional, as APIFlask declared it, for a generated client to leave out."""
    spec = _document()
    client = create_app().test_client()
    bodies = {path: operation["requestBody"] for path, operations in spec["paths"].items()
              for operation in operations.values() if "requestBody" in operation}
    assert len(bodies) == 5 and all(body["required"] is True for body in bodies.values()), bodies
    assert all(client.post(path).status_code in (400, 422) for path in bodies)


def test_each_enumeration_is_listed_once_as_a_named_component() -> None:
    """The seats were listed in sixteen places of the document and the presets in six, and a
    generated client had a type for each (``AnalyzeResultToMoveType0``,
    ``AnalyzeRequestPlayerType0``, ...): an answer's ``to_move`` could not be sent back as a
    request's ``player`` without a conversion. Now ``Seat`` and ``Preset`` are components."""
    spec = _document()
    lists = [tuple(node["enum"]) for node in _nodes(spec) if "enum" in node]
    assert not {values for values in lists if lists.count(values) > 1}
    schemas = spec["components"]["schemas"]
    assert schemas["Seat"]["enum"] == ["N", "E", "S", "W"]
    assert schemas["Preset"]["enum"] == list(PRESETS)
    seat = {"$ref": "#/components/schemas/Seat"}
    assert seat in schemas["AnalyzeRequest"]["properties"]["player"]["anyOf"]
    assert seat in schemas["AnalyzeResult"]["properties"]["to_move"]["anyOf"]
    assert schemas["AnalyzeResult"]["properties"]["players"]["propertyNames"] == seat
    assert schemas["RuleSet"]["properties"]["preset"]["$ref"] == "#/components/schemas/Preset"


def test_an_enumeration_is_named_with_its_description_but_not_over_a_model_of_that_name() -> None:
    """Each list of the values becomes a reference to one component that holds them and says
    what they are; a model already of that name (a ``Seat`` model, say) keeps its component,
    and the lists stay where they are rather than point at that model."""
    spec: dict[str, Any] = {"player": {"type": "string", "enum": ["N", "S"]}}
    named_enums(spec, {"Seat": (["N", "S"], "a seat")})
    assert spec == {"components": {"schemas": {"Seat": {"title": "Seat", "description": "a seat",
                                                        "type": "string", "enum": ["N", "S"]}}},
                    "player": {"$ref": "#/components/schemas/Seat"}}
    model = {"title": "Seat", "type": "object", "properties": {"name": {"type": "string"}}}
    spec = {"components": {"schemas": {"Seat": model}}, "player": {"type": "string", "enum": ["N", "S"]}}
    named_enums(spec, {"Seat": (["N", "S"], "a seat")})
    assert spec == {"components": {"schemas": {"Seat": model}},
                    "player": {"type": "string", "enum": ["N", "S"]}}


def test_every_answer_says_not_to_guess_its_type() -> None:
    """A browser guessing HTML in a text answer (an annotate report carries a stranger's
    ``[Board]``) ran what it found: every answer, problems and the docs page's assets too,
    says ``X-Content-Type-Options: nosniff``."""
    client = create_app().test_client()
    pbn = b'[Board "<script>alert(1)</script>"]\n[Deal "N:.A97.Q4.5 A84..3.86 .J.972.A4 9.854.J.K"]\n'
    answers = [client.get("/docs"), client.get("/docs/assets/swagger-ui.css", buffered=True),  # (file closed)
               client.get("/openapi.json"), client.get("/api/v1/rules"), client.get("/no/such"),
               client.post("/api/v1/analyze", json={"deal": "x"}),
               client.post("/api/v1/annotate?format=text", data=pbn)]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 404, 422, 200]
    assert all(a.headers.get("X-Content-Type-Options") == "nosniff" for a in answers), \
        [(a.request.path, dict(a.headers)) for a in answers]



def test_every_field_of_an_analyze_answer_is_in_the_document() -> None:
    """The answer models (``AnalyzeResult``, ``PlayerValue``, ``MoveValue``) allow fields they
    do not declare (``extra="allow"``), so a field added to ``Analysis.to_json``
    (solver/results.py) passed every test while the OpenAPI document never mentioned it: each
    field of a real answer must be one of its schema's properties (api/schemas.py)."""
    schemas = _document()["components"]["schemas"]
    client = create_app({"SOLVER_NODE_LIMIT": 2_000_000}).test_client()
    deal = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
    play = ("C2 C6 C5 CT DT D7 D9 DQ CJ C4 CK CQ C3 C8 C9 H9 S4 S8 SQ SA HK H7 HA H8 S5 SK C7 S7 "
            "H5 HT H4 H2 CA D3 S6 H6 HJ S9")
    body = {"deal": deal, "play": play, "line": "N"}
    answer = client.post("/api/v1/analyze", json=body).get_json()
    assert answer["moves"] and "line" in answer, answer

    def undeclared(obj: dict[str, Any], model: str) -> set[str]:
        return set(obj) - set(schemas[model]["properties"])

    assert not undeclared(answer, "AnalyzeResult"), "declare it in api/schemas.py AnalyzeResult"
    assert not undeclared(answer["line"], "Line")
    for player in answer["players"].values():
        assert not undeclared(player, "PlayerValue")
    for move in answer["moves"]:
        assert not undeclared(move, "MoveValue")
