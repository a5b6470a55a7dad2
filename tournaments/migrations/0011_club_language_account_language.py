"""Issue 23: a club's default language, the language a login chose (kept for their other
devices), and the models' names in the reader's language (docs/i18n.md)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("tournaments", "0010_account_notices"),
    ]

    operations = [
        migrations.CreateModel(
            name="AccountLanguage",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="language",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "language",
                    models.CharField(
                        choices=[("ru", "Русский"), ("en", "English")],
                        max_length=8,
                        verbose_name="language",
                    ),
                ),
            ],
        ),
        migrations.AlterModelOptions(
            name="checkin",
            options={"verbose_name": "check-in", "verbose_name_plural": "check-ins"},
        ),
        migrations.AlterModelOptions(
            name="club",
            options={"ordering": ["name"], "verbose_name": "club", "verbose_name_plural": "clubs"},
        ),
        migrations.AlterModelOptions(
            name="game",
            options={"ordering": ["id"], "verbose_name": "game", "verbose_name_plural": "games"},
        ),
        migrations.AlterModelOptions(
            name="loginlinkchange",
            options={
                "ordering": ["-at", "-id"],
                "verbose_name": "change of a player's login",
                "verbose_name_plural": "changes of players' logins",
            },
        ),
        migrations.AlterModelOptions(
            name="player",
            options={
                "ordering": ["name"],
                "verbose_name": "player",
                "verbose_name_plural": "players",
            },
        ),
        migrations.AlterModelOptions(
            name="registration",
            options={
                "ordering": ["id"],
                "verbose_name": "registration",
                "verbose_name_plural": "registrations",
            },
        ),
        migrations.AlterModelOptions(
            name="round",
            options={
                "ordering": ["tournament", "number"],
                "verbose_name": "round",
                "verbose_name_plural": "rounds",
            },
        ),
        migrations.AlterModelOptions(
            name="table",
            options={
                "ordering": ["round", "number"],
                "verbose_name": "table",
                "verbose_name_plural": "tables",
            },
        ),
        migrations.AlterModelOptions(
            name="tableseat",
            options={
                "ordering": ["table", "seat"],
                "verbose_name": "seat",
                "verbose_name_plural": "seats",
            },
        ),
        migrations.AlterModelOptions(
            name="tournament",
            options={
                "ordering": ["-created_at", "id"],
                "verbose_name": "tournament",
                "verbose_name_plural": "tournaments",
            },
        ),
        migrations.AddField(
            model_name="club",
            name="language",
            field=models.CharField(
                blank=True,
                choices=[("ru", "Русский"), ("en", "English")],
                db_default="",
                default="",
                max_length=8,
                verbose_name="language",
            ),
        ),
    ]
