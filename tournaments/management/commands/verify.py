"""``manage.py verify FILE``: check portable game records (RECORD.md).

``FILE`` holds one record (a JSON object), a JSON array of records, or one
record per line (``-`` reads standard input).  Every record is replayed move by
move through the engine and its stated result checked; a record that carries a
revealed shuffle seed (our own games) must also have the seed hash to its
commitment and derive its deck (docs/fairness.md).  One line per record, then
``N passed, M failed``; the exit code is 1 if any record failed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from engine.fairness import FairnessError
from engine.record import RecordError
from tournaments.management.language import LanguageCommand
from tournaments.services.queries import verify_record
from tournaments.words import say


def read_records(text: str) -> list[Any]:
    """The records in ``text``: a JSON object, a JSON array, or JSON lines."""
    try:
        data = json.loads(text)
    except ValueError:
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError as error:
                raise CommandError(
                    gettext("line %(number)s is not JSON: %(error)s")
                    % {"number": number, "error": error}
                ) from None
        return records
    return data if isinstance(data, list) else [data]


def check_record(record: Any) -> str:
    """``"OK …"`` for a record that holds; raises RecordError or FairnessError if not.

    The API's check (:func:`~tournaments.services.queries.verify_record`), so that a
    record dealt with the players' seeds is checked with them here too (the command
    checked the server's seed alone, and failed such a record the API verified).
    """
    if not isinstance(record, Mapping):
        raise RecordError(gettext_noop("a record is a JSON object"))
    checked = verify_record(record)
    what = gettext("%(game)s, %(seats)s seats, %(moves)s moves") % {
        "game": checked["game"],
        "seats": checked["seats"],
        "moves": checked["move_count"],
    }
    shuffle = record.get("shuffle")
    if checked["shuffle_verified"]:
        return gettext("OK (%(what)s; shuffle checked against commitment %(commitment)s…)") % {
            "what": what,
            "commitment": str(shuffle["commitment"])[:12],  # type: ignore[index]
        }
    if not isinstance(shuffle, Mapping) or not shuffle.get("commitment"):
        return gettext("OK (%(what)s; dealt from a given deck, no shuffle to check)") % {
            "what": what
        }
    return gettext("OK (%(what)s; seed not revealed yet, shuffle unchecked)") % {"what": what}


class Command(LanguageCommand):
    help = "Check game records: every move, the result and, for our own games, the shuffle."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", help="records: JSON object, JSON array or JSON lines; - for stdin"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        name = opts["file"]
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        except OSError as error:
            raise CommandError(
                gettext("cannot read %(name)s: %(error)s") % {"name": name, "error": error}
            ) from None
        records = read_records(text)
        failed = 0
        for number, record in enumerate(records, 1):
            try:
                line = check_record(record)
            except RecordError as error:  # in the language asked, as the API says it
                failed += 1
                reason = say(error.phrase)
                line = (
                    gettext("FAILED at record: %(reason)s") % {"reason": reason}
                    if error.index is None
                    else gettext("FAILED at move %(index)s: %(reason)s")
                    % {"index": error.index, "reason": reason}
                )
            except FairnessError as error:
                failed += 1
                line = gettext("FAILED shuffle: %(reason)s") % {"reason": say(error.phrase)}
            except (KeyError, TypeError, AttributeError) as error:
                failed += 1
                line = f"FAILED: malformed record ({type(error).__name__}: {error})"
            self.stdout.write(
                gettext("record %(number)s: %(line)s") % {"number": number, "line": line}
            )
        self.stdout.write(
            gettext("%(value)s passed, %(failed)s failed")
            % {"value": len(records) - failed, "failed": failed}
        )
        if failed:
            sys.exit(1)
