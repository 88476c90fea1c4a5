"""Every error is an RFC 9457 problem document with a stable code (core.exceptions)."""

from typing import Any

import pytest
from django.test import Client
from rest_framework.exceptions import ErrorDetail

from core.errors import ServiceError
from core.exceptions import field_errors
from core.problems import PROBLEM_CONTENT_TYPE, problem_body

pytestmark = pytest.mark.urls("tests.project.urls")


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"urn:canasta:problem:{code}"
    assert body["title"]
    assert body["detail"]
    return body


def test_service_error_subclass_with_an_undeclared_member_is_a_bug(client: Client) -> None:
    """The view raises ``not_your_turn`` with a ``seat`` member the catalogue does not declare
    for it: making that error raises, so the request fails like any other bug."""
    client.raise_request_exception = False
    body = problem(client.get("/test/service-error/"), 500, "internal_error")
    assert "seat" not in body


def test_service_error_raised_directly_with_extra_members(client: Client) -> None:
    body = problem(client.get("/test/stale/"), 409, "stale_version")
    assert body["detail"] == "The game moved on."
    assert body["title"] == "Stale version"
    assert body["instance"] == "/test/stale/"
    assert body["current_version"] == 7


def test_service_error_extra_may_not_replace_standard_members() -> None:
    with pytest.raises(ValueError, match="status"):
        ServiceError("x", code="stale_version", extra={"status": 200})
    with pytest.raises(ValueError, match="code"):
        problem_body(status=400, code="invalid_request", detail="y", extra={"code": "z"})


def test_validation_errors_are_listed_by_field(client: Client) -> None:
    response = client.post(
        "/test/validate/",
        {"preset": "nope", "seats": [{"name": "Alice"}, {"name": "Bartholomew"}]},
        content_type="application/json",
    )
    body = problem(response, 400, "invalid_request")
    assert sorted(body["errors"], key=lambda e: e["field"]) == [
        {"field": "preset", "code": "invalid_choice", "message": '"nope" is not a valid choice.'},
        {
            "field": "seats.1.name",
            "code": "max_length",
            "message": "Ensure this field has no more than 5 characters.",
        },
    ]
    assert body["detail"] == "The request has 2 problems; see errors."


def test_object_level_validation_error_has_no_field(client: Client) -> None:
    response = client.post(
        "/test/validate/",
        {"preset": "hoyle", "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
        content_type="application/json",
    )
    body = problem(response, 400, "invalid_request")
    assert body["errors"] == [
        {"field": None, "code": "invalid", "message": "hoyle is for four players"}
    ]
    assert body["detail"] == "hoyle is for four players"


def test_malformed_json_body(client: Client) -> None:
    response = client.post("/test/validate/", "{not json", content_type="application/json")
    problem(response, 400, "malformed_body")


def test_unsupported_media_type(client: Client) -> None:
    response = client.post("/test/validate/", "preset=classic", content_type="text/plain")
    problem(response, 415, "unsupported_media_type")


def test_not_authenticated_names_the_scheme(client: Client) -> None:
    response = client.get("/test/private/")
    problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


@pytest.mark.django_db
def test_bad_token(client: Client) -> None:
    response = client.get("/test/private/", HTTP_AUTHORIZATION="Token nope")
    problem(response, 401, "authentication_failed")


@pytest.mark.django_db
def test_permission_denied(client: Client) -> None:
    from django.contrib.auth.models import User

    from accounts.services.credentials import guest_key_issue

    key = guest_key_issue(User.objects.create_user("ann"))
    response = client.get("/test/staff-only/", HTTP_AUTHORIZATION=f"Token {key}")
    problem(response, 403, "permission_denied")


def test_django_http404_in_a_view(client: Client) -> None:
    body = problem(client.get("/test/http404/"), 404, "not_found")
    assert "42" not in body["detail"]


def test_unknown_url_is_a_problem_too(client: Client) -> None:
    problem(client.get("/api/v1/no-such-thing/"), 404, "not_found")


def test_method_not_allowed(client: Client) -> None:
    response = client.delete("/api/v1/health/")
    problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_throttled_says_when_to_retry(client: Client) -> None:
    response = client.get("/test/throttled/")
    body = problem(response, 429, "throttled")
    assert body["retry_after"] == 7
    assert response["Retry-After"] == "7"


def test_uncaught_exception_is_a_500_problem_without_details() -> None:
    client = Client(raise_request_exception=False)
    body = problem(client.get("/test/bug/"), 500, "internal_error")
    assert "a bug" not in str(body)


def test_field_errors_flattens_nested_details() -> None:
    detail = {
        "non_field_errors": [ErrorDetail("whole", code="invalid")],
        "seats": [{}, {"name": [ErrorDetail("bad", code="blank")]}],
        "options": {"non_field_errors": [ErrorDetail("combo", code="conflict")]},
    }
    assert field_errors(detail) == [
        {"field": None, "code": "invalid", "message": "whole"},
        {"field": "seats.1.name", "code": "blank", "message": "bad"},
        {"field": "options", "code": "conflict", "message": "combo"},
    ]
