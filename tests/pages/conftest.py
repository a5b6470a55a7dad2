"""Fixtures for the page tests: the club of Ann and six bots (tests/factories.py), built with
the use cases of tournaments.services (the bots play synchronously, no worker)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.factories import PageWorld, page_world, person_game
from tournaments.models import Game


@pytest.fixture
def world(db: Any) -> PageWorld:
    return page_world()


@pytest.fixture
def make_person_game(world: PageWorld) -> Callable[..., Game]:
    return lambda game, **kw: person_game(world, game, **kw)
