"""A Python client generated from the committed openapi.yaml plays against a real server.

``openapi-python-client`` (a dev dependency: no network at test time) generates a typed client
into a temporary folder, with ``--fail-on-warning``: every operation and component must be
understood. The test starts the ASGI application under uvicorn on a migrated SQLite database,
signs up two players, creates a two-player table, joins, starts, and plays simple legal actions
(from the legal actions the table lists) through the generated calls, then reads the move log,
the replay and the timeline: every event and effect arrives as the generated class its `type` or
`kind` names, with no member left untyped.
"""

from __future__ import annotations

import importlib
import uuid
from types import ModuleType
from typing import Any

import pytest

from games.api.event_schemas import EFFECTS, camel
from tests.clients.conftest import PACKAGE
from tests.games.api.conftest import choose

pytestmark = pytest.mark.python_client

TURNS = 12  # each player's: a draw, perhaps melds, a discard


class Generated:
    """The generated package's modules, by the names the tests use."""

    def __init__(self, package: ModuleType) -> None:
        self.package = package
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.types = importlib.import_module(f"{PACKAGE}.types")

    def api(self, tag: str, operation: str) -> Any:
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")

    def model(self, name: str) -> Any:
        return getattr(self.models, name)


def typed(value: Any, generated: Generated) -> None:
    """``value`` (a generated model) and every model in it kept no untyped member."""
    if isinstance(value, list):
        for item in value:
            typed(item, generated)
        return
    if not hasattr(value, "additional_properties"):
        return
    assert value.additional_properties == {}, (type(value).__name__, value.additional_properties)
    for name in value.__attrs_attrs__:
        if name.name != "additional_properties":
            typed(getattr(value, name.name), generated)


def test_a_generated_python_client_plays_a_game(client_package: ModuleType, server: str) -> None:
    g = Generated(client_package)
    m = g.model

    def sign_up(name: str) -> Any:
        anonymous = client_package.Client(base_url=server, raise_on_unexpected_status=True)
        created = g.api("players", "players_create").sync(
            client=anonymous, body=m("PlayerCreateRequest")(display_name=name)
        )
        assert isinstance(created, m("PlayerCreated")), created
        return client_package.AuthenticatedClient(
            base_url=server, token=created.token, prefix="Token", raise_on_unexpected_status=True
        )

    def signed_in(name: str) -> Any:
        """A guest who opens a device session: Bearer access key from here on."""
        guest = sign_up(name)
        keys = g.api("account", "account_sessions_create").sync(
            client=guest, body=m("DeviceSessionCreateRequest")(device="python client")
        )
        assert isinstance(keys, m("SessionKeys")), keys
        return client_package.AuthenticatedClient(
            base_url=server, token=keys.access_token, raise_on_unexpected_status=True
        )

    ada, bob = sign_up("Ada"), signed_in("Bob")
    table = g.api("games", "games_create").sync(
        client=ada,
        body=m("GameCreateRequest")(preset=m("PresetEnum").TWO_PLAYER, seat=0),
    )
    assert isinstance(table, m("GameDetail")), table
    joined = g.api("seats", "games_join").sync(table.id, client=bob, body=m("GameJoinRequest")())
    assert isinstance(joined, m("GameDetail")) and joined.your_seat == 1
    started = g.api("seats", "games_start").sync(table.id, client=ada, body=m("GameStartRequest")())
    assert isinstance(started, m("GameDetail")) and started.status == m("GameStatusEnum").ACTIVE
    seats = {0: ada, 1: bob}

    played: list[Any] = []
    retrieve = g.api("games", "games_retrieve").sync
    act = g.api("play", "games_actions_create").sync
    discards = 0
    while discards < 2 * TURNS:
        to_act = retrieve(table.id, client=ada).state.to_act
        game = retrieve(table.id, client=seats[to_act])
        assert game.state.legal_actions, game.state
        chosen = choose([a.to_dict() for a in game.state.legal_actions])
        answer = act(
            table.id,
            client=seats[to_act],
            body=m("ActionCreateRequest")(
                action=m("ActionRequest").from_dict(chosen), expected_version=game.version
            ),
            idempotency_key=str(uuid.uuid4()),
        )
        assert isinstance(answer, m("ActionResult")), answer
        event = answer.event
        assert type(event).__name__ == camel(chosen["type"]) + "Event"
        assert event.seat == to_act and event.payload.type_.value == chosen["type"]
        played.append(event)
        discards += chosen["type"] == "discard"
        if answer.game.status != m("GameStatusEnum").ACTIVE:
            break
    assert {type(e).__name__ for e in played} >= {"DrawEvent", "DiscardEvent"}

    # The move log, typed: each event the class of its type, each effect of its kind.
    log = g.api("play", "games_events_list").sync(table.id, client=ada, after=0, limit=500)
    assert isinstance(log, m("GameEventList"))
    assert [e.seq for e in log.events] == list(range(1, len(played) + 2))
    assert type(log.events[0]).__name__ == "GameStartedEvent"
    kinds: set[str] = set()
    for event in log.events:
        assert type(event).__name__ == camel(event.type_.value) + "Event"
        for effect in event.effects:
            kind = effect.kind.value
            assert kind in EFFECTS and type(effect).__name__ == camel(kind) + "Effect"
            kinds.add(kind)
            if kind == "card_drawn":  # Ada sees her own cards, not Bob's
                own = effect.seat == 0
                assert isinstance(effect.cards, list) is own, effect
                assert own or effect.cards is g.types.UNSET
            if kind == "round_started":
                assert len(effect.hand) == 15 and effect.hands is g.types.UNSET
    assert {"round_started", "card_drawn", "card_discarded"} <= kinds
    typed(log, g)

    replay = g.api("replay", "games_replay_retrieve").sync(table.id, client=bob, at=2)
    assert isinstance(replay, m("ReplayState"))
    assert type(replay.event).__name__ == camel(log.events[1].type_.value) + "ReplayEvent"
    typed(replay, g)
    steps = g.api("replay", "games_replay_steps").sync(table.id, client=bob)
    assert [s.type_.value for s in steps.steps] == [e.type_.value for e in log.events]
