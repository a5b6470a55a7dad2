"""``{% load rules %}`` gives ``{% rules_link game_id %}``: a small link to the game's rules page,
in the request's language, or nothing for a game without one (a plug-in's, a test's)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from tournaments.rules import rules_template

register = template.Library()


@register.simple_tag
def rules_link(game_id: str) -> SafeString | str:
    if rules_template(game_id) is None:
        return ""
    return format_html(
        '<a class="rules-link small" href="{}">{}</a>',
        reverse("rules-game", args=[game_id]),
        gettext("Rules"),
    )
