"""Words the pages show for stored machine names: ``{{ player.bot_level|bot_name }}``."""

from __future__ import annotations

from django import template

from tournaments.models import bot_words

register = template.Library()


@register.filter
def bot_name(level: str) -> str:
    """``"random"`` → ``"random bot"`` in the reader's language (a level added later still
    reads as "<level> bot")."""
    return bot_words(level)
