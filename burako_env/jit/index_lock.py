"""A lock around numba's cache index, and a damaged entry compiled again, not run.

numba writes each cache file under a temporary name and renames it into place, so no file
is half written, but a function's index (which entry file holds which signature) is read,
extended and written back without a lock: two processes saving at once lose one's entry.
:func:`_lock_cache_index` serialises that with an ``flock`` on :data:`CACHE_LOCK_NAME` in
the cache folder (shared while loading), where the platform has ``fcntl``, and an entry
that cannot be read (a damaged file) is compiled again, not run.

Applied on import (by :mod:`burako_env.jit`, before anything compiles).
"""

from __future__ import annotations

import contextlib
import os
import warnings

#: the lock file in each cache folder
CACHE_LOCK_NAME = "burako-cache.lock"


def _lock_cache_index() -> bool:
    """Wrap numba's cache-entry save (exclusive) and load (shared) in a folder lock."""
    try:
        import fcntl
    except ImportError:  # Windows: numba's renames alone
        return False
    from numba.core.caching import IndexDataCacheFile

    if getattr(IndexDataCacheFile.save, "burako_locked", False):
        return True

    @contextlib.contextmanager
    def locked(cache_path: str, mode: int):
        os.makedirs(cache_path, exist_ok=True)
        with open(os.path.join(cache_path, CACHE_LOCK_NAME), "a+b") as handle:
            fcntl.flock(handle, mode)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    save, load = IndexDataCacheFile.save, IndexDataCacheFile.load

    def locked_save(self, key, data):
        with locked(self._cache_path, fcntl.LOCK_EX):
            return save(self, key, data)

    def locked_load(self, key):
        try:
            with locked(self._cache_path, fcntl.LOCK_SH):
                return _readable(self, key)
        except OSError:  # a read-only cache folder: load as numba would, unlocked
            return _readable(self, key)

    def _readable(self, key):
        # numba catches only OSError here: a damaged entry (truncated by a full disk or
        # a crash of the machine) would raise on every start; compiled again, it is
        # saved over the damaged file
        try:
            return load(self, key)
        except OSError:
            raise
        except Exception as exc:
            warnings.warn(
                f"numba cache entry in {self._cache_path} could not be read ({exc!r}): "
                "compiling it again",
                RuntimeWarning,
                stacklevel=2,
            )
            return None

    locked_save.burako_locked = True
    IndexDataCacheFile.save, IndexDataCacheFile.load = locked_save, locked_load
    return True


#: whether cache entries are saved and loaded under the folder lock (the platform has fcntl)
CACHE_INDEX_LOCKED = _lock_cache_index()

__all__ = ["CACHE_INDEX_LOCKED", "CACHE_LOCK_NAME"]
