"""Memory-mapped string lists (lambdarag.channels.strings): what is saved reads back, damage is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lambdarag.channels.strings import Groups, Strings


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=20), st.lists(st.lists(st.text(max_size=5), max_size=4), max_size=10))
def test_saved_strings_and_groups_read_back(tmp_path_factory: pytest.TempPathFactory, strings: list[str],
                                            groups: list[list[str]]) -> None:
    folder = tmp_path_factory.mktemp("strings")
    Strings.of(strings).save(folder, "s")
    Groups.of(groups).save(folder, "g")
    loaded, grouped = Strings.load(folder, "s"), Groups.load(folder, "g")
    assert list(loaded) == strings and loaded[1:3] == strings[1:3]
    assert list(grouped) == [tuple(g) for g in groups] and [grouped.size(i) for i in range(len(groups))] == [
        len(g) for g in groups]


def test_indexing_is_that_of_a_list(tmp_path: Path) -> None:
    Strings.of(["预算科", "", "va004"]).save(tmp_path, "ids")
    ids = Strings.load(tmp_path, "ids")
    assert (ids[0], ids[1], ids[-1], len(ids)) == ("预算科", "", "va004", 3)
    with pytest.raises(IndexError):
        ids[3]
    assert isinstance(ids.text, np.ndarray) and not isinstance(ids.text, np.memmap)  # a plain view of the mapping


def test_offsets_that_do_not_match_their_text_are_refused(tmp_path: Path) -> None:
    Strings.of(["a", "bc"]).save(tmp_path, "ids")
    np.save(tmp_path / "ids_ptr.npy", np.array([0, 1, 5], dtype=np.int64))
    with pytest.raises(ValueError, match="do not match"):
        Strings.load(tmp_path, "ids")
    Groups.of([["a"], ["b", "c"]]).save(tmp_path, "g")
    np.save(tmp_path / "g_groups.npy", np.array([0, 1], dtype=np.int64))
    with pytest.raises(ValueError, match="do not match"):
        Groups.load(tmp_path, "g")
