# The series' running totals on the table's row (issue 24): the series hook read every game
# of the table's series at each deal's end, a cost that grew with the series.  Tables that
# exist are given the totals of the games they have ended, in series order.

from typing import Any

from django.db import migrations, models

from engine import series


def count_ended_games(apps: Any, schema_editor: Any) -> None:
    Table = apps.get_model("tournaments", "Table")
    Game = apps.get_model("tournaments", "Game")
    alias = schema_editor.connection.alias
    tables = Table.objects.using(alias).select_related("round__tournament")
    for table in tables.iterator():
        fmt = series.SeriesFormat.from_json(table.round.tournament.series)
        games = Game.objects.using(alias).filter(table=table).order_by("number_in_series", "id")
        deals, totals = 0, []
        for game in games.values("status", "result", "seats").iterator():
            if game["status"] != "over" or game["result"] is None:
                break
            totals = series.scored(fmt, totals, game["result"], game["seats"])
            deals += 1
        if deals:
            table.series_deals, table.series_scores = deals, totals
            table.save(update_fields=["series_deals", "series_scores"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0013_game_last_event"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="series_deals",
            field=models.PositiveIntegerField(
                default=0, editable=False, verbose_name="deals counted"
            ),
        ),
        migrations.AddField(
            model_name="table",
            name="series_scores",
            field=models.JSONField(default=list, editable=False, verbose_name="series scores"),
        ),
        migrations.RunPython(count_ended_games, migrations.RunPython.noop),
    ]
