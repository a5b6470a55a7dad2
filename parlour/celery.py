"""The Celery application, configured from Django settings (``CELERY_*``).

Beat runs one periodic task, the sweep (:func:`tournaments.tasks.sweep`), every
``PARLOUR_SWEEP_SECONDS``: it applies turn deadlines that passed and queues
again the move of a bot whose task was lost (docs/workers.md).
"""

import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")

app = Celery("parlour")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

SWEEP_TASK = "tournaments.tasks.sweep"


@app.on_after_configure.connect  # type: ignore[untyped-decorator]
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
