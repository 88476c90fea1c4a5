"""Routes of competition's API: quick play, leaderboards, rating histories and profiles (under
/api/v1/)."""

from django.urls import path, register_converter

from competition.api import matchmaking, profiles, ratings, tournaments
from core import converters  # noqa: F401  <id:...> (core.converters)

# A rating format (competition/api/ratings.py): any other value is no such URL, 404 not_found.
register_converter(ratings.RatingFormatConverter, "rating_format")

urlpatterns = [
    # Quick play: join, read (long-poll) and leave the queue (competition/api/matchmaking.py).
    path("queue/", matchmaking.QueueApi.as_view(), name="queue"),
    path(
        "players/<id:player_id>/profile/",
        profiles.PlayerProfileApi.as_view(),
        name="player-profile",
    ),
    # Leaderboards and rating histories (competition/api/ratings.py).
    path(
        "leaderboards/<rating_format:rating_format>/",
        ratings.LeaderboardApi.as_view(),
        name="leaderboard",
    ),
    path(
        "leaderboards/<rating_format:rating_format>/around-me/",
        ratings.LeaderboardAroundApi.as_view(),
        name="leaderboard-around-me",
    ),
    path(
        "players/<id:player_id>/ratings/<rating_format:rating_format>/history/",
        ratings.RatingHistoryApi.as_view(),
        name="player-rating-history",
    ),
    # Tournaments (competition/api/tournaments.py).
    path("tournaments/", tournaments.TournamentsApi.as_view(), name="tournaments"),
    path("tournaments/<id:tournament_id>/", tournaments.TournamentApi.as_view(), name="tournament"),
    path(
        "tournaments/<id:tournament_id>/entry/open/",
        tournaments.EntryOpenApi.as_view(),
        name="tournament-entry-open",
    ),
    path(
        "tournaments/<id:tournament_id>/entry/close/",
        tournaments.EntryCloseApi.as_view(),
        name="tournament-entry-close",
    ),
    path(
        "tournaments/<id:tournament_id>/start/",
        tournaments.StartApi.as_view(),
        name="tournament-start",
    ),
    path(
        "tournaments/<id:tournament_id>/cancel/",
        tournaments.CancelApi.as_view(),
        name="tournament-cancel",
    ),
    path(
        "tournaments/<id:tournament_id>/bots/",
        tournaments.BotsApi.as_view(),
        name="tournament-bots",
    ),
    path(
        "tournaments/<id:tournament_id>/invites/",
        tournaments.InvitesApi.as_view(),
        name="tournament-invites",
    ),
    path(
        "tournaments/<id:tournament_id>/forbidden-pairs/",
        tournaments.ForbiddenApi.as_view(),
        name="tournament-forbidden-pairs",
    ),
    path(
        "tournaments/<id:tournament_id>/registration/",
        tournaments.RegistrationApi.as_view(),
        name="tournament-registration",
    ),
    path(
        "tournaments/<id:tournament_id>/entries/<id:entry_id>/withdraw/",
        tournaments.EntryRemoveApi.as_view(),
        name="tournament-entry-withdraw",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/",
        tournaments.RoundsApi.as_view(),
        name="tournament-rounds",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/publish/",
        tournaments.RoundPublishApi.as_view(),
        name="tournament-round-publish",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/discard/",
        tournaments.RoundDiscardApi.as_view(),
        name="tournament-round-discard",
    ),
    path(
        "tournaments/<id:tournament_id>/standings/",
        tournaments.StandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<id:tournament_id>/tables/",
        tournaments.TablesApi.as_view(),
        name="tournament-tables",
    ),
    path(
        "tournaments/<id:tournament_id>/next-game/",
        tournaments.NextGameApi.as_view(),
        name="tournament-next-game",
    ),
    path(
        "tournaments/<id:tournament_id>/log/",
        tournaments.FactsApi.as_view(),
        name="tournament-log",
    ),
    path(
        "tournaments/<id:tournament_id>/verify/",
        tournaments.VerifyApi.as_view(),
        name="tournament-verify",
    ),
    path(
        "tournaments/<id:tournament_id>/boards/",
        tournaments.BoardsApi.as_view(),
        name="tournament-boards",
    ),
]
