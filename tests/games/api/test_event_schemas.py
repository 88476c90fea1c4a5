"""The move log's components in openapi.yaml (games/api/event_schemas.py) describe what the
service sends: every effect kind the engine can produce and every event type has a component,
and the effects, events, replay events and live frames of played games are valid instances of
the component their `kind` or `type` names (with no undocumented member: schema_check closes
every documented object)."""

from __future__ import annotations

import ast
import json
import random
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from games.api.event_schemas import EFFECTS, EVENT_TYPES, PAYLOADS
from games.engine import (
    Event,
    GameState,
    action_from_dict,
    apply,
    effects_from_json,
    effects_to_json,
    legal_actions,
    make_options,
    new_game,
    parse_cards,
)
from games.engine.history import ENTRY_TYPES
from games.engine.render import event_view_full
from games.engine.view import event_view
from games.models import Game, GameEvent, TableEvent
from games.selectors.live import Cursor, live_items_merge
from games.services.deadlines import grace
from games.services.timers import turn_timer_expire_apply
from tests.games.api.conftest import PlayerClient, choose, create_game, to_act, two_player_game
from tests.games.api.schema_check import _convert, _schema

ENGINE = Path(__file__).resolve().parents[3] / "games" / "engine"


def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = _schema()[0]["spec"]
    return spec


@cache
def _validator(component: str) -> Draft202012Validator:
    root = _schema()[0]
    if component not in root["components"]["schemas"]:  # a union written out
        written = _convert(_union(component))
        return Draft202012Validator({**written, "components": root["components"]})
    return Draft202012Validator(
        {"$ref": f"#/components/schemas/{component}", "components": root["components"]}
    )


# Unions written out where a property refers to them with a description (event_schemas.py:
# UnionFieldExtension); the replay's union exists only there.
INLINE = {
    "ReplayEvent": [("ReplayState", "event")],
    "GameEvent": [("ActionResult", "event"), ("GameEventMessage", "event")],
}


def _union(name: str) -> dict[str, Any]:
    schemas = _spec()["components"]["schemas"]
    if name in schemas:
        union: dict[str, Any] = schemas[name]
        return union
    component, prop = INLINE[name][0]
    written: dict[str, Any] = schemas[component]["properties"][prop]
    return written


@cache
def _mapping(union: str) -> dict[str, str]:
    """The discriminator's value -> component name of a union in openapi.yaml."""
    schema = _union(union)
    refs = {one["$ref"] for one in schema["oneOf"]}
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping.values()) == refs
    return {value: ref.rsplit("/", 1)[1] for value, ref in mapping.items()}


def _errors(component: str, instance: Any) -> list[str]:
    return [
        f"{list(e.absolute_path)}: {e.message[:200]}"
        for e in _validator(component).iter_errors(instance)
    ]


def check(union: str, key: str, instance: dict[str, Any]) -> None:
    """``instance`` is valid against the member of ``union`` its ``key`` names (no other member
    accepts it: test_each_union_member_accepts_its_own_tag_only)."""
    member = _mapping(union)[instance[key]]
    assert _errors(member, instance) == [], (member, instance)


# ============================================================================== the catalogue
def engine_effect_kinds() -> set[str]:
    """Every kind the engine's source constructs an ``Event`` of (``Event("kind", ...)``), the
    rule families' packages included."""
    kinds: set[str] = set()
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Event"
                and node.args
            ):
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path.name}: an Event of a computed kind"
                assert isinstance(first.value, str)
                kinds.add(first.value)
    return kinds


def test_every_effect_kind_the_engine_produces_has_a_component() -> None:
    kinds = engine_effect_kinds()
    assert len(kinds) >= 11
    assert set(EFFECTS) == kinds
    mapping = _mapping("Effect")
    assert set(mapping) == kinds
    schemas = _spec()["components"]["schemas"]
    for kind, name in mapping.items():
        properties = schemas[name]["properties"]
        assert {"kind", "seat"} <= set(properties)
        assert schemas[properties["kind"]["allOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"] == [kind]


def test_every_event_type_has_a_component_and_a_payload() -> None:
    assert set(EVENT_TYPES) == ENTRY_TYPES == set(PAYLOADS)
    schemas = _spec()["components"]["schemas"]
    for union, created_at in (("GameEvent", True), ("ReplayEvent", False)):
        mapping = _mapping(union)
        assert set(mapping) == ENTRY_TYPES
        for name in mapping.values():
            properties = schemas[name]["properties"]
            assert ("created_at" in properties) is created_at
            assert {"seq", "type", "seat", "source", "payload", "effects"} <= set(properties)
    for union, places in INLINE.items():
        for component, prop in places:
            written = schemas[component]["properties"][prop]
            assert written["description"]
            assert {k: written[k] for k in ("oneOf", "discriminator")} == {
                k: _union(union)[k] for k in ("oneOf", "discriminator")
            }
    stream = _spec()["paths"]["/api/v1/games/{game_id}/stream/"]["get"]
    frames = stream["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert frames == {"$ref": "#/components/schemas/LiveStreamFrame"}
    assert set(_mapping("LiveStreamFrame")) == {"sync", "game_event", "table_event", "end"}
    assert set(_mapping("LiveServerMessage")) >= {"sync", "game_event", "table_event", "end"}


UNIONS = {
    "Effect": "kind",
    "GameEvent": "type",
    "ReplayEvent": "type",
    "LiveStreamFrame": "event",
    "LiveServerMessage": "type",
}


@pytest.mark.parametrize(("union", "key"), UNIONS.items())
def test_each_union_member_accepts_its_own_tag_only(union: str, key: str) -> None:
    """The discriminator of each member is required and one value, its mapping's: an object
    matches one member at most (as `oneOf` says, and as generators that try each member in
    turn need)."""
    schemas = _spec()["components"]["schemas"]
    for value, name in _mapping(union).items():
        member = schemas[name]
        assert key in member["required"]
        tag = member["properties"][key]
        ref = tag["allOf"][0]["$ref"] if "allOf" in tag else tag["$ref"]
        assert schemas[ref.rsplit("/", 1)[1]]["enum"] == [value], (union, name)


# ============================================================================== the engine
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("classic", {"target_score": 1000}),
    ("hoyle", {"target_score": 1000, "red_three_reveal": "at_deal"}),
    ("two_player", {"target_score": 1000, "stock_exhausted": "play_on"}),
    ("three_player", {"target_score": 1000}),
]


# The variant families: random play for a few rounds (a game of random play may never end).
FAMILY_GAMES: list[tuple[str, dict[str, Any]]] = [
    ("mac", {"target_score": 1000}),
    ("mac_two_player", {"target_score": 1000}),
    ("samba", {"target_score": 1000}),
    ("bolivia", {"target_score": 1000}),
]
FAMILY_ROUNDS = 3


def _stored(recorded: list[Event]) -> list[Event]:
    """Events as stored in the log and read back by the selectors."""
    return effects_from_json(json.loads(json.dumps(effects_to_json(recorded))))


def arranged(preset: str, hand: str, drawn: str) -> tuple[GameState, int]:
    """A new game of ``preset`` whose first seat holds ``hand`` and will draw ``drawn`` (cards
    moved from the stock or another hand, every card kept)."""
    state = new_game(make_options(preset, {"target_score": 1000}), "arranged")
    seat = state.to_act
    wanted = parse_cards(hand) + parse_cards(drawn)
    pool = state.hands[seat] + state.stock
    for card in wanted:
        if card in pool:
            pool.remove(card)
            continue
        other = next(h for s, h in enumerate(state.hands) if s != seat and card in h)
        swap = next(c for c in pool if c not in wanted)
        pool.remove(swap)
        other[other.index(card)] = swap
    state.hands[seat] = parse_cards(hand)
    state.stock = pool + list(reversed(parse_cards(drawn)))
    assert state.cards_conserved()
    return state, seat


def arranged_effects() -> list[Event]:
    """Events random play seldom makes: a special hand declared (Modern American Canasta), two
    group melds of a rank merged (Samba)."""
    recorded: list[Event] = []
    state, seat = arranged("mac", "4H 4S 5H 5S 6H 6S 8H 8S 9H 9S 10H 10S JH", "JS")
    apply(state, action_from_dict({"type": "draw"}, seat), recorded)
    apply(
        state, action_from_dict({"type": "declare_special_hand", "name": "pairs"}, seat), recorded
    )
    state, seat = arranged("samba", "KH KS KD KC KH KS 4H 5S 6D 8C 9H 10S JD QC 4C", "5C 6C")
    kings = [{"cards": ["KH", "KS", "KD"]}, {"cards": ["KC", "KH", "KS"], "new": True}]
    for action in (
        {"type": "draw"},
        {"type": "meld", "melds": kings},
        {"type": "meld", "melds": [], "merge": ["A1", "A2"]},
    ):
        apply(state, action_from_dict(action, seat), recorded)
    return _stored(recorded)


def played_effects() -> list[Event]:
    """The effects of whole games of random legal play (asking the partner whenever it may),
    a few rounds of each variant family, and arranged positions: every kind the engine
    produces."""
    events: list[Event] = []
    for preset, options in GAMES + FAMILY_GAMES:
        for seed in range(3):
            recorded: list[Event] = []
            state = new_game(make_options(preset, options), f"schema-{seed}", recorded)
            rng = random.Random(seed)
            while not state.game_over and state.round_no <= FAMILY_ROUNDS:
                legal = legal_actions(state)
                asks = [a for a in legal if a.type == "ask_partner"]
                apply(state, asks[0] if asks else rng.choice(legal), recorded)
            events += _stored(recorded)
    return events + arranged_effects()


def test_every_effect_of_played_games_matches_its_kind_for_every_viewer() -> None:
    events = played_effects()
    assert {e.kind for e in events} == set(EFFECTS)
    views = {}
    for event in events:
        # As each seat and a spectator see it; in a finished game's replay, everything.
        for view in [*(event_view(event, v) for v in (None, 0, 1, 2, 3)), event_view_full(event)]:
            views[json.dumps(view, sort_keys=True)] = view
    for view in views.values():
        check("Effect", "kind", view)
    private = {
        k for view in views.values() for k in view if k in ("hand", "hands", "cards", "drawn")
    }
    assert private == {"hand", "hands", "cards", "drawn"}


@pytest.mark.parametrize(
    ("effect", "problem"),
    [
        ({"kind": "card_discarded", "seat": 0, "card": "7H", "cards": ["7H"]}, "extra member"),
        ({"kind": "card_drawn", "seat": 0}, "no count"),
        ({"kind": "card_drawn", "seat": None, "count": 1}, "null seat"),
        ({"kind": "card_drawn", "seat": 0, "count": 1, "cards": "7H"}, "cards not a list"),
        ({"kind": "card_shuffled", "seat": 0}, "unknown kind"),
        ({"kind": "melded", "seat": 0, "card": "7H"}, "another kind's member"),
        ({"kind": "round_ended", "seat": None, "round": 1}, "incomplete"),
    ],
)
def test_an_effect_the_engine_does_not_produce_is_refused(
    effect: dict[str, Any], problem: str
) -> None:
    assert _errors("Effect", effect), problem


def test_an_event_with_another_types_payload_is_refused() -> None:
    event = {
        "seq": 3,
        "type": "discard",
        "seat": 0,
        "source": "player",
        "created_at": "2026-01-05T18:03:52Z",
        "payload": {"type": "discard", "card": "7H"},
        "effects": [{"kind": "card_discarded", "seat": 0, "card": "7H"}],
    }
    check("GameEvent", "type", event)
    assert _errors("GameEvent", {**event, "payload": {"type": "draw"}})
    assert _errors("GameEvent", {**event, "type": "draw"})
    assert _errors("GameEvent", {**event, "seat": None})
    facts = {**event, "type": "timer_off_proposed", "payload": {}}
    assert _errors("GameEvent", facts)  # a fact has no effects
    check("GameEvent", "type", {**facts, "effects": []})
    assert _errors("ReplayEvent", event)  # no created_at in a replay
    replayed = {k: v for k, v in event.items() if k != "created_at"}
    check("ReplayEvent", "type", replayed)


# ============================================================================== played games


def _overdue_now(game_id: int) -> Any:
    game = Game.objects.get(pk=game_id)
    assert game.turn_deadline is not None
    return game.turn_deadline + grace() + timedelta(seconds=1)


def _events(client: PlayerClient, game_id: int) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/games/{game_id}/events/?limit=500")
    assert response.status_code == 200, response.content
    body: list[dict[str, Any]] = response.json()["events"]
    return body


def _checked_everywhere(clients: list[PlayerClient], game_id: int, replays: int = 1) -> set[str]:
    """Every event of the game, as each client sees it in the log and the live frames, and
    every ``replays``-th in the replay, checked against its component; the event types seen."""
    types = set()
    for client in clients:
        events = _events(client, game_id)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        for event in events:
            check("GameEvent", "type", event)
            for effect in event["effects"]:
                check("Effect", "kind", effect)
            types.add(event["type"])
            if event["seq"] % replays and event["seq"] != len(events):
                continue
            replay = client.get(f"/api/v1/games/{game_id}/replay/?at={event['seq']}")
            assert replay.status_code == 200, replay.content
            check("ReplayEvent", "type", replay.json()["event"])
        steps = client.get(f"/api/v1/games/{game_id}/replay/steps/").json()["steps"]
        assert [s["type"] for s in steps] == [e["type"] for e in events]
    moves = list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))
    notes = list(TableEvent.objects.filter(game_id=game_id).order_by("seq"))
    for viewer in (None, 0, 1):
        for item in live_items_merge(moves, notes, viewer, Cursor()):
            check("LiveServerMessage", "type", json.loads(item.socket))
            frame = dict(line.split(": ", 1) for line in item.sse.decode().strip().split("\n"))
            check("LiveStreamFrame", "event", {**frame, "data": json.loads(frame["data"])})
    return types


def play(clients: list[PlayerClient], game_id: int, moves: int) -> None:
    """The clients play ``moves`` simple legal actions; each answer's event is checked."""
    for _ in range(moves):
        if clients[0].game(game_id)["status"] != "active":
            return
        actor = to_act(clients, game_id)
        game = actor.game(game_id)
        answer = actor.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
        assert answer.status_code == 201, answer.content
        check("GameEvent", "type", answer.json()["event"])


@pytest.mark.django_db(transaction=True)
def test_events_of_played_games_match_their_types(make_player: Any) -> None:
    ada, bob, eve = make_player("Ada"), make_player("Bob"), make_player("Eve")
    seen: set[str] = set()

    # A timed table: a turn lost to the timer, the seat handed to a stand-in and returned, the
    # timer proposed off (declined, then accepted), moves, and a concession.
    game_id = two_player_game(ada, bob, turn_seconds=30, timeout_limit=1)
    first = to_act([ada, bob], game_id)
    assert turn_timer_expire_apply(game_id, now=_overdue_now(game_id)).applied
    second = ada if first is bob else bob
    for path, client in (("propose", first), ("decline", second)):
        answer = client.post(f"/api/v1/games/{game_id}/timer/off/{path}/", {}, format="json")
        assert answer.status_code == 200, answer.content
    # The declined proposer waits (PROPOSAL_COOLDOWN_SECONDS): the other proposes this time.
    for path, client in (("propose", second), ("accept", first)):
        answer = client.post(f"/api/v1/games/{game_id}/timer/off/{path}/", {}, format="json")
        assert answer.status_code == 200, answer.content
    play([ada, bob], game_id, 12)
    seen |= _checked_everywhere([ada, bob, eve], game_id)  # running: as each may see it
    conceded = bob.post(f"/api/v1/games/{game_id}/concede/", {}, format="json")
    assert conceded.status_code == 200, conceded.content
    seen |= _checked_everywhere([ada, eve], game_id)  # finished: every private part

    # A table abandoned after a timeout.
    other = two_player_game(ada, bob, turn_seconds=30, timeout_limit=1, timeout_outcome="abandon")
    assert turn_timer_expire_apply(other, now=_overdue_now(other)).applied
    seen |= _checked_everywhere([ada, eve], other)

    # A whole game against a bot, to its end.
    solo = create_game(
        ada,
        preset="two_player",
        seat=0,
        bots=[{"seat": 1, "level": "easy"}],
        options={"target_score": 1000},
    )["id"]
    assert ada.post(f"/api/v1/games/{solo}/start/", {}, format="json").status_code == 200
    play([ada], solo, 3000)
    assert ada.game(solo)["status"] == "finished"
    seen |= _checked_everywhere([ada], solo, replays=20)

    timer_facts = {
        "turn_timed_out",
        "seat_handed_to_bot",
        "seat_returned",
        "timer_off_proposed",
        "timer_off_declined",
        "timer_off_accepted",
        "timer_turned_off",
        "game_conceded",
        "game_abandoned",
    }
    assert timer_facts | {"game_started", "draw", "discard", "meld"} <= seen
