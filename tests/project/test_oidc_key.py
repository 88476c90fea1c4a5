"""The OpenID Connect provider's signing key from the environment (canasta_service/oidc_key.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from canasta_service.oidc_key import DEV_KEY_NAME, generate_pem, oidc_private_key


def test_a_key_in_the_environment_or_in_a_file(tmp_path: Path) -> None:
    pem = generate_pem()
    escaped = pem.replace("\n", "\\n")  # one line, as some deployments store it
    got = oidc_private_key(debug=False, folder=tmp_path, environ={"OIDC_PRIVATE_KEY": escaped})
    assert got == pem
    (tmp_path / "key.pem").write_text(pem)
    environ = {"OIDC_PRIVATE_KEY_FILE": str(tmp_path / "key.pem")}
    assert oidc_private_key(debug=False, folder=tmp_path, environ=environ) == pem


@pytest.mark.parametrize(
    "environ",
    [
        {"OIDC_PRIVATE_KEY": "not a key"},
        {"OIDC_PRIVATE_KEY_FILE": "/no/such/file.pem"},
        {"OIDC_PRIVATE_KEY": "x", "OIDC_PRIVATE_KEY_FILE": "y"},
    ],
)
def test_a_bad_key_stops_the_start(tmp_path: Path, environ: dict[str, str]) -> None:
    with pytest.raises(ImproperlyConfigured, match="OIDC_PRIVATE_KEY"):
        oidc_private_key(debug=True, folder=tmp_path, environ=environ)


def test_development_makes_a_key_once_and_production_has_none(tmp_path: Path) -> None:
    first = oidc_private_key(debug=True, folder=tmp_path, environ={})
    assert "PRIVATE KEY" in first
    assert (tmp_path / DEV_KEY_NAME).stat().st_mode & 0o077 == 0  # its owner's only
    assert oidc_private_key(debug=True, folder=tmp_path, environ={}) == first
    assert oidc_private_key(debug=False, folder=tmp_path, environ={}) == ""


def test_git_ignores_the_development_key() -> None:
    root = Path(__file__).resolve().parents[2]
    assert DEV_KEY_NAME in (root / ".gitignore").read_text().split()
