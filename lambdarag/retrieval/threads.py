"""Per-process thread pools: made on first use, made again in a forked child (threads do not survive a fork)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor


class ProcessPool:
    """One ThreadPoolExecutor per process, shared by its threads."""

    def __init__(self, workers: int, prefix: str) -> None:
        self.workers = workers
        self.prefix = prefix
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def get(self) -> ThreadPoolExecutor:
        """This process's pool."""
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self.prefix)
                self._pid = os.getpid()
            return self._pool
