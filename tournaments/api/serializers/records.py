"""Serializers of portable game records (RECORD.md) and their checks."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.api.serializers.common import WholeNumberField


class RecordSerializer(serializers.Serializer[Any]):
    """A portable game record (RECORD.md)."""

    format = serializers.CharField()
    game = serializers.CharField()
    seats = WholeNumberField()
    players = serializers.ListField(child=serializers.CharField())
    dealer = WholeNumberField()
    options = serializers.DictField()
    deck = serializers.ListField(child=serializers.CharField())
    moves = serializers.ListField(child=serializers.DictField())
    result = serializers.JSONField(allow_null=True)
    shuffle = serializers.DictField(required=False, allow_null=True)


class RecordCheckSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    game = serializers.CharField()
    seats = WholeNumberField()
    move_count = WholeNumberField(help_text="How many moves the record holds.")
    result = serializers.JSONField(allow_null=True)
    over = serializers.BooleanField()
    shuffle_verified = serializers.BooleanField(
        help_text="Whether a revealed seed was checked against its commitment and the deck."
    )
