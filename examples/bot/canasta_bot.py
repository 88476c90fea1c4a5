"""A small Canasta bot that plays through the public API, as a bot account.

It is written against ``canasta_client``, the Python client generated from the service's
``openapi.yaml`` (see README.md beside this file). It

1. signs up as a bot account (``--name``), or uses the token of one it made before (``--token``);
2. sits at a casual table, by its id (``--game``) or its join code (``--code``);
3. follows the game through the move log's long-poll (``GET /games/{id}/events/?after=N&wait=25``:
   the server answers as soon as an event after seq N is committed, else after 25 s);
4. whenever its seat is to act, picks one of the legal actions its view lists and sends it with
   the version it chose it against;
5. prints the final scores when the game is over, and exits 0.

Run it with the generated package importable, for example::

    PYTHONPATH=build/python-client python examples/bot/canasta_bot.py \\
        --server http://127.0.0.1:8000 --name Robo --code KC7PJ9R5
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import Any

import httpx
from canasta_client import AuthenticatedClient, Client
from canasta_client.api.games import games_retrieve
from canasta_client.api.play import games_actions_create, games_events_list, games_scorecard
from canasta_client.api.players import players_create
from canasta_client.api.seats import games_join, games_join_by_code
from canasta_client.models import (
    ActionCreateRequest,
    ActionRequest,
    GameDetail,
    GameEventList,
    GameJoinByCodeRequest,
    GameJoinRequest,
    GameStatusEnum,
    PlayerCreated,
    PlayerCreateRequest,
    Scorecard,
)

WAIT_SECONDS = 25  # how long one long-poll may wait for the next event (the server allows 30)
OVER = (GameStatusEnum.FINISHED, GameStatusEnum.ABANDONED)


# ============================================================================== the strategy
def card_points(card: str) -> int:
    """A card's value in points (what it costs left in the hand at the end of a round)."""
    rank = card[:-1] if card != "JK" else "JK"
    if rank == "JK":
        return 50
    if rank in ("2", "A"):
        return 20
    if rank in ("8", "9", "10", "J", "Q", "K"):
        return 10
    if rank == "3" and card[-1] in "HD":
        return 0  # a red three is never held: the server lays it down
    return 5  # 4, 5, 6, 7 and black threes


def is_wild(card: str) -> bool:
    return card == "JK" or card.startswith("2")


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The move to make among the legal ones: take the pile when possible, meld when possible,
    draw, discard the most valuable card that is not wild; otherwise whatever is left (answer
    the partner yes, decline the pile, end the round)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    for kind in ("take_pile", "meld", "draw"):
        if kind in by_type:
            return by_type[kind][0]
    if "discard" in by_type:
        discards = by_type["discard"]
        natural = [a for a in discards if not is_wild(a["card"])] or discards
        return max(natural, key=lambda a: card_points(a["card"]))
    for action in by_type.get("answer_partner", []):
        if action.get("allow"):
            return action
    return legal[0]


# ============================================================================== the API
def fail(what: str, answer: Any) -> None:
    """Stop with the server's problem document (its stable ``code`` says what went wrong)."""
    code = getattr(answer, "code", None)
    detail = getattr(answer, "detail", answer)
    sys.exit(f"{what}: {code or 'error'}: {detail}")


def sign_up(server: str, name: str) -> str:
    """A new bot account; its API token."""
    created = players_create.sync(
        client=Client(base_url=server),
        body=PlayerCreateRequest(display_name=name, bot=True),
    )
    if not isinstance(created, PlayerCreated):
        fail("sign-up refused", created)
    assert isinstance(created, PlayerCreated)
    print(f"signed up as {created.display_name} (player {created.id}, bot account)", flush=True)
    return created.token


def sit_down(api: AuthenticatedClient, game_id: int | None, code: str | None) -> GameDetail:
    """Take a seat at the table (the lowest free seat)."""
    if game_id is not None:
        body = GameJoinRequest(join_code=code) if code else GameJoinRequest()
        joined = games_join.sync(game_id, client=api, body=body)
    else:
        assert code is not None
        joined = games_join_by_code.sync(code, client=api, body=GameJoinByCodeRequest())
    if not isinstance(joined, GameDetail):
        fail("could not sit at the table", joined)
    assert isinstance(joined, GameDetail)
    print(f"sitting at table {joined.id}, seat {joined.your_seat}", flush=True)
    return joined


def game_read(api: AuthenticatedClient, game_id: int) -> GameDetail:
    game = games_retrieve.sync(game_id, client=api)
    if not isinstance(game, GameDetail):
        fail("could not read the game", game)
    assert isinstance(game, GameDetail)
    return game


def play(api: AuthenticatedClient, game_id: int) -> int:
    """Play the game to its end; the number of moves made."""
    seen = 0  # the seq of the last event read
    moves = 0
    while True:
        game = game_read(api, game_id)
        if game.status in OVER:
            return moves
        state = game.state
        if state is not None and state.to_act == game.your_seat and state.legal_actions:
            action = choose([a.to_dict() for a in state.legal_actions])
            answer = games_actions_create.sync(
                game_id,
                client=api,
                body=ActionCreateRequest(
                    action=ActionRequest.from_dict(action), expected_version=game.version
                ),
                idempotency_key=str(uuid.uuid4()),  # a retry of this request is safe
            )
            code = getattr(answer, "code", None)
            if code is None:
                moves += 1
                print(f"move {moves}: {action}", flush=True)
            elif code == "throttled":  # too many requests: wait as long as the server asks
                time.sleep(getattr(answer, "retry_after", None) or 1)
            elif code not in ("stale_version", "not_your_turn", "game_paused"):
                fail("move refused", answer)  # something moved meanwhile: read again
            continue
        # Not our turn (or not started yet): wait for the next event of the log.
        log = games_events_list.sync(game_id, client=api, after=seen, wait=WAIT_SECONDS)
        if not isinstance(log, GameEventList):
            fail("could not read the move log", log)
        assert isinstance(log, GameEventList)
        if log.events:
            seen = log.events[-1].seq


def final_scores(api: AuthenticatedClient, game_id: int, seat: int | None) -> None:
    card = games_scorecard.sync(game_id, client=api)
    if not isinstance(card, Scorecard):
        fail("could not read the scorecard", card)
    assert isinstance(card, Scorecard)
    print(f"game {game_id} is {card.status.value}", flush=True)
    for team, total in zip(card.teams, card.totals, strict=True):
        ours = " (us)" if seat in team.seats else ""
        print(f"team {team.team}{ours}: seats {team.seats}, {total} points", flush=True)
    if card.winner_team is not None:
        print(f"winner: team {card.winner_team}", flush=True)


def play_one_game(
    server: str, token: str | None, name: str, game_id: int | None, code: str | None
) -> int:
    """Sign up (or use ``token``), sit down, play to the end, print the scores."""
    token = token or sign_up(server, name)
    api = AuthenticatedClient(
        base_url=server,
        token=token,
        prefix="Token",
        timeout=httpx.Timeout(WAIT_SECONDS + 15.0),  # a long-poll waits up to WAIT_SECONDS
    )
    table = sit_down(api, game_id, code)
    moves = play(api, table.id)
    print(f"the game is over after {moves} moves of ours", flush=True)
    final_scores(api, table.id, table.your_seat)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A Canasta bot account playing one game.")
    parser.add_argument("--server", required=True, help="the service, e.g. http://127.0.0.1:8000")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--name", help="sign up as a new bot account with this display name")
    who.add_argument("--token", help="the API token of a bot account made before")
    parser.add_argument("--game", type=int, help="the table's id")
    parser.add_argument("--code", help="the table's join code (needed for a private table)")
    args = parser.parse_args(argv)
    if args.game is None and not args.code:
        parser.error("give the table: --game ID or --code JOIN_CODE (or both)")

    try:
        return play_one_game(args.server, args.token, args.name, args.game, args.code)
    except httpx.HTTPError as exc:  # the server is down or unreachable
        sys.exit(f"cannot reach {args.server}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
