"""gzip of the app's answers (canasta_service/compression.py): large JSON is compressed for a
client that accepts gzip; event streams, streaming answers and the routes that carry
credentials (BREACH) never are."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.test import Client, RequestFactory

from canasta_service.compression import ApiGZipMiddleware

BIG = {"events": [{"seq": i, "type": "draw", "seat": i % 4} for i in range(200)]}


def _through(
    response: Callable[[], HttpResponse | StreamingHttpResponse], path: str = "/api/v1/rules/"
) -> Any:
    request = RequestFactory().get(path, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    return ApiGZipMiddleware(lambda _request: response())(request)


def test_the_middleware_sits_next_to_common_middleware() -> None:
    names = list(settings.MIDDLEWARE)
    at = names.index("canasta_service.compression.ApiGZipMiddleware")
    assert names[at + 1] == "django.middleware.common.CommonMiddleware"
    assert "django.middleware.gzip.GZipMiddleware" not in names


def test_large_json_is_gzipped_for_a_client_that_accepts_it() -> None:
    response = _through(lambda: JsonResponse(BIG))
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    assert json.loads(gzip.decompress(response.content)) == BIG
    assert int(response["Content-Length"]) == len(response.content) < len(json.dumps(BIG)) / 3


def test_nothing_is_gzipped_for_a_client_that_does_not_accept_it() -> None:
    request = RequestFactory().get("/api/v1/rules/")
    response: Any = ApiGZipMiddleware(lambda _r: JsonResponse(BIG))(request)
    assert not response.has_header("Content-Encoding")
    assert json.loads(response.content) == BIG


def test_a_strong_etag_becomes_weak_when_compressed() -> None:
    def tagged() -> HttpResponse:
        response = JsonResponse(BIG)
        response["ETag"] = '"abc"'
        return response

    assert _through(tagged)["ETag"] == 'W/"abc"'


def _frames() -> Iterator[bytes]:
    for i in range(50):
        yield f"id: {i}-0\nevent: game_event\ndata: {json.dumps(BIG)}\n\n".encode()


def test_an_event_stream_is_never_gzipped() -> None:
    response = _through(
        lambda: StreamingHttpResponse(_frames(), content_type="text/event-stream; charset=utf-8")
    )
    assert not response.has_header("Content-Encoding")
    assert next(iter(response.streaming_content)).startswith(b"id: 0-0\n")


def test_no_streaming_answer_is_gzipped() -> None:
    response = _through(lambda: StreamingHttpResponse(_frames(), content_type="application/json"))
    assert not response.has_header("Content-Encoding")


def test_an_event_stream_body_and_no_transform_are_left_alone() -> None:
    body = b"data: x\n\n" * 100
    stream = _through(lambda: HttpResponse(body, content_type="text/event-stream"))
    assert not stream.has_header("Content-Encoding")

    def no_transform() -> HttpResponse:
        response = JsonResponse(BIG)
        response["Cache-Control"] = "no-store, no-transform"
        return response

    assert not _through(no_transform).has_header("Content-Encoding")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/players/",  # guest sign-up: the token, once
        "/api/v1/account/tokens/",
        "/api/v1/account/tokens/7/",
        "/api/v1/account/sessions/",
        "/_allauth/app/v1/auth/login",
        "/identity/o/api/token",
        "/.well-known/openid-configuration",
        "/admin/login/",
    ],
)
def test_answers_that_carry_credentials_are_never_gzipped(path: str) -> None:
    response = _through(lambda: JsonResponse({"token": "s3cret" * 100}), path)
    assert not response.has_header("Content-Encoding")


@pytest.mark.parametrize("path", ["/api/v1/players/me/", "/api/v1/games/1/", "/api/v1/rules/"])
def test_other_routes_are_gzipped(path: str) -> None:
    assert _through(lambda: JsonResponse(BIG), path)["Content-Encoding"] == "gzip"


def test_the_schema_is_served_gzipped(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["testserver"]
    response = Client().get("/api/schema/", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content).startswith(b"openapi:")


@pytest.mark.parametrize(
    ("value", "on"), [(None, False), ("", False), ("false", False), ("true", True), ("1", True)]
)
def test_websocket_compression_is_an_option_off_by_default(
    monkeypatch: pytest.MonkeyPatch, value: str | None, on: bool
) -> None:
    from canasta_service.live_worker import ws_per_message_deflate

    if value is None:
        monkeypatch.delenv("LIVE_WS_PER_MESSAGE_DEFLATE", raising=False)
    else:
        monkeypatch.setenv("LIVE_WS_PER_MESSAGE_DEFLATE", value)
    assert ws_per_message_deflate() is on


def test_make_run_passes_the_option_to_uvicorn() -> None:
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "WS_DEFLATE ?= false" in makefile
    assert "--ws-per-message-deflate $(WS_DEFLATE)" in makefile
