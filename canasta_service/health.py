"""Health endpoints: is the service able to do its work?

- ``GET /api/v1/health/`` checks the database (``SELECT 1``) and the Celery broker (a connection
  with a short timeout; "eager" when no broker is configured and tasks run in-process). 200 when
  every check passes, 503 otherwise. Suitable for load-balancer and container health checks.
- ``POST /api/v1/health/probe/`` proves the whole asynchronous chain: it enqueues
  ``games.record_worker_probe`` after the (empty) transaction commits and answers 202 with a
  token; ``GET /api/v1/health/probe/{token}/`` tells whether a worker has written that row.

All of them are public (no authentication, so no CSRF either); the probe is rate-limited.
"""

from __future__ import annotations

import logging
import secrets
from functools import partial
from typing import Any

from django.db import connection, models, transaction
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from canasta_service.celery import app as celery_app
from core import dispatch
from core.problems import ProblemSerializer, problem_responses
from core.throttling import ClientScopedRateThrottle
from games.models import WorkerProbe
from games.tasks import record_worker_probe

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2


class HealthStatus(models.TextChoices):
    OK = "ok"
    UNAVAILABLE = "unavailable"


class CheckStatus(models.TextChoices):
    OK = "ok"
    EAGER = "eager"
    ERROR = "error"


# ----------------------------------------------------------------------------- checks


def check_database() -> dict[str, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        logger.warning("health: database check failed: %r", exc)
        return {"status": CheckStatus.ERROR, "detail": type(exc).__name__}
    return {"status": CheckStatus.OK, "detail": connection.vendor}


def check_broker(timeout: int = BROKER_TIMEOUT_SECONDS) -> dict[str, str]:
    if dispatch.is_eager():
        return {"status": CheckStatus.EAGER, "detail": "no broker configured; tasks run in-process"}
    try:
        with celery_app.connection_for_write(connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout)
            transport = conn.transport_cls
    except Exception as exc:
        logger.warning("health: broker check failed: %r", exc)
        return {"status": CheckStatus.ERROR, "detail": type(exc).__name__}
    return {"status": CheckStatus.OK, "detail": str(transport)}


def health_report() -> tuple[bool, dict[str, Any]]:
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["status"] != CheckStatus.ERROR for check in checks.values())
    status = HealthStatus.OK if healthy else HealthStatus.UNAVAILABLE
    return healthy, {"status": status, "checks": checks}


PROBE_TOKEN_MAX_LENGTH = 64  # WorkerProbe.token


def worker_probe_start() -> str:
    """Enqueue a probe task once the current transaction commits; return its token."""
    token = secrets.token_hex(16)
    transaction.on_commit(partial(record_worker_probe.delay, token))
    return token


# ----------------------------------------------------------------------------- serializers


class HealthCheckSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=CheckStatus.choices,
        help_text="`ok`, `eager` (no broker: tasks run in the web process) or `error`.",
    )
    detail = serializers.CharField(
        help_text="The database vendor or broker transport when ok; the error's type otherwise."
    )


class HealthChecksSerializer(serializers.Serializer[Any]):
    database = HealthCheckSerializer(help_text="The database answers `SELECT 1`.")
    broker = HealthCheckSerializer(help_text="The Celery broker accepts a connection.")


class HealthSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=HealthStatus.choices, help_text="`ok` when every check passed, else `unavailable`."
    )
    checks = HealthChecksSerializer(help_text="Each check's result.")


class WorkerProbeAcceptedSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="The probe's token.")
    status_url = serializers.URLField(help_text="Poll this to see whether a worker ran the task.")


class WorkerProbeStatusSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="The probe's token.")
    recorded = serializers.BooleanField(help_text="Whether a worker has written the probe row.")
    recorded_at = serializers.DateTimeField(
        allow_null=True, help_text="When the worker wrote it; null until then."
    )


# ----------------------------------------------------------------------------- views


class PublicApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)


class HealthApi(PublicApi):
    @extend_schema(
        operation_id="health_get",
        tags=["health"],
        summary="Report database and broker reachability",
        responses={
            200: OpenApiResponse(HealthSerializer, description="Every check passed."),
            503: OpenApiResponse(HealthSerializer, description="At least one check failed."),
            **problem_responses("not_acceptable", serializer=ProblemSerializer),
        },
    )
    def get(self, request: Request) -> Response:
        healthy, report = health_report()
        return Response(HealthSerializer(report).data, status=200 if healthy else 503)


class WorkerProbeCreateApi(PublicApi):
    throttle_classes = (ClientScopedRateThrottle,)
    throttle_scope = "health_probe"

    @extend_schema(
        operation_id="health_probe_create",
        tags=["health"],
        summary="Enqueue a task that a worker records in the database",
        request=None,
        responses={
            202: WorkerProbeAcceptedSerializer,
            **problem_responses("throttled", serializer=ProblemSerializer),
        },
    )
    def post(self, request: Request) -> Response:
        token = worker_probe_start()
        url = request.build_absolute_uri(reverse("health-probe-detail", args=[token]))
        body = WorkerProbeAcceptedSerializer({"token": token, "status_url": url}).data
        return Response(body, status=202)


class WorkerProbeDetailApi(PublicApi):
    @extend_schema(
        operation_id="health_probe_get",
        tags=["health"],
        summary="Tell whether a worker has recorded the probe",
        parameters=[
            OpenApiParameter(
                "token",
                {"type": "string", "minLength": 1, "maxLength": PROBE_TOKEN_MAX_LENGTH},
                OpenApiParameter.PATH,
                description="The token `POST /health/probe/` answered (a longer one is never "
                "recorded).",
            )
        ],
        responses={
            200: WorkerProbeStatusSerializer,
            **problem_responses("not_found", serializer=ProblemSerializer),
        },
    )
    def get(self, request: Request, token: str) -> Response:
        probe = WorkerProbe.objects.filter(token=token).first()
        body = {
            "token": token,
            "recorded": probe is not None,
            "recorded_at": probe.created_at if probe else None,
        }
        return Response(WorkerProbeStatusSerializer(body).data)
