"""Parlour's URLs."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog

from tournaments.api.problems import api_not_found
from tournaments.api.views import RootView

urlpatterns = [
    path("admin/", admin.site.urls),
    # The REST API (docs/api.md): the OpenAPI schema at /api/v1/schema, its docs page
    # at /api/v1/docs; any other URL under /api/ is a 404 problem document.
    path("api/v1/", include("tournaments.api.urls")),
    path("api/v1", RootView.as_view(schema=None)),
    re_path(r"^api(?:/.*)?$", api_not_found),
    # The JavaScript's translations (docs/i18n.md); the switcher's POST is in
    # tournaments/urls.py (Django's set_language, and kept on the login).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("tournaments.urls")),
]

# Errors under /api/ are problem documents (RFC 9457); elsewhere Django's pages.
handler400 = "tournaments.api.problems.handler400"
handler403 = "tournaments.api.problems.handler403"
handler404 = "tournaments.api.problems.handler404"
handler500 = "tournaments.api.problems.handler500"
