"""The Celery application, configured from Django settings (``CELERY_*``).

Beat runs one periodic task, the sweep (``tournaments.tasks.sweep``, in
tournaments/workers/tasks.py: the tasks keep the names of the module's old place,
for messages queued before an upgrade), every
``PARLOUR_SWEEP_SECONDS``: it applies turn deadlines that passed and queues
again the move of a bot whose task was lost (docs/workers.md).  With
``PARLOUR_DEMO_LIVE`` (``make run``) it also keeps the demo live
(``tournaments.tasks.keep_demo_live``, tournaments/demo.py).
"""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")

app = Celery("parlour")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The tasks live in tournaments/workers/tasks.py (``related_name`` is the module
# autodiscovery imports in each package); apps.ready imports it too.
app.autodiscover_tasks(["tournaments.workers"])

SWEEP_TASK = "tournaments.tasks.sweep"
DEMO_TASK = "tournaments.tasks.keep_demo_live"
#: How often beat checks whether the next demo tournament is due (tournaments/demo.py).
DEMO_CHECK_SECONDS = 5.0


@task_prerun.connect
@task_postrun.connect
def close_old_database_connections(sender: Any = None, **kwargs: Any) -> None:
    """Around each task, what Django does around each request: close this process's
    database connections that are older than ``DATABASE_CONN_MAX_AGE`` or unusable
    (errors, a PostgreSQL restart), so a worker keeps a working connection from
    task to task (settings: ``CELERY_DB_REUSE_MAX``).

    Not for an eager task: it runs inside its caller's request and transaction.
    """
    from django.db import close_old_connections

    request = getattr(sender, "request", None)
    if getattr(request, "is_eager", False):
        return
    close_old_connections()


@app.on_after_configure.connect
def schedule_sweep(sender: Celery, **kwargs: Any) -> None:
    """Put the sweep on beat's schedule, every ``PARLOUR_SWEEP_SECONDS``."""
    from django.conf import settings

    every = float(settings.PARLOUR_SWEEP_SECONDS)
    sender.add_periodic_task(
        every,
        sender.signature(SWEEP_TASK),
        name="sweep: expired deadlines and stalled bots",
        # A sweep not started within a few periods is dropped: the next one
        # does the same work (a backlog of sweeps is useless).
        expires=max(5 * every, 5.0),
    )
    if settings.PARLOUR_DEMO_LIVE:
        # (tournaments.demo cannot be imported here: Django's apps are not ready yet)
        sender.add_periodic_task(
            DEMO_CHECK_SECONDS,
            sender.signature(DEMO_TASK),
            name="the live demo: a bot tournament always playing",
            expires=2 * DEMO_CHECK_SECONDS,
        )
