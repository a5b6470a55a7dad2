from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0005_player_play_forced_moves")]

    operations = [
        migrations.AddField(
            model_name="club",
            name="signup_token",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
    ]
