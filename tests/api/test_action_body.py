"""A move's body (``POST /games/{id}/actions``, the push channel's ``act``): the quick
reading of a well-formed body (``plain_action``) takes only what the serializer takes, as
it takes it; anything else is left to the serializer, which words the refusal."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.api.serializers.games import ActionSerializer, plain_action

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


@settings(max_examples=600, derandomize=True)
@given(bodies)
def test_a_body_read_quickly_is_what_the_serializer_makes_of_it(body: Any) -> None:
    plain = plain_action(body)
    if plain is not None:
        checked = ActionSerializer(data=body)
        assert checked.is_valid(), checked.errors
        assert plain == dict(checked.validated_data)


def test_a_plain_move_is_read_quickly_and_a_refused_one_by_the_fields() -> None:
    move = {"action": {"type": "draw", "index": 2}, "expected_sequence": 7}
    assert plain_action(move) == move
    assert plain_action(move | {"seat": 1}) == move | {"seat": 1}
    for body in (
        {"action": {"type": "draw"}, "expected_sequence": "7"},
        {"action": {"type": 3}, "expected_sequence": 7},
        {"action": {"type": "draw"}, "expected_sequence": True},
        {"action": {"type": "draw"}, "expected_sequence": 7, "seat": None},
        {"action": {"type": "draw"}},
    ):
        assert plain_action(body) is None
        assert not ActionSerializer(data=body).is_valid()
