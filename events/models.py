"""The event table: every stream's events, append-only (docs/store.md).

Use :mod:`events.store` to write and read it; the model is here for migrations,
the admin and ad-hoc queries.  The database refuses UPDATE and DELETE (and
TRUNCATE on PostgreSQL) on this table: triggers installed by migration 0002.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy


class CauseKind(models.TextChoices):
    """Who or what caused an event."""

    SEAT = "seat", pgettext_lazy("caused by", "seat")
    PLAYER = "player", pgettext_lazy("caused by", "player")
    BOT = "bot", pgettext_lazy("caused by", "bot")
    TIMEOUT = "timeout", pgettext_lazy("caused by", "timeout")
    ORGANISER = "organiser", pgettext_lazy("caused by", "organiser")
    SYSTEM = "system", pgettext_lazy("caused by", "system")


class Event(models.Model):
    """One event of one stream; never changed, never deleted."""

    #: The stream (one per game: ``game-<id>``).
    stream = models.CharField(max_length=200, verbose_name=gettext_lazy("stream"))
    #: 1, 2, 3 … within the stream, no gaps; ``(stream, sequence)`` is unique.
    sequence = models.PositiveIntegerField(verbose_name=gettext_lazy("sequence"))
    #: The event type (``dealt``, ``move``) and its version.
    type = models.CharField(max_length=64, verbose_name=gettext_lazy("type"))
    version = models.PositiveSmallIntegerField(default=1, verbose_name=gettext_lazy("version"))
    #: The event itself (for games: the engine's event dict).
    payload = models.JSONField(verbose_name=gettext_lazy("payload"))
    #: Who caused it: a seat, a player, a bot, a timeout, the organiser, the system.
    cause_kind = models.CharField(
        max_length=16, choices=CauseKind.choices, verbose_name=gettext_lazy("cause kind")
    )
    cause_id = models.CharField(
        max_length=200, blank=True, default="", verbose_name=gettext_lazy("cause id")
    )
    recorded_at = models.DateTimeField(verbose_name=gettext_lazy("recorded at"))
    #: The idempotency key of the command that appended this event, on the first
    #: event of that append only (unique per stream), with the command's hash.
    idempotency_key = models.CharField(
        max_length=200, null=True, blank=True, verbose_name=gettext_lazy("idempotency key")
    )
    command_hash = models.CharField(
        max_length=64, blank=True, default="", verbose_name=gettext_lazy("command hash")
    )
    #: How many events the append that wrote this one wrote together.
    batch_size = models.PositiveIntegerField(default=1, verbose_name=gettext_lazy("batch size"))
    #: The writing transaction's id on PostgreSQL (a database default set by
    #: migration 0002), 0 on SQLite: with ``id`` it is the global position.
    tx = models.BigIntegerField(db_default=0, verbose_name=gettext_lazy("tx"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stream", "sequence"], name="event_stream_sequence"),
            models.CheckConstraint(condition=Q(sequence__gte=1), name="event_sequence_from_1"),
            models.UniqueConstraint(
                fields=["stream", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_stream_idempotency_key",
            ),
        ]
        indexes = [
            models.Index(fields=["tx", "id"], name="event_global_position"),
            # read_all(within=...): a set of streams' events in global order, through
            # this index, at a cost that does not grow with other streams' events.
            models.Index(fields=["stream", "tx", "id"], name="event_stream_position"),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.stream}#{self.sequence} {self.type}"
