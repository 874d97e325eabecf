"""Bad API input: every JSON route, fuzzed (hypothesis), answers 2xx or 4xx in the one error shape — never 5xx.

The app is the real one over Flask's test client, on a real small built domain (BM25 only), so a body that
gets past validation runs the whole request path. Wrong types, huge strings and arrays, deep nesting,
invalid UTF-8, control characters, duplicate keys, NaN/Infinity, non-object bodies and wrong content types
are drawn by the strategies below; the table test pins one example of each kind on every route, and the
nesting bomb (a body 5,000 levels deep, once a 500 RecursionError on every route) is a regression test.
Examples per test come from the hypothesis profile (tests/conftest.py; RELIABILITY.md has the long run).
"""

from __future__ import annotations

import io
import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from hypothesis import event, given
from hypothesis import strategies as st
from server_fixtures import ADMIN_TOKEN, copy_domain, shared_source

from lambdarag.config.schema import CHANNEL_NAMES
from lambdarag.server import create_app
from lambdarag.server.body import MAX_DEPTH

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
FIELDS: dict[str, tuple[str, ...]] = {
    "/api/ask": ("question", "session_id", "stream", "as_of"),
    "/api/search": ("question", "channels", "uniform_weights", "gate"),
    "/api/lookup_knowledge": ("question", "session_id"),
    "/api/feedback": ("request_id", "rating", "comment"),
    "/v1/chat/completions": ("model", "messages", "stream", "temperature"),
    "/admin/reload": ("question",),  # no token: refused before the body is read, whatever it is
}
ROUTES = tuple(FIELDS)
CONTENT_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "application/json; charset=latin-1", "application/xml", "", "application/ld+json",
                 "application/json; charset=UTF-8")
INVALID_UTF8 = (b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    domain = copy_domain(shared_source(tmp_path_factory), tmp_path_factory.mktemp("fuzz") / "knowledge")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
        app = create_app(domain)
        yield app
    app.extensions["lambdarag"].store.close()


@pytest.fixture(scope="module")
def request_id(app: Flask) -> str:
    """A request id the store knows, so feedback bodies can get as far as the ratings log."""
    rid: str = app.test_client().post("/api/ask", json={"question": "住宿费标准是多少？"}).get_json()["request_id"]
    return rid


# --- strategies ---------------------------------------------------------------------------------------------

# any text (control characters included), and some with lone surrogates and private or unassigned code points
odd = st.characters(categories=("Cc", "Co", "Cn")) | st.integers(0xD800, 0xDFFF).map(chr)  # (st.characters: no Cs)
texts = st.text(max_size=60) | st.text(st.characters() | odd, max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | texts
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(texts, kids, max_size=4),
                      max_leaves=12)
REAL_QUESTIONS = ("住宿费标准是多少？", "报账大厅电话", "budget")
# a real question with odd text around it: gets past the type checks into the request path
questions = st.builds(lambda q, a, b: a + q + b, st.sampled_from(REAL_QUESTIONS), texts, texts)
messages = st.lists(st.fixed_dictionaries(
    {"role": st.sampled_from(("user", "assistant", "system", "tool", "robot")) | values},
    optional={"content": questions | texts | st.lists(st.fixed_dictionaries({"type": st.just("text") | texts,
                                                                 "text": texts | values}), max_size=3) | values},
), max_size=5) | values


def field_values(request_id: str) -> dict[str, st.SearchStrategy[Any]]:
    """A plausible value or anything at all, per field."""
    return {
        "question": questions | texts | values,
        "session_id": st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True) | texts | values,
        "stream": st.booleans() | values,
        "as_of": st.sampled_from(("2023", "2023-05", "2023-05-06", "2023-13", "")) | texts | values,
        "channels": st.lists(st.sampled_from(CHANNEL_NAMES), max_size=6) | values,
        "uniform_weights": st.booleans() | values,
        "gate": st.booleans() | values,
        "request_id": st.just(request_id) | texts | values,
        "rating": st.sampled_from(("up", "down")) | values,
        "comment": questions | texts | values,
        "model": st.just("kb") | texts | values,
        "messages": messages,
        "temperature": values,
    }


def shaped(path: str, request_id: str) -> st.SearchStrategy[dict[str, Any]]:
    """A body with the route's fields (any subset, any values), sometimes an unknown one."""
    per_field = field_values(request_id)
    known = {name: per_field[name] for name in FIELDS[path]}
    return st.fixed_dictionaries({}, optional={**known, "extra": values})


# bodies a client could mean: the right types, any text (no control characters, which are refused up front)
plain = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=60)
plain_questions = st.builds(lambda q, a, b: a + q + b, st.sampled_from(REAL_QUESTIONS), plain, plain) | plain.filter(
    str.strip)
chat_turns = st.lists(st.tuples(plain, plain), max_size=3).map(
    lambda pairs: [m for q, a in pairs for m in ({"role": "user", "content": q}, {"role": "assistant", "content": a})])


def typed(path: str, request_id: str) -> st.SearchStrategy[dict[str, Any]]:
    """A body of the route's fields with the right types and odd text: what gets into the request path."""
    session = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True)
    optional: dict[str, dict[str, st.SearchStrategy[Any]]] = {
        "/api/ask": {"session_id": session, "stream": st.booleans(),
                     "as_of": st.sampled_from(("2023", "2023-05", "2024-02-29"))},
        "/api/search": {"channels": st.lists(st.sampled_from(CHANNEL_NAMES), min_size=1, max_size=5),
                        "uniform_weights": st.booleans(), "gate": st.booleans()},
        "/api/lookup_knowledge": {"session_id": session},
        "/api/feedback": {"comment": plain},
        "/v1/chat/completions": {"stream": st.booleans(), "temperature": st.floats(0, 2)},
        "/admin/reload": {},
    }
    required: dict[str, dict[str, st.SearchStrategy[Any]]] = {
        "/api/feedback": {"request_id": st.just(request_id), "rating": st.sampled_from(("up", "down"))},
        "/v1/chat/completions": {"model": st.just("kb"), "messages": st.builds(
            lambda turns, q: [*turns, {"role": "user", "content": q}], chat_turns, plain_questions)},
    }
    return st.fixed_dictionaries(required.get(path, {"question": plain_questions}), optional=optional[path])


def encode(data: Any, ascii_only: bool) -> bytes:
    # a lone surrogate is "\\ud800" when ASCII-escaped, else its bytes (not valid UTF-8)
    return json.dumps(data, ensure_ascii=ascii_only, allow_nan=True).encode("utf-8", "surrogatepass")


@st.composite
def mutated(draw: st.DrawFn, path: str, request_id: str) -> bytes:
    """A shaped body broken one way: invalid UTF-8, a duplicate key, deep nesting, truncation, a huge value."""
    data = draw(shaped(path, request_id))
    raw = encode(data, draw(st.booleans()))
    kind = draw(st.sampled_from(("utf8", "duplicate", "nest", "truncate", "huge_string", "huge_array")))
    if kind == "utf8":
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from(INVALID_UTF8)) + raw[at:]
    if kind == "duplicate" and data:
        key = json.dumps(draw(st.sampled_from(sorted(data))))
        return raw[:-1] + f", {key}: {json.dumps(draw(scalars), allow_nan=True)}}}".encode()
    if kind == "nest":
        depth = draw(st.sampled_from((MAX_DEPTH - 1, MAX_DEPTH, 1000, 5000)) | st.integers(MAX_DEPTH - 2, 6000))
        opener, closer = draw(st.sampled_from(((b"[", b"]"), (b'{"a":', b"}"))))
        return b'{"x": ' + opener * depth + b"1" + closer * depth + b"}"
    if kind == "truncate":
        return raw[: draw(st.integers(0, max(0, len(raw) - 1)))]
    size = draw(st.sampled_from((1000, 1001, 20_000, 70_000)))
    field = draw(st.sampled_from(FIELDS[path]))
    value: Any = "问" * size if kind == "huge_string" else ["bm25"] * size
    return encode({**data, field: value}, draw(st.booleans()))


def any_body(path: str, request_id: str) -> st.SearchStrategy[bytes]:
    non_objects = values.filter(lambda v: not isinstance(v, dict))
    return st.one_of(
        st.builds(encode, shaped(path, request_id), st.booleans()),
        mutated(path, request_id),
        mutated(path, request_id),  # twice: the breakages are what this test is for
        st.builds(encode, non_objects, st.booleans()),
        st.binary(max_size=200),
    )


content_types = st.sampled_from(("application/json",)) | st.sampled_from(CONTENT_TYPES) | st.none()


# --- the property -----------------------------------------------------------------------------------------------

def check(path: str, response: Any) -> None:
    """2xx with a JSON object or an event stream (or a routing redirect), else 4xx in the one error shape."""
    text = response.get_data(as_text=True)
    assert response.status_code < 500, text[:500]
    if response.mimetype == "text/event-stream":
        assert response.status_code == 200 and "internal_error" not in text, text[-500:]
        return
    if 300 <= response.status_code < 400:  # routing redirects (a path with "//" in it)
        assert response.headers["Location"]
        return
    body = json.loads(text)
    assert isinstance(body, dict)
    if response.status_code < 400:
        assert "error" not in body
        return
    assert set(body) == {"error"}, body
    error = body["error"]
    extra = {"type", "param"} if path.startswith("/v1/") else set()
    assert set(error) == {"code", "message"} | extra, error
    assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"]


def observed(path: str, response: Any) -> None:
    """check() inside a hypothesis test, counting the statuses (--hypothesis-show-statistics shows the spread)."""
    event(f"HTTP {response.status_code}")
    check(path, response)


def post(app: Flask, path: str, body: bytes, content_type: str | None) -> Any:
    headers = {} if content_type is None else {"Content-Type": content_type}
    return app.test_client().post(path, data=body, headers=headers)


@pytest.mark.parametrize("path", ROUTES)
@given(data=st.data())
def test_fuzzed_bodies_never_5xx(app: Flask, request_id: str, path: str, data: st.DataObject) -> None:
    body = data.draw(any_body(path, request_id), label="body")
    content_type = data.draw(content_types, label="content_type")
    observed(path, post(app, path, body, content_type))


@pytest.mark.parametrize("path", ROUTES)
@given(data=st.data())
def test_well_formed_bodies_of_any_values_never_5xx(app: Flask, request_id: str, path: str,
                                                    data: st.DataObject) -> None:
    """Valid JSON objects with the route's own fields: the values decide; the typed ones reach the request path."""
    shape = typed(path, request_id) | shaped(path, request_id)
    body = encode(data.draw(shape, label="body"), data.draw(st.booleans()))
    observed(path, post(app, path, body, "application/json"))


@given(name=texts, route=st.sampled_from(("/api/trace/{}", "/api/sessions/{}/trace", "/v1/models/{}")))
def test_fuzzed_path_ids_never_5xx(app: Flask, name: str, route: str) -> None:
    path = route.format(urllib.parse.quote(name.encode("utf-8", "surrogatepass"), safe=""))
    observed(path, app.test_client().get(path, headers=ADMIN))


# --- one example of each kind, on every route ------------------------------------------------------------------

KINDS: list[tuple[str, bytes, str | None, int, str]] = [
    ("nesting bomb (arrays)", b"[" * 5000 + b"]" * 5000, "application/json", 400, "nests deeper"),
    ("nesting bomb (objects)", b'{"a":' * 5000 + b"1" + b"}" * 5000, "application/json", 400, "nests deeper"),
    ("invalid UTF-8", b'{"question": "\xff\xfe"}', "application/json", 400, "invalid UTF-8"),
    ("UTF-8 encoded surrogate", b'{"question": "\xed\xa0\x80"}', "application/json", 400, "invalid UTF-8"),
    ("lone surrogate escape", b'{"question": "\\ud800"}', "application/json", 400, "surrogate"),
    ("NaN", b'{"question": NaN}', "application/json", 400, "NaN"),
    ("Infinity", b'{"question": -Infinity}', "application/json", 400, "Infinity"),
    ("float overflow", b'{"question": 1e999}', "application/json", 400, "out of range"),
    ("huge integer", b'{"question": ' + b"9" * 5000 + b"}", "application/json", 400, "not valid JSON"),
    ("duplicate keys", b'{"question": "a", "question": "b"}', "application/json", 400, "twice"),
    ("a list", b'["question"]', "application/json", 400, "must be a JSON object"),
    ("a string", b'"question"', "application/json", 400, "must be a JSON object"),
    ("null", b"null", "application/json", 400, "must be a JSON object"),
    ("empty", b"", "application/json", 400, "empty request body"),
    ("text/plain", b'{"question": "q"}', "text/plain", 415, "is not JSON"),
    ("a form", b"question=q", "application/x-www-form-urlencoded", 415, "is not JSON"),
    ("latin-1", b'{"question": "q"}', "application/json; charset=latin-1", 415, "charset"),
    ("over the body cap", b'{"question": "' + b"a" * 70_000 + b'"}', "application/json", 413, "max_body_bytes"),
]
QUESTION_ROUTES = ("/api/ask", "/api/search", "/api/lookup_knowledge", "/v1/chat/completions")


@pytest.mark.parametrize("path", [p for p in ROUTES if p != "/admin/reload"])
def test_each_kind_of_bad_body_is_its_4xx_on_every_route(app: Flask, path: str) -> None:
    for kind, body, content_type, status, fragment in KINDS:
        response = post(app, path, body, content_type)
        assert response.status_code == status, (kind, response.get_data(as_text=True))
        check(path, response)
        assert fragment in response.get_json()["error"]["message"], kind


@pytest.mark.parametrize("path", QUESTION_ROUTES)
def test_control_characters_in_the_question_are_a_400(app: Flask, path: str) -> None:
    question = "住宿费\x00标准"
    body = ({"model": "kb", "messages": [{"role": "user", "content": question}]} if path.startswith("/v1/")
            else {"question": question})
    response = app.test_client().post(path, json=body)
    check(path, response)
    assert response.status_code == 400 and "U+0000" in response.get_json()["error"]["message"]


def test_nesting_up_to_the_limit_still_works(app: Flask) -> None:
    """/v1/chat/completions ignores fields it does not know: a body nested MAX_DEPTH deep is answered."""
    def nested(levels: int) -> Any:
        value: Any = 1
        for _ in range(levels):
            value = [value]
        return value

    base = {"model": "kb", "messages": [{"role": "user", "content": "住宿费标准是多少？"}]}
    client = app.test_client()
    deepest = client.post("/v1/chat/completions", json={**base, "x": nested(MAX_DEPTH - 1)})  # + the body object
    assert deepest.status_code == 200
    too_deep = client.post("/v1/chat/completions", json={**base, "x": nested(MAX_DEPTH)})
    assert too_deep.status_code == 400 and "nests deeper" in too_deep.get_json()["error"]["message"]


def test_no_content_type_and_a_byte_order_mark_are_still_json(app: Flask) -> None:
    client = app.test_client()
    assert client.post("/api/search", data=b'{"question": "q"}').status_code == 200
    bom = "\ufeff".encode() + json.dumps({"question": "住宿费"}).encode()
    assert client.post("/api/search", data=bom, content_type="application/json").status_code == 200


def test_a_chunked_body_over_the_cap_is_a_413(app: Flask) -> None:
    """No Content-Length (chunked transfer): the cap still holds while the body is read."""
    big = b'{"question": "' + b"a" * 70_000 + b'"}'
    environ = {"wsgi.input_terminated": True}
    response = app.test_client().post("/api/ask", input_stream=io.BytesIO(big),
                                      content_type="application/json", environ_overrides=environ)
    check("/api/ask", response)
    assert response.status_code == 413
