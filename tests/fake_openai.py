"""A small fake OpenAI-compatible HTTP server: the one test double, standing in for vLLM and bge-m3.

The real `openai` client (and our own HTTP code) talk to it over loopback HTTP. Behaviour is
programmable per test: a function answering chat messages, a function embedding texts, status
codes to fail the next requests with, and a delay to provoke time-outs. Every request is recorded.

It also serves the two rerank shapes at its root: POST /v1/rerank (vLLM / Jina / Cohere: query, documents,
top_n → results of index and relevance_score) and POST /rerank (TEI: query, texts → a list of index and score),
scored by a function of (query, document), with ``rerank_mode`` to fail them: good, slow (``rerank_delay_s``
before a good reply), 500, malformed (not JSON) or wrong_count (one result fewer).

The chat and embeddings routes fail the same ways through ``chat_mode`` and ``embed_mode``: slow (``slow_s``
before a good reply), 500 (every request), malformed (a 200 whose JSON body, or a stream's first event, is cut
short), and for chat cut (the connection dropped midway: a stream after ``cut_after`` pieces, a reply after half
its body). Streams are sent chunked, as vLLM sends them, and end with a ``finish_reason`` chunk, then [DONE].
``stop()`` takes the server down as a dead process would (the port refuses, open connections are closed) and
``start()`` brings it back on the same port.

    with FakeOpenAI(chat=lambda messages: "答案[1]") as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="x")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import socket
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
CHAT_MODES = ("good", "slow", "500", "malformed", "cut")
EMBED_MODES = ("good", "slow", "500", "malformed")


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


BAG_DIM = 64


def char_bag(text: str) -> list[float]:
    """Deterministic stand-in for a real embedding model: characters hashed into BAG_DIM buckets (texts sharing
    characters get close vectors, so a search by meaning can be checked)."""
    values = [0.0] * BAG_DIM
    for ch in text:
        if ch.isalnum():
            values[int(hashlib.md5(ch.encode("utf-8")).hexdigest(), 16) % BAG_DIM] += 1.0
    return values


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
        self.chat_mode = "good"  # one of CHAT_MODES
        self.embed_mode = "good"  # one of EMBED_MODES
        self.slow_s = 1.0  # how long the "slow" chat and embed modes sleep before a good reply
        self.cut_after = 2  # stream pieces sent before a "cut" drops the connection
        self.fail_next: list[int] = []  # status codes for the next requests, consumed in order
        self.delay_s = 0.0  # sleep before answering (time-out tests)
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._port = 0
        self._server = self._bind()
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def root_url(self) -> str:
        """The server's root (TEI serves /rerank there; vLLM /v1/rerank)."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def running(self) -> bool:
        return self._thread is not None

    def _bind(self) -> _Server:
        server = _Server(("127.0.0.1", self._port), self._handler_class())
        self._port = int(server.server_address[1])
        return server

    def start(self) -> FakeOpenAI:
        """Serve (again, on the same port after stop())."""
        if self._thread is None:
            if self._server.closed:
                self._server = self._bind()
            self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Go down as a dead process would: the port refuses connections and every open connection is closed."""
        if self._thread is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server.drop_connections()
        self._thread.join(5)
        self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

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
                # the client gave up (time-out tests), or stop() closed the connection: nothing left to answer
                with contextlib.suppress(OSError, ValueError):
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
                    self._faulty(fake.embed_mode, lambda: self._embeddings(body))
                elif path.endswith("/chat/completions"):
                    self._faulty(fake.chat_mode, lambda: self._chat(body), stream=bool(body.get("stream")))
                elif path in ("/v1/rerank", "/rerank"):
                    self._rerank(body, tei=path == "/rerank")
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def _faulty(self, mode: str, good: Callable[[], None], stream: bool = False) -> None:
                """Answer in ``mode``: good (``good()``), slow, 500, malformed or cut."""
                if mode == "slow":
                    time.sleep(fake.slow_s)
                if mode == "500":
                    self._json(500, {"error": {"message": "injected failure (mode 500)", "type": "server_error"}})
                elif mode == "malformed" and stream:
                    self._stream_head()
                    self._chunk(b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chu\n\n')
                    self._chunk(b"")
                elif mode == "malformed":
                    self._raw(200, b'{"id": "fake", "object": "list", "data": [{"index": 0, "embedd')
                elif mode == "cut" and not stream:
                    self._cut_reply()
                else:
                    good()

            def _cut_reply(self) -> None:
                data = json.dumps({"id": "chatcmpl-fake", "object": "chat.completion", "choices": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self._drop()

            def _drop(self) -> None:
                """Close the connection at once, mid-message (the server died)."""
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True

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
                self._stream_head()
                pieces = [content[i : i + 4] for i in range(0, len(content), 4)] or [""]
                for n, piece in enumerate(pieces):
                    if fake.chat_mode == "cut" and n == fake.cut_after:
                        self._drop()
                        return
                    self._event({"content": piece}, None)
                self._event({}, "stop")
                self._chunk(b"data: [DONE]\n\n")
                self._chunk(b"")  # the last chunk: the body is complete

            def _stream_head(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def _event(self, delta: dict[str, str], finish: str | None) -> None:
                chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                         "model": fake.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self._chunk(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            def _json(self, status: int, payload: dict[str, Any] | list[Any]) -> None:
                self._raw(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

            def _raw(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


class _Server(ThreadingHTTPServer):
    """A threading HTTP server that knows its open connections, so stop() can close them as a dying process would."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self.connections: set[socket.socket] = set()
        self.closed = False
        self._guard = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._guard:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._guard:
            self.connections.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self.closed = True

    def drop_connections(self) -> None:
        with self._guard:
            open_ones, self.connections = list(self.connections), set()
        for conn in open_ones:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
