"""A deterministic embedder behind the OpenAI-compatible endpoint, so a 100k-chunk build does not take hours.

    python bench/scale_embedder.py --dim 384 --port-file PATH      # serves until killed; writes its port to PATH

The server is tests/fake_openai.py's (the project's one OpenAI-compatible double); the vectors are feature-hashed
character unigrams and bigrams of the text (each gram adds ±1 to one of ``dim`` coordinates chosen by its CRC-32),
normalised: texts sharing words get near vectors, so the vector channel ranks by something, and the same text
always gets the same vector. It runs in a process of its own, so its CPU time is the "model's own time" of a build.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402

MODEL = "scale-hash"


def hashed_vector(text: str, dim: int) -> list[float]:
    """Feature-hashed character unigrams and bigrams, L2-normalised (an empty text gets the first axis)."""
    values = [0.0] * dim
    grams = list(text) + [text[i : i + 2] for i in range(len(text) - 1)]
    for gram in grams:
        code = zlib.crc32(gram.encode("utf-8"))
        values[code % dim] += 1.0 if code >> 31 else -1.0
    norm = math.sqrt(sum(v * v for v in values))
    if not norm:
        values[0], norm = 1.0, 1.0
    return [round(v / norm, 6) for v in values]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--port-file", type=Path, required=True)
    args = parser.parse_args()
    fake = FakeOpenAI(embed=lambda text: hashed_vector(text, args.dim), dim=args.dim, model=MODEL)
    fake.start()
    args.port_file.write_text(fake.base_url, encoding="utf-8")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        time.sleep(0.2)
        fake.requests.clear()  # the double records every request; a build sends 100k texts
    fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
