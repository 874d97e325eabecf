"""The loaded KnowledgeBase behind one reference, swapped atomically on reload.

A request takes the current KnowledgeBase once and keeps it to the end, so a reload never changes
the index under an in-flight request. Workers learn about a reload done elsewhere through a
generation counter file in the domain's folder: the worker that reloads bumps it, the others see
a new number on their next request and reload lazily (one thread loads, the rest keep serving the
old index meanwhile). A reload whose index would leave a channel that answers now unable to answer
(its index missing, damaged or stale) is refused and the old index keeps serving; at start-up, with
nothing served yet, a degraded index is loaded and /readyz names the channels left out. Each channel
that does not load is logged on one line with the command that rebuilds it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from lambdarag.build.generation import GENERATION_FILE, bump_generation, read_generation
from lambdarag.config.domain import Domain
from lambdarag.errors import IndexMismatchError, LambdaRAGError, rebuild_hint
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.text.people import person_names

log = logging.getLogger(__name__)
RETRY_LOAD_AFTER_S = 5.0  # a domain whose index failed to load is retried at most this often

Loader = Callable[[Domain], KnowledgeBase]


WARM_UP_QUERY = "预热 warm-up"


def default_loader(domain: Domain) -> KnowledgeBase:
    """KnowledgeBase.load, then one warm-up search, before the index is handed to requests."""
    kb = KnowledgeBase.load(domain)
    warm_up(kb)
    return kb


def warm_up(kb: KnowledgeBase) -> None:
    """One retrieval-only query, so lazily built parts (the query embedder, caches) are ready before real traffic.

    Without it the first request of every worker (and after every reload) pays for loading the embedding model
    and can overrun the vector channel's time budget; the tagger a "who" answer reads is loaded here too.
    """
    started = time.perf_counter()
    try:
        search(kb, WARM_UP_QUERY, options=PipelineOptions(use_llm=False, log=False))
        person_names(WARM_UP_QUERY)  # the part-of-speech tagger "who" answers read (its dictionary: ~0.3 s)
    except Exception as exc:  # a warm-up failure must not keep a worker from serving; requests will report it
        log.warning("warm-up query failed: %s: %s", type(exc).__name__, exc)
    log.info("index warmed up in %.2f s", time.perf_counter() - started)


class KnowledgeHolder:
    """Holds the current KnowledgeBase of a domain; reload swaps the reference."""

    def __init__(self, domain: Domain, loader: Loader = default_loader) -> None:
        self.domain = domain
        self.loader = loader
        self.generation_file = domain.root / GENERATION_FILE
        self._kb: KnowledgeBase | None = None
        self._generation = read_generation(self.generation_file)
        self._error: str | None = None
        self._last_attempt = 0.0
        self._loaded_at = 0.0
        self._reloads = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        """Load the index at start-up; a failure is kept for /readyz and retried later."""
        self._try_load(self._generation)

    def get(self) -> KnowledgeBase:
        """The KnowledgeBase to answer with (reloading first when another worker bumped the counter)."""
        generation = read_generation(self.generation_file)
        if self._kb is None:
            self._load_blocking(generation)
        elif generation != self._generation and self._lock.acquire(blocking=False):
            try:
                if generation != self._generation:
                    self._try_load(generation)
            finally:
                self._lock.release()
        if self._kb is None:
            raise IndexMismatchError(
                f"the index of domain {self.domain.name!r} is not loaded ({self._error})",
                f"build it ({rebuild_hint('build', self.domain.name)}), then POST /admin/reload",
            )
        return self._kb

    def _load_blocking(self, generation: int) -> None:
        with self._lock:
            due = time.monotonic() - self._last_attempt >= RETRY_LOAD_AFTER_S
            if self._kb is None and due:
                self._try_load(generation)

    def _try_load(self, generation: int) -> bool:
        self._last_attempt = time.monotonic()
        try:
            kb = self.loader(self.domain)
        except LambdaRAGError as exc:
            self._error = str(exc)
        except (OSError, ValueError, ImportError) as exc:
            self._error = f"{type(exc).__name__}: {exc}"
        else:
            for name, error in sorted(kb.channel_errors.items()):
                log.warning("index of %s: channel %s not loaded: %s", self.domain.name, name, error)
            self._error = self._worse(kb)
            if not self._error:
                self._kb, self._generation = kb, generation
                self._loaded_at = time.time()
                self._reloads += 1
                return True
        # keep serving the previous index; the counter still moves so we do not retry every request
        self._generation = generation
        log.warning("loading the index of %s failed: %s", self.domain.name, self._error)
        return False

    def _worse(self, kb: KnowledgeBase) -> str | None:
        """Why ``kb`` must not replace the one served (a channel that answers now would stop), else None."""
        if self._kb is None:
            return None  # nothing served yet: a degraded index is better than none (/readyz says which part)
        lost = sorted(name for name in kb.channel_errors if name in self._kb.channels)
        if not lost:
            return None
        return "; ".join(f"channel {name} would stop answering: {kb.channel_errors[name]}" for name in lost)

    def reload(self) -> int:
        """Load the index now in this worker, then bump the counter so the other workers follow."""
        with self._lock:
            ok = self._try_load(self._generation)
            if not ok:
                raise IndexMismatchError(
                    f"reloading the index of domain {self.domain.name!r} failed: {self._error}",
                    "the previous index is still served; fix the build and reload again",
                )
            self._generation = bump_generation(self.generation_file)
            return self._generation

    def status(self) -> dict[str, Any]:
        """What /readyz reports about the loaded index."""
        return {"loaded": self._kb is not None, "generation": self._generation, "error": self._error,
                "loaded_at": self._loaded_at or None, "loads": self._reloads}
