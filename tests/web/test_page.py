"""The client's page and assets are served by Django alone (no browser needed)."""

from __future__ import annotations

from typing import Any


def test_the_page_is_served_at_the_root(client: Any) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert b'src="/static/client/app.js"' in response.content
    assert b'href="/static/client/index.css"' in response.content


def test_its_assets_are_served_with_debug_off(client: Any) -> None:
    # DEBUG is off in the tests, as in production: WhiteNoise serves the built files.
    for path, kind in (
        ("/static/client/app.js", "javascript"),
        ("/static/client/index.css", "css"),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert kind in response["Content-Type"]


def test_the_page_only_answers_reads(client: Any) -> None:
    assert client.post("/").status_code == 405


def test_an_unbuilt_client_says_how_to_build_it(client: Any, monkeypatch: Any) -> None:
    from canasta_service import client as page

    monkeypatch.setattr(page.finders, "find", lambda path: None)
    response = client.get("/")
    assert response.status_code == 503
    assert b"make web" in response.content


def test_the_service_worker_is_served_at_the_root(client: Any) -> None:
    # At /sw.js its scope is /, which covers the page; revalidated on every visit.
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    assert "__SHELL_FILES__" not in body and "__SHELL_VERSION__" not in body
    assert '"/static/client/app.js"' in body


def test_the_manifest_is_served_as_a_web_app_manifest(client: Any) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon
    page = client.get("/").content
    assert b'rel="manifest" href="/manifest.webmanifest"' in page
    assert b'id="connection"' in page and b'role="status"' in page


def test_the_worker_and_the_manifest_only_answer_reads(client: Any) -> None:
    assert client.post("/sw.js").status_code == 405
    assert client.post("/manifest.webmanifest").status_code == 405
