"""A small fake OpenAI-compatible HTTP server: the one test double, standing in for vLLM and bge-m3.

The real `openai` client (and our own HTTP code) talk to it over loopback HTTP. Behaviour is
programmable per test: a function answering chat messages, a function embedding texts, status
codes to fail the next requests with, and a delay to provoke time-outs. Every request is recorded.

It also serves the two rerank shapes at its root: POST /v1/rerank (vLLM / Jina / Cohere: query, documents,
top_n → results of index and relevance_score) and POST /rerank (TEI: query, texts → a list of index and score),
scored by a function of (query, document), with ``rerank_mode`` to fail them: good, slow (``rerank_delay_s``
before a good reply), 500, malformed (not JSON) or wrong_count (one result fewer).

    with FakeOpenAI(chat=lambda messages: "答案[1]") as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="x")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ChatFn = Callable[[list[dict[str, Any]]], str]
EmbedFn = Callable[[str], list[float]]
ScoreFn = Callable[[str, str], float]
RERANK_MODES = ("good", "slow", "500", "malformed", "wrong_count")


def char_overlap(query: str, document: str) -> float:
    """Share of the query's distinct characters found in the document (the default rerank score)."""
    wanted = set(query)
    return len(wanted & set(document)) / len(wanted) if wanted else 0.0


def hash_embedding(text: str, dim: int = 8) -> list[float]:
    """Deterministic unit vector from a text's hash (same text, same vector)."""
    raw = hashlib.sha256(text.encode("utf-8")).digest()
    values = [(raw[i % len(raw)] - 127.5) / 127.5 for i in range(dim)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    time: float = field(default_factory=time.monotonic)


class FakeOpenAI:
    """Serve /v1/models, /v1/chat/completions (stream and not), /v1/embeddings, /v1/rerank and /rerank on 127.0.0.1."""

    def __init__(
        self,
        chat: ChatFn | None = None,
        embed: EmbedFn | None = None,
        dim: int = 8,
        model: str = "fake-model",
        rerank: ScoreFn | None = None,
    ) -> None:
        self.chat: ChatFn = chat or (lambda messages: "好的。")
        self.dim = dim
        self.embed: EmbedFn = embed or (lambda text: hash_embedding(text, self.dim))
        self.model = model
        self.rerank: ScoreFn = rerank or char_overlap
        self.rerank_mode = "good"  # one of RERANK_MODES
        self.rerank_delay_s = 1.0  # how long "slow" sleeps before its (good) reply
        self.fail_next: list[int] = []  # status codes for the next requests, consumed in order
        self.delay_s = 0.0  # sleep before answering (time-out tests)
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def root_url(self) -> str:
        """The server's root (TEI serves /rerank there; vLLM /v1/rerank)."""
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    def _take_failure(self) -> int | None:
        with self._lock:
            return self.fail_next.pop(0) if self.fail_next else None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def handle(self) -> None:
                # the client gave up (time-out tests): nothing left to answer
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    super().handle()

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/v1/models"):
                    self._json(200, {"object": "list", "data": [{"id": fake.model, "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?")[0].rstrip("/")
                with fake._lock:
                    fake.requests.append(Recorded(path, body))
                if fake.delay_s:
                    time.sleep(fake.delay_s)
                status = fake._take_failure()
                if status is not None:
                    self._json(status, {"error": {"message": f"injected failure {status}", "type": "server_error"}})
                elif path.endswith("/embeddings"):
                    self._embeddings(body)
                elif path.endswith("/chat/completions"):
                    self._chat(body)
                elif path in ("/v1/rerank", "/rerank"):
                    self._rerank(body, tei=path == "/rerank")
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def _embeddings(self, body: dict[str, Any]) -> None:
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": fake.embed(t)} for i, t in enumerate(texts)]
                usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
                self._json(200, {"object": "list", "data": data, "model": fake.model, "usage": usage})

            def _rerank(self, body: dict[str, Any], tei: bool) -> None:
                mode = fake.rerank_mode
                if mode == "slow":
                    time.sleep(fake.rerank_delay_s)
                if mode == "500":
                    self._json(500, {"error": {"message": "injected rerank failure", "type": "server_error"}})
                    return
                if mode == "malformed":
                    self._raw(200, b'{"results": [{"index": 0, "relevance_')
                    return
                texts = body["texts"] if tei else body["documents"]
                scored = sorted(((i, fake.rerank(body["query"], t)) for i, t in enumerate(texts)),
                                key=lambda p: -p[1])
                if not tei:
                    scored = scored[: body.get("top_n") or len(scored)]
                if mode == "wrong_count":
                    scored = scored[:-1]
                if tei:
                    self._json(200, [{"index": i, "score": s} for i, s in scored])
                    return
                results = [{"index": i, "document": {"text": texts[i]}, "relevance_score": s} for i, s in scored]
                self._json(200, {"id": "rerank-fake", "model": body.get("model", fake.model), "results": results,
                                 "usage": {"total_tokens": len(texts)}})

            def _chat(self, body: dict[str, Any]) -> None:
                content = fake.chat(body["messages"])
                if body.get("stream"):
                    self._stream(content)
                    return
                self._json(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", fake.model),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

            def _stream(self, content: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                pieces = [content[i : i + 4] for i in range(0, len(content), 4)] or [""]
                for piece in pieces:
                    chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": fake.model,
                             "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _json(self, status: int, payload: dict[str, Any] | list[Any]) -> None:
                self._raw(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

            def _raw(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
