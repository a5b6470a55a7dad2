"""``manage.py rebuild_projections``: recompute every game's row from its events alone.

Projections (who is to act, deadlines, results) are disposable: this command
folds every ``game-<id>`` stream of the event store and writes the rows
afresh.  Safe to run at any time; it prints what it did.
"""

from __future__ import annotations

import time
from typing import Any

from django.utils.translation import ngettext

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
            ngettext(
                "rebuilt %(count)s game (%(over)s over, %(running)s running) from its events in"
                " %(seconds).2fs; %(before)s rows before, %(after)s after",
                "rebuilt %(count)s games (%(over)s over, %(running)s running) from their events"
                " in %(seconds).2fs; %(before)s rows before, %(after)s after",
                rebuilt,
            )
            % {
                "count": rebuilt,
                "over": over,
                "running": rebuilt - over,
                "seconds": time.perf_counter() - started,
                "before": before,
                "after": Game.objects.count(),
            }
        )
