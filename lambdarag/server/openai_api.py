"""OpenAI-compatible routes: POST /v1/chat/completions (stream and not) and GET /v1/models.

``model`` names the domain; ``messages`` carry the conversation (the last user message is the
question, earlier user/assistant pairs the history — the client holds the session, nothing is
stored but the trace). Citations stay as [n] in the text and come back as a top-level
``references`` list (in the final chunk when streaming). Other OpenAI parameters (temperature,
max_tokens, …) are accepted and ignored: the domain's config decides them.

LambdaRAG's own knobs come in one extra body field, ``lambdarag`` (the OpenAI client's
``extra_body={"lambdarag": {...}}``): ``top_k`` (1..server.max_top_k) and ``filters`` (lambdarag/scope.py),
as /api/search takes them; any other key in it is refused.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, jsonify

from lambdarag.errors import LambdaRAGError, NotFoundError
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.result import Result
from lambdarag.pipeline.run import answer, answer_stream
from lambdarag.records import Turn
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.server.common import sse_response
from lambdarag.server.render import answer_trace, render_citation
from lambdarag.server.state import ServerState, state
from lambdarag.server.validation import FieldError, check_text, get_bool, get_filters, get_top_k, json_body

log = logging.getLogger(__name__)
bp = Blueprint("openai", __name__)
ROLES = ("system", "developer", "user", "assistant", "tool")
EXTRA_FIELD = "lambdarag"  # the extra body field of LambdaRAG's own knobs
EXTRA_KEYS = ("top_k", "filters")


class ModelNotFound(NotFoundError):
    """The requested model is not the domain this server serves."""

    code = "model_not_found"
    param = "model"


def message_text(message: object, index: int) -> tuple[str, str]:
    """(role, text) of one message; content may be a string or a list of text parts."""
    name = f"messages[{index}]"
    if not isinstance(message, dict):
        raise FieldError(name, "must be an object with role and content")
    role, content = message.get("role"), message.get("content")
    if role not in ROLES:
        raise FieldError(f"{name}.role", f"must be one of {', '.join(ROLES)}, got {role!r}")
    if content is None:
        return role, ""
    if isinstance(content, str):
        return role, content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        return role, "".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    raise FieldError(f"{name}.content", "must be a string or a list of text parts")


def split_messages(messages: object, max_chars: int, max_turns: int) -> tuple[str, tuple[Turn, ...]]:
    """The question (last user message) and the history (earlier user→assistant pairs, most recent kept)."""
    if not isinstance(messages, list) or not messages:
        raise FieldError("messages", "must be a non-empty list")
    pairs = [message_text(m, i) for i, m in enumerate(messages)]
    role, question = pairs[-1]
    question = question.strip()
    if role != "user" or not question:
        raise FieldError("messages", "the last message must be a non-empty user message")
    check_text("messages", question)
    if len(question) > max_chars:
        raise FieldError("messages", f"the question is {len(question)} characters long, the limit is {max_chars}")
    turns: list[Turn] = []
    pending: str | None = None
    for role, text in pairs[:-1]:
        if role == "user":
            pending = text
        elif role == "assistant" and pending is not None:
            turns.append(Turn(question=pending, answer=text))
            pending = None
    return question, tuple(turns[-max_turns:] if max_turns else ())


def extra_options(data: dict[str, Any], max_top_k: int) -> PipelineOptions:
    """The options of the ``lambdarag`` extra body field (top_k, filters); none given: the defaults."""
    extra = data.get(EXTRA_FIELD)
    if extra is None:
        return PipelineOptions()
    if not isinstance(extra, dict):
        raise FieldError(EXTRA_FIELD, f"must be an object with {' and/or '.join(EXTRA_KEYS)}")
    unknown = sorted(set(extra) - set(EXTRA_KEYS))
    if unknown:
        raise FieldError(f"{EXTRA_FIELD}.{unknown[0]}", "unknown field", f"allowed: {', '.join(EXTRA_KEYS)}")
    return PipelineOptions(top_k=get_top_k(extra, max_top_k, f"{EXTRA_FIELD}.top_k"), filters=get_filters(extra))


def check_model(st: ServerState, model: object) -> str:
    if not isinstance(model, str) or not model:
        raise FieldError("model", "is required: the domain name (see GET /v1/models)")
    if model != st.domain.name:
        raise ModelNotFound(f"model {model!r} does not exist", f"this server serves {st.domain.name!r}")
    return model


@bp.get("/v1/models")
def models() -> Response:
    return jsonify({"object": "list", "data": [model_card(state())]})


@bp.get("/v1/models/<name>")
def model_detail(name: str) -> Response:
    st = state()
    check_model(st, name)
    return jsonify(model_card(st))


def model_card(st: ServerState) -> dict[str, Any]:
    created = int(st.domain.root.stat().st_ctime)
    return {"id": st.domain.name, "object": "model", "created": created, "owned_by": "lambdarag"}


@bp.post("/v1/chat/completions")
def chat_completions() -> Response:
    st = state()
    data = json_body()
    model = check_model(st, data.get("model"))
    server = st.config.server
    question, history = split_messages(data.get("messages"), server.max_question_chars, server.max_history_turns)
    stream = get_bool(data, "stream")
    options = extra_options(data, server.max_top_k)
    kb = st.holder.get()
    if stream:
        return sse_response(_stream(st, kb, model, question, history, options))
    result = answer(kb, question, history=history, options=options)
    _store_trace(st, result)
    response = jsonify(completion(result, model))
    response.headers["X-Request-Id"] = result.request_id
    return response


def _store_trace(st: ServerState, result: Result) -> None:
    st.store.save_trace(result.request_id, None, "openai", result.question, answer_trace(result))


def completion(result: Result, model: str) -> dict[str, Any]:
    """A chat.completion object with the cited answer and a top-level references list."""
    return {
        "id": f"chatcmpl-{result.request_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": result.answer},
                     "finish_reason": "stop"}],
        "usage": usage(result.question, result.answer),
        "references": [render_citation(c) for c in result.citations],
        "request_id": result.request_id,
        "found": result.found,
        "intent": result.intent,
    }


def usage(question: str, answer: str) -> dict[str, int]:
    """Character counts in the token fields (the pipeline does not see the LLM's tokenizer)."""
    return {"prompt_tokens": len(question), "completion_tokens": len(answer),
            "total_tokens": len(question) + len(answer)}


def chunk(rid: str, model: str, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk."""
    return {"id": f"chatcmpl-{rid}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def final_chunk(st: ServerState, result: Result, model: str) -> dict[str, Any]:
    """The last chat.completion.chunk, with the references (the result's trace is stored on the way)."""
    _store_trace(st, result)
    refs = [render_citation(c) for c in result.citations]
    return chunk(result.request_id, model, {}, "stop", references=refs, request_id=result.request_id,
                 found=result.found, intent=result.intent)


def _data(payload: dict[str, Any] | str) -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str)
    return f"data: {text}\n\n"


def _stream(st: ServerState, kb: KnowledgeBase, model: str, question: str, history: tuple[Turn, ...],
            options: PipelineOptions) -> Iterator[str]:
    request_id = "pending"
    try:
        for _, payload in answer_stream(kb, question, history=history, options=options):
            if isinstance(payload, dict):  # meta
                request_id = str(payload.get("request_id", request_id))
                yield _data(chunk(request_id, model, {"role": "assistant", "content": ""}))
            elif isinstance(payload, str):  # delta
                if payload:
                    yield _data(chunk(request_id, model, {"content": payload}))
            else:
                yield _data(final_chunk(st, payload, model))
    except LambdaRAGError as exc:
        yield _data({"error": {"code": exc.code, "message": str(exc), "type": "server_error", "param": None}})
    except Exception:
        log.exception("streaming chat completion failed")
        yield _data({"error": {"code": "internal_error", "message": "internal server error; see the server log",
                               "type": "server_error", "param": None}})
    yield _data("[DONE]")
