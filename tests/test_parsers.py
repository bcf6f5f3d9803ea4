"""Tests of the document parsers, on real files written to temporary directories."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.pdfgen.canvas import Canvas

from indexer.errors import (
    BadInputError,
    ParseError,
    TooLargeError,
    UnreadableFileError,
    UnsupportedFormatError,
)
from indexer.parsers import ParsedDocument, Section, parse_bytes, supported_suffixes
from indexer.parsers.decoding import decode_text
from indexer.parsers.tree_builder import Heading, build_tree
from tests.pdfgen import PlacedHeading, build_pdf

REPO = Path(__file__).resolve().parent.parent


def parse_file(path: Path) -> ParsedDocument:
    return parse_bytes(path.read_bytes(), filename=path.name)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def sections(doc: ParsedDocument) -> list[Section]:
    return doc.root.walk()[1:]


def outline(doc: ParsedDocument) -> list[tuple[int, str]]:
    return [(s.depth, s.title or "") for s in sections(doc)]


def assert_well_formed(doc: ParsedDocument) -> None:
    """Spans nest, stay inside the text, and sibling sections tile their parent."""
    root = doc.root
    assert (root.depth, root.title, root.char_start, root.char_end) == (0, None, 0, len(doc.text))
    for section in root.walk():
        assert section.char_start <= section.body_start <= section.body_end <= section.char_end
        assert section.char_end <= len(doc.text)
        ends = [section.body_end] + [child.char_end for child in section.children]
        starts = [child.char_start for child in section.children] + [section.char_end]
        assert ends == starts
        for child in section.children:
            assert child.depth == section.depth + 1


# --- Markdown ----------------------------------------------------------------------------

MARKDOWN = """\
Preface text.

# Safety

Read everything.

```sh
# not a heading: a shell comment
```

    # not a heading either: indented code

####### seven hashes are a paragraph

## Electrical *hazards* ##

Lock out the supply.

Spindle `M3` start
------------------

Spin up.

Multi line
setext title
============

Tail text.
"""


def test_markdown_atx_and_setext_headings(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "manual.md", MARKDOWN))
    assert doc.format == "markdown"
    assert doc.text == MARKDOWN  # spans index the original source
    assert outline(doc) == [
        (1, "Safety"),
        (2, "Electrical hazards"),
        (2, "Spindle M3 start"),
        (1, "Multi line setext title"),
    ]
    assert_well_formed(doc)


def test_markdown_heading_and_body_spans(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "manual.md", MARKDOWN))
    safety, hazards, spindle, multi = sections(doc)
    text = doc.text
    assert text[safety.char_start : safety.body_start] == "# Safety\n"
    assert text[hazards.char_start : hazards.body_start] == "## Electrical *hazards* ##\n"
    assert text[spindle.char_start : spindle.body_start] == "Spindle `M3` start\n" + "-" * 18 + "\n"
    assert (
        text[multi.char_start : multi.body_start] == "Multi line\nsetext title\n" + "=" * 12 + "\n"
    )
    assert text[doc.root.body_start : doc.root.body_end] == "Preface text.\n\n"
    body = text[safety.body_start : safety.body_end]
    assert "Read everything." in body and "# not a heading: a shell comment" in body
    assert "####### seven hashes" in body
    assert text[spindle.body_start : spindle.body_end] == "\nSpin up.\n\n"
    assert text[multi.body_start : multi.char_end] == "\nTail text.\n"
    assert safety.char_end == multi.char_start


def test_markdown_depths_are_made_contiguous(tmp_path: Path) -> None:
    src = "# A\n\n### B\n\n###### C\n\n## D\n\n#### E\n\n# F\n"
    doc = parse_file(write(tmp_path, "levels.markdown", src))
    assert outline(doc) == [(1, "A"), (2, "B"), (3, "C"), (2, "D"), (3, "E"), (1, "F")]
    a, f = doc.root.children
    assert [c.title for c in a.children] == ["B", "D"]
    assert_well_formed(doc)


def test_markdown_front_matter_and_nested_headings_are_body(tmp_path: Path) -> None:
    src = "---\ntitle: Manual\n---\n\n# Real\n\n> # quoted\n\n- # in a list item\n"
    doc = parse_file(write(tmp_path, "fm.md", src))
    assert outline(doc) == [(1, "Real")]
    assert doc.text[: doc.root.body_end].startswith("---\ntitle: Manual\n---")


def test_markdown_without_headings_is_root_only(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "plain.md", "Just a paragraph.\n\nAnd another.\n"))
    assert doc.root.children == []
    assert doc.root.body_end == len(doc.text)


# --- HTML --------------------------------------------------------------------------------

POSTGRES_PAGE = """\
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>9.1. Logical Operators</title>
<style>p { color: red }</style><script>var hidden = "script text";</script></head>
<body>
<div class="navheader"><table width="100%"><tr><th colspan="3">NAVHEAD 9.1</th></tr>
<tr><td><a href="prev.html">Prev</a></td><td>Up</td></tr></table><hr></div>
<div class="sect1" id="FUNCTIONS-LOGICAL"><div class="titlepage"><div><div>
<h2 class="title" style="clear: both">9.1. Logical Operators
 <a href="#FUNCTIONS-LOGICAL" class="id_link">#</a></h2></div></div></div>
<p>The usual logical operators are
   <code class="literal">AND</code>, <code>OR</code> and <strong>NOT</strong>.</p>
<div class="note"><h3 class="title">Note</h3><p>Nulls propagate.</p></div>
<div class="warning"><h3 class="title">Beware of three-valued logic</h3><p>Really.</p></div>
<h4>Tip</h4><p>Use COALESCE.</p>
<div class="sect2"><h3 class="title">9.1.1. Truth tables</h3>
<table class="table"><caption>Table 9.1. AND</caption>
<thead><tr><th>a</th><th>b</th><th>a AND b</th></tr></thead>
<tbody><tr><td>TRUE</td><td><em>NULL</em></td><td><p>NULL</p></td></tr></tbody></table>
<pre class="programlisting">
SELECT a AND b
  FROM t;   -- indented
</pre>
</div></div>
<div class="navfooter"><p>NAVFOOT next</p></div>
</body></html>
"""


def test_html_postgres_conventions(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "functions-logical.html", POSTGRES_PAGE))
    assert doc.format == "html"
    # No heading from <title>; admonition titles stay body text; id_link "#" is dropped.
    assert outline(doc) == [(1, "9.1. Logical Operators"), (2, "9.1.1. Truth tables")]
    for skipped in ("NAVHEAD", "NAVFOOT", "Prev", "script text", "color: red"):
        assert skipped not in doc.text
    top = sections(doc)[0]
    body = doc.text[top.body_start : top.body_end]
    assert "The usual logical operators are AND, OR and NOT." in body
    for admonition in ("Note\n", "Nulls propagate.", "Beware of three-valued logic", "Tip\n"):
        assert admonition in body
    assert_well_formed(doc)


def test_html_heading_offsets_point_at_heading_text(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "page.htm", POSTGRES_PAGE))
    for section in sections(doc):
        title = section.title or ""
        assert doc.text[section.char_start : section.char_start + len(title)] == title
        assert doc.text[section.char_start : section.body_start].strip() == title
    assert doc.root.body_end == 0  # nothing before the first heading once nav is gone


def test_html_tables_and_pre(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "page.html", POSTGRES_PAGE))
    lines = doc.text.split("\n")
    assert "Table 9.1. AND" in lines
    assert "a | b | a AND b" in lines
    assert "TRUE | NULL | NULL" in lines
    assert "SELECT a AND b\n  FROM t;   -- indented" in doc.text
    # verbatim text is fenced as a Markdown code block, so its readers need not guess it
    assert "```\nSELECT a AND b\n  FROM t;   -- indented\n```" in doc.text


def test_html_a_declaration_set_in_table_cells_is_one_line(tmp_path: Path) -> None:
    page = """<html><body><h1>Environment</h1><table class="memname">
    <tr><td>int lib_set_size</td><td>(</td><td>lib_env *&#160;</td><td><em>env</em>,</td></tr>
    <tr><td></td><td></td><td>size_t&#160;</td><td><em>size</em></td></tr>
    <tr><td></td><td>)</td><td></td><td></td></tr></table>
    <p>Set the size of the map.</p>
    <table><tr><th>flag</th><th>meaning</th></tr><tr><td>(</td><td>opens a group</td></tr>
    </table></body></html>"""
    lines = parse_file(write(tmp_path, "env.html", page)).text.split("\n")
    assert "int lib_set_size ( lib_env * env, size_t size )" in lines
    # a bracket in a data table's row below its header is a value
    assert "flag | meaning" in lines and "( | opens a group" in lines


def test_html_lists_breaks_and_page_chrome(tmp_path: Path) -> None:
    page = """<html><body>
    <header><h1>Site banner</h1></header><nav><ul><li>Home</li></ul></nav>
    <article><header><h1>Spindle guide</h1></header>
    <p>First line<br>second line</p>
    <ol start="3"><li>Third step</li><li><p>Fourth step</p></li></ol>
    <ul><li>alpha<ul><li>nested</li></ul></li><li>beta</li></ul>
    <dl><dt>RPM</dt><dd>revolutions per minute</dd></dl>
    <div hidden>invisible</div><div role="navigation">jump to</div>
    </article><footer>Copyright ACME</footer></body></html>"""
    doc = parse_file(write(tmp_path, "guide.html", page))
    assert outline(doc) == [(1, "Spindle guide")]
    lines = doc.text.split("\n")
    for line in ("First line", "second line", "3. Third step", "4. Fourth step", "- alpha"):
        assert line in lines
    assert "  - nested" in lines and "- beta" in lines and "RPM" in lines
    for chrome in ("Site banner", "Home", "Copyright", "invisible", "jump to"):
        assert chrome not in doc.text


def test_html_declared_charset_and_deep_nesting(tmp_path: Path) -> None:
    page = '<html><head><meta charset="koi8-r"></head><body><h1>Привет</h1><p>мир</p>'
    doc = parse_file(write(tmp_path, "ru.html", page.encode("koi8-r")))
    assert outline(doc) == [(1, "Привет")] and "мир" in doc.text
    deep = "<h1>Top</h1>" + "<div>" * 5000 + "deep text" + "</div>" * 5000 + "<h2>After</h2>"
    doc = parse_file(write(tmp_path, "deep.html", deep))
    assert "deep text" in doc.text
    assert outline(doc) == [(1, "Top"), (2, "After")]


def test_html_prefixed_names_as_xhtml_and_word_write_them(tmp_path: Path) -> None:
    # xml:lang and xmlns: declarations (XHTML, DocBook's index page), xlink:href in inline SVG
    # and Word's <o:p>: each once made the whole page unreadable.
    page = """<?xml version="1.0" encoding="UTF-8"?>
    <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en"><body>
    <div class="index" xmlns:xlink="http://www.w3.org/1999/xlink"><h1>Index</h1>
    <p lang="en" xml:lang="en">Spindle<o:p></o:p> speed</p>
    <svg><use xlink:href="#icon"/></svg><h2>Seals</h2><p>Replace them yearly.</p></div>
    </body></html>"""
    doc = parse_file(write(tmp_path, "bookindex.html", page))
    assert outline(doc) == [(1, "Index"), (2, "Seals")]
    assert "Spindle speed" in doc.text and "Replace them yearly." in doc.text
    assert_well_formed(doc)


def test_html_an_unescaped_example_tag_does_not_lose_the_page(tmp_path: Path) -> None:
    # '<flash.*>' written raw in a sentence (an example regex) opens an element a browser
    # shows nothing of; an XML tree cannot hold its name, which once refused the whole page
    page = (
        '<html><body><h1>Highlights</h1><p>Examples: "<flash.*>", "(?-i)<Flash.*>" '
        'match.</p><p a*b="1">Regex done.</p><h2>Buffers</h2><p>Buffers hold lines.</p>'
        "</body></html>"
    )
    doc = parse_file(write(tmp_path, "user.html", page))
    assert outline(doc) == [(1, "Highlights"), (2, "Buffers")]
    assert "Regex done." in doc.text and "Buffers hold lines." in doc.text
    assert_well_formed(doc)


def test_html_two_megabytes_parse_fast(tmp_path: Path) -> None:
    parts = ['<html><body><div class="navheader">nav</div>']
    size, i = 0, 0
    while size < 2_000_000:
        i += 1
        chunk = (
            f'<div class="sect1"><h2 class="title">{i}. Section {i}</h2>'
            f"<p>Some <b>bold</b> text, <a href='#'>a link</a>, <code>code</code> {i}.</p>"
            f'<div class="note"><h3 class="title">Note</h3><p>Careful {i}.</p></div>'
            f"<table><tr><th>a</th><th>b</th></tr><tr><td>{i}</td><td>x</td></tr></table>"
            f"<pre>line 1\n  line 2</pre><ul><li>one</li><li>two</li></ul></div>"
        )
        parts.append(chunk)
        size += len(chunk)
    path = write(tmp_path, "big.html", "".join(parts))
    started = time.perf_counter()
    doc = parse_file(path)
    elapsed = time.perf_counter() - started
    assert len(doc.root.children) == i
    assert elapsed < 8, f"2 MB of HTML took {elapsed:.1f}s"


# --- PDF ---------------------------------------------------------------------------------


def manual_source(seed: int = 7, chapters: int = 4) -> str:
    """A numbered multi-chapter manual long enough to span several pages."""
    rnd = random.Random(seed)
    words = "spindle coolant axis feed rate tool holder collet clamp motor encoder drive belt"
    words += " guard door interlock lubrication pump filter"
    vocabulary = words.split()

    def para() -> str:
        picked = (rnd.choice(vocabulary) for _ in range(rnd.randint(40, 90)))
        return " ".join(picked).capitalize() + "."

    names = ["Safety", "Installation", "Operation", "Maintenance", "Troubleshooting"]
    out: list[str] = []
    for c in range(1, chapters + 1):
        out += [f"# {c} {names[c - 1]}", para()]
        for s in range(1, 4):
            out += [f"## {c}.{s} Topic {c}-{s} overview"]
            out += [para() for _ in range(rnd.randint(1, 5))]
            if s == 2:
                for ss in range(1, 3):
                    out += [f"### {c}.{s}.{ss} Detail {c}-{s}-{ss}", para()]
                    out += ["1. Remove the cover.\n2. Check the belt tension."]
                out += ["| Item | Value |\n|------|-------|\n| Mass | 500 kg |"]
    return "\n\n".join(out) + "\n"


def expected_pages(placed: list[PlacedHeading], doc: ParsedDocument) -> list[list[int]]:
    """A section runs from its heading's page to the next same-or-higher heading's page, or to
    the page before when that heading opens its page (running headers are not text)."""
    assert doc.page_starts is not None
    opens = {i for i, s in enumerate(sections(doc)) if s.char_start in doc.page_starts}
    ranges = []
    for i, heading in enumerate(placed):
        nxt = next((j for j in range(i + 1, len(placed)) if placed[j].depth <= heading.depth), None)
        if nxt is None:
            end = len(doc.page_starts)
        else:
            end = placed[nxt].page - 1 if nxt in opens else placed[nxt].page
        ranges.append([heading.page, max(end, heading.page)])
    return ranges


@pytest.mark.parametrize("with_outline", [True, False], ids=["outline", "no-outline"])
@pytest.mark.parametrize("running_title", ["ACME M500 manual", "1 Safety"])
def test_pdf_headings_and_page_ranges(
    tmp_path: Path, with_outline: bool, running_title: str
) -> None:
    pdf = tmp_path / "manual.pdf"
    placed = build_pdf(manual_source(), pdf, outline=with_outline, running_title=running_title)
    doc = parse_file(pdf)
    assert doc.format == "pdf" and doc.page_starts is not None
    page_count = len(doc.page_starts)
    assert page_count >= 5 and max(h.page for h in placed) > 1
    assert outline(doc) == [(h.depth, h.title) for h in placed]
    for section in sections(doc):
        assert doc.text[section.char_start : section.body_start].strip() == section.title
    got = [doc.pages_for(s.char_start, s.char_end) for s in sections(doc)]
    assert got == expected_pages(placed, doc)
    assert_well_formed(doc)


def test_pdf_page_starts_match_pages(tmp_path: Path) -> None:
    pdf = tmp_path / "manual.pdf"
    build_pdf(manual_source(chapters=2), pdf)
    doc = parse_file(pdf)
    assert doc.page_starts is not None and doc.page_starts[0] == 0
    assert "Overstory test manual" not in doc.text  # the running header is not text
    assert "Page 2" not in doc.text  # nor the footer
    for number, start in enumerate(doc.page_starts, start=1):
        assert doc.text[start:].strip()
        assert doc.pages_for(start, start + 1) == [number, number]


def test_pdf_outline_titles_without_numbers(tmp_path: Path) -> None:
    src = "# Safety\n\nWear goggles.\n\n## Guards\n\nKeep closed.\n\n# Setup\n\nLevel it.\n"
    pdf = tmp_path / "plain.pdf"
    build_pdf(src, pdf)
    doc = parse_file(pdf)
    assert outline(doc) == [(1, "Safety"), (2, "Guards"), (1, "Setup")]
    pdf_no = tmp_path / "plain-no-outline.pdf"
    build_pdf(src, pdf_no, outline=False)
    assert sections(parse_file(pdf_no)) == []  # unnumbered, no outline: nothing to go on


def test_pdfgen_command_line(tmp_path: Path) -> None:
    src = write(tmp_path, "src.md", manual_source(chapters=2))
    out, pages = tmp_path / "out.pdf", tmp_path / "pages.json"
    subprocess.run(
        [sys.executable, "-m", "tests.pdfgen", str(src), str(out), "--no-outline"]
        + ["--json", str(pages)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    assert out.read_bytes().startswith(b"%PDF")
    assert '"title": "1 Safety"' in pages.read_text()


def test_pdf_corrupt_and_unreadable(tmp_path: Path) -> None:
    pdf = tmp_path / "good.pdf"
    build_pdf(manual_source(chapters=1), pdf)
    good = pdf.read_bytes()
    for bad in (good[: len(good) // 2], b"%PDF-1.4\ngarbage", b"not a pdf at all"):
        with pytest.raises(ParseError, match="corrupt PDF"):
            parse_bytes(bad, filename="bad.pdf")
    with pytest.raises(ParseError):
        parse_bytes(b"", filename="empty.pdf")


def test_pdf_encrypted_and_scanned(tmp_path: Path) -> None:
    locked = tmp_path / "locked.pdf"
    canvas = Canvas(str(locked), encrypt=StandardEncryption("secret", "owner"))
    canvas.drawString(72, 720, "Top secret")
    canvas.save()
    with pytest.raises(UnreadableFileError, match="encrypted and needs a password"):
        parse_file(locked)
    # Owner-password-only encryption opens with the empty user password.
    restricted = tmp_path / "restricted.pdf"
    canvas = Canvas(str(restricted), encrypt=StandardEncryption("", "owner", canPrint=0))
    canvas.drawString(72, 720, "Readable text")
    canvas.save()
    assert "Readable text" in parse_file(restricted).text
    scanned = tmp_path / "scanned.pdf"
    canvas = Canvas(str(scanned))
    canvas.rect(72, 72, 300, 300, fill=1)
    canvas.save()
    with pytest.raises(ParseError, match="no extractable text"):
        parse_file(scanned)


# --- Plain text --------------------------------------------------------------------------

TEXT_MANUAL = """\
ACME M500 service notes

1 Introduction

This manual covers the M500.

1.1 Scope

Applies to all units.

2 Maintenance

Before you start:

1. Remove the cover.
2. Disconnect the supply and wait five minutes before touching anything inside the cabinet
3. Check the belt

2.1 Belt tension

Press the belt.

2.1.1 Measuring deflection

Use a gauge.
"""


def test_text_numbered_headings(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "notes.txt", TEXT_MANUAL))
    assert doc.format == "text"
    assert outline(doc) == [
        (1, "1 Introduction"),
        (2, "1.1 Scope"),
        (1, "2 Maintenance"),
        (2, "2.1 Belt tension"),
        (3, "2.1.1 Measuring deflection"),
    ]
    maintenance = doc.root.children[1]
    body = doc.text[maintenance.body_start : maintenance.body_end]
    assert "1. Remove the cover." in body and "3. Check the belt" in body
    assert doc.text[: doc.root.body_end] == "ACME M500 service notes\n\n"
    assert_well_formed(doc)


def test_text_procedure_steps_are_not_headings(tmp_path: Path) -> None:
    steps = (
        "Replacing the fuse\n\n1. Remove the cover.\n\n2. Pull the fuse.\n\n3. Fit the new one.\n"
    )
    doc = parse_file(write(tmp_path, "steps.text", steps))
    assert doc.root.children == []
    assert doc.text[doc.root.body_start : doc.root.body_end] == steps


def test_text_without_headings_is_root_only(tmp_path: Path) -> None:
    text = "Some notes.\n\n1 Lonely heading\n\nA single numbered line is not a structure.\n"
    doc = parse_file(write(tmp_path, "notes.txt", text))
    assert doc.root.children == []
    assert (doc.root.body_start, doc.root.body_end) == (0, len(text))


def test_text_twelve_levels(tmp_path: Path) -> None:
    lines = []
    for depth in range(1, 13):
        lines += [".".join(["1"] * depth) + f" Level {depth} title", "", f"Body {depth}.", ""]
    lines += ["2 Back to top", "", "End."]
    doc = parse_file(write(tmp_path, "deep.txt", "\n".join(lines) + "\n"))
    assert [s.depth for s in sections(doc)] == [*range(1, 13), 1]
    deepest = sections(doc)[11]
    assert deepest.title == "1.1.1.1.1.1.1.1.1.1.1.1 Level 12 title"
    assert doc.text[deepest.body_start : deepest.body_end] == "\nBody 12.\n\n"
    assert_well_formed(doc)


def test_text_table_of_contents_is_not_taken_twice(tmp_path: Path) -> None:
    text = (
        "Contents\n\n1 Introduction\n1.1 Scope\n2 Setup\n\n"
        "1 Introduction\n\nHello.\n\n1.1 Scope\n\nAll.\n\n2 Setup\n\nDo it.\n"
    )
    doc = parse_file(write(tmp_path, "toc.txt", text))
    assert outline(doc) == [(1, "1 Introduction"), (2, "1.1 Scope"), (1, "2 Setup")]
    assert doc.text[sections(doc)[0].body_start :].startswith("\nHello.")


# --- Decoding ----------------------------------------------------------------------------


def test_decoding_rejects_empty_and_whitespace(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="file is empty"):
        parse_file(write(tmp_path, "empty.md", b""))
    with pytest.raises(BadInputError, match="only whitespace"):
        parse_file(write(tmp_path, "blank.txt", b" \n\t\r\n"))


def test_decoding_rejects_binary(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match=r"binary content \(NUL bytes\) in a \.md file"):
        parse_file(write(tmp_path, "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
    noise = bytes(random.Random(1).randrange(1, 32) for _ in range(2000))
    with pytest.raises(BadInputError, match="control characters"):
        parse_file(write(tmp_path, "noise.txt", noise))


def test_decoding_mixed_encodings_line_by_line() -> None:
    data = "Café UTF-8 line\n".encode() + "naïve cp1252 line – €5\r\n".encode("cp1252")
    data += "Ünïcödé again\n".encode()
    text = decode_text(data, filename="mixed.txt")
    assert text == "Café UTF-8 line\nnaïve cp1252 line – €5\nÜnïcödé again\n"


RUSSIAN = (
    "# Установка\n\nСервер Apache запускается командой apachectl. Файл конфигурации "
    "называется httpd.conf и находится в каталоге conf.\n"
)
JAPANESE = "# はじめに\n\nこの文書は、サーバの設定方法について説明します。\n"
WESTERN = (
    "ed was written by Andrew Moore.\nThanks to François Pinard and Jürgen Schröder for "
    "patches; the port to MS-DOS costs £0 and “works”.\n"
)


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (RUSSIAN, "cp1251"),
        (RUSSIAN, "koi8-r"),
        (JAPANESE, "shift_jis"),
        (JAPANESE, "euc-jp"),
        (JAPANESE, "gb18030"),
        (RUSSIAN, "utf-16-le"),  # no byte-order mark: NUL bytes that are not binary content
        (WESTERN, "utf-16-be"),
        (WESTERN, "cp1252"),  # a few accented letters: charset-normalizer would say big5
        (WESTERN.replace("“", '"').replace("”", '"'), "latin-1"),
    ],
)
def test_decoding_undeclared_encodings(text: str, encoding: str) -> None:
    data = text.encode(encoding)
    assert decode_text(data, filename="doc.txt") == text


def test_decoding_bom_and_newlines(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "bom.md", b"\xef\xbb\xbf# Title\r\n\r\nBody\rEnd\r\n"))
    assert doc.text == "# Title\n\nBody\nEnd\n"
    assert outline(doc) == [(1, "Title")] and sections(doc)[0].char_start == 0
    utf16 = "\ufeff# Überschrift\n\nText\n".encode("utf-16-le")
    assert parse_bytes(utf16, filename="u16.md").text == "# Überschrift\n\nText\n"


# --- Registry ----------------------------------------------------------------------------


def test_registry_rejects_unsupported_suffixes() -> None:
    for name in ("manual.docx", "README", "archive.tar.gz", "notes.rst"):
        with pytest.raises(UnsupportedFormatError, match="unsupported file type"):
            parse_bytes(b"hello", filename=name)
    suffixes = supported_suffixes()
    assert {".md", ".markdown", ".html", ".htm", ".pdf", ".txt", ".text", ".md.gz"} <= suffixes
    assert ".rst" not in suffixes
    assert parse_bytes(b"# Upper\n", filename="DIR/README.MD").format == "markdown"


def test_registry_gzip(tmp_path: Path) -> None:
    path = write(tmp_path, "changelog.md.gz", gzip.compress(MARKDOWN.encode()))
    doc = parse_file(path)
    assert doc.format == "markdown" and doc.text == MARKDOWN
    assert parse_bytes(gzip.compress(b"1 A\n\nx\n\n2 B\n"), filename="a.txt.gz").format == "text"
    with pytest.raises(ParseError, match="corrupt gzip"):
        parse_bytes(b"\x1f\x8b\x08\x00garbage", filename="broken.md.gz")
    with pytest.raises(BadInputError, match="NUL"):
        parse_bytes(gzip.compress(b"\x00" * 100), filename="nul.txt.gz")


def test_registry_gzip_bomb_is_refused() -> None:
    bomb = gzip.compress(b"a" * (64 * 1024 * 1024 + 10), compresslevel=1)
    assert len(bomb) < 1024 * 1024
    with pytest.raises(TooLargeError, match="64 MB"):
        parse_bytes(bomb, filename="bomb.txt.gz")


# --- Tree builder ------------------------------------------------------------------------


def test_tree_builder_skipped_levels_and_shared_offsets() -> None:
    text = "x" * 100
    root = build_tree(
        [
            Heading(2, "A", 10, 15),
            Heading(5, "B", 20, 25),
            Heading(3, "C", 30, 30),
            Heading(3, "D", 30, 40),  # same offset as C, e.g. two bookmarks on one page
            Heading(1, "E", 60, 65),
        ],
        len(text),
    )
    walked = [(s.title, s.depth, s.char_start, s.char_end) for s in root.walk()]
    assert walked == [
        (None, 0, 0, 100),
        ("A", 1, 10, 60),
        ("B", 2, 20, 30),
        ("C", 2, 30, 30),
        ("D", 2, 30, 60),
        ("E", 1, 60, 100),
    ]
    c = root.children[0].children[1]
    assert c.body_start == c.body_end == 30
    assert (root.body_start, root.body_end) == (0, 10)


# --- Sample manuals (present only when the fixtures have been written) -------------------

SAMPLE_MD = REPO / "tests" / "data" / "cnc-m500.src.md"


@pytest.mark.skipif(not SAMPLE_MD.exists(), reason="sample manual not written yet")
def test_sample_manual_markdown_and_pdf_agree(tmp_path: Path) -> None:
    src = SAMPLE_MD.read_text(encoding="utf-8")
    md_doc = parse_bytes(src.encode(), filename=SAMPLE_MD.name)
    assert sections(md_doc)
    assert_well_formed(md_doc)
    pdf = tmp_path / "sample.pdf"
    placed = build_pdf(src, pdf)
    doc = parse_file(pdf)
    assert doc.page_starts is not None
    assert outline(doc) == [(h.depth, h.title) for h in placed]
    got = [doc.pages_for(s.char_start, s.char_end) for s in sections(doc)]
    assert got == expected_pages(placed, doc)


FIXTURES = REPO / "fixtures"
QUESTIONS = FIXTURES / "questions.jsonl"


def heading_paths(section: Section, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Section]:
    paths: dict[tuple[str, ...], Section] = {}
    for child in section.children:
        path = (*prefix, child.title or "")
        paths[path] = child
        paths.update(heading_paths(child, path))
    return paths


@pytest.mark.skipif(
    not (QUESTIONS.exists() and SAMPLE_MD.exists()), reason="sample fixtures not written yet"
)
def test_sample_fixtures_gold_sections_exist(tmp_path: Path) -> None:
    """Every gold heading path of the evaluation questions is a section, holding its evidence."""
    pdf = tmp_path / "cnc-m500.pdf"
    build_pdf(SAMPLE_MD.read_text(encoding="utf-8"), pdf)
    docs = {pdf.name: parse_file(pdf)}
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        gold = json.loads(line)["gold"]
        source = gold["source"]
        if source not in docs:
            docs[source] = parse_file(FIXTURES / source)
        section = heading_paths(docs[source].root).get(tuple(gold["heading_path"]))
        assert section is not None, gold["heading_path"]
        body = " ".join(docs[source].text[section.body_start : section.body_end].split())
        assert " ".join(gold["evidence"].split()) in body, (source, gold["evidence"])
    transcript = FIXTURES / "field-service-call.txt"
    if transcript.exists():
        assert parse_file(transcript).root.children == []


_TEXINFO_FOOTNOTES = """<html><body>
<div class="chapter"><h2 class="chapter">7 Architecture</h2>
<p>The library is kept in a version control system<a id="DOCF3" href="#FOOT3"><sup>3</sup></a>.</p>
<div class="footnote"><hr><h4 class="footnotes-heading">Footnotes</h4>
<h5><a id="FOOT3" href="#DOCF3">(3)</a></h5>
<p>A version control system available for many platforms</p>
</div></div>
<div class="section"><h3 class="section">7.1 Release notes</h3><p>Released in 2020.</p>
<h4>3</h4><p>A heading of digits alone that links nowhere is still a heading.</p></div>
</body></html>"""


def test_html_a_pages_footnotes_are_its_text_not_sections(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "Architecture.html", _TEXINFO_FOOTNOTES))
    assert outline(doc) == [(1, "7 Architecture"), (2, "7.1 Release notes"), (3, "3")]
    chapter = sections(doc)[0]
    body = doc.text[chapter.body_start : chapter.body_end]
    assert "A version control system available for many platforms" in body
    assert "Footnotes" in body
    assert_well_formed(doc)
