"""The OpenAPI schema validates, matches the committed openapi.yaml, and the docs are served."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


def test_schema_validates_and_matches_the_committed_file(tmp_path: Path) -> None:
    generated = tmp_path / "openapi.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(generated))
    committed = ROOT / "openapi.yaml"
    assert committed.read_text() == generated.read_text(), (
        "openapi.yaml is stale: run `make schema` and commit it"
    )


def test_schema_documents_problem_documents() -> None:
    import yaml

    schema = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    problem = schema["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code"} <= set(problem["required"])
    throttled = schema["paths"]["/api/v1/health/probe/"]["post"]["responses"]["429"]
    assert "application/problem+json" in throttled["content"]


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_schema_and_docs_are_public(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200


def test_docs_assets_are_served_locally(client: Client) -> None:
    html = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "cdn." not in html
    asset = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert asset.status_code == 200
