"""A process's memory of the last things it read or wrote, shared by its threads."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from threading import Lock
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """The ``most`` entries used last, by key: a look-up or a new entry makes one the
    newest, and the oldest goes when there are more.

    Only for what never changes under its key (an event, a game's logins, a table's next
    deal once dealt): nothing here tells an entry is stale.  A key that names a database
    row carries what tells it from another row of the same id (a game's time of deal: a
    database reset or restored since gives ids again).
    """

    def __init__(self, most: int) -> None:
        self.most = most
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.most:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
