"""Post-game reviews, moved from games with their table (games_gamereview)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0001_initial'),
        ('games', '0013_models_to_their_apps'),
    ]

    operations = [
        # The tables stay where they are (each model keeps its db_table): only Django's
        # picture of which app owns which model changes, so no row is touched.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='GameReview',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seat', models.PositiveSmallIntegerField()),
                        ('through_round', models.PositiveSmallIntegerField(help_text='The last finished round the review covers (rounds 1..through_round).')),
                        ('through_seq', models.PositiveIntegerField(help_text='The seq of the move-log event that finished that round.')),
                        ('status', models.CharField(choices=[('pending', 'Pending'), ('ready', 'Ready'), ('failed', 'Failed')], default='pending', max_length=8)),
                        ('engine', models.CharField(blank=True, default='', help_text='The reviewer and its settings.', max_length=64)),
                        ('result', models.JSONField(blank=True, help_text='The decisions reviewed (null until ready).', null=True)),
                        ('cpu_seconds', models.FloatField(blank=True, null=True)),
                        ('error', models.CharField(blank=True, default='', max_length=200)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reviews', to='games.game')),
                        ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reviews_requested', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_gamereview',
                        'ordering': ('game', 'seat', '-through_round'),
                        'constraints': [models.UniqueConstraint(fields=('game', 'seat', 'through_round'), name='review_unique_game_seat_round')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
