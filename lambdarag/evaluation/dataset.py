"""Evaluation questions and corpora: questions.jsonl / corpus.jsonl read into typed records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from lambdarag.errors import InputError
from lambdarag.evaluation.metrics import answer_alternatives
from lambdarag.records import Turn
from lambdarag.text.dates import parse_as_of


@dataclass(frozen=True)
class EvalQuestion:
    """One labelled question: gold documents, gold answers, optional session history and "today"."""

    qid: str
    question: str
    gold_doc_ids: tuple[str, ...]
    answers: tuple[str, ...] = ()
    type: str = ""
    history: tuple[Turn, ...] = ()
    as_of: date | None = None
    answer_sets: tuple[tuple[str, ...], ...] = ()
    gold_src_doc_ids: tuple[str, ...] = ()
    gold_pages: tuple[int, ...] = ()  # 1-based evidence pages within the gold documents
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def alternatives(self) -> list[list[str]]:
        """Gold answer alternatives, each a list of required parts."""
        return answer_alternatives(self.answers, self.answer_sets)


def history_turns(raw: Any) -> tuple[Turn, ...]:
    """[{question, answers|answer}] → Turns answered with the first gold answer."""
    turns = []
    for item in raw or ():
        if not isinstance(item, dict) or not str(item.get("question", "")).strip():
            raise InputError(f"history item {item!r} has no question", 'use [{"question": ..., "answers": [...]}]')
        answers = item.get("answers")
        answer = answers[0] if isinstance(answers, list) and answers else item.get("answer", "")
        turns.append(Turn(question=str(item["question"]), answer=str(answer or "")))
    return tuple(turns)


def gold_pages(raw: Any) -> tuple[int, ...]:
    """A question's "gold_pages" (a list of page numbers from 1), () when absent."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in raw):
        raise InputError(f"gold_pages {raw!r} is not a list of page numbers", "use 1-based integers, e.g. [12, 13]")
    return tuple(dict.fromkeys(raw))


def question_from_dict(data: dict[str, Any], where: str) -> EvalQuestion:
    """Validate one questions.jsonl object; errors name the file and line."""
    if not isinstance(data, dict) or not str(data.get("question", "")).strip():
        raise InputError(f"{where}: no question", 'each line needs {"qid", "question", "gold_doc_ids", "answers"}')
    gold = data.get("gold_doc_ids") or []
    answers = data.get("answers") or []
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(gold, list) or not isinstance(answers, list):
        raise InputError(f"{where}: gold_doc_ids and answers must be lists", "fix the line")
    known = {"qid", "question", "gold_doc_ids", "answers", "type", "history", "as_of", "answer_sets",
             "gold_src_doc_ids", "gold_pages"}
    try:
        return EvalQuestion(
            qid=str(data.get("qid") or where),
            question=str(data["question"]).strip(),
            gold_doc_ids=tuple(str(g) for g in gold),
            answers=tuple(str(a) for a in answers),
            type=str(data.get("type") or ""),
            history=history_turns(data.get("history")),
            as_of=parse_as_of(data.get("as_of")),
            answer_sets=tuple(tuple(str(p) for p in alt) for alt in data.get("answer_sets") or ()),
            gold_src_doc_ids=tuple(str(g) for g in data.get("gold_src_doc_ids") or ()),
            gold_pages=gold_pages(data.get("gold_pages")),
            extra={k: v for k, v in data.items() if k not in known},
        )
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}", exc.hint) from exc


def _json_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, object) for every non-blank line; a bad line is an InputError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError) as exc:
        raise InputError(f"{path} not found", "pass an existing JSONL file") from exc
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: invalid JSON ({exc.msg})", "one JSON object per line") from exc
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected a JSON object", "one JSON object per line")
        yield where, data


def load_questions(path: Path, limit: int | None = None, types: tuple[str, ...] = ()) -> list[EvalQuestion]:
    """Questions of a questions.jsonl file (optionally only some types, at most ``limit``)."""
    out: list[EvalQuestion] = []
    for where, data in _json_lines(path):
        question = question_from_dict(data, where)
        if types and question.type not in types:
            continue
        out.append(question)
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise InputError(f"{path} holds no questions", 'one {"qid", "question", "gold_doc_ids", ...} a line')
    return out


def load_corpus(path: Path) -> list[dict[str, Any]]:
    """corpus.jsonl objects ({"doc_id", "title", "text", ...extra}); lines without doc_id or text are refused."""
    docs = []
    for where, data in _json_lines(path):
        if not str(data.get("doc_id", "")).strip() or not isinstance(data.get("text"), str):
            raise InputError(f"{where}: needs doc_id and text", 'one {"doc_id", "title", "text"} a line')
        docs.append(data)
    if not docs:
        raise InputError(f"{path} holds no documents", 'one {"doc_id", "title", "text"} a line')
    return docs


def src_doc_map(corpus: list[dict[str, Any]]) -> dict[str, str]:
    """doc_id → src_doc_id for corpora whose passages come from larger source documents."""
    return {str(d["doc_id"]): str(d["src_doc_id"]) for d in corpus if d.get("src_doc_id") not in (None, "")}
