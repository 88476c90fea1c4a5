"""Game.seating: the seats repeated on the game row (games/seating.py), filled for every game."""

from django.db import migrations, models


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    for game in Game.objects.all().iterator():
        seats = Seat.objects.filter(game=game).select_related("player").order_by("index")
        game.seating = [
            {
                "id": s.pk,
                "index": s.index,
                "team": s.team,
                "player": s.player_id,
                "name": s.player.display_name if s.player_id is not None else None,
                "bot_level": s.bot_level,
                "joined_at": s.joined_at.isoformat() if s.joined_at else None,
                "timeouts": s.timeouts,
                "stand_in": s.stand_in,
            }
            for s in seats
        ]
        game.save(update_fields=["seating"])


class Migration(migrations.Migration):
    dependencies = [("games", "0005_turn_timers")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="seating",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="The seats as moves and views read them, kept equal to the Seat rows "
                "(games/seating.py).",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
