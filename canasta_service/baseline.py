"""A baseline endpoint for the load benchmark (bench/load.py): what a minimal DRF request costs.

``POST /api/bench/baseline/`` does one authenticated read (token authentication and the
requester's player row) and one insert (a ``WorkerProbe`` row with a ``bench-`` token, the
smallest table the project has), in one transaction, and answers 201 with a tiny JSON body.
A move goes through the same stack (gunicorn, Django, DRF, token authentication, PostgreSQL)
and then does the game's work; the ratio of the two throughputs is what the game logic costs.

It is mounted only when ``BENCH_BASELINE=1`` (``settings.BENCH_BASELINE``) and is left out of
the OpenAPI schema: it is a measuring aid, not part of the API.
"""

from __future__ import annotations

import uuid

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Player
from games.models import WorkerProbe

TOKEN_PREFIX = "bench-"


class BaselineApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:
        assert request.user.pk is not None, "authenticated by the default permission"
        with transaction.atomic():
            player = Player.objects.only("id", "display_name").get(user_id=request.user.pk)
            probe = WorkerProbe.objects.create(token=f"{TOKEN_PREFIX}{uuid.uuid4().hex}")
        return Response({"player": player.pk, "row": probe.pk}, status=status.HTTP_201_CREATED)
