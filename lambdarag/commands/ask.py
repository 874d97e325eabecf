"""`lambdarag ask`: answer one question from a domain on the command line."""

from __future__ import annotations

import argparse
import json
from datetime import date
from typing import Any

from lambdarag.answer.needs import is_english
from lambdarag.commands.domains import add_domain_args
from lambdarag.errors import InputError
from lambdarag.pipeline.result import Result


def register(sub: Any) -> None:
    p = sub.add_parser("ask", help="answer a question from a domain's knowledge base")
    add_domain_args(p)
    p.add_argument("question", help="the question, e.g. \"差旅费报销需要什么材料？\"")
    p.add_argument("--json", action="store_true", help="print the full result (with trace) as JSON")
    p.add_argument("--today", default=None, help="treat this date (YYYY-MM-DD) as today for 近三年/今年 …")
    p.add_argument("--no-llm", action="store_true", help="use the embedded default even when an LLM is configured")
    p.add_argument("--no-log", action="store_true", help="do not append to the feedback logs")
    p.set_defaults(handler=cmd_ask)


def parse_today(value: str | None) -> date | None:
    """--today as a date; a malformed value is an InputError naming the expected form."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InputError(f"--today {value!r} is not a date", "write it as YYYY-MM-DD, e.g. 2025-06-30") from exc


def cmd_ask(args: argparse.Namespace) -> int:
    # imported here: the retrieval stack loads jieba and numpy, which other subcommands do not need
    from lambdarag.config.domain import open_domain
    from lambdarag.options import PipelineOptions
    from lambdarag.pipeline.run import answer
    from lambdarag.retrieval.knowledge import KnowledgeBase

    if not args.question.strip():
        raise InputError("empty question", "pass the question as the last argument")
    options = PipelineOptions(today=parse_today(args.today), use_llm=not args.no_llm, log=not args.no_log)
    kb = KnowledgeBase.load(open_domain(args.domain, args.base_dir))
    result = answer(kb, args.question, options=options)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(result))
    return 0 if result.found else 1


_LABELS = {False: ("来源：", "｜", "意图：{intent}（{score:.1f}）  相关度：{relevance}  请求：{request}"),
           True: ("Sources:", " | ", "Intent: {intent} ({score:.1f})  relevance: {relevance}  request: {request}")}


def render(result: Result) -> str:
    """The answer, its numbered sources and the intent, for a terminal, labelled in the question's language."""
    sources, bar, footer = _LABELS[is_english(result.question)]
    lines = [result.answer, ""]
    if result.citations:
        lines.append(sources)
        for c in result.citations:
            where = " · ".join(x for x in (c.breadcrumb or c.title, c.locator) if x)
            named = c.title and c.title not in where
            lines.append(f"  [{c.n}] {c.title}{bar}{where}" if named else f"  [{c.n}] {where}")
    score = result.intent_scores.get(result.intent, 0.0)
    lines.append(footer.format(intent=result.intent, score=score, relevance=result.relevance,
                               request=result.request_id))
    return "\n".join(lines)
