"""The OpenID Connect provider's signing key (RSA, PEM), read from the environment.

``OIDC_PRIVATE_KEY`` holds the PEM itself (line breaks may be written as ``\\n``),
``OIDC_PRIVATE_KEY_FILE`` names a file holding it; setting both is an error. With neither,
the development server (``DEBUG``) uses a key generated once and kept in ``.oidc-dev-key.pem``
in the project folder (git ignores it); otherwise there is no key and the provider is off:
its endpoints answer 503 ``identity_provider_unavailable`` (``accounts/oidc_views.py``).

A key that is not an RSA private key in PEM stops the process at start-up with an
``ImproperlyConfigured`` error naming the variable.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import ImproperlyConfigured

from canasta_service.env import Environ, env_str

DEV_KEY_NAME = ".oidc-dev-key.pem"


def _check(pem: str, name: str) -> str:
    try:
        key = serialization.load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise ImproperlyConfigured(
            f"Environment variable {name} is invalid: expected an RSA private key in PEM "
            "(openssl genrsa 2048)."
        ) from exc
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ImproperlyConfigured(
            f"Environment variable {name} is invalid: the key must be RSA (tokens are RS256)."
        )
    return pem


def generate_pem() -> str:
    """A new 2048-bit RSA private key, PEM (PKCS #8)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _dev_key(folder: Path) -> str:
    path = folder / DEV_KEY_NAME
    if not path.exists():
        pem = generate_pem()
        # Readable by its owner only; created atomically so two processes starting at once
        # cannot both write it (the loser reads the winner's key).
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(pem)
    return _check(path.read_text(), DEV_KEY_NAME)


def oidc_private_key(*, debug: bool, folder: Path, environ: Environ | None = None) -> str:
    """The provider's signing key in PEM, or ``""`` when there is none (the provider is off)."""
    pem = env_str("OIDC_PRIVATE_KEY", environ=environ)
    path = env_str("OIDC_PRIVATE_KEY_FILE", environ=environ)
    if pem and path:
        raise ImproperlyConfigured(
            "Set one of the environment variables OIDC_PRIVATE_KEY and OIDC_PRIVATE_KEY_FILE."
        )
    if pem:
        return _check(pem.replace("\\n", "\n"), "OIDC_PRIVATE_KEY")
    if path:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ImproperlyConfigured(
                f"Environment variable OIDC_PRIVATE_KEY_FILE={path!r} is invalid: {exc}."
            ) from exc
        return _check(text, "OIDC_PRIVATE_KEY_FILE")
    if debug:
        return _dev_key(folder)
    return ""
