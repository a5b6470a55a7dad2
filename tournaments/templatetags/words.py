"""Words the pages show for stored machine names: ``{{ player.bot_level|bot_name }}``."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext, gettext_lazy

register = template.Library()

#: The engine's bot levels (engine/bots/) as people read them; the stored value stays English.
BOT_NAMES = {
    "random": gettext_lazy("random bot"),
    "heuristic": gettext_lazy("heuristic bot"),
}


@register.filter
def bot_name(level: str) -> str:
    """``"random"`` → ``"random bot"`` in the reader's language (a level added later still
    reads as "<level> bot")."""
    known = BOT_NAMES.get(level)
    if known is not None:
        return str(known)
    return gettext("%(level)s bot") % {"level": level}
