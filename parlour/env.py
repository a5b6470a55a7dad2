"""Strict readers of environment variables: a bad value fails loudly at start-up."""

from __future__ import annotations

import os

TRUE_WORDS = ("1", "true", "on")
FALSE_WORDS = ("0", "false", "off")


class ConfigError(Exception):
    """A setting whose value cannot be used; the message says what is accepted."""


def env_str(name: str, default: str | None = None) -> str:
    """The variable's text, or ``default``; :class:`ConfigError` if neither is there."""
    value = os.environ.get(name)
    if value is None or value == "":
        if default is None:
            raise ConfigError(f"{name} must be set")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    """``true/false``, ``1/0`` or ``on/off`` (any case); anything else is an error."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(
        f"{name}={value!r} is not a boolean: use one of {', '.join(TRUE_WORDS + FALSE_WORDS)}"
    )


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    """A whole number (at least ``minimum``); anything else is an error."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a whole number") from None
    if minimum is not None and number < minimum:
        raise ConfigError(f"{name}={number} is below its minimum {minimum}")
    return number


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    """A number (at least ``minimum``); anything else is an error."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        number = float(value.strip())
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number") from None
    if minimum is not None and number < minimum:
        raise ConfigError(f"{name}={number} is below its minimum {minimum}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list, blanks dropped."""
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]
