"""The API docs (Swagger UI, Redoc) work offline: their pages and the bundles they load fetch
nothing from another host (drf-spectacular's Redoc page linked Google Fonts, and Redoc's
standalone bundle shows a logo from cdn.redoc.ly)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import drf_spectacular_sidecar
import pytest
from django.test import Client

from tests.conftest import in_ci

DOCS = ["/api/docs/", "/api/redoc/"]
SIDECAR = Path(drf_spectacular_sidecar.__file__).parent / "static" / "drf_spectacular_sidecar"
REDOC_BUNDLE = SIDECAR / "redoc" / "bundles" / "redoc.standalone.js"
URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s"'<>)]*""")


def policy(html: str) -> dict[str, list[str]]:
    """The page's Content-Security-Policy (its meta element), by directive."""
    match = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert match, "the page sets no Content-Security-Policy"
    directives = [d.split() for d in match.group(1).split(";") if d.strip()]
    return {d[0]: d[1:] for d in directives}


@pytest.mark.parametrize("path", DOCS)
def test_the_page_names_no_other_host(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert URL.findall(html) == []
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith("/static/drf_spectacular_sidecar/") for a in assets)
    for asset in assets:
        assert client.get(asset).status_code == 200, asset


@pytest.mark.parametrize("path", DOCS)
def test_the_page_keeps_the_browser_on_this_origin(client: Client, path: str) -> None:
    """Whatever a bundle would load (Redoc's logo), the page's policy refuses another host:
    scripts, styles, images, fonts and workers from this origin only."""
    rules = policy(client.get(path).content.decode())
    assert rules["default-src"] == ["'self'"]
    for directive in ("script-src", "style-src", "img-src", "font-src"):
        assert not [
            s for s in rules[directive] if s not in ("'self'", "'unsafe-inline'", "data:", "blob:")
        ], directive
    if path == "/api/redoc/":  # Redoc reads the schema from here; Swagger UI's "Try it out"
        assert rules["connect-src"] == ["'self'"]  # may call any server of the schema


def test_swagger_ui_asks_no_online_validator(client: Client) -> None:
    html = client.get("/api/docs/").content.decode()
    assert '"validatorUrl": null' in html


def test_redoc_bundle_loads_no_fonts_and_only_a_logo_from_outside() -> None:
    """The standalone bundle injects no font stylesheet (the page's template linked them, and
    no longer does); the one resource it requests from another host is the sidebar's logo,
    which the page's img-src refuses. A new bundle that requests more fails here."""
    bundle = REDOC_BUNDLE.read_text()
    assert "fonts.googleapis" not in bundle and "fonts.gstatic" not in bundle
    fetched = set(re.findall(r'src:"(https?://[^"]+)"', bundle))
    assert fetched == {"https://cdn.redoc.ly/redoc/logo-mini.svg"}


# ------------------------------------------------------------------------------ in a browser
def _chromium() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None
    from tests.web.conftest import chromium_path

    return chromium_path()


@pytest.fixture
def browser_page() -> Iterator[Any]:
    executable = _chromium()
    if executable is None:
        if in_ci():
            pytest.fail("needs Chromium and playwright (CI=true: install them, do not skip)")
        pytest.skip("needs Chromium and playwright (make browser-deps)")
    from playwright.sync_api import sync_playwright

    from tests.web.conftest import CHROMIUM_ARGS

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("path", "rendered"),
    [("/api/docs/", ".swagger-ui .info .title"), ("/api/redoc/", "h1")],
)
def test_the_docs_render_with_nothing_from_another_host(
    browser_page: Any, live_server: Any, path: str, rendered: str
) -> None:
    here = urlsplit(live_server.url).netloc
    requested: list[str] = []
    blocked: list[str] = []
    errors: list[str] = []
    browser_page.on("pageerror", lambda exc: errors.append(str(exc)))
    browser_page.on("request", lambda request: requested.append(request.url))
    browser_page.on(
        "requestfailed",
        lambda request: blocked.append(request.url) if request.failure == "csp" else None,
    )
    browser_page.goto(live_server.url + path)
    title = browser_page.locator(rendered).first
    title.wait_for()
    assert "Canasta game service API" in title.inner_text()
    browser_page.wait_for_load_state("networkidle")
    outside = [u for u in requested if urlsplit(u).scheme in ("http", "https")]
    outside = [u for u in outside if urlsplit(u).netloc != here]
    # Redoc's logo is refused by the page's policy before the browser sends anything.
    assert sorted(outside) == sorted(blocked)
    assert set(outside) <= {"https://cdn.redoc.ly/redoc/logo-mini.svg"}
    assert any(u.endswith("/api/schema/") for u in requested)
    assert errors == []
