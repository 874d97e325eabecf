"""PageNames: the name tests the wiki compile runs on every sentence of a page's sources, against the plain loops."""

from __future__ import annotations

import itertools
import random

from lambdarag.wiki.compile import SUBJECT_WINDOW, PageNames

SENTENCES = [
    "财务处负责全校的预算管理工作。",
    "江城大学财务处收费管理科设在行政楼。",
    "经学校研究，决定由江城大学财务处负责。",
    "本办法由财务处负责解释。",
    "预算科",
    "",
    "财务处财务处财务处",
    "关于印发江城大学预算管理办法的通知",
]


def plain(names: list[str], key: str) -> tuple[bool, int, bool]:
    """What compile.py computed before PageNames: any name in the text, min(Σ counts, 2), a name near the start."""
    listed = [n for n in names if n]
    return (any(n in key for n in listed), min(sum(key.count(n) for n in listed), 2),
            any(0 <= key.find(n) <= SUBJECT_WINDOW for n in listed))


def check(names: list[str]) -> None:
    tested = PageNames(names)
    for key in SENTENCES:
        assert (tested.found_in(key), tested.count(key, 2), tested.subject(key)) == plain(names, key), (names, key)


def test_a_hub_with_many_merged_aliases_tests_like_the_plain_loops() -> None:
    hub = ["财务处", *(f"{prefix}财务处" for prefix in ("江城大学", "学校", "经学校研究决定由江城大学", "本校"))]
    check(hub)
    check(hub + [f"别名{i}" for i in range(40)])  # many names of few lengths: each start and length looked up
    assert PageNames(hub).minimal == ("财务处",)


def test_random_name_sets_test_like_the_plain_loops() -> None:
    rng = random.Random(7)
    words = sorted({s[i : i + n] for s in SENTENCES for n in (1, 2, 3, 5, 9) for i in range(len(s))})
    for size in itertools.chain(range(1, 6), (12, 30)):
        for _ in range(40):
            check(rng.sample(words, min(size, len(words))) + ([""] if rng.random() < 0.2 else []))


def test_repeated_names_count_each_time_and_membership_ignores_empty_names() -> None:
    tested = PageNames(["预算科", "预算科", ""])
    assert tested.count("预算科", 2) == 2 and tested.count("预算科", 5) == 2
    assert "预算科" in tested and "" not in tested
