"""The reStructuredText reader (ingest/rst_reader.py) on .rst files written to tmp_path, read through extract_file
and, once, through a domain's extraction into chunks: what reaches the chunks is what the rendered page shows."""

from __future__ import annotations

from pathlib import Path

from lambdarag.ingest import IngestSettings, extract_domain, extract_file, load_chunks
from lambdarag.ingest.document import Document, Table

SETTINGS = IngestSettings()


def rst(tmp_path: Path, text: str, name: str = "page.rst") -> Document:
    """The document an .rst file of ``text`` gives."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    [doc] = extract_file(path, "page", SETTINGS)
    return doc


def texts(doc: Document) -> list[str]:
    return [block.text for block in doc.blocks if block.kind == "text"]


def tables(doc: Document) -> list[Table]:
    return [block.table for block in doc.blocks if block.table is not None]


def test_rst_titles_open_sections_levelled_by_the_order_of_their_styles(tmp_path: Path) -> None:
    doc = rst(tmp_path, "==========\n Handbook\n==========\n\nIntro.\n\nTravel\n======\n\nHotels\n------\n\n"
                        "Rooms are booked.\n\nMeals\n-----\n\nUp to 50.\n\nLeave\n=====\n\nAsk first.\n")
    assert doc.title == "Handbook" and doc.format == "rst"
    assert [s.path for s in doc.sections] == [("Travel",), ("Travel", "Hotels"), ("Travel", "Meals"), ("Leave",)]
    assert [(b.section, b.text) for b in doc.blocks] == [
        ((), "Intro."), (("Travel", "Hotels"), "Rooms are booked."), (("Travel", "Meals"), "Up to 50."),
        (("Leave",), "Ask first.")]
    # the title's style used again: its sections are the top level, the next style's below them
    again = rst(tmp_path, "Setup\n=====\n\nFirst.\n\nUsage\n=====\n\nOptions\n-------\n\nFlags.\n", "again.rst")
    assert again.title == "Setup" and [s.path for s in again.sections] == [("Usage",), ("Usage", "Options")]


def test_rst_inline_markup_and_roles_read_as_the_text_they_show(tmp_path: Path) -> None:
    doc = rst(tmp_path, "Runs :term:`pre-defined jobs <pre-defined build jobs>` (:ref:`Build OS <config:build.os>`,\n"
                        ":ref:`config:formats`, :doc:`CDN </reference/cdn>`, :doc:`/build-customization`),\n"
                        "then click :guilabel:`Cancel build` or run ``make  docs`` as **root** or *any* user of the\n"
                        ":abbr:`CIO (Chief Information Officer)`; see `the site <https://example.org>`_, `Setup`_,\n"
                        "Python_ and :py:func:`~acme.tools.run` [#]_ [1]_, an \\*escaped\\* star, https://example.org/x.\n")
    assert texts(doc) == [
        "Runs pre-defined jobs (Build OS, config:formats, CDN, build-customization), then click Cancel build or run "
        "make  docs as root or any user of the CIO (Chief Information Officer); see the site, Setup, Python and run, "
        "an *escaped* star, https://example.org/x."]


def test_rst_substitutions_show_their_text_or_their_bare_name(tmp_path: Path) -> None:
    doc = rst(tmp_path, ".. |product| replace:: **Acme** Cloud\n.. |logo| image:: logo.png\n\n"
                        "Welcome to |product| |logo|.\n\nOn |org_brand|, builds are free.\n")
    assert texts(doc) == ["Welcome to Acme Cloud.", "On org_brand, builds are free."]  # no stray bars


def test_rst_directives_keep_their_text_labelled_and_drop_the_rest(tmp_path: Path) -> None:
    doc = rst(tmp_path, "Guide\n=====\n\n.. _guide-label:\n\n.. toctree::\n   :maxdepth: 2\n\n   intro\n\n"
                        ".. note::\n   :class: custom\n\n   Steps run in a container.\n\n   A second paragraph.\n\n"
                        ".. seealso:: The build page.\n\n.. versionadded:: 2.1\n   The ``--init`` flag.\n\n"
                        ".. admonition:: Billing\n\n   Invoices are monthly.\n\n.. image:: shot.png\n   :alt: shot\n\n"
                        ".. figure:: fig.png\n   :width: 80%\n\n   The figure's caption.\n\n"
                        ".. This is a comment\n   spanning lines.\n\n.. tabs::\n\n   .. tab:: Linux\n\n"
                        "      Use apt.\n\n.. only:: html\n\n   Shown in HTML.\n\n.. rubric:: Footnotes\n\n"
                        ".. [#] The footnote's text.\n")
    assert texts(doc) == ["Note: Steps run in a container.", "A second paragraph.", "See also: The build page.",
                          "New in version 2.1: The --init flag.", "Billing: Invoices are monthly.",
                          "The figure's caption.", "Linux: Use apt.", "Shown in HTML.", "The footnote's text."]
    assert doc.sections[-1].path == ("Footnotes",) and doc.blocks[-1].section == ("Footnotes",)


def test_rst_code_and_literal_blocks_stay_as_written(tmp_path: Path) -> None:
    doc = rst(tmp_path, ".. code-block:: python\n   :linenos:\n\n   def hello(name):\n       return f\"hi {name}\"\n\n"
                        "Run this::\n\n    $ acme --init  *not emphasis*\n\n"
                        "A paragraph ::\n\n    indented   as written\n\n>>> print(1)\n1\n")
    assert texts(doc) == ['def hello(name):\n    return f"hi {name}"', "Run this:", "$ acme --init  *not emphasis*",
                          "A paragraph", "indented   as written", ">>> print(1)\n1"]


def test_rst_field_and_definition_bodies_keep_their_subject(tmp_path: Path) -> None:
    doc = rst(tmp_path, ":orphan:\n:tocdepth: 2\n\nJobs\n====\n\n:checkout:\n\n   Checks out a project's code\n"
                        "   from the repository.\n\n   .. tip::\n\n      Pin versions.\n\n"
                        ":Manually: click :guilabel:`Cancel`.\n\n:build:\n\n   - sphinx\n   - mkdocs\n\n"
                        "Deploy key\n   Gives access to the repository.\n\nWhy?\n   Speed.\n")
    assert texts(doc) == ["checkout: Checks out a project's code from the repository.", "Tip: Pin versions.",
                          "Manually: click Cancel.", "build:\n- sphinx\n- mkdocs",
                          "Deploy key: Gives access to the repository.", "Why? Speed."]  # the page metadata is gone


def test_rst_lists_keep_one_item_per_line(tmp_path: Path) -> None:
    doc = rst(tmp_path, "* first item\n  goes on here\n* second item\n\n  - nested\n\n1. one\n2. two\n\n"
                        "(a) letter\n\nThen:\n\n#. auto\n#. auto\n\n| Line one\n| Line two\n\n----\n\n"
                        "A. Smith wrote\nthis paragraph.\n")
    assert texts(doc) == ["- first item goes on here\n- second item\n- nested\n1. one\n2. two\n(a) letter", "Then:",
                          "1. auto\n2. auto", "Line one\nLine two", "A. Smith wrote this paragraph."]


def test_rst_grid_simple_list_and_csv_tables(tmp_path: Path) -> None:
    doc = rst(tmp_path, "+--------+-----------+\n| Name   | Value     |\n+========+===========+\n"
                        "| alpha  | one       |\n|        | **two**   |\n+--------+-----------+\n"
                        "| spans both columns |\n+--------------------+\n\n"
                        "=====  ======\nRoom   Rate\n=====  ======\nA      100\nB      120\n"
                        "       weekends\n=====  ======\n\n"
                        ".. list-table:: Fees\n   :header-rows: 1\n   :widths: 20 80\n\n   * - Item\n     - Fee\n"
                        "   * - Meals\n     - 50 EUR a\n       day\n\n"
                        ".. csv-table:: Prices\n   :header: \"Thing\", \"Price\"\n\n   \"Pear, big\", 2\n   Apple, 1\n")
    grid, simple, listed, csv = tables(doc)
    assert (grid.header, grid.rows) == (("Name", "Value"), (("alpha", "one two"), ("spans both columns", "")))
    assert (simple.header, simple.rows) == (("Room", "Rate"), (("A", "100"), ("B", "120 weekends")))
    assert (listed.caption, listed.header, listed.rows) == ("Fees", ("Item", "Fee"), (("Meals", "50 EUR a day"),))
    assert (csv.caption, csv.header, csv.rows) == ("Prices", ("Thing", "Price"), (("Pear, big", "2"), ("Apple", "1")))


def test_rst_with_crlf_a_bom_and_tabs(tmp_path: Path) -> None:
    path = tmp_path / "policy.rest"
    path.write_bytes("\ufeffPolicy\r\n======\r\n\r\nLine one\r\nline two.\r\n\r\nRules\r\n-----\r\n\r\n"
                     ".. note::\r\n\tTabbed body.\r\n".encode())
    [doc] = extract_file(path, "policy", SETTINGS)
    assert doc.title == "Policy" and [s.path for s in doc.sections] == [("Rules",)]
    assert texts(doc) == ["Line one line two.", "Note: Tabbed body."]


def test_odd_rst_never_raises_and_plain_text_stays_paragraphs(tmp_path: Path) -> None:
    doc = rst(tmp_path, "Notes from a meeting\nwith ``unterminated literal and **bold and `role\n\n"
                        ".. list-table::\n   :header-rows: many\n\n   * - only\n\n+---+\n| x\n\n=== ===\nno end\n\n"
                        + "".join(" " * n + "deeper\n" for n in range(60)))
    shown = " ".join(texts(doc))
    assert shown.startswith("Notes from a meeting with ``unterminated literal and **bold and `role")
    assert [table.rows for table in tables(doc)] == [(("only",),), (("x",),)]  # no header rows: "many" is no count
    assert "no end" in shown and shown.count("deeper") == 60


def test_an_html_page_saved_as_rst_is_read_as_html(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "guide.rst").write_text("<!DOCTYPE html>\n<html><head><title>Guide</title></head><body><h2>Part</h2>"
                                   "<p>Body text.</p></body></html>", encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", SETTINGS, progress=False)
    assert report.notes == ["guide.rst: content is an HTML page but extension is .rst"]
    [doc] = extract_file(raw / "guide.rst", "guide", SETTINGS)
    assert (doc.format, doc.title, texts(doc)) == ("html", "Guide", ["Body text."])


def test_an_rst_domain_builds_into_chunks_under_their_sections(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "builds.rst").write_text("Build process\n=============\n\nCancelling builds\n-----------------\n\n"
                                    ":Manually:\n\n   Click :guilabel:`Cancel build` on the build page.\n",
                                    encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", SETTINGS, progress=False)
    assert report.failed == [] and report.documents == 1
    [chunk] = load_chunks(tmp_path / "processed")
    assert chunk.breadcrumb == "Build process > Cancelling builds"
    assert chunk.text == "Manually: Click Cancel build on the build page."
