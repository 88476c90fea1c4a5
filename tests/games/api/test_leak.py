"""No endpoint shows a viewer a card that viewer could not see at the table.

Four players and a spectator play a whole game through HTTP. After every action each of the
five fetches the game; at the end each fetches the whole event log, the scorecard and the
lists. Every card a response names must be among the cards that viewer may know, counted as a
multiset (two packs: a card can exist twice):

- the table now: their own hand (seated viewers only), the whole discard pile (every card in it
  was shown when it was discarded or turned up), the melds and the red threes on the table;
- for one logged event: that table just before and just after the event, the action itself
  (actions are public), and the hands shown when a round ends.

The truth (every hand) comes from replaying the log with the engine, not from the API.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from games.engine import (
    Event,
    GameState,
    action_from_dict,
    apply,
    card_text,
    make_options,
    new_game,
)
from games.models import Game, GameEvent
from tests.games.api.conftest import PlayerClient, choose, create_game, snapshot_of
from tests.games.api.schema_check import ROOT

pytestmark = pytest.mark.django_db

CARD_TOKENS = frozenset(card_text(c) for c in range(53))


def cards_in(value: Any) -> Counter[str]:
    """Every card named anywhere in a JSON value."""
    found: Counter[str] = Counter()
    if isinstance(value, str):
        if value in CARD_TOKENS:
            found[value] += 1
    elif isinstance(value, dict):
        for item in value.values():
            found += cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found += cards_in(item)
    return found


def visible(state: GameState, viewer: int | None) -> Counter[str]:
    """What ``viewer`` may know of the table in ``state`` (None: a spectator)."""
    cards = list(state.pile)
    for team in state.melds:
        for meld in team.values():
            cards += meld
    for reds in state.red_threes:
        cards += reds
    if viewer is not None:
        cards += state.hands[viewer]
    return Counter(card_text(c) for c in cards)


def within(shown: Counter[str], allowed: Counter[str]) -> Counter[str]:
    """Cards shown beyond what is allowed (empty when nothing leaks)."""
    return shown - allowed


def states_of(game: Game) -> Iterator[tuple[GameEvent, GameState, GameState, Counter[str]]]:
    """(event, state before, state after, cards shown by a round end) for every logged event."""
    before: GameState | None = None
    state: GameState | None = None
    for event in game.events.order_by("seq"):
        engine_events: list[Event] = []
        if event.type == "game_started":
            state = new_game(make_options(game.preset, game.options), game.seed, engine_events)
            before = GameState(state.options, game.seed)  # nothing dealt yet
        else:
            assert state is not None
            before = state.clone()
            assert event.seat is not None
            apply(state, action_from_dict(event.payload, event.seat), engine_events)
        shown = Counter(
            card
            for e in engine_events
            if e.kind == "round_ended"
            for hand in e.public["hands"]
            for card in hand
        )
        yield event, before, state.clone(), shown


def check_table(body: dict[str, Any], state: GameState, viewer: int | None) -> None:
    allowed = visible(state, viewer)
    table = dict(body["state"])
    legal = table.pop("legal_actions")
    assert not within(cards_in({**body, "state": table}), allowed)
    for action in legal:
        assert not within(cards_in(action), allowed), action
    if viewer is None:
        assert table["hand"] is None and legal == []
    else:
        assert Counter(table["hand"]) == Counter(card_text(c) for c in state.hands[viewer])


Viewers = list[tuple[PlayerClient, int | None]]


def _table(make_player: Callable[..., PlayerClient]) -> tuple[int, list[PlayerClient], Viewers]:
    """A started public classic game of four players, and the five viewers (one spectator)."""
    seated = [make_player(name) for name in ("Ann", "Ben", "Cid", "Dee")]
    spectator = make_player("Eve")
    game_id = create_game(seated[0], preset="classic", options={"target_score": 1000})["id"]
    for client in seated[1:]:
        assert client.post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code == 200
    assert seated[0].post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    viewers: Viewers = [*((c, i) for i, c in enumerate(seated)), (spectator, None)]
    return game_id, seated, viewers


def _play_one(game_id: int, seated: list[PlayerClient]) -> GameState:
    """The player to act plays one simple legal action through HTTP; the new state."""
    state = snapshot_of(game_id)
    mine = seated[state.to_act].game(game_id)
    response = seated[state.to_act].act(
        game_id, choose(mine["state"]["legal_actions"]), mine["version"]
    )
    assert response.status_code == 201, response.content
    return snapshot_of(game_id)


def _game_get_paths() -> list[str]:
    """Every JSON GET endpoint of one game that the committed schema lists."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    paths = []
    for path, operations in spec["paths"].items():
        get = operations.get("get")
        if "{game_id}" not in path or get is None:
            return_types = {}
        else:
            return_types = get["responses"].get("200", {}).get("content", {})
        required = [p["name"] for p in (get or {}).get("parameters", []) if p.get("required")]
        if "application/json" in return_types and required == ["game_id"]:
            paths.append(path)
    return paths


def test_every_game_endpoint_in_the_schema_keeps_hidden_cards_hidden(
    make_player: Callable[..., PlayerClient],
) -> None:
    """Early in round 1 (little is known yet), every JSON GET endpoint of the game that the
    schema lists, fetched by each viewer, names only cards that viewer has seen so far.

    This covers endpoints added later (replay, export, timers, ...) without listing them."""
    game_id, seated, viewers = _table(make_player)
    while snapshot_of(game_id).action_count < 14:
        assert _play_one(game_id, seated).round_no == 1
    game = Game.objects.get(pk=game_id)
    known: dict[int | None, Counter[str]] = {seat: Counter() for _, seat in viewers}
    for event, before, after, round_end in states_of(game):
        for seat in known:
            known[seat] |= (
                visible(before, seat) | visible(after, seat) | cards_in(event.payload) | round_end
            )
    assert all(len(set(cards)) < 35 for cards in known.values())  # most cards still hidden
    paths = _game_get_paths()
    assert {"/api/v1/games/{game_id}/", "/api/v1/games/{game_id}/events/"} <= set(paths)
    fetched = 0
    for path in paths:
        url = path.replace("{game_id}", str(game_id))
        for client, seat in viewers:
            response = client.get(url)
            assert response.status_code < 500, (url, response.content)
            # Logs name a card once per mention, so compare which cards, not how many.
            leaked = set(cards_in(response.json())) - set(known[seat])
            assert not leaked, (url, seat, leaked)
            fetched += response.status_code == 200
    assert fetched >= 2 * len(viewers)


def test_no_endpoint_shows_a_card_its_viewer_could_not_see(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, seated, viewers = _table(make_player)
    spectator = viewers[-1][0]
    assert spectator.display_name == "Eve"

    for step in range(3000):
        state = snapshot_of(game_id)
        # Every third position all five look; in between, the player to act (cost bound).
        looking = viewers if step % 3 == 0 or state.game_over else [viewers[state.to_act]]
        bodies = {seat: client.game(game_id) for client, seat in looking}
        for seat, body in bodies.items():
            check_table(body, state, seat)
        if state.game_over:
            break
        mine = bodies[state.to_act]
        response = seated[state.to_act].act(
            game_id, choose(mine["state"]["legal_actions"]), mine["version"]
        )
        assert response.status_code == 201, response.content
        assert not within(
            cards_in(response.json()["game"]["state"]["hand"]),
            visible(snapshot_of(game_id), state.to_act),
        )
    else:
        raise AssertionError("the game did not end")

    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    logs = {
        seat: client.get(f"/api/v1/games/{game_id}/events/?limit=500").json()
        for client, seat in viewers
    }
    for seat, log in logs.items():
        assert log["viewer"] == seat and not log["has_more"]
        assert len(log["events"]) == game.version
    checked_private = Counter[str]()
    for event, before, after, round_end in states_of(game):
        public_action = cards_in(event.payload)
        for seat, log in logs.items():
            view = log["events"][event.seq - 1]
            assert view["seq"] == event.seq
            allowed = visible(before, seat) | visible(after, seat) | public_action | round_end
            for effect in view["effects"]:
                leaked = within(cards_in(effect), allowed)
                assert not leaked, (seat, event.seq, effect, leaked)
                if effect["kind"] in ("card_drawn", "pile_taken") and "cards" in effect:
                    assert effect["seat"] == seat
                    checked_private[effect["kind"]] += 1
                if effect["kind"] == "round_started":
                    assert ("hand" in effect) == (seat is not None)
    assert checked_private["card_drawn"] > 0  # each seat saw its own draws

    for client, _seat in viewers:
        for path in (
            f"/api/v1/games/{game_id}/scorecard/",
            "/api/v1/games/?mine=true",
            "/api/v1/games/",
        ):
            response = client.get(path)
            assert response.status_code == 200
            assert not cards_in(response.json()), path
