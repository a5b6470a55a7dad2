"""The event table: every stream's events, append-only (docs/store.md).

Use :mod:`events.store` to write and read it; the model is here for migrations,
the admin and ad-hoc queries.  The database refuses UPDATE and DELETE (and
TRUNCATE on PostgreSQL) on this table: triggers installed by migration 0002.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class CauseKind(models.TextChoices):
    """Who or what caused an event."""

    SEAT = "seat", "seat"
    PLAYER = "player", "player"
    BOT = "bot", "bot"
    TIMEOUT = "timeout", "timeout"
    ORGANISER = "organiser", "organiser"
    SYSTEM = "system", "system"


class Event(models.Model):
    """One event of one stream; never changed, never deleted."""

    #: The stream (one per game: ``game-<id>``).
    stream = models.CharField(max_length=200)
    #: 1, 2, 3 … within the stream, no gaps; ``(stream, sequence)`` is unique.
    sequence = models.PositiveIntegerField()
    #: The event type (``dealt``, ``move``) and its version.
    type = models.CharField(max_length=64)
    version = models.PositiveSmallIntegerField(default=1)
    #: The event itself (for games: the engine's event dict).
    payload = models.JSONField()
    #: Who caused it: a seat, a player, a bot, a timeout, the organiser, the system.
    cause_kind = models.CharField(max_length=16, choices=CauseKind.choices)
    cause_id = models.CharField(max_length=200, blank=True, default="")
    recorded_at = models.DateTimeField()
    #: The idempotency key of the command that appended this event, on the first
    #: event of that append only (unique per stream), with the command's hash.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    command_hash = models.CharField(max_length=64, blank=True, default="")
    #: How many events the append that wrote this one wrote together.
    batch_size = models.PositiveIntegerField(default=1)
    #: The writing transaction's id on PostgreSQL (a database default set by
    #: migration 0002), 0 on SQLite: with ``id`` it is the global position.
    tx = models.BigIntegerField(db_default=0)

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
