"""Progress on stderr: a tqdm bar on a terminal (or when asked), else nothing or a status line now and then.

Every long step (extract, the channel builds, the wiki compile, an evaluation run) reports through
here; ``progress`` is the caller's tri-state: True always draws a bar, False shows nothing, None
draws one only when stderr is a terminal. tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def wants_bar(progress: bool | None) -> bool:
    """Whether to draw a bar: asked for, or (None) stderr is a terminal."""
    return sys.stderr.isatty() if progress is None else progress


def iterate(items: Iterable[T], progress: bool | None, desc: str, unit: str) -> Iterable[T]:
    """``items`` with a tqdm bar on stderr when wanted, else ``items`` as they are."""
    if not wants_bar(progress):
        return items
    from tqdm import tqdm

    bar: Iterable[T] = tqdm(items, desc=desc, unit=unit, file=sys.stderr)
    return bar


def duration(seconds: float) -> str:
    """A time left as a person reads it: 45s, 3m05s, 1h20m."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def stderr_line(text: str) -> None:
    """Print one line on stderr at once (a log file sees it while the step runs)."""
    print(text, file=sys.stderr, flush=True)


class Progress:
    """A counter of ``total`` items: a tqdm bar when wanted, else ``line(self)`` every so often.

    Without a bar a line is printed every ``every`` updates, when ``interval_s`` passed since the
    last one, and (``at_end``) when the count reaches ``total``; without ``line`` nothing is printed.
    ``options`` go to tqdm as they are (smoothing, dynamic_ncols).
    """

    def __init__(self, total: int, progress: bool | None, desc: str, unit: str, *,
                 line: Callable[[Progress], str] | None = None, every: int = 0,
                 interval_s: float = float("inf"), at_end: bool = False, **options: Any) -> None:
        self.total, self.done, self.updates, self.desc = total, 0, 0, desc
        self.start = self.last_line = time.monotonic()
        self.quiet = progress is False
        self.line, self.every, self.interval_s, self.at_end = line, every, interval_s, at_end
        self.bar: Any = None
        if total and not self.quiet and wants_bar(progress):
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, **options)

    @property
    def rate(self) -> float:
        """Items per second so far."""
        return self.done / max(time.monotonic() - self.start, 1e-9)

    def update(self, n: int = 1, postfix: str | None = None) -> None:
        """Count ``n`` more items done; ``postfix`` (the item's name) shows beside the bar."""
        self.done += n
        self.updates += 1
        if self.bar is not None:
            if postfix is not None:
                self.bar.set_postfix_str(postfix, refresh=False)
            self.bar.update(n)
        elif self.line is not None and not self.quiet and self._line_due():
            stderr_line(self.line(self))
            self.last_line = time.monotonic()

    def _line_due(self) -> bool:
        return ((self.every > 0 and self.updates % self.every == 0) or (self.at_end and self.done == self.total)
                or time.monotonic() - self.last_line >= self.interval_s)

    def say(self, text: str) -> None:
        """A message line on stderr (above the bar when there is one), unless progress is off."""
        if not self.quiet:
            (self.bar.write if self.bar is not None else stderr_line)(text)

    def close(self) -> None:
        """Close the bar, if one was drawn."""
        if self.bar is not None:
            self.bar.close()
