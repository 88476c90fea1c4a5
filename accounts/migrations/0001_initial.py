"""Players and their relations, moved from games with their tables (games_player, games_playerrelation)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0012_bots_review_hints_accounts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay where they are (each model keeps its db_table): only Django's
        # picture of which app owns which model changes, so no row is touched.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Player',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('display_name', models.CharField(max_length=40)),
                        ('is_bot', models.BooleanField(default=False, help_text='A bot account: a program playing through the public API (never rated, never in the matchmaking queue); shown as a bot at every table.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='player', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_player',
                    },
                ),
                migrations.CreateModel(
                    name='PlayerRelation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('block', 'Block'), ('favourite', 'Favourite')], max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('other', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='related_by', to='accounts.player')),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='relations', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_playerrelation',
                        'ordering': ('owner', 'kind', '-created_at'),
                        'constraints': [models.UniqueConstraint(fields=('owner', 'other', 'kind'), name='relation_unique'), models.CheckConstraint(condition=models.Q(('owner', models.F('other')), _negated=True), name='relation_not_self')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
