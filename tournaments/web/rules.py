"""The rules pages: the index of the games and each game's rules, in the request's language."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from tournaments.rules import rules_pages, rules_template


def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "rules/index.html", {"games": rules_pages()})


def rules_game(request: HttpRequest, kind: str) -> HttpResponse:
    template = rules_template(kind)
    if template is None:
        raise Http404
    pages = rules_pages()
    page = next(p for p in pages if p.id == kind)
    return render(
        request,
        template,
        {
            "game_id": page.id,
            "game_name": page.name,
            "min_seats": page.min_seats,
            "max_seats": page.max_seats,
            "others": [p for p in pages if p.id != kind],
        },
    )
