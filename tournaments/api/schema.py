"""The OpenAPI schema's common parts: every operation documents its problem responses."""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema

from tournaments.api.problems import PROBLEM_CONTENT_TYPE


class ProblemAutoSchema(AutoSchema):
    """drf-spectacular's schema, plus a ``default`` problem response on every operation.

    Any status an operation does not list (400, 401, 403, 404, 405, 409, 413,
    415, 422, 429, 500) is a problem document (``application/problem+json``).
    """

    def _get_response_bodies(
        self, direction: Literal["request", "response"] = "response"
    ) -> dict[str, Any]:
        from tournaments.api.serializers import ProblemSerializer

        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if "default" not in responses:
            # drf-spectacular leaves this method unannotated.
            problem = self._get_response_for_code(  # type: ignore[no-untyped-call]
                ProblemSerializer, "default", (PROBLEM_CONTENT_TYPE,), direction
            )
            problem["description"] = "A problem document (RFC 9457): see /api/v1/problems."
            responses["default"] = problem
        return responses
