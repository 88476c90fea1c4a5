"""A small Canasta bot that plays through the public API, as a bot account.

It is written against ``canasta_client``, the Python client generated from the service's
``openapi.yaml`` (see README.md beside this file). It

1. signs in: with a personal access token holding the ``bot:play`` scope (``CANASTA_TOKEN``, sent
   as ``Authorization: Bearer``), or by the device authorization grant (``--device-login``: it
   prints a code to enter at the service's device page, where a signed-in person approves), or
   as a new bot account (``--name``), or with the guest key of one made before (``--token``);
2. sits at a casual table, by its id (``--game``) or its join code (``--code``);
3. follows the game through the move log's long-poll (``GET /games/{id}/events/?after=N&wait=25``:
   the server answers as soon as an event after seq N is committed, else after 25 s);
4. whenever its seat is to act, picks one of the legal actions its view lists and sends it with
   the version it chose it against;
5. prints the final scores when the game is over, and exits 0.

Run it with the generated package importable, for example::

    CANASTA_TOKEN=... PYTHONPATH=build/python-client python examples/bot/canasta_bot.py \\
        --server http://127.0.0.1:8000 --code KC7PJ9R5
"""

from __future__ import annotations

import argparse
import os
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

BOT_SCOPE = "bot:play"  # what the bot's token must hold: play the games it sits at
DEVICE_CODE_PATH = "/identity/o/api/device/code"  # the provider's device authorization endpoint
TOKEN_PATH = "/identity/o/api/token"  # the provider's token endpoint
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
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


def device_login(server: str, client_id: str) -> str:
    """An access token with ``bot:play`` by the device authorization grant (RFC 8628): ask the
    provider for a code, show it, and poll the token endpoint until a person approves it at
    the service's device page (signed in there as the account the bot plays as)."""
    http = httpx.Client(base_url=server, timeout=30.0)
    started = http.post(DEVICE_CODE_PATH, data={"client_id": client_id, "scope": BOT_SCOPE})
    if started.status_code != 200:
        sys.exit(f"device login refused: {started.text}")
    device = started.json()
    print(
        f"To let this bot play for you, open {device['verification_uri']} "
        f"and enter the code {device['user_code']}",
        flush=True,
    )
    if device.get("verification_uri_complete"):
        print(f"(or open {device['verification_uri_complete']})", flush=True)
    interval = float(device.get("interval") or 5)
    deadline = time.monotonic() + float(device["expires_in"])
    poll = {
        "grant_type": DEVICE_GRANT,
        "device_code": device["device_code"],
        "client_id": client_id,
    }
    while time.monotonic() < deadline:
        time.sleep(interval)
        answer = http.post(TOKEN_PATH, data=poll)
        body = answer.json()
        if answer.status_code == 200:
            if BOT_SCOPE not in body.get("scope", "").split():
                sys.exit(f"device login: the token lacks the {BOT_SCOPE} scope")
            print("device login approved", flush=True)
            return str(body["access_token"])
        error = body.get("error")
        if error == "slow_down":  # polling too fast: wait longer from now on
            interval += 5
        elif error != "authorization_pending":  # access_denied, expired_token, ...
            sys.exit(f"device login failed: {error}")
    sys.exit("device login failed: the code expired before anyone approved it")


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
    server: str, token: str, prefix: str, game_id: int | None, code: str | None
) -> int:
    """With ``token`` (sent as ``Authorization: <prefix> <token>``): sit down, play to the
    end, print the scores."""
    api = AuthenticatedClient(
        base_url=server,
        token=token,
        prefix=prefix,
        timeout=httpx.Timeout(WAIT_SECONDS + 15.0),  # a long-poll waits up to WAIT_SECONDS
    )
    table = sit_down(api, game_id, code)
    moves = play(api, table.id)
    print(f"the game is over after {moves} moves of ours", flush=True)
    final_scores(api, table.id, table.your_seat)
    return 0


def credentials(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[str, str]:
    """The bot's key and the scheme it is sent with, by the options (see ``main``)."""
    if args.name:
        return sign_up(args.server, args.name), "Token"
    if args.token:
        return args.token, "Token"
    if args.device_login:
        if not args.client_id:
            parser.error("--device-login needs --client-id (or CANASTA_CLIENT_ID)")
        return device_login(args.server, args.client_id), "Bearer"
    if args.access_token:
        return args.access_token, "Bearer"
    parser.error("say who the bot plays as: CANASTA_TOKEN, --device-login, --name or --token")
    raise AssertionError  # parser.error exits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A Canasta bot account playing one game.")
    parser.add_argument("--server", required=True, help="the service, e.g. http://127.0.0.1:8000")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--name", help="sign up as a new bot account with this display name")
    who.add_argument("--token", help="the guest key of a bot account made before")
    who.add_argument(
        "--device-login",
        action="store_true",
        help=f"get a token with {BOT_SCOPE} by the device authorization grant",
    )
    parser.add_argument(
        "--client-id",
        default=os.environ.get("CANASTA_CLIENT_ID"),
        help="the app's client id for --device-login (default: CANASTA_CLIENT_ID)",
    )
    parser.add_argument("--game", type=int, help="the table's id")
    parser.add_argument("--code", help="the table's join code (needed for a private table)")
    args = parser.parse_args(argv)
    # A personal access token with the bot:play scope, sent as a Bearer token.
    args.access_token = os.environ.get("CANASTA_TOKEN", "").strip()
    if args.game is None and not args.code:
        parser.error("give the table: --game ID or --code JOIN_CODE (or both)")

    try:
        token, prefix = credentials(args, parser)
        return play_one_game(args.server, token, prefix, args.game, args.code)
    except httpx.HTTPError as exc:  # the server is down or unreachable
        sys.exit(f"cannot reach {args.server}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
