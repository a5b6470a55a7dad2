"""Serializers of tokens and the caller (``/me``), clubs and their players."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.api.serializers.common import (
    BOT_HELP,
    BodySerializer,
    StrictBooleanField,
    StrictCharField,
    WholeNumberField,
)
from tournaments.models import ApiToken, Club, LoginLinkChange, Player

# -- tokens and the caller -------------------------------------------------------------------------


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class TokenCreateSerializer(BodySerializer):
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
    bot = serializers.SerializerMethodField(help_text=BOT_HELP)
    online = serializers.SerializerMethodField(help_text="Whether a login plays as this player.")

    class Meta:
        model = Player
        fields = ["id", "club", "name", "bot", "online", "created_at"]
        read_only_fields = fields

    def get_bot(self, player: Player) -> str | None:
        return player.bot_level or None

    def get_online(self, player: Player) -> bool:
        return player.user_id is not None


def _optional_text(length: int, help_text: str) -> serializers.CharField:
    """A text field of a body that may be left out or null (then ``None``)."""
    return serializers.CharField(
        max_length=length, required=False, allow_null=True, default=None, help_text=help_text
    )


class PlayerCreateSerializer(BodySerializer):
    club = WholeNumberField(min_value=1)
    name = serializers.CharField(max_length=80)
    bot = _optional_text(32, "The bot's level for a bot; omit it (or null) for a person.")
    username = _optional_text(150, "The login that plays as this player (optional).")


def _new_password(help_text: str) -> serializers.CharField:
    """A new login's password, optional, taken as typed (no trimming), never answered."""
    return serializers.CharField(
        max_length=128,
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        write_only=True,
        help_text=help_text,
    )


class ClubCreateSerializer(BodySerializer):
    name = serializers.CharField(max_length=120)
    organiser = serializers.CharField(
        max_length=150,
        help_text="The user name of its first organiser: an existing login, or a new one"
        " made with `password`.",
    )
    password = _new_password("The new login's password (not used for an existing login).")


class LoginPlayerCreateSerializer(BodySerializer):
    name = serializers.CharField(max_length=80, help_text="The player's name in the club.")
    username = serializers.CharField(max_length=150, help_text="The new login's user name.")
    password = _new_password("Empty or left out: one is made up and answered once, to hand out.")


class LoginPlayerSerializer(PlayerSerializer):
    """A player just created with a new login, and the login to hand out."""

    username = serializers.CharField(read_only=True, help_text="The new login's user name.")
    password = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="The made-up password, answered this once (null: the one you sent).",
    )

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "username", "password"]
        read_only_fields = fields


class OrganiserSerializer(BodySerializer):
    id = serializers.IntegerField(read_only=True, help_text="The login's id.")
    username = serializers.CharField(max_length=150)


class SignUpLinkSerializer(serializers.Serializer[Any]):
    on = serializers.BooleanField(read_only=True)
    url = serializers.CharField(
        read_only=True, allow_null=True, help_text="The link to send round (null while off)."
    )


class PlayerLoginSerializer(BodySerializer):
    username = serializers.CharField(
        max_length=150,
        allow_null=True,
        help_text="The login that plays as this player from now on (null: none).",
    )


class LoginLinkChangeSerializer(serializers.ModelSerializer[LoginLinkChange]):
    name = serializers.CharField(source="player.name", read_only=True)
    old_username = serializers.SerializerMethodField(help_text="null: the player had no login.")
    new_username = serializers.SerializerMethodField(help_text="null: the player has no login.")
    changed_by_username = serializers.SerializerMethodField(help_text="null: the system.")

    class Meta:
        model = LoginLinkChange
        fields = [
            "id",
            "club",
            "player",
            "name",
            "old_username",
            "new_username",
            "changed_by_username",
            "at",
        ]
        read_only_fields = fields

    def get_old_username(self, change: LoginLinkChange) -> str | None:
        return change.old_username or None

    def get_new_username(self, change: LoginLinkChange) -> str | None:
        return change.new_username or None

    def get_changed_by_username(self, change: LoginLinkChange) -> str | None:
        return change.changed_by_username or None


class ClientSeedSerializer(BodySerializer):
    seed = StrictCharField(
        max_length=64,
        allow_blank=True,
        allow_null=True,
        trim_whitespace=False,
        help_text="Printable ASCII, at most 64 characters (null: none; PUT null or '' clears).",
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)
    standalone_deals = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        help_text="Your games outside tournaments committed and not dealt yet, each"
        " {id, game, commitment}: save the commitment, then set a new seed.",
    )


class MeSerializer(serializers.Serializer[Any]):
    id = WholeNumberField()
    username = serializers.CharField()
    players = PlayerSerializer(many=True)
    organiser_of = serializers.ListField(child=WholeNumberField())
    superuser = serializers.BooleanField()
    play_forced_moves = serializers.BooleanField(
        help_text="Whether the server plays your forced moves for you (moves that cannot change"
        " the game: every Give Away move, a seat with one legal action). Change it with PATCH."
    )


class PreferencesSerializer(BodySerializer):
    play_forced_moves = StrictBooleanField()
