"""The event table in the admin: to read, never to change (the database refuses anyway)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from events.models import Event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "stream", "sequence", "type", "cause_kind", "cause_id", "recorded_at")
    list_filter = ("type", "cause_kind")
    search_fields = ("stream", "idempotency_key")
    ordering = ("-id",)
    list_per_page = 100

    def get_readonly_fields(self, request: HttpRequest, obj: Event | None = None) -> list[str]:
        return [f.name for f in Event._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
