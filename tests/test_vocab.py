"""The memory-mapped BM25 vocabulary (lambdarag.channels.vocab) is the dict it replaces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lambdarag.channels.vocab import Vocabulary


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=60), st.lists(st.text(max_size=6),
                                                                                     max_size=20))
def test_a_saved_vocabulary_looks_up_as_its_dict(tmp_path_factory: pytest.TempPathFactory, tokens: list[str],
                                                 others: list[str]) -> None:
    folder = tmp_path_factory.mktemp("vocab")
    Vocabulary.of(tokens).save(folder)
    vocab, expected = Vocabulary.load(folder), {t: i for i, t in enumerate(tokens)}
    assert vocab == expected and list(vocab) == tokens and len(vocab) == len(tokens)
    for token in [*tokens, *others]:
        assert vocab.get(token) == expected.get(token) and (token in vocab) == (token in expected)


def test_collisions_are_probed_past(tmp_path: Path) -> None:
    tokens = [f"词{i}" for i in range(5000)]  # 16384 slots: many tokens share a first slot
    vocab = Vocabulary.of(tokens)
    assert len(vocab.slots) == 16384 and all(vocab[t] == i for i, t in enumerate(tokens))
    with pytest.raises(KeyError):
        vocab["词5000"]
    assert Vocabulary.of([]).get("a") is None and 1 not in vocab


def test_a_table_that_does_not_fit_its_tokens_is_refused(tmp_path: Path) -> None:
    Vocabulary.of(["报销", "标准", "va004"]).save(tmp_path)
    np.save(tmp_path / "vocab_slots.npy", np.array([0, 1, 2, -1, 7, -1, -1, -1], dtype=np.int32))
    with pytest.raises(ValueError, match="does not fit"):
        Vocabulary.load(tmp_path)
    np.save(tmp_path / "vocab_slots.npy", np.full(6, -1, dtype=np.int32))
    with pytest.raises(ValueError, match="does not fit"):
        Vocabulary.load(tmp_path)
