"""One module per game: each registers itself on import (:mod:`engine.registry` imports
every module of this package the first time it is asked for a game)."""
