"""Parlour's REST API for external clients, under ``/api/v1/`` (docs/api.md)."""
