"""A move's body (``POST /games/{id}/actions``, the push channel's ``act``): the quick
reading of a well-formed body agrees with DRF's fields on every body, accepted or not."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from tournaments.api.serializers.games import ActionSerializer, _plain_action

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
numbers = (
    st.integers(min_value=-3, max_value=3)
    | st.integers()
    | st.sampled_from([2**63 - 1, 2**63, -(2**63), True, False, 1.0, "7", None])
)
actions = st.dictionaries(st.text(max_size=6), json_values, max_size=3) | st.fixed_dictionaries(
    {"type": st.text(max_size=6) | json_values}, optional={"index": numbers}
)
#: Bodies near a well-formed move: where the quick reading and the fields could part.
near = st.fixed_dictionaries(
    {
        "action": st.fixed_dictionaries(
            {"type": st.text(max_size=6)}, optional={"index": numbers, "card": json_values}
        ),
        "expected_sequence": numbers,
    },
    optional={"seat": numbers, "other": json_values},
)
bodies = (
    near
    | st.fixed_dictionaries(
        {},
        optional={
            "action": actions | json_values,
            "expected_sequence": numbers | json_values,
            "seat": numbers,
            "other": json_values,
        },
    )
    | json_values
)


class FieldsOnly(ActionSerializer):
    """:class:`ActionSerializer` as DRF's fields alone validate."""

    def to_internal_value(self, data: Any) -> Any:
        return serializers.Serializer.to_internal_value(self, data)


@settings(max_examples=600, derandomize=True)
@given(bodies)
def test_a_body_read_quickly_is_what_the_fields_make_of_it(body: Any) -> None:
    quick, fields = ActionSerializer(data=body), FieldsOnly(data=body)
    assert quick.is_valid() == fields.is_valid()
    if fields.errors:
        assert quick.errors == fields.errors
    else:
        assert dict(quick.validated_data) == dict(fields.validated_data)
    plain = _plain_action(body)
    if plain is not None:
        assert plain == dict(fields.validated_data)


def test_a_plain_move_is_read_quickly_and_a_refused_one_by_the_fields() -> None:
    move = {"action": {"type": "draw", "index": 2}, "expected_sequence": 7}
    assert _plain_action(move) == move
    assert _plain_action(move | {"seat": 1}) == move | {"seat": 1}
    for body in (
        {"action": {"type": "draw"}, "expected_sequence": "7"},
        {"action": {"type": 3}, "expected_sequence": 7},
        {"action": {"type": "draw"}, "expected_sequence": True},
        {"action": {"type": "draw"}, "expected_sequence": 7, "seat": None},
        {"action": {"type": "draw"}},
    ):
        assert _plain_action(body) is None
        assert not ActionSerializer(data=body).is_valid()
