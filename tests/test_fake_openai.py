"""The fake OpenAI-compatible server answers the real openai client (sanity of the test double)."""

from __future__ import annotations

import openai
import pytest
from fake_openai import FakeOpenAI


def test_real_client_chat_stream_embeddings_and_failures() -> None:
    with FakeOpenAI(chat=lambda messages: "答案是三十天[1]。", dim=4) as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="x", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        assert reply.choices[0].message.content == "答案是三十天[1]。"
        stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "答案是三十天[1]。"
        emb = client.embeddings.create(model="m", input=["a", "b"])
        assert [len(d.embedding) for d in emb.data] == [4, 4]
        fake.fail_next = [500]
        with pytest.raises(openai.InternalServerError):
            client.embeddings.create(model="m", input=["a"])
        assert [m.id for m in client.models.list()] == ["fake-model"]
        assert len(fake.requests_to("/v1/embeddings")) == 2


def test_failure_modes_and_down_then_up_on_the_same_port() -> None:
    with FakeOpenAI(chat=lambda messages: "一二三四五六七八九十") as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="x", max_retries=0, timeout=5)
        user = [{"role": "user", "content": "q"}]
        chunks = list(client.chat.completions.create(model="m", messages=user, stream=True))
        assert chunks[-1].choices[0].finish_reason == "stop"
        fake.chat_mode = "cut"
        with pytest.raises(openai.APIConnectionError):
            list(client.chat.completions.create(model="m", messages=user, stream=True))
        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(model="m", messages=user)
        fake.chat_mode, fake.embed_mode = "good", "malformed"
        with pytest.raises(ValueError):  # the openai client lets a body that is not JSON through as a ValueError
            client.embeddings.create(model="m", input=["a"])
        fake.embed_mode = "good"
        root = fake.root_url
        fake.stop()
        with pytest.raises(openai.APIConnectionError):
            client.models.list()
        fake.start()
        assert fake.root_url == root and [m.id for m in client.models.list()] == ["fake-model"]
        client.close()
