"""The outbox, deliveries, webhooks, push subscriptions, preferences and mutes, moved from games with their tables."""

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
                    name='Notification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('your_turn', 'Your Turn'), ('game_started', 'Game Started'), ('go_out_asked', 'Go Out Asked'), ('chat', 'Chat'), ('reminder', 'Reminder'), ('game_over', 'Game Over')], max_length=16)),
                        ('event_seq', models.PositiveIntegerField(blank=True, help_text="The game's version (or table event) that caused it.", null=True)),
                        ('payload', models.JSONField(default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('game', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to='games.game')),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_notification',
                        'ordering': ('-created_at', '-id'),
                    },
                ),
                migrations.CreateModel(
                    name='Delivery',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('channel', models.CharField(choices=[('webhook', 'Webhook'), ('web_push', 'Web Push'), ('email', 'Email')], max_length=16)),
                        ('endpoint_id', models.PositiveBigIntegerField(default=0)),
                        ('status', models.CharField(choices=[('pending', 'Pending'), ('delivered', 'Delivered'), ('failed', 'Failed'), ('dropped', 'Dropped')], default='pending', max_length=16)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('next_attempt_at', models.DateTimeField(db_index=True)),
                        ('last_status_code', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('last_error', models.CharField(blank=True, default='', max_length=300)),
                        ('delivered_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('notification', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deliveries', to='notifications.notification')),
                    ],
                    options={
                        'db_table': 'games_delivery',
                        'ordering': ('-created_at', '-id'),
                    },
                ),
                migrations.CreateModel(
                    name='NotificationPreference',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('channel', models.CharField(choices=[('webhook', 'Webhook'), ('web_push', 'Web Push'), ('email', 'Email')], max_length=16)),
                        ('kind', models.CharField(choices=[('your_turn', 'Your Turn'), ('game_started', 'Game Started'), ('go_out_asked', 'Go Out Asked'), ('chat', 'Chat'), ('reminder', 'Reminder'), ('game_over', 'Game Over')], max_length=16)),
                        ('enabled', models.BooleanField()),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notification_preferences', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_notificationpreference',
                    },
                ),
                migrations.CreateModel(
                    name='NotificationSettings',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('reminder_fraction', models.FloatField(default=0.75, help_text="Remind when this fraction of a correspondence turn's limit has passed.")),
                        ('email', models.EmailField(blank=True, default='', help_text='Where e-mail goes (blank: none).', max_length=254)),
                        ('player', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='notification_settings', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_notificationsettings',
                    },
                ),
                migrations.CreateModel(
                    name='PushSubscription',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('endpoint', models.URLField(max_length=1000, unique=True)),
                        ('p256dh', models.CharField(max_length=200)),
                        ('auth', models.CharField(max_length=100)),
                        ('enabled', models.BooleanField(default=True)),
                        ('consecutive_failures', models.PositiveIntegerField(default=0)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='push_subscriptions', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_pushsubscription',
                        'ordering': ('player', 'id'),
                    },
                ),
                migrations.CreateModel(
                    name='WebhookEndpoint',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('url', models.URLField(max_length=500)),
                        ('secret', models.CharField(max_length=64)),
                        ('description', models.CharField(blank=True, default='', max_length=100)),
                        ('enabled', models.BooleanField(default=True)),
                        ('consecutive_failures', models.PositiveIntegerField(default=0)),
                        ('disabled_at', models.DateTimeField(blank=True, null=True)),
                        ('disabled_reason', models.CharField(blank=True, default='', max_length=200)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='webhooks', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_webhookendpoint',
                        'ordering': ('player', 'id'),
                    },
                ),
                migrations.CreateModel(
                    name='GameMute',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='mutes', to='games.game')),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='game_mutes', to='accounts.player')),
                    ],
                    options={
                        'db_table': 'games_gamemute',
                        'constraints': [models.UniqueConstraint(fields=('player', 'game'), name='game_mute_unique')],
                    },
                ),
                migrations.AddConstraint(
                    model_name='notification',
                    constraint=models.UniqueConstraint(fields=('player', 'kind', 'game', 'event_seq'), name='notification_once'),
                ),
                migrations.AddIndex(
                    model_name='delivery',
                    index=models.Index(condition=models.Q(('status', 'pending')), fields=['next_attempt_at'], name='delivery_due_idx'),
                ),
                migrations.AddConstraint(
                    model_name='delivery',
                    constraint=models.UniqueConstraint(fields=('notification', 'channel', 'endpoint_id'), name='delivery_once'),
                ),
                migrations.AddConstraint(
                    model_name='notificationpreference',
                    constraint=models.UniqueConstraint(fields=('player', 'channel', 'kind'), name='notification_preference_unique'),
                ),
            ],
            database_operations=[],
        ),
    ]
