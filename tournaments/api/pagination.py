"""Every list is paginated alike: ``?limit=&offset=``, ``{count, next, previous, results}``."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500
