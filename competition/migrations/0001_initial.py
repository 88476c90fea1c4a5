"""Ratings, rating changes and the quick-play queue, moved from games with their tables."""

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
                    name='QueueEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('preset', models.CharField(max_length=32)),
                        ('format', models.CharField(max_length=16)),
                        ('rated', models.BooleanField()),
                        ('bots_after_seconds', models.PositiveIntegerField(blank=True, help_text='Casual queues: fill the table with bots after this many seconds (null: never).', null=True)),
                        ('bot_level', models.CharField(choices=[('easy', 'Easy'), ('medium', 'Medium'), ('hard', 'Hard')], default='medium', help_text='Casual queues: the level of the bots that fill the table.', max_length=8)),
                        ('rating', models.FloatField(help_text="The player's mu in the format when they queued.")),
                        ('joined_at', models.DateTimeField(db_index=True)),
                        ('match', models.UUIDField(blank=True, db_index=True, help_text='Set by the pairing run: the entries of one match share it (their table follows).', null=True)),
                        ('matched_at', models.DateTimeField(blank=True, null=True)),
                        ('game', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='queue_entries', to='games.game')),
                        ('player', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='queue_entry', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_queueentry',
                        'ordering': ('joined_at', 'id'),
                        'indexes': [models.Index(condition=models.Q(('match__isnull', True)), fields=['preset', 'rated', 'rating'], name='queue_waiting_idx')],
                    },
                ),
                migrations.CreateModel(
                    name='Rating',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('format', models.CharField(choices=[('partnership', 'Partnership'), ('two_player', 'Two Player'), ('three_player', 'Three Player')], max_length=16)),
                        ('mu', models.FloatField()),
                        ('sigma', models.FloatField()),
                        ('display', models.FloatField(help_text='mu - 3 sigma: the conservative value shown and ranked.')),
                        ('games', models.PositiveIntegerField(default=0, help_text='Rated games counted.')),
                        ('wins', models.PositiveIntegerField(default=0)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ratings', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_rating',
                        'ordering': ('format', '-display', 'player'),
                        'indexes': [models.Index(fields=['format', '-display', 'player'], name='rating_board_idx')],
                        'constraints': [models.UniqueConstraint(fields=('player', 'format'), name='rating_unique_format')],
                    },
                ),
                migrations.CreateModel(
                    name='RatingChange',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('format', models.CharField(choices=[('partnership', 'Partnership'), ('two_player', 'Two Player'), ('three_player', 'Three Player')], max_length=16)),
                        ('seat', models.PositiveSmallIntegerField()),
                        ('team', models.PositiveSmallIntegerField()),
                        ('rank', models.PositiveSmallIntegerField(help_text="The side's place: 1 won (ties share).")),
                        ('mu_before', models.FloatField()),
                        ('sigma_before', models.FloatField()),
                        ('mu_after', models.FloatField()),
                        ('sigma_after', models.FloatField()),
                        ('display_before', models.FloatField()),
                        ('display_after', models.FloatField()),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='games.game')),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_ratingchange',
                        'ordering': ('-created_at', '-id'),
                        'indexes': [models.Index(fields=['player', '-created_at'], name='ratingchange_player_idx')],
                        'constraints': [models.UniqueConstraint(fields=('game', 'player'), name='ratingchange_unique_player')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
