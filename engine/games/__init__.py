"""One module per game; importing this package registers them all."""

from engine.games import (
    bhabhi,  # noqa: F401
    give_and_take,  # noqa: F401
    give_away,  # noqa: F401
    old_maid,  # noqa: F401
)
