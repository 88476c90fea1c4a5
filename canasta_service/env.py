"""Typed readers for configuration held in environment variables (12-factor).

Each reader takes the variable's name, a default, and optionally the mapping to read from
(``os.environ`` unless given, so tests can pass a plain dict). A value that is present but
malformed raises ``ImproperlyConfigured`` with a message that names the variable, so a bad
deployment fails at start-up instead of misbehaving later. An empty string counts as unset.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

Environ = Mapping[str, str]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _raw(name: str, environ: Environ | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def _fail(name: str, value: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Environment variable {name}={value!r} is invalid: {expected}.")


def env_str(name: str, default: str | None = None, *, environ: Environ | None = None) -> str | None:
    """The variable's value with surrounding whitespace removed, or ``default``."""
    value = _raw(name, environ)
    return default if value is None else value


def env_bool(name: str, default: bool, *, environ: Environ | None = None) -> bool:
    """1/0, true/false, yes/no, on/off (any case)."""
    value = _raw(name, environ)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise _fail(name, value, "expected one of 1/0, true/false, yes/no, on/off")


def env_int(
    name: str,
    default: int,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Environ | None = None,
) -> int:
    """A base-10 integer, optionally bounded (inclusive)."""
    value = _raw(name, environ)
    if value is None:
        return default
    try:
        number = int(value, 10)
    except ValueError:
        raise _fail(name, value, "expected an integer") from None
    if minimum is not None and number < minimum:
        raise _fail(name, value, f"expected an integer >= {minimum}")
    if maximum is not None and number > maximum:
        raise _fail(name, value, f"expected an integer <= {maximum}")
    return number


def env_list(
    name: str, default: Iterable[str] = (), *, environ: Environ | None = None
) -> list[str]:
    """A comma-separated list; items are stripped and empty items dropped."""
    value = _raw(name, environ)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(
    name: str,
    default: str | None = None,
    *,
    schemes: Iterable[str],
    environ: Environ | None = None,
) -> str | None:
    """A URL whose scheme is one of ``schemes``; ``default`` (unchecked) when unset."""
    value = _raw(name, environ)
    if value is None:
        return default
    allowed = sorted(schemes)
    try:
        parts = urlsplit(value)
    except ValueError:
        raise _fail(name, value, "expected a URL") from None
    if parts.scheme.lower() not in allowed or "://" not in value:
        raise _fail(name, value, f"expected a URL with scheme {' or '.join(allowed)}")
    return value


def env_origins(name: str, *, environ: Environ | None = None) -> list[str]:
    """A comma-separated list of web origins such as ``https://app.example.org:8443``.

    An origin is scheme, host and optional port: no path, query, fragment or credentials.
    """
    origins = env_list(name, environ=environ)
    for origin in origins:
        try:
            parts = urlsplit(origin)
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except ValueError:
            raise _fail(name, origin, "expected an origin such as https://example.org") from None
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("",)
            or parts.query
            or parts.fragment
            or parts.username is not None
        ):
            raise _fail(
                name,
                origin,
                "expected an origin such as https://example.org (scheme and host, "
                "optional port, no path or trailing slash)",
            )
    return origins


def env_database(name: str, default: str, *, environ: Environ | None = None) -> dict[str, Any]:
    """A database URL (``postgres://user:pass@host:5432/name``, ``sqlite:////abs/path``) parsed
    into a Django ``DATABASES`` entry."""
    value = _raw(name, environ)
    url = default if value is None else value
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url))
    except ValueError as exc:
        raise _fail(
            name,
            url,
            "expected a database URL such as postgres://user:password@host:5432/name "
            f"or sqlite:////absolute/path.sqlite3 ({exc})",
        ) from None
    if not config.get("NAME"):
        raise _fail(name, url, "the URL names no database")
    return config
