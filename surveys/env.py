"""Strict reading of settings from environment variables: a bad value stops start-up."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def boolean(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of {sorted(_TRUE | _FALSE)}, got {raw!r}")


def text(name: str, default: str | None = None) -> str:
    value = os.environ.get(name)
    if value is None or value == "":
        if default is None:
            raise ImproperlyConfigured(f"{name} must be set")
        return default
    return value


def choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = text(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def integer(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ImproperlyConfigured(f"{name} must be from {minimum} to {maximum}, got {raw!r}")
    return value


def listing(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def rate(name: str, default: tuple[int, int] | None) -> tuple[int, int] | None:
    """"COUNT/SECONDS" (both positive integers) or "off" (None)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip().lower() == "off":
        return None
    count, _, seconds = raw.partition("/")
    try:
        parsed = int(count), int(seconds)
    except ValueError:
        parsed = (0, 0)
    if min(parsed) < 1:
        raise ImproperlyConfigured(f'{name} must be "COUNT/SECONDS" with positive integers, or "off"; got {raw!r}')
    return parsed
