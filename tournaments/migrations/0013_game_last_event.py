# The id and time of the stream's last event on the game's row (issue 24: the fold cache
# is checked against them); 0 and null until the next move of a game already running.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0012_field_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="last_event",
            field=models.BigIntegerField(default=0, verbose_name="last event"),
        ),
        migrations.AddField(
            model_name="game",
            name="last_event_at",
            field=models.DateTimeField(
                blank=True, null=True, verbose_name="last event recorded at"
            ),
        ),
    ]
