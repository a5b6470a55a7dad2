"""What runs beside the web processes: Celery tasks (:mod:`~tournaments.workers.tasks`),
the turn clock and the sweep (:mod:`~tournaments.workers.clock`), bots and forced
moves (:mod:`~tournaments.workers.autoplay`) and the long-poll wake-ups
(:mod:`~tournaments.workers.notify`).  docs/workers.md tells how they fit.

The tasks keep the names they had as ``tournaments.tasks.<name>``: a message
queued in a broker before an upgrade is still found after it.
"""
