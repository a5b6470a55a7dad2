from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # After every commit that changes a game, queue its bot move and its
        # timeouts (tournaments/tasks.py, docs/workers.md).
        from tournaments import games, notify, tasks

        # Wake long-polling readers (tournaments/notify.py) before the tasks'
        # receiver, which may take a while (eager bots, a broker that is down).
        games.game_changed.connect(
            notify.on_game_changed, dispatch_uid="tournaments.notify.on_game_changed"
        )
        games.game_changed.connect(
            tasks.on_game_changed, dispatch_uid="tournaments.tasks.on_game_changed"
        )
