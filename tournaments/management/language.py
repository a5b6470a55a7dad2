"""The language of the management commands' messages to organisers (docs/i18n.md)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils import translation


class LanguageCommand(BaseCommand):
    """A command that speaks ``LANGUAGE_CODE``, or the language its ``--language`` names.

    Not the shell's ``LANG``: a server's is often ``C`` or English whatever its organisers
    read, and the pages' fallback is ``LANGUAGE_CODE`` too.
    """

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument(
            "--language",
            choices=[code for code, _name in settings.LANGUAGES],
            default=None,
            help="the language of the messages (default: LANGUAGE_CODE)",
        )
        return parser

    def execute(self, *args: Any, **options: Any) -> str | None:
        with translation.override(options.get("language") or settings.LANGUAGE_CODE):
            return super().execute(*args, **options)
