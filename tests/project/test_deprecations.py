"""Deprecated routes (canasta_service/deprecations.py, docs/api.md "Deprecation policy"): their
answers carry ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594) and ``Link`` with
``rel="deprecation"``; other routes' do not; the OpenAPI document tells the same."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from rest_framework.test import APIClient

from canasta_service.deprecations import (
    DEPRECATED_ROUTES,
    MINIMUM_NOTICE,
    DeprecatedRoute,
    deprecated_routes_hook,
    route_paths,
)
from tests.games.api.conftest import create_game
from tests.project.fresh_schema import fresh_schema
from tests.project.test_schema_bounds import sign_up

FORMER = DEPRECATED_ROUTES["game-join-code-former"]
HTTP_DATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")


def check_headers(response: Any, route: DeprecatedRoute) -> None:
    deprecation = response["Deprecation"]
    assert re.fullmatch(r"@\d+", deprecation), deprecation
    assert datetime.fromtimestamp(int(deprecation[1:]), UTC) == route.since
    sunset = response["Sunset"]
    assert HTTP_DATE.match(sunset), sunset
    assert parsedate_to_datetime(sunset) == route.sunset
    assert re.fullmatch(r'<[^<>]+>; rel="deprecation"', response["Link"]), response["Link"]
    assert response["Link"] == '</api/redoc/#operation/games_join_by_code>; rel="deprecation"'


def no_deprecation_headers(response: Any) -> None:
    for header in ("Deprecation", "Sunset", "Link"):
        assert not response.has_header(header), header


@pytest.mark.django_db
def test_the_former_join_path_says_it_is_deprecated_and_the_join_link_does_not() -> None:
    ada, bob = sign_up("Ada"), sign_up("Bob")
    game = create_game(ada, is_public=False)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {bob.token}")
    former = client.post(f"/api/v1/games/join/{game['join_code']}/", {"seat": 1}, format="json")
    assert former.status_code == 200, former.content
    check_headers(former, FORMER)
    unknown = client.post("/api/v1/games/join/NOSUCHCD/", {}, format="json")
    assert unknown.status_code == 404  # an error of a deprecated route says it too
    check_headers(unknown, FORMER)

    eve = sign_up("Eve")
    client.credentials(HTTP_AUTHORIZATION=f"Token {eve.token}")
    link = client.post(f"/api/v1/join/{game['join_code']}/", {"seat": 2}, format="json")
    assert link.status_code == 200, link.content
    no_deprecation_headers(link)
    no_deprecation_headers(client.get(f"/api/v1/games/{game['id']}/"))


@pytest.mark.django_db(transaction=True)
def test_the_headers_are_sent_under_asgi_too() -> None:
    """The middleware serves the async stack (``make run`` serves the ASGI application)."""
    client = AsyncClient()
    deprecated = async_to_sync(client.post)("/api/v1/games/join/NOSUCHCD/", {})
    assert deprecated.status_code in (401, 404)
    check_headers(deprecated, FORMER)
    no_deprecation_headers(async_to_sync(client.post)("/api/v1/join/NOSUCHCD/", {}))


def test_every_deprecation_keeps_the_policys_notice() -> None:
    for name, route in DEPRECATED_ROUTES.items():
        assert route_paths(name), f"{name}: no such route"
        assert route.since.tzinfo is not None and route.sunset.tzinfo is not None
        assert route.sunset - route.since >= MINIMUM_NOTICE, name


def test_the_document_names_the_deprecated_route_on_its_replacement() -> None:
    document = fresh_schema()
    assert "/api/v1/games/join/{join_code}/" not in document["paths"]  # ambiguous: left out
    link = document["paths"]["/api/v1/join/{join_code}/"]["post"]
    assert "deprecated" not in link
    assert (
        "It replaces `/api/v1/games/join/{join_code}/`, deprecated since 2026-11-22; it answers "
        "until 2027-05-22" in link["description"]
    )
    # Only the registry deprecates a path of the document.
    deprecated = {
        path
        for path, item in document["paths"].items()
        for operation in item.values()
        if isinstance(operation, dict) and operation.get("deprecated")
    }
    registered = {path for name in DEPRECATED_ROUTES for path in route_paths(name)}
    assert deprecated == registered & set(document["paths"])


def test_a_deprecated_route_in_the_document_is_marked_with_its_headers() -> None:
    document = fresh_schema()
    route = DeprecatedRoute(
        since=datetime(2026, 1, 1, tzinfo=UTC),
        sunset=datetime(2026, 7, 1, tzinfo=UTC),
        replacement="games_join_by_code",
    )
    deprecated_routes_hook(document, None, None, True, routes={"game-join": route})
    operation = document["paths"]["/api/v1/games/{game_id}/join/"]["post"]
    assert operation["deprecated"] is True
    assert "Deprecated: use `games_join_by_code` instead" in operation["description"]
    for status, response in operation["responses"].items():
        assert set(response["headers"]) >= {"Deprecation", "Sunset", "Link"}, status
        assert response["headers"]["Sunset"]["schema"] == {"type": "string"}
    others = document["paths"]["/api/v1/join/{join_code}/"]["post"]
    assert "deprecated" not in others
    assert "Deprecation" not in others["responses"]["200"].get("headers", {})
