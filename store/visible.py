"""Who may see which documents of the index: each article's collection as an array (CollectionMap) and the
Visibility of one reader made from it (Readable), for search/query.py's answers."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Optional

import numpy as np

from search.query import Visibility


class CollectionMap:
    """Each article's collection, by article id, as an array read from SQL (the index does not hold it),
    with the masks of visible documents made from it; shared by a server's threads.

    The array grows as new articles appear in the index; an access change (access_state.version: a
    collection filled or emptied) reads it afresh. An article it does not know yet is invisible until read."""

    MASKS = 64

    def __init__(self, engine_of) -> None:
        self._engine_of = engine_of  # the engine to read from now (the request's server)
        self._of = np.full(0, -1, dtype=np.int32)
        self._version: Optional[int] = None
        self._masks: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _read(self, where: str = "", params: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
        with self._engine_of().connect() as connection:
            marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
            rows = connection.exec_driver_sql(
                "SELECT id, collection_id FROM articles" + where.replace("?", marker), params
            ).fetchall()
        if not rows:
            return np.empty(0, np.int64), np.empty(0, np.int32)
        pairs = np.asarray(rows, dtype=np.int64)
        return pairs[:, 0], pairs[:, 1].astype(np.int32)

    def _store(self, ids: np.ndarray, collections: np.ndarray) -> None:
        if ids.size and int(ids.max()) >= self._of.size:
            grown = np.full(int(ids.max()) + 1024, -1, dtype=np.int32)
            grown[: self._of.size] = self._of
            self._of = grown
        self._of[ids] = collections

    def mask(self, view, readable: frozenset[int], version: int) -> np.ndarray:
        """True for the documents of `view` whose article is in a `readable` collection."""
        key = (tuple(view.segment_keys), readable, version)
        with self._lock:
            found = self._masks.get(key)
            if found is not None:
                self._masks.move_to_end(key)
                return found
            if version != self._version:
                self._of = np.full(0, -1, dtype=np.int32)
                self._store(*self._read())
                self._version = version
                self._masks.clear()
            nums = view.article_num
            known = nums[(nums > 0) & (nums < self._of.size)]
            missing = np.union1d(nums[nums >= self._of.size], known[self._of[known] < 0])
            missing = missing[missing > 0]
            if missing.size:  # stored since the array was read (or committed out of id order)
                low = int(missing.min())
                self._store(*self._read(" WHERE id >= ?", (low,)))
            collection = np.full(nums.size, -1, dtype=np.int32)
            inside = (nums > 0) & (nums < self._of.size)
            collection[inside] = self._of[nums[inside]]
            table = np.zeros(max(readable, default=0) + 1, dtype=bool)
            table[list(readable)] = True
            mask = np.zeros(nums.size, dtype=bool)
            known = (collection >= 0) & (collection < table.size)
            mask[known] = table[collection[known]]
            mask.flags.writeable = False
            self._masks[key] = mask
            while len(self._masks) > self.MASKS:
                self._masks.popitem(last=False)
            return mask


class Readable(Visibility):
    """The documents of the collections one principal may read (search/query.py's Visibility)."""

    def __init__(self, collections: CollectionMap, readable: frozenset[int], version: int) -> None:
        self.collections = collections
        self.readable = readable
        self.version = version
        self.key = (readable, version)

    def mask(self, view) -> np.ndarray:
        return self.collections.mask(view, self.readable, self.version)
