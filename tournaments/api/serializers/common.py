"""Serializers every resource shares: the problem documents, and the games' enum."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from engine.contract import said
from engine.registry import game_ids

#: The games registered when the API's schema is made (its enums); validation asks the
#: registry each time (:func:`engine.registry.game_ids`), so a game registered later counts.
GAME_IDS = game_ids()

#: What ``bot`` means wherever a player or a seat shows it (one name: docs/api.md, "Names").
BOT_HELP = "The bot's level ('random', 'heuristic', ...) for a bot; null for a person."


class BodySerializer(serializers.Serializer[Any]):
    """A request body: a field it does not take is refused (a 400 naming it), never ignored."""

    # The docstring above is what the schema says of every body that has none of its own
    # (drf-spectacular reads a class's inherited docstring): the why stays here.  DRF leaves
    # out what a serializer does not declare: ``POST /tournaments`` with
    # ``"turn_second": 60`` made a tournament without a clock, and ``POST /players`` with
    # ``"bots": "heuristic"`` a person, not a bot (found by trying).

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            taken = sorted(name for name, found in self.fields.items() if not found.read_only)
            unknown = [key for key in data if key not in taken]
            if unknown:
                words = (
                    gettext("no such field: this takes %(taken)s") % {"taken": ", ".join(taken)}
                    if taken
                    else gettext("no such field: this takes no body (send none, or {})")
                )
                raise serializers.ValidationError({str(key): [words] for key in unknown})
        return super().to_internal_value(data)


class NoBodySerializer(BodySerializer):
    """The body of an endpoint that takes none: nothing, or ``{}``; anything else is a 400,
    as a field another endpoint does not take is (a body sent is never ignored)."""


class WholeNumberField(serializers.IntegerField):
    """An integer of a JSON body, strictly: a JSON number without a fraction.

    DRF's ``IntegerField`` also takes ``"7"``, ``7.0`` and ``true``; a body field that
    is a number must be sent as one (``expected_sequence: "7"`` is a 400), as the
    query's numbers are checked strictly too (tournaments/api/pagination.py).
    """

    default_error_messages = {
        **serializers.IntegerField.default_error_messages,
        "strict": gettext_lazy("a whole number (a JSON number such as 7), not {sent}"),
    }

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("strict", sent=said(data))
        value: int = super().to_internal_value(data)
        return value


class StrictBooleanField(serializers.BooleanField):
    """A boolean of a JSON body, strictly: ``true`` or ``false``.

    DRF's ``BooleanField`` also takes ``"yes"``, ``"on"``, ``1`` and ``"true"``
    (``PATCH /me {"play_forced_moves": "yes"}`` was a 200: found by trying).
    """

    default_error_messages = {
        **serializers.BooleanField.default_error_messages,
        "strict": gettext_lazy("true or false (JSON), not {sent}"),
    }

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("strict", sent=said(data))
        return data


class StrictCharField(serializers.CharField):
    """A text of a JSON body, strictly: a JSON string (DRF's ``CharField`` also takes a
    number, ``{"seed": 123}`` stored as ``"123"``: found by trying)."""

    default_error_messages = {
        **serializers.CharField.default_error_messages,
        "strict": gettext_lazy('a text (a JSON string such as "abc"), not {sent}'),
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("strict", sent=said(data))
        value: str = super().to_internal_value(data)
        return value


# -- problems --------------------------------------------------------------------------------------


class FieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        allow_null=True, help_text="The field at fault (null for the whole body)."
    )
    detail = serializers.CharField()


class ProblemSerializer(serializers.Serializer[Any]):
    """An RFC 9457 problem document (``application/problem+json``)."""

    type = serializers.CharField(help_text="The problem type: GET it for its description.")
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField(help_text="What is wrong this time, and how to fix it.")
    field = serializers.CharField(
        allow_null=True, help_text="The input at fault (body field or header), or null."
    )
    instance = serializers.CharField(required=False, help_text="The request path.")
    current_sequence = serializers.IntegerField(
        required=False, help_text="conflict: the game's sequence now."
    )
    expected_sequence = serializers.IntegerField(
        required=False, help_text="conflict: the sequence the request expected."
    )
    retry_after = serializers.IntegerField(required=False, help_text="throttled: seconds to wait.")
    limit = serializers.CharField(
        required=False,
        help_text="throttled by a request rate: the limit used up (its RateLimit-Policy name).",
    )
    move_index = serializers.IntegerField(
        required=False, allow_null=True, help_text="invalid-record: the first bad move."
    )
    # DRF's metaclass takes declared fields off the class, so this field does not
    # shadow Serializer.errors at run time; the stubs see a class attribute.
    errors = FieldErrorSerializer(many=True, required=False)  # type: ignore[assignment]


class ProblemTypeSerializer(serializers.Serializer[Any]):
    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    description = serializers.CharField()
