# Database defaults for the columns added to existing tables since the first migration:
# an upgrade runs migrate while the version before still serves, and its inserts, which
# do not name the new columns, failed on NOT NULL (tests/project/test_migrations.py).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0014_table_series_totals"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="last_event",
            field=models.BigIntegerField(db_default=0, default=0, verbose_name="last event"),
        ),
        migrations.AlterField(
            model_name="player",
            name="play_forced_moves",
            field=models.BooleanField(
                db_default=True, default=True, verbose_name="play forced moves"
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="next_commitment",
            field=models.CharField(
                blank=True, db_default="", default="", max_length=64, verbose_name="next commitment"
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="series_deals",
            field=models.PositiveIntegerField(
                db_default=0, default=0, editable=False, verbose_name="deals counted"
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="series_scores",
            field=models.JSONField(
                db_default=models.Value([], output_field=models.JSONField()),
                default=list,
                editable=False,
                verbose_name="series scores",
            ),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="first_turn_grace",
            field=models.PositiveIntegerField(
                db_default=20, default=20, verbose_name="first turn grace"
            ),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="timeout_forfeits",
            field=models.BooleanField(
                db_default=True, default=True, verbose_name="timeout forfeits"
            ),
        ),
    ]
