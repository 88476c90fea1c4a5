"""Schemathesis' stateful run over the links of the committed openapi.yaml: games are created,
joined (by id or by code), started, read and played, each step's game id, join code, legal
action and version taken from an earlier answer (the links: games/api/schema_links.py).

Every step must answer no 5xx, a documented status code and content type and a conforming body
(the checks of test_schemathesis.py, tests/hardening/fuzzing.py), every game a scenario leaves
must replay from its log, and the run must take at least one game through every stage (created,
joined, started, a move played), so a link that stops resolving fails it too.

A scenario starts by creating a game: the other operations with links would start from a random
id, a 404 the stateless run already covers. Each step is sent as the player it is meant for: a
join as a guest not yet at the table, a call about a game in play as the human whose turn it is
(whose view lists the legal actions), anything else as the creator. Generated strings hold no
NUL (refused with 400 before any link could be followed; the stateless run sends them).

Bounded and deterministic: ``SCENARIOS`` scenarios of at most ``STEPS`` steps, each from the
same database and cache (a savepoint rolled back at its end), game seeds numbered from its
start and no turn timer running out, so that a scenario Hypothesis replays gets the same
answers. ``SCHEMATHESIS_MAX_EXAMPLES`` raises the number of scenarios.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import secrets
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from django.core.wsgi import get_wsgi_application
from django.db import transaction
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from schemathesis.generation.stateful.state_machine import normalize_name

from games.models import Game, GameStatus, Seat
from games.selectors.verify import game_verify
from games.services import lobby
from tests.conftest import cache_empty
from tests.games.api.conftest import PlayerClient, snapshot_of
from tests.hardening.fuzzing import MAX_EXAMPLES, connection_kept, excluded_checks, load_schema

SCENARIOS = max(MAX_EXAMPLES, 25)
STEPS = 20
RUN = hypothesis_settings(
    max_examples=SCENARIOS,
    stateful_step_count=STEPS,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
CREATE = "POST /api/v1/games/"
JOINS = ("POST /api/v1/games/{game_id}/join/", "POST /api/v1/join/{join_code}/")
START = "POST /api/v1/games/{game_id}/start/"
ACTION = "POST /api/v1/games/{game_id}/actions/"
# The stage a successful answer of an operation takes its game to.
STAGES = {CREATE: "created", **dict.fromkeys(JOINS, "joined"), START: "started", ACTION: "acted"}

schema = load_schema(allow_x00=False)
schema.app = get_wsgi_application()


class Table:
    """The players of a run: the creator of every game and the guests who join."""

    def __init__(self, host: PlayerClient, guests: list[PlayerClient]) -> None:
        self.host = host
        self.guests = guests
        self.tokens = {p.player_id: p.token for p in (host, *guests)}

    def token_for(self, operation: str, path_parameters: dict[str, Any]) -> str:
        game = self._game(path_parameters)
        if game is None:
            return self.host.token
        if operation in JOINS:
            seated = set(Seat.objects.filter(game=game).values_list("player_id", flat=True))
            guest = next((g for g in self.guests if g.player_id not in seated), self.guests[0])
            return guest.token
        if game.status == GameStatus.ACTIVE:
            seat = Seat.objects.filter(game=game, index=snapshot_of(game).to_act).first()
            if seat is not None and seat.player_id in self.tokens:
                return self.tokens[seat.player_id]
        return self.host.token

    @staticmethod
    def _game(path_parameters: dict[str, Any]) -> Game | None:
        game_id, code = path_parameters.get("game_id"), path_parameters.get("join_code")
        if type(game_id) is int:
            return Game.objects.filter(pk=game_id).first()
        if isinstance(code, str):
            return Game.objects.filter(join_code=code.strip().upper()).first()
        return None


class Seeds:
    """Stands for ``secrets`` in games.services.lobby: game seeds numbered from the scenario's
    start (so the deal, and whose turn it is, are the same each time a scenario is replayed),
    join codes as the service makes them."""

    choice = staticmethod(secrets.choice)

    def __init__(self) -> None:
        self.count = itertools.count()

    def reset(self) -> None:
        self.count = itertools.count()

    def token_hex(self, nbytes: int) -> str:
        return hashlib.sha256(b"seed %d" % next(self.count)).hexdigest()[: 2 * nbytes]


def games_replay() -> None:
    """Every game in the database replays from its move log."""
    for game in Game.objects.order_by("pk"):
        report = game_verify(game)
        assert report.ok, f"game {game.pk} does not replay from its log: {report.problems}"


def workflow(table: Table, seeds: Seeds, stages: dict[int, set[str]], seen: list[str]) -> type[Any]:
    """The state machine of the schema's links, sending each step as ``table`` says, noting
    each step (``seen``) and the stages each game reached (``stages``)."""
    machine = schema.as_state_machine()
    create = normalize_name(f"RANDOM -> {CREATE}")
    assert create in machine.root_rules, sorted(machine.root_rules)

    class Workflow(machine):  # type: ignore[valid-type, misc]
        root_rules = frozenset({create})
        _root_labels = frozenset({CREATE})

        def setup(self) -> None:
            super().setup()
            cache_empty()
            seeds.reset()
            self.savepoint = transaction.atomic()
            self.savepoint.__enter__()

        def teardown(self) -> None:
            try:
                games_replay()
            finally:
                transaction.set_rollback(True)
                self.savepoint.__exit__(None, None, None)
                super().teardown()

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            token = table.token_for(case.operation.label, case.path_parameters or {})
            # The WSGI transport hands back the body as sent: ask for it uncompressed.
            headers = {"Authorization": f"Token {token}", "Accept-Encoding": "identity"}
            return {"headers": headers}

        def call(self, case: Any, **kwargs: Any) -> Any:
            with connection_kept():
                return case.call(**kwargs)

        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            label = case.operation.label
            seen.append(f"{label} {response.status_code}")
            stage = STAGES.get(label)
            if stage is not None and 200 <= response.status_code < 300:
                body = json.loads(response.content)
                stages[body["game"]["id"] if label == ACTION else body["id"]].add(stage)

        def validate_response(
            self,
            response: Any,
            case: Any,
            additional_checks: list[Callable[..., Any]] | None = None,
            **kwargs: Any,
        ) -> None:
            with connection_kept():  # some checks send the request again
                case.validate_response(
                    response,
                    additional_checks=additional_checks,
                    excluded_checks=excluded_checks(case.operation.path),
                    headers=kwargs.get("headers"),
                    transport_kwargs=kwargs,
                    recorder=self.recorder,
                )

    # The other roots go: a class attribute that is not a rule hides the inherited rule.
    for name in machine.root_rules - {create}:
        setattr(Workflow, name, None)
    return Workflow


def test_create_join_start_act_conforms_and_never_fails(
    make_player: Callable[..., PlayerClient], monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.TURN_TIMER_GRACE_MS = 3_600_000  # no timer runs out, however slow the machine
    seeds = Seeds()
    monkeypatch.setattr(lobby, "secrets", seeds)
    table = Table(make_player("Ada"), [make_player(name) for name in ("Bob", "Cy", "Di")])
    stages: dict[int, set[str]] = defaultdict(set)
    seen: list[str] = []
    workflow(table, seeds, stages, seen).run(settings=RUN)
    every = set(STAGES.values())
    assert any(reached == every for reached in stages.values()), (
        f"no game was created, joined, started and played; stages: {dict(stages)}; steps: {seen}"
    )
