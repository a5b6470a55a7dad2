"""The Celery tasks keep the names they had as ``tournaments.tasks.<name>``.

A message names its task; one queued in the broker before an upgrade (a timeout
with an ``eta`` an hour away, a bot move waiting for a worker) must still find it
after the tasks moved to tournaments/workers/tasks.py.
"""

from __future__ import annotations

from parlour.celery import DEMO_TASK, SWEEP_TASK, app
from tournaments.workers import tasks

OLD_NAMES = {
    "tournaments.tasks.bot_move",
    "tournaments.tasks.forced_move",
    "tournaments.tasks.timeout",
    "tournaments.tasks.advance_tournament",
    "tournaments.tasks.sweep",
    "tournaments.tasks.keep_demo_live",
}


def test_the_registered_task_names_are_exactly_the_old_ones() -> None:
    app.loader.import_default_modules()  # what a worker does at start (autodiscovery)
    ours = {name for name in app.tasks if name.startswith(("tournaments.", "parlour."))}
    assert ours == OLD_NAMES
    assert set(tasks.TASK_NAMES) == OLD_NAMES


def test_each_task_function_carries_its_old_name() -> None:
    by_function = {
        name: getattr(tasks, name).name
        for name in ("bot_move", "forced_move", "timeout", "advance_tournament", "sweep")
    }
    by_function["keep_demo_live"] = tasks.keep_demo_live.name
    assert by_function == {name: f"tournaments.tasks.{name}" for name in by_function}


def test_beat_schedules_the_tasks_by_their_old_names() -> None:
    assert {SWEEP_TASK, DEMO_TASK} <= OLD_NAMES
    assert SWEEP_TASK in app.tasks and DEMO_TASK in app.tasks
