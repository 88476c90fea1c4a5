"""What the schemathesis runs share: the committed schema loaded with their generation settings,
the checks they leave out, and the WSGI calls that keep the test's database connection.

Two of schemathesis' default checks are left out on purpose: ``positive_data_acceptance`` (a
schema-valid action is still refused when the rules say no: 422 is the right answer) and
``negative_data_rejection`` (DRF coerces some values a strict schema reading would refuse, such
as ``0`` for a boolean; harmless and not a contract we promise). The SSE stream's 200 is
documented as one string (OpenAPI 3.0); schemathesis parses the events and checks each against
that schema, so its body is not checked (its status codes and 5xx still are).

``SCHEMATHESIS_MAX_EXAMPLES`` raises the bound of every run for a longer local one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from schemathesis import GenerationMode, checks
from schemathesis.specs.openapi.schemas import OpenApiSchema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "openapi.yaml"
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "20"))
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
EXCLUDED_CHECKS = ("positive_data_acceptance", "negative_data_rejection")
EXCLUDED_FOR = {"/api/v1/games/{game_id}/stream/": ("response_schema_conformance",)}


def load_schema(
    max_examples: int = MAX_EXAMPLES,
    modes: tuple[GenerationMode, ...] = MODES,
    allow_x00: bool = True,
) -> OpenApiSchema:
    """openapi.yaml, generating deterministically at most ``max_examples`` cases per operation
    (NUL characters in strings unless ``allow_x00`` is false), with only the links it documents
    (schemathesis infers none of its own)."""
    schema = schemathesis.openapi.from_path(SCHEMA_PATH)
    schema.config.generation.update(
        modes=list(modes), max_examples=max_examples, deterministic=True, allow_x00=allow_x00
    )
    schema.config.phases.stateful.inference.algorithms = []
    return schema


def excluded_checks(path: str) -> list[Callable[..., Any]]:
    """The checks left out for the operation at ``path`` (a path template)."""
    names = EXCLUDED_CHECKS + EXCLUDED_FOR.get(path, ())
    return [getattr(checks, name) for name in names]


@contextmanager
def connection_kept() -> Iterator[None]:
    """Requests go through Django's full WSGI handler, whose request signals close the database
    connection, and with it the test's transaction (on PostgreSQL). Django's own test client
    detaches that handler for each request in the same way (and attaches it again after, so
    this is done around each call, not once per test)."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in signals:
            signal.connect(close_old_connections)
