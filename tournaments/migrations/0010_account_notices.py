"""A login's account feed (tournaments/play/feed.py): one notice per change of a game that
concerns them.  On PostgreSQL ``tx`` defaults to the writing transaction's id, the first
half of the notice's position, as the events' does (events/migrations/0002): a later
migration that alters the column must set that default again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

TX_DEFAULT = (
    "ALTER TABLE tournaments_accountnotice"
    " ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text::bigint)"
)


def transaction_default(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TX_DEFAULT)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_standalone_deal"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AccountNotice",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("sequence", models.PositiveIntegerField()),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("started", "started"),
                            ("turn", "turn"),
                            ("finished", "finished"),
                        ],
                        max_length=16,
                    ),
                ),
                ("tx", models.BigIntegerField(db_default=0)),
                (
                    "game",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournaments.game",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
                "indexes": [
                    models.Index(fields=["user", "tx", "id"], name="notice_user_position"),
                    models.Index(fields=["user", "kind", "game"], name="notice_user_kind_game"),
                ],
            },
        ),
        migrations.RunPython(transaction_default, migrations.RunPython.noop),
    ]
