"""Notifications are written in the recipient's language: their account setting (here Italian),
else English; the same event told to two players in two languages, with the same facts."""

from __future__ import annotations

import pytest

from accounts.models import Player
from accounts.services.players import player_create, player_language_set
from games.models import Game
from games.services.challenges import challenge_issue
from games.services.lobby import game_create, game_join, game_start
from games.services.table import chat_send, game_concede
from notifications.models import Notification, NotificationKind
from notifications.services.notifications import (
    lazy_text,
    payload_build,
    preferences_set,
    recipient_language,
)
from tests.games.api.conftest import eager_bots  # noqa: F401 - fixture: bots play in-process

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_delivered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)


def reachable(*players: Player) -> None:
    for player in players:
        preferences_set(player.pk, email=f"{player.display_name.lower()}@example.com")


def table(ada: Player, bea: Player) -> Game:
    game = game_create(creator=ada, preset="two_player", seat=0, options={"target_score": 1000})
    game_join(player=bea, game_id=game.pk)
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    return game


def payload(game: Game, player: Player, kind: str) -> dict[str, object]:
    note = Notification.objects.get(game=game, player=player, kind=kind)
    return dict(note.payload)


def test_a_player_who_chose_italian_is_told_in_italian_another_in_english() -> None:
    ada, bea = player_create(display_name="Ada")[0], player_create(display_name="Bea")[0]
    player_language_set(bea, "it")
    reachable(ada, bea)
    game = table(ada, bea)
    english = payload(game, ada, NotificationKind.GAME_STARTED)
    italian = payload(game, bea, NotificationKind.GAME_STARTED)
    assert english["title"] == f"Game #{game.pk} started"
    assert italian["title"] == f"La partita #{game.pk} è iniziata"
    first = "Ada" if game.to_act == 0 else "Bea"
    assert italian["text"] in ("Tocca a te.", f"{first} gioca per primo.")
    assert english["text"] in ("It is your turn.", f"{first} plays first.")
    assert {k: v for k, v in italian.items() if k not in ("title", "text", "player_id")} == {
        k: v for k, v in english.items() if k not in ("title", "text", "player_id")
    }


def test_chat_and_the_end_of_a_game_in_italian() -> None:
    ada, bea = player_create(display_name="Ada")[0], player_create(display_name="Bea")[0]
    player_language_set(bea, "it")
    reachable(ada, bea)
    game = table(ada, bea)
    chat_send(game_id=game.pk, player=ada, phrase="good_luck")
    chat = payload(game, bea, NotificationKind.CHAT)
    assert chat["title"] == f"Ada nella partita #{game.pk}"
    assert chat["text"] == "Buona fortuna!" and chat["phrase"] == "good_luck"
    game_concede(game_id=game.pk, player=ada)
    over = payload(game, bea, NotificationKind.GAME_OVER)
    assert over["title"] == f"La partita #{game.pk} è finita"
    assert over["text"] == f"La tua squadra ha vinto la partita #{game.pk} (per abbandono)."


def test_a_challenge_is_told_in_the_invitees_language() -> None:
    ada, bea = player_create(display_name="Ada")[0], player_create(display_name="Bea")[0]
    player_language_set(bea, "pt-BR")
    reachable(bea)
    challenge_issue(challenger=ada, invitee_id=bea.pk, preset="classic")
    note = Notification.objects.get(player=bea, kind=NotificationKind.CHALLENGE)
    assert note.payload["title"] == "Ada desafia você"
    assert note.payload["text"].startswith("Ada desafia você para uma partida (classic).")
    assert note.payload["preset"] == "classic"


def test_the_recipients_language_is_their_setting_else_english() -> None:
    ada = player_create(display_name="Ada")[0]
    assert recipient_language(ada.pk) == "en"
    player_language_set(ada, "de")
    assert recipient_language(ada.pk) == "de"
    player_language_set(ada, "")
    assert recipient_language(ada.pk) == "en"
    built = payload_build(
        player_id=ada.pk,
        kind=NotificationKind.YOUR_TURN,
        game=None,
        event_seq=None,
        given={"title": lazy_text("Seat %(seat)s", seat=2)},
        language="es",
    )
    assert built["title"] == "Asiento 2"  # the caller's text, in the language given
    assert built["text"].startswith("Es su turno")  # the kind's default text, too
