"""The models of other domains leave games for their own apps (accounts, competition,
notifications, bots). Their tables keep their names, so this changes Django's state only; the
content types are relabelled so permissions and admin history follow."""

import django.db.models.deletion
from django.db import migrations, models

MOVED = {
    "accounts": ("player", "playerrelation"),
    "competition": ("rating", "ratingchange", "queueentry"),
    "notifications": (
        "notification",
        "delivery",
        "webhookendpoint",
        "pushsubscription",
        "notificationpreference",
        "notificationsettings",
        "gamemute",
    ),
    "bots": ("gamereview",),
}


def _relabel(apps, source_of, target_of):
    content_type = apps.get_model("contenttypes", "ContentType")
    for app, models in MOVED.items():
        for model in models:
            source, target = source_of(app), target_of(app)
            if content_type.objects.filter(app_label=target, model=model).exists():
                continue  # already there (post_migrate made it): leave the old one be
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)


def content_types_relabel(apps, schema_editor):
    _relabel(apps, lambda app: "games", lambda app: app)


def content_types_relabel_back(apps, schema_editor):
    _relabel(apps, lambda app: app, lambda app: "games")


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('accounts', '0001_initial'),
        ('games', '0012_bots_review_hints_accounts'),
    ]

    operations = [
        # The tables stay where they are (each model keeps its db_table): only Django's
        # picture of which app owns which model changes, so no row is touched.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='gamemute',
                    name='game',
                ),
                migrations.RemoveField(
                    model_name='gamemute',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='gamereview',
                    name='game',
                ),
                migrations.RemoveField(
                    model_name='gamereview',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='notification',
                    name='game',
                ),
                migrations.RemoveField(
                    model_name='notification',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='notificationpreference',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='notificationsettings',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='player',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='pushsubscription',
                    name='player',
                ),
                migrations.AlterField(
                    model_name='chatmute',
                    name='player',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chat_mutes', to='accounts.player'),
                ),
                migrations.AlterField(
                    model_name='seat',
                    name='player',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='accounts.player'),
                ),
                migrations.RemoveField(
                    model_name='queueentry',
                    name='player',
                ),
                migrations.AlterField(
                    model_name='idempotencyrecord',
                    name='player',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='idempotency', to='accounts.player'),
                ),
                migrations.RemoveField(
                    model_name='ratingchange',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='webhookendpoint',
                    name='player',
                ),
                migrations.RemoveField(
                    model_name='rating',
                    name='player',
                ),
                migrations.AlterField(
                    model_name='game',
                    name='created_by',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='games_created', to='accounts.player'),
                ),
                migrations.RemoveField(
                    model_name='playerrelation',
                    name='owner',
                ),
                migrations.RemoveField(
                    model_name='playerrelation',
                    name='other',
                ),
                migrations.AlterField(
                    model_name='tableevent',
                    name='player',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='table_events', to='accounts.player'),
                ),
                migrations.RemoveField(
                    model_name='queueentry',
                    name='game',
                ),
                migrations.RemoveField(
                    model_name='ratingchange',
                    name='game',
                ),
                migrations.DeleteModel(
                    name='Delivery',
                ),
                migrations.DeleteModel(
                    name='GameMute',
                ),
                migrations.DeleteModel(
                    name='GameReview',
                ),
                migrations.DeleteModel(
                    name='Notification',
                ),
                migrations.DeleteModel(
                    name='NotificationPreference',
                ),
                migrations.DeleteModel(
                    name='NotificationSettings',
                ),
                migrations.DeleteModel(
                    name='PushSubscription',
                ),
                migrations.DeleteModel(
                    name='WebhookEndpoint',
                ),
                migrations.DeleteModel(
                    name='Rating',
                ),
                migrations.DeleteModel(
                    name='PlayerRelation',
                ),
                migrations.DeleteModel(
                    name='Player',
                ),
                migrations.DeleteModel(
                    name='QueueEntry',
                ),
                migrations.DeleteModel(
                    name='RatingChange',
                ),
            ],
            database_operations=[],
        ),
        # The admin's permissions and log entries follow the models to their new apps.
        migrations.RunPython(content_types_relabel, content_types_relabel_back),
    ]
