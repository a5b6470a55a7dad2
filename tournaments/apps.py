from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tournaments import play
        from tournaments.api import push
        from tournaments.services import series
        from tournaments.workers import notify, tasks

        # A table's series goes on in the transaction of the move that ended its
        # game (tournaments/services/series.py): the game service's one way back.
        play.game_ended.connect(
            series.on_game_ended, dispatch_uid="tournaments.services.series.on_game_ended"
        )
        # After every commit that changes a game, queue its bot move and its
        # timeouts (tournaments/workers/tasks.py, docs/workers.md).
        # Wake long-polling readers (tournaments/workers/notify.py) before the tasks'
        # receiver, which may take a while (eager bots, a broker that is down).
        # This process's push-channel follows of the game are handed its view from the
        # change's own fold first (tournaments/api/push.py): were the publish first, its
        # message could wake them to read before they were handed it.
        play.game_changed.connect(
            push.on_game_changed, dispatch_uid="tournaments.api.push.on_game_changed"
        )
        play.game_changed.connect(
            notify.on_game_changed, dispatch_uid="tournaments.notify.on_game_changed"
        )
        play.game_changed.connect(
            tasks.on_game_changed, dispatch_uid="tournaments.tasks.on_game_changed"
        )
