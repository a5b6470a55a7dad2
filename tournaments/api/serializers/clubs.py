"""Serializers of tokens and the caller (``/me``), clubs and their players."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.models import ApiToken, Club, LoginLinkChange, Player

# -- tokens and the caller -------------------------------------------------------------------------


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class TokenCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(
        max_length=80, required=False, allow_blank=True, default="", help_text="A label."
    )


class TokenCreatedSerializer(TokenSerializer):
    key = serializers.CharField(
        read_only=True, help_text="The key: shown this once, keep it secret."
    )

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "key"]
        read_only_fields = fields


# -- clubs and players -----------------------------------------------------------------------------


class ClubSerializer(serializers.ModelSerializer[Club]):
    class Meta:
        model = Club
        fields = ["id", "name", "slug", "created_at"]
        read_only_fields = fields


class PlayerSerializer(serializers.ModelSerializer[Player]):
    is_bot = serializers.BooleanField(read_only=True)
    online = serializers.SerializerMethodField(help_text="Whether a login plays as this player.")

    class Meta:
        model = Player
        fields = ["id", "club", "name", "is_bot", "bot_level", "online", "created_at"]
        read_only_fields = fields

    def get_online(self, player: Player) -> bool:
        return player.user_id is not None


class PlayerCreateSerializer(serializers.Serializer[Any]):
    club = serializers.IntegerField(min_value=1)
    name = serializers.CharField(max_length=80)
    bot_level = serializers.CharField(
        max_length=32, required=False, allow_blank=True, default="", help_text="'' for a person."
    )
    username = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        default=None,
        help_text="The login that plays as this player (optional).",
    )


class PlayerLoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(
        max_length=150,
        allow_null=True,
        help_text="The login that plays as this player from now on (null: none).",
    )


class LoginLinkChangeSerializer(serializers.ModelSerializer[LoginLinkChange]):
    player_name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = LoginLinkChange
        fields = [
            "id",
            "club",
            "player",
            "player_name",
            "old_username",
            "new_username",
            "changed_by_username",
            "at",
        ]
        read_only_fields = fields


class ClientSeedSerializer(serializers.Serializer[Any]):
    seed = serializers.CharField(
        max_length=64,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Printable ASCII, at most 64 characters ('' : none).",
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)
    standalone_deals = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        help_text="Your games outside tournaments committed and not dealt yet, each"
        " {id, game, commitment}: save the commitment, then set a new seed.",
    )


class MeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    players = PlayerSerializer(many=True)
    organiser_of = serializers.ListField(child=serializers.IntegerField())
    superuser = serializers.BooleanField()
    play_forced_moves = serializers.BooleanField(
        help_text="Whether the server plays your forced moves for you (moves that cannot change"
        " the game: every Give Away move, a seat with one legal action). Change it with PATCH."
    )


class PreferencesSerializer(serializers.Serializer[Any]):
    play_forced_moves = serializers.BooleanField()
