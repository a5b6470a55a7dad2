"""The append-only event store: one stream per game, gap-free sequences."""
