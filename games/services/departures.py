"""A player leaves for good (their account is deleted): their part in every game ends.

- A game in play is conceded for the player's side (``game_concede``: a ``game_conceded`` fact
  in the log, the ratings of a rated table, the other players told), as the player would have
  done; a deleted account never comes back, so no stand-in bot waits for it.
- A lobby table: the player's seat is given up; a table they created, which nobody else could
  start, is removed (it has no log yet).
- Every game they sat at names them as they are now (the deleted player's name) in its seating
  (``player_rename``), so the replay verifier finds the Seat rows, the Player rows and the
  game rows agreeing; the log itself names seats by player id only.
- Their open challenges are withdrawn (sent) or declined (received).
- Their stored action answers (which show their own hand) and chat mutes go.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from accounts.models import Player
from core.errors import ServiceError
from games import errors, live
from games.models import Challenge, ChatMute, Game, GameStatus, IdempotencyRecord, Seat
from games.services.challenges import challenge_cancel, challenge_decline, open_q
from games.services.lobby import game_leave
from games.services.players import player_rename
from games.services.table import game_concede


def player_games_leave(player: Player) -> list[int]:
    """End ``player``'s part in every game (see the module's text), in the caller's
    transaction; the ids of the games conceded."""
    conceded: list[int] = []
    with transaction.atomic():
        seated = Seat.objects.filter(player=player).values_list("game_id", flat=True)
        active = Game.objects.filter(pk__in=seated, status=GameStatus.ACTIVE).order_by("pk")
        for game_id in active.values_list("pk", flat=True):
            try:
                game_concede(game_id=game_id, player=player)
            except (errors.GameOver, errors.GameNotActive, errors.NotSeated):
                continue  # it ended (or the seat changed) meanwhile: nothing to concede
            conceded.append(game_id)
        lobby = Game.objects.filter(pk__in=seated, status=GameStatus.LOBBY).order_by("pk")
        for game in lobby:
            if game.created_by_id == player.pk:
                continue  # removed below
            try:
                game_leave(game_id=game.pk, player=player)
            except (errors.GameAlreadyStarted, errors.NotSeated):
                continue
        _own_lobbies_remove(player)
        _challenges_close(player)
        IdempotencyRecord.objects.filter(player=player).delete()
        ChatMute.objects.filter(player=player).delete()
        player_rename(player, player.display_name)
    return conceded


def _challenges_close(player: Player) -> None:
    """Withdraw the open challenges ``player`` sent and decline those they received (one that
    closed meanwhile is left as it is)."""
    mine = Q(challenger=player) | Q(invitee=player)
    for challenge in Challenge.objects.filter(open_q() & mine).order_by("pk"):
        close = challenge_cancel if challenge.challenger_id == player.pk else challenge_decline
        try:
            close(challenge_id=challenge.pk, player=player)
        except ServiceError:
            continue


def _own_lobbies_remove(player: Player) -> None:
    """The lobby tables ``player`` created (not started: no log), each locked, then removed;
    whoever waits at one is woken to find it gone."""
    for game_id in Game.objects.filter(created_by=player, status=GameStatus.LOBBY).values_list(
        "pk", flat=True
    ):
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.LOBBY:
            continue
        game.delete()
        live.notify_on_commit(game_id)
