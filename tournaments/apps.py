from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # After every commit that changes a game, queue its bot move and its
        # timeouts (tournaments/tasks.py, docs/workers.md).
        from tournaments import games, tasks

        games.game_changed.connect(
            tasks.on_game_changed, dispatch_uid="tournaments.tasks.on_game_changed"
        )
