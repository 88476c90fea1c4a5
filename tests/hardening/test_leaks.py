"""Leak scanner: random games, every response and event each viewer fetches, checked against
what that viewer may know at that moment.

Seated players and a spectator watch games driven by a seeded random legal-move driver (a mix
of random legal actions and a simple greedy choice, so that rounds end). After every move:

- each viewer fetches the game: its hand must be exactly its own, and every card named
  anywhere else (table, legal actions) must be on the table (pile, melds, red threes);
- each viewer fetches the events after its own cursor (``?after=``, as a live client does);
  every card an event (each of its effects) names must have been visible to that viewer just
  before or just after the event, or be named by the action itself, or be shown by a round end;
- each seat not to act sends an action naming a card in someone else's hand, and the seat to
  act a discard of a card it does not hold: the refusal must name no card but the one asked
  about and those the viewer may know;
- the actor's 201 response (its own new view) is checked like a fetch.

Every few moves, and once past a round end, every JSON GET endpoint of a game that the
committed schema lists (replay, replay steps, export, fairness, spectate, scorecard, timer,
...) is fetched by each viewer while the game is still running, and may name only cards that
viewer has known at some point so far. The truth comes from replaying the log with the engine.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from games.engine import GameState, card_text
from games.models import Game, GameEvent
from tests.games.api.conftest import PlayerClient, choose, snapshot_of
from tests.games.api.test_leak import _game_get_paths, cards_in, states_of, visible, within
from tests.hardening.helpers import started_game

pytestmark = pytest.mark.django_db


class Viewer:
    def __init__(self, client: PlayerClient, seat: int | None) -> None:
        self.client, self.seat = client, seat
        self.cursor = 0
        self.known: set[str] = set()  # every card this viewer may have seen so far


class Scanner:
    def __init__(self, game_id: int, viewers: list[Viewer]) -> None:
        self.game_id, self.viewers = game_id, viewers
        self.allowed: dict[int, dict[int | None, Counter[str]]] = {}  # seq -> seat -> cards
        self.checked = Counter[str]()

    def learn(self) -> None:
        """Per-event allowances for every event logged so far (from the engine, not the API)."""
        game = Game.objects.get(pk=self.game_id)
        for event, before, after, round_end in states_of(game):
            if event.seq in self.allowed:
                continue
            per_seat = {}
            for v in self.viewers:
                allowed = (
                    visible(before, v.seat)
                    | visible(after, v.seat)
                    | cards_in(event.payload)
                    | round_end
                )
                per_seat[v.seat] = allowed
                v.known |= set(allowed)
            self.allowed[event.seq] = per_seat

    def table(self, body: dict[str, Any], state: GameState, seat: int | None) -> None:
        allowed = visible(state, seat)
        table = dict(body["state"])
        legal = table.pop("legal_actions")
        hand = table.pop("hand")
        assert not within(cards_in({**body, "state": table}), allowed), (seat, body)
        for action in legal:
            assert not within(cards_in(action), allowed), (seat, action)
        if seat is None:
            assert hand is None and legal == []
        else:
            assert Counter(hand) == Counter(card_text(c) for c in state.hands[seat])
        self.checked["table"] += 1

    def look(self) -> None:
        """Every viewer fetches the game and the events after its cursor."""
        self.learn()
        state = snapshot_of(self.game_id)
        for v in self.viewers:
            body = v.client.game(self.game_id)
            if body["status"] == "active":
                self.table(body, state, v.seat)
            response = v.client.get(f"/api/v1/games/{self.game_id}/events/?after={v.cursor}")
            assert response.status_code == 200, response.content
            log = response.json()
            assert log["viewer"] == v.seat
            for event in log["events"]:
                assert event["seq"] == v.cursor + 1, "events arrive in order, none skipped"
                allowed = self.allowed[event["seq"]][v.seat]
                # Each part on its own: one physical card may be named by several parts (a red
                # three dealt, then laid down, in the same event).
                rest = {k: val for k, val in event.items() if k != "effects"}
                for part in [rest, *event["effects"]]:
                    leaked = within(cards_in(part), allowed)
                    assert not leaked, (v.seat, event["seq"], part, leaked)
                v.cursor = event["seq"]
                self.checked["event"] += 1

    def probe_errors(self) -> None:
        """Refusals name no card the viewer may not know (besides the one it asked about)."""
        state = snapshot_of(self.game_id)
        if state.game_over:
            return
        version = Game.objects.get(pk=self.game_id).version
        for v in self.viewers:
            if v.seat is None:
                continue
            others = [c for s, h in enumerate(state.hands) if s != v.seat for c in h]
            mine = {card_text(c) for c in state.hands[v.seat]}
            foreign = next((card_text(c) for c in others if card_text(c) not in mine), None)
            if foreign is None:
                continue
            action = {"type": "discard", "card": foreign}
            response = v.client.act(self.game_id, action, version)
            assert 400 <= response.status_code < 500, response.content
            allowed = visible(state, v.seat) + Counter([foreign])
            leaked = within(cards_in(response.json()), allowed)
            assert not leaked, (v.seat, response.json(), leaked)
            self.checked["refusal"] += 1
        assert Game.objects.get(pk=self.game_id).version == version  # nothing applied

    def endpoints(self, paths: list[str]) -> None:
        """Every JSON GET endpoint of the game, mid-game, names only cards ever known."""
        self.learn()
        for path in paths:
            url = path.replace("{game_id}", str(self.game_id))
            for v in self.viewers:
                response = v.client.get(url)
                assert response.status_code < 500, (url, response.content)
                leaked = set(cards_in(response.json())) - v.known
                assert not leaked, (url, v.seat, leaked)
                self.checked["endpoint"] += response.status_code == 200


def play(
    scanner: Scanner,
    players: list[PlayerClient],
    rng: random.Random,
    steps: int,
    *,
    check_every: int = 1,
    until_round: int | None = None,
) -> None:
    """Random legal play through the API; checks every ``check_every`` moves."""
    for step in range(steps):
        state = snapshot_of(scanner.game_id)
        if state.game_over or (until_round is not None and state.round_no >= until_round):
            return
        actor = players[state.to_act]
        checking = step % check_every == 0
        if checking:
            scanner.probe_errors()
        view = actor.game(scanner.game_id)
        legal = view["state"]["legal_actions"]
        action = rng.choice(legal) if rng.random() < 0.35 else choose(legal)
        response = actor.act(scanner.game_id, action, view["version"])
        assert response.status_code == 201, response.content
        if checking:
            after = snapshot_of(scanner.game_id)
            if not after.game_over:
                scanner.table(response.json()["game"], after, state.to_act)
            scanner.look()


@pytest.mark.parametrize(
    ("preset", "names", "seed"),
    [("classic", ("Ann", "Ben", "Cid", "Dee"), 7), ("two_player", ("Ada", "Bob"), 11)],
)
def test_random_games_leak_nothing_to_any_viewer(
    make_player: Callable[..., PlayerClient], preset: str, names: tuple[str, ...], seed: int
) -> None:
    game_id, players = started_game(make_player, names, preset, target_score=1000)
    spectator = make_player("Eve")
    viewers = [Viewer(p, i) for i, p in enumerate(players)] + [Viewer(spectator, None)]
    scanner = Scanner(game_id, viewers)
    rng = random.Random(seed)
    paths = _game_get_paths()
    assert "/api/v1/games/{game_id}/events/" in paths

    play(scanner, players, rng, 30)  # checked after every move
    scanner.endpoints(paths)
    # On to the first round end, checking every eighth move; the events cursor then carries
    # each viewer across the end (the hands shown) and into the next deal.
    play(scanner, players, rng, 3000, check_every=8, until_round=2)
    assert snapshot_of(game_id).round_no >= 2 or snapshot_of(game_id).game_over
    scanner.look()
    scanner.endpoints(paths)
    play(scanner, players, rng, 10)
    scanner.endpoints(paths)

    assert all(v.cursor == GameEvent.objects.filter(game_id=game_id).count() for v in viewers)
    assert scanner.checked["refusal"] > 0 and scanner.checked["endpoint"] > 0
    print(f"\n{preset}: {dict(scanner.checked)} checks, {len(scanner.allowed)} events")
