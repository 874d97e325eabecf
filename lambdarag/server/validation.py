"""Request parsing: the JSON body and its typed fields, each failure a 400 that names the field."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import Any

from flask import request

from lambdarag.errors import InputError
from lambdarag.scope import Filters, parse_filters
from lambdarag.server.body import check_content_type, parse_json_object
from lambdarag.text.dates import parse_as_of

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # Unicode category Cc but \t \n \r


class FieldError(InputError):
    """A body field is missing, of the wrong type or out of range."""

    def __init__(self, name: str, message: str, hint: str = "") -> None:
        super().__init__(f"field {name!r}: {message}", hint)
        self.param = name


def json_body(allowed: Iterable[str] | None = None) -> dict[str, Any]:
    """The request body as a JSON object (see server/body.py); with ``allowed``, unknown keys are refused."""
    check_content_type(request.mimetype, request.mimetype_params.get("charset"))
    data = parse_json_object(request.get_data(cache=True))  # over MAX_CONTENT_LENGTH: 413 before reading it all
    if allowed is not None:
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise FieldError(unknown[0], "unknown field", f"allowed fields: {', '.join(sorted(allowed))}")
    return data


def get_str(data: dict[str, Any], name: str, *, required: bool = False, max_chars: int | None = None,
            allow_empty: bool = False) -> str | None:
    """A string field (stripped); missing → None unless required."""
    value = data.get(name)
    if value is None:
        if required:
            raise FieldError(name, "is required")
        return None
    if not isinstance(value, str):
        raise FieldError(name, f"must be a string, got {type(value).__name__}")
    check_text(name, value)
    value = value.strip()
    if not value and not allow_empty:
        raise FieldError(name, "must not be empty")
    if max_chars is not None and len(value) > max_chars:
        raise FieldError(name, f"is {len(value)} characters long, the limit is {max_chars}", "shorten it")
    return value


def check_text(name: str, value: str) -> None:
    """Text fields hold no control characters but tab and line breaks (NUL and escape codes reach logs and SQLite)."""
    bad = _CONTROL.search(value)
    if bad:
        raise FieldError(name, f"contains the control character U+{ord(bad.group()):04X} at {bad.start()}",
                         "send plain text (tabs and line breaks are fine)")


def get_as_of(data: dict[str, Any], name: str = "as_of") -> date | None:
    """An optional "as of" date ("2023", "2023-05", "2023-05-06"): the question is asked as of that day."""
    value = get_str(data, name, max_chars=32)
    if value is None:
        return None
    try:
        return parse_as_of(value)
    except InputError as exc:
        raise FieldError(name, f"is not a date: {value!r}", "write it as YYYY, YYYY-MM or YYYY-MM-DD") from exc


def get_question(data: dict[str, Any], max_chars: int, name: str = "question") -> str:
    """The question: a non-empty string within the configured length."""
    value = get_str(data, name, required=True, max_chars=max_chars)
    assert value is not None
    return value


def get_bool(data: dict[str, Any], name: str, default: bool = False) -> bool:
    value = data.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise FieldError(name, f"must be true or false, got {type(value).__name__}")
    return value


def get_choice(data: dict[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = data.get(name)
    if not isinstance(value, str) or value not in choices:
        raise FieldError(name, f"must be one of {', '.join(choices)}, got {value!r}")
    return value


def get_str_list(data: dict[str, Any], name: str, choices: tuple[str, ...]) -> tuple[str, ...] | None:
    """A list of names from ``choices``; missing → None."""
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(name, "must be a list of strings")
    bad = [v for v in value if v not in choices]
    if bad or not value:
        raise FieldError(name, f"unknown or empty: {bad}", f"choose from {', '.join(choices)}")
    return tuple(value)


def get_top_k(data: dict[str, Any], max_top_k: int, label: str = "top_k") -> int | None:
    """How many fused chunks to keep: an integer 1..server.max_top_k; missing → None (retrieval.final_top_k).
    ``label`` names the field in an error (the key read is always ``top_k``)."""
    value = data.get("top_k")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(label, f"must be an integer, got {type(value).__name__}")
    if not 1 <= value <= max_top_k:
        raise FieldError(label, f"must be between 1 and {max_top_k} (server.max_top_k), got {value}")
    return value


def get_filters(data: dict[str, Any], name: str = "filters") -> Filters | None:
    """The ``filters`` object (lambdarag/scope.py); missing or {} → None. A bad one is a FilterError (400)."""
    filters = parse_filters(data.get(name))
    return None if filters.empty else filters
