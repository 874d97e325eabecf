"""LLMClient against the fake OpenAI-compatible server: text, stream, JSON with repair, failures, ping."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI

from lambdarag.config.load import load_config
from lambdarag.errors import ServiceError
from lambdarag.models.health import Breaker
from lambdarag.models.llm import REPAIR_PROMPT, LLMClient, llm_from_config, parse_json

USER = [{"role": "user", "content": "问题"}]

_OPEN: list[LLMClient] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Close every client a test made: open sockets would warn later (and warnings are errors)."""
    yield
    while _OPEN:
        _OPEN.pop().close()


def client(fake: FakeOpenAI, **kw: Any) -> LLMClient:
    _OPEN.append(LLMClient(fake.base_url, "fake-model", timeout_s=kw.pop("timeout_s", 5.0),
                           max_retries=kw.pop("max_retries", 0), cooldown_s=kw.pop("cooldown_s", 0.3), **kw))
    return _OPEN[-1]


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_chat_sends_model_limits_and_returns_text() -> None:
    with FakeOpenAI(chat=lambda m: "差旅费是出差发生的费用[1]。") as fake:
        llm = client(fake, max_tokens=123, temperature=0.3)
        assert llm.chat(USER) == "差旅费是出差发生的费用[1]。"
        assert llm.chat(USER, max_tokens=7, temperature=0.0) == "差旅费是出差发生的费用[1]。"
        first, second = (r.body for r in fake.requests_to("/v1/chat/completions"))
    assert (first["model"], first["max_tokens"], first["temperature"]) == ("fake-model", 123, 0.3)
    assert (second["max_tokens"], second["temperature"]) == (7, 0.0)
    assert first["messages"] == USER


def test_stream_yields_deltas_in_order() -> None:
    with FakeOpenAI(chat=lambda m: "报销需要发票和审批单[2]。") as fake:
        pieces = list(client(fake).stream(USER))
    assert len(pieces) > 1
    assert "".join(pieces) == "报销需要发票和审批单[2]。"


def intent_of(data: Any) -> str:
    if not isinstance(data, dict) or data.get("intent") not in {"fact", "person"}:
        raise ValueError(f"bad intent {data!r}")
    return str(data["intent"])


@pytest.mark.parametrize("reply", [
    '{"intent": "person"}',
    '```json\n{"intent": "person"}\n```',
    '好的，分类结果如下：{"intent": "person"} 以上。',
    '{"intent": "person", "note": "嵌套 {括号}"}',
])
def test_chat_json_parses_first_object(reply: str) -> None:
    with FakeOpenAI(chat=lambda m: reply) as fake:
        assert client(fake).chat_json(USER, intent_of) == "person"
        assert len(fake.requests_to("/v1/chat/completions")) == 1


def test_chat_json_repairs_once_then_succeeds() -> None:
    replies = iter(["我认为是人员类。", '{"intent": "fact"}'])
    with FakeOpenAI(chat=lambda m: next(replies)) as fake:
        assert client(fake).chat_json(USER, intent_of) == "fact"
        repair = fake.requests_to("/v1/chat/completions")[1].body["messages"]
    assert repair[-1] == {"role": "user", "content": REPAIR_PROMPT}
    assert repair[-2] == {"role": "assistant", "content": "我认为是人员类。"}


def test_chat_json_validation_failure_twice_raises_service_error() -> None:
    with FakeOpenAI(chat=lambda m: '{"intent": "weather"}') as fake:
        with pytest.raises(ServiceError, match="unusable JSON twice"):
            client(fake).chat_json(USER, intent_of)
        assert len(fake.requests_to("/v1/chat/completions")) == 2


def test_malformed_json_twice_raises_service_error() -> None:
    with FakeOpenAI(chat=lambda m: '{"intent": "fact"') as fake, pytest.raises(ServiceError):
        client(fake).chat_json(USER, intent_of)


def test_parse_json_rejects_text_without_object() -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        parse_json("没有JSON")
    assert parse_json('```\n{"a": [1, 2]}\n```') == {"a": [1, 2]}


def test_timeout_raises_service_error() -> None:
    with FakeOpenAI() as fake:
        fake.delay_s = 1.0
        with pytest.raises(ServiceError, match="timed out"):
            client(fake, timeout_s=0.2).chat(USER)


def test_http_error_raises_service_error_and_retries_recover() -> None:
    with FakeOpenAI(chat=lambda m: "好") as fake:
        fake.fail_next = [500]
        with pytest.raises(ServiceError, match="HTTP 500"):
            client(fake).chat(USER)
        fake.fail_next = [503]
        assert client(fake, max_retries=1).chat(USER) == "好"


def test_stream_failure_raises_service_error() -> None:
    with FakeOpenAI() as fake:
        fake.fail_next = [500]
        with pytest.raises(ServiceError, match="streaming"):
            list(client(fake).stream(USER))


def test_connection_refused_and_ping() -> None:
    down = LLMClient(closed_port_url(), "m", timeout_s=1.0, max_retries=0)
    _OPEN.append(down)
    with pytest.raises(ServiceError, match="connection failed"):
        down.chat(USER)
    assert "connection failed" in (down.ping() or "")
    with FakeOpenAI() as fake:
        assert client(fake).ping() is None


def test_llm_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert llm_from_config(load_config()) is None
    instance = tmp_path / "instance.yml"
    instance.write_text(
        "llm:\n  enabled: true\n  base_url: http://127.0.0.1:9/v1\n  model: qwen\n  api_key_env: TEST_LLM_KEY\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test")
    llm = llm_from_config(load_config(instance))
    assert llm is not None
    _OPEN.append(llm)
    assert (llm.model, llm.base_url, llm._client.api_key) == ("qwen", "http://127.0.0.1:9/v1", "sk-test")
    monkeypatch.delenv("TEST_LLM_KEY")
    with llm_from_config(load_config(instance)) as unset:  # type: ignore[union-attr]
        assert unset._client.api_key == "EMPTY"


def test_stream_closed_early_releases_the_response() -> None:
    with FakeOpenAI(chat=lambda m: "一二三四五六七八九十" * 5) as fake:
        stream = client(fake).stream(USER)
        assert next(stream) == "一二三四"
        stream.close()  # the caller stops reading: no unclosed-response warning (warnings are errors)
        assert client(fake).chat(USER).startswith("一二三四")


@pytest.mark.parametrize(("mode", "fragment"), [("malformed", "malformed reply"), ("cut", "peer closed")])
def test_a_reply_that_is_not_json_or_cut_short_is_a_service_error(mode: str, fragment: str) -> None:
    with FakeOpenAI(chat=lambda m: "一二三四五六七八九十") as fake:
        fake.chat_mode = mode
        for call in (lambda llm: llm.chat(USER), lambda llm: list(llm.stream(USER))):
            llm = client(fake)
            with pytest.raises(ServiceError, match=fragment):
                call(llm)
            last = llm.outcome.report()["last"]
            assert last["status"] == ("malformed" if mode == "malformed" else "error") and fragment in last["reason"]


def test_after_an_endpoint_failure_calls_skip_it_until_the_cooldown_then_one_tries_again() -> None:
    with FakeOpenAI(chat=lambda m: "好") as fake:
        llm = client(fake, cooldown_s=0.5)
        fake.chat_mode = "500"
        with pytest.raises(ServiceError, match="HTTP 500"):
            llm.chat(USER)
        fake.chat_mode = "good"
        calls = len(fake.requests_to("/v1/chat/completions"))
        with pytest.raises(ServiceError, match=r"skipped: the endpoint at .* failed 0\.\d s ago \(LLM chat request"):
            llm.chat(USER)
        with pytest.raises(ServiceError, match="skipped"):
            list(llm.stream(USER))
        assert len(fake.requests_to("/v1/chat/completions")) == calls  # refused without a request
        assert llm.breaker.state()["state"] == "open" and llm.outcome.report()["state"] == "degraded"
        time.sleep(0.55)
        assert llm.chat(USER) == "好"  # the endpoint is back: the first call after the cooldown closes the breaker
        assert llm.breaker.state() == {"state": "closed"} and llm.outcome.report()["state"] == "ok"


def test_a_bad_request_does_not_open_the_breaker() -> None:
    with FakeOpenAI(chat=lambda m: "好") as fake:
        llm = client(fake)
        fake.fail_next = [400]
        with pytest.raises(ServiceError, match="HTTP 400"):
            llm.chat(USER)
        assert llm.breaker.state() == {"state": "closed"} and llm.chat(USER) == "好"


def test_while_one_call_tries_the_endpoint_again_the_others_are_refused() -> None:
    breaker = Breaker(cooldown_s=0.0)
    breaker.failed("timed out")
    assert breaker.admit() == (None, True)  # this call tries again
    refused, trying = breaker.admit()
    assert refused and "another call is trying it again" in refused and not trying
    breaker.release(True)  # its caller gave up: the next one may try
    assert breaker.admit() == (None, True)
    breaker.succeeded()
    assert breaker.admit() == (None, False) and breaker.state() == {"state": "closed"}
