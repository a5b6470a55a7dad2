"""``manage.py rebuild_projections``: recompute every game's row from its events alone.

Projections (who is to act, deadlines, results) are disposable: this command
folds every ``game-<id>`` stream of the event store and writes the rows
afresh.  Safe to run at any time; it prints what it did.
"""

from __future__ import annotations

import time
from typing import Any

from tournaments import play as service
from tournaments.management.language import LanguageCommand
from tournaments.models import Game


class Command(LanguageCommand):
    help = "Rebuild every projection (the Game rows) from the event store alone."

    def handle(self, *args: Any, **opts: Any) -> None:
        started = time.perf_counter()
        before = Game.objects.count()
        rebuilt = service.rebuild_projections()
        over = Game.objects.filter(status=Game.Status.OVER).count()
        self.stdout.write(
            f"rebuilt {rebuilt} games ({over} over, {rebuilt - over} running) from their events"
            f" in {time.perf_counter() - started:.2f}s; {before} rows before,"
            f" {Game.objects.count()} after"
        )
