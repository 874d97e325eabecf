"""The one JSON body reader: every way a body can be malformed is a 4xx in the one error shape, never a 500.

Before ``json.loads`` sees the text, the reader checks the content type (415), decodes strict UTF-8 and
counts the nesting depth with a linear scan (Python's decoder recurses, and a body nested a few thousand
levels deep raised RecursionError: every JSON route answered 500). The decoder then refuses NaN and
±Infinity (JSON has no such numbers, and a NaN compares unequal to itself all the way down the pipeline),
numbers that overflow a float, and duplicate keys (which of the two values would count is a guess). Lone
UTF-16 surrogates written as ``\\ud800`` escapes are refused too: they decode to a str that cannot be
encoded again, so the first log line or response would fail. The body size is capped before any of this by
Flask's MAX_CONTENT_LENGTH (413, ``server.max_body_bytes``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from lambdarag.errors import InputError, LambdaRAGError

MAX_DEPTH = 32  # nesting levels a body may use; the deepest route (/v1/chat/completions content parts) needs 4
JSON_HINT = 'send a JSON object with UTF-8 text, e.g. {"question": "..."}'
# a JSON string (the closing quote optional, so an unterminated one ends the scan) or one bracket
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class UnsupportedMediaType(LambdaRAGError):
    """The body is not declared as JSON (or not as UTF-8 JSON)."""

    code = "unsupported_media_type"
    status = 415


def check_content_type(mimetype: str, charset: str | None) -> None:
    """JSON bodies only: application/json or a +json type (or no Content-Type at all), in UTF-8."""
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise UnsupportedMediaType(f"Content-Type {mimetype!r} is not JSON",
                                   "send the header 'Content-Type: application/json'")
    if charset and charset.lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(f"charset {charset!r} is not supported", "send UTF-8 JSON (charset=utf-8)")


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings do not count); stops past ``limit``."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                break
        elif token in "]}":
            depth -= 1
    return deepest


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object, or an InputError saying what is wrong with it."""
    if not raw.strip():
        raise InputError("empty request body", 'send a JSON object, e.g. {"question": "..."}')
    text = _decode(raw)
    if nesting_depth(text) > MAX_DEPTH:
        raise InputError(f"request body nests deeper than {MAX_DEPTH} levels", "send a flatter JSON object")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                          object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as exc:  # RecursionError: cannot happen after the depth check
        raise InputError(f"request body is not valid JSON ({exc})", JSON_HINT) from exc
    if not isinstance(data, dict):
        raise InputError(f"request body must be a JSON object, got {type(data).__name__}",
                         'send a JSON object, e.g. {"question": "..."}')
    _check_strings(data, "")
    return data


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")  # a leading byte-order mark is tolerated (RFC 8259 §8.1)
    except UnicodeDecodeError as exc:
        bad = raw[exc.start:exc.start + 1].hex()
        raise InputError(f"request body is not valid JSON: invalid UTF-8 at byte {exc.start} (0x{bad})",
                         JSON_HINT) from exc


def _no_constant(name: str) -> Any:
    raise InputError(f"request body is not valid JSON: {name} is not a JSON number", "send a finite number or null")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"request body is not valid JSON: the number {text[:40]} is out of range",
                         "send a finite number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"request body has the key {key[:80]!r} twice", "send each field once")
        out[key] = value
    return out


def _check_strings(value: Any, where: str) -> None:
    """Every string (keys too) must be encodable again: no lone surrogates from \\ud800-style escapes."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(f"request body has an unpaired surrogate escape in {where[:100] or 'a string'}",
                             "send valid Unicode text") from exc
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, where or "a key")
            _check_strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, where)
