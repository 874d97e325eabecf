"""Corpora of a chosen size for the scale benchmark, built from real text, and the questions to search them with.

Source (``source()`` says which was used, and the benchmark prints it):
  shared     the sentences of ../shared/evaldata's Chinese corpora (DomainRAG and CMRC 2018 passages), recombined:
             each document takes a real title and sentences drawn at random from the whole pool, half of them with
             their digits redrawn (so amounts, dates and phone numbers vary as in a real collection); the questions
             are those data sets' questions
  demo-model when ../shared is absent: a word-frequency model of the bundled demo domain's documents (words drawn
             by their frequency, sentence lengths by the documents' own), titles drawn from the demo's; the
             questions are the demo's

Documents are JSONL lines of a few chunks each (``ingest.chunk_size`` characters a chunk), so the document channel
has work to do. Generation is seeded: the same size and seed give the same corpus byte for byte.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALDATA = ROOT.parent / "shared" / "evaldata"
SHARED_SETS = ("domainrag_ruc", "cmrc2018_dev")
CHARS_PER_CHUNK = 360  # measured: a corpus of n × this many characters extracts to about n chunks (chunk_size 500)
SENTENCES_MIN, SENTENCES_MAX = 4, 40  # sentences per document
PART_BYTES = 20_000_000  # bytes of one corpus file (the extractor refuses files over ingest.max_file_mb)
DIGITS = re.compile(r"\d")


@dataclass(frozen=True)
class Source:
    """What a corpus is made of: its kind, titles, sentences (or a word model), and questions."""

    kind: str  # "shared" | "demo-model"
    titles: list[str]
    sentences: list[str]
    questions: list[str]
    words: list[str]  # demo-model: the vocabulary, and its counts as weights
    weights: list[int]
    lengths: list[int]  # demo-model: sentence lengths in words

    def describe(self) -> str:
        if self.kind == "shared":
            return (f"../shared/evaldata ({', '.join(SHARED_SETS)}) recombined: {len(self.sentences):,} real sentences "
                    f"under {len(self.titles):,} real titles, digits redrawn in half of them")
        return (f"a word-frequency model of the demo domain (../shared absent): {len(self.words):,} words, "
                f"{len(self.lengths):,} sentence lengths")


def source() -> Source:
    """The shared corpora when present, else the demo domain's word model."""
    if all((EVALDATA / name / "corpus.jsonl").exists() for name in SHARED_SETS):
        return _shared_source()
    return _demo_source()


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _shared_source() -> Source:
    from lambdarag.text.tokenizer import split_sentences

    titles, sentences, questions = [], [], []
    for name in SHARED_SETS:
        for row in _read_jsonl(EVALDATA / name / "corpus.jsonl"):
            titles.append(str(row.get("title") or ""))
            text = str(row["text"]).replace("\\n", " ")  # some passages hold a written-out "\\n"
            sentences += [" ".join(s.split()) for s in split_sentences(text) if 8 <= len(s) <= 300]
        questions += [str(q["question"]) for q in _read_jsonl(EVALDATA / name / "questions.jsonl")]
    return Source("shared", sorted(set(filter(None, titles))), sentences, questions, [], [], [])


def _demo_source() -> Source:
    import tempfile

    from lambdarag.demo.generate import QUESTIONS_FILE, generate
    from lambdarag.text.tokenizer import split_sentences

    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        texts = [text for p in sorted(Path(tmp).rglob("*")) if p.suffix in (".md", ".txt")
                 and (text := _utf8(p))]
    from lambdarag.text.segment import words as cut

    counts: Counter[str] = Counter()
    lengths, titles = [], []
    for text in texts:
        titles += [line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("# ")]
        for sentence in split_sentences(text):
            words = [w for w in cut(sentence) if w.strip() and w not in "。！？；"]
            counts.update(words)
            lengths.append(len(words))
    words, weights = zip(*sorted(counts.items()), strict=True)
    questions = [str(q["question"]) for q in _read_jsonl(QUESTIONS_FILE)]
    return Source("demo-model", sorted(set(titles)), [], questions, list(words), list(weights),
                  [n for n in lengths if n > 2])


def _utf8(path: Path) -> str:
    """A file's text when it is UTF-8 (the demo also holds files in other encodings), else ""."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def _sentence(src: Source, rng: random.Random) -> str:
    if src.kind == "shared":
        text = rng.choice(src.sentences)
        return DIGITS.sub(lambda _: str(rng.randrange(10)), text) if rng.random() < 0.5 else text
    words = rng.choices(src.words, src.weights, k=rng.choice(src.lengths))
    return "".join(words) + "。"


def write_corpus(src: Source, chunks: int, folder: Path, seed: int = 15) -> dict[str, int]:
    """JSONL files of about ``chunks`` chunks in all under ``folder`` (a new file every PART_CHARS characters,
    below the extractor's file-size cap); their document and character counts."""
    rng = random.Random(f"{seed}-{chunks}")
    target = chunks * CHARS_PER_CHUNK
    chars = docs = 0
    folder.mkdir(parents=True, exist_ok=True)
    out = None
    try:
        while chars < target:
            if out is None or out.tell() > PART_BYTES:
                if out is not None:
                    out.close()
                out = open(folder / f"corpus-{docs:06d}.jsonl", "w", encoding="utf-8")  # noqa: SIM115
            text = _document(src, rng)
            title = f"{rng.choice(src.titles)}（{docs + 1}）"
            out.write(json.dumps({"doc_id": f"s{docs:06d}", "title": title, "text": text}, ensure_ascii=False))
            out.write("\n")
            chars += len(text)
            docs += 1
    finally:
        if out is not None:
            out.close()
    return {"documents": docs, "chars": chars}


def _document(src: Source, rng: random.Random) -> str:
    """One document's text: paragraphs of up to four sentences."""
    count = rng.randint(SENTENCES_MIN, SENTENCES_MAX)
    paragraphs, body = [], []
    for i in range(count):
        body.append(_sentence(src, rng))
        if len(body) >= 4 or i == count - 1:
            paragraphs.append("".join(body))
            body = []
    return "\n\n".join(paragraphs)


def questions(src: Source, count: int, seed: int = 15) -> list[str]:
    """``count`` distinct questions of the source, in a seeded order."""
    pool = sorted(set(src.questions))
    random.Random(seed).shuffle(pool)
    return pool[:count]
