"""The app (api/app.py): what it serves besides the API, such as the interactive /docs page."""
from __future__ import annotations

import re
from urllib.parse import urljoin

from api import create_app


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
            got = client.get(url, base_url=base)
            assert got.status_code == 200 and got.data, (asset, got.status_code)


def test_the_docs_page_s_swagger_ui_renders_the_service_s_openapi_version() -> None:
    """swagger-ui-bundle's swagger-ui 4 rendered only OpenAPI 3.0 ("Unable to render this
    definition"), and the document is 3.1: the page showed no operation."""
    client = create_app().test_client()
    major, minor, _ = client.get("/openapi.json").get_json()["openapi"].split(".")
    script = client.get("/docs/assets/swagger-ui-bundle.js").get_data(as_text=True)
    assert f"openapi: {major}.{minor}." in script


def test_every_operation_documents_the_503_of_a_quick_stop() -> None:
    """A quick stop answers any request in flight 503 ``stopping``; only /health listed a 503."""
    spec = create_app().test_client().get("/openapi.json").get_json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert "stopping" in operation["responses"]["503"]["description"], (method, path)
