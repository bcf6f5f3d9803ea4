"""Furniture and chrome of HTML manuals: what repeats at a page's edge or only points elsewhere
goes; what repeats inside a page's own text stays (docs/html-manuals.md)."""

from __future__ import annotations

from pathlib import Path

from indexer.manual import ManualPage, parse_manual
from indexer.parsers.html import parse_html
from indexer.sources import read_html_manual


def _step(n: int, own: str) -> str:
    return (
        "<html><body>"
        '<div class="top"><a href="index.html">Widget tutorial</a> version 2.1 of the guide</div>'
        f"<h1>Step {n}: {own.title()}</h1>"
        f"<p>This step covers {own} in detail, unlike any other step.</p>"
        "<p>Build the project, then run the tests from the build folder.</p>"
        f"<p>The {own} work ends here; the next step builds on it.</p>"
        '<div class="foot">Copyright 2024 the widget authors, all rights reserved.</div>'
        "</body></html>"
    )


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "guide"
    site.mkdir()
    names = ["valves", "pumps", "seals", "gauges"]
    links = "".join(f'<li><a href="s{i}.html">Step {i}</a></li>' for i in range(1, 5))
    (site / "index.html").write_text(
        f"<html><body><h1>Widget tutorial</h1><p>Four steps.</p><ol>{links}</ol></body></html>"
    )
    for i, own in enumerate(names, start=1):
        (site / f"s{i}.html").write_text(_step(i, own))
    return site


def _text(site: Path) -> str:
    found = read_html_manual([site])
    assert found is not None
    reading, _ = found
    pages = [ManualPage(p.name, p.data, p.parent, title=p.title) for p in reading.pages]
    return parse_manual(pages, front=True, furniture=reading.furniture).text


def test_a_block_repeated_at_the_pages_edges_is_furniture(tmp_path: Path) -> None:
    text = _text(_site(tmp_path))
    assert "Copyright" not in text and "version 2.1 of the guide" not in text
    assert text.count("This step covers") == 4


def test_a_block_repeated_inside_the_pages_own_text_stays(tmp_path: Path) -> None:
    # the same instruction on every step, between the step's own paragraphs: the manual's text
    text = _text(_site(tmp_path))
    assert text.count("Build the project, then run the tests from the build folder.") == 4


def test_a_repeated_block_around_a_pages_title_keeps_the_title(tmp_path: Path) -> None:
    site = _site(tmp_path)
    # a package page: its header block holds only its title, which is also the line above
    # every class of the package
    for i in range(1, 5):
        page = (site / f"s{i}.html").read_text()
        page = page.replace('<div class="top">', '<div class="pkg">Package widgets.core</div><div>')
        (site / f"s{i}.html").write_text(page)
    (site / "p.html").write_text(
        '<html><body><div class="header"><h1>Package widgets.core</h1></div>'
        "<p>The core classes of the widgets.</p></body></html>"
    )
    index = (
        (site / "index.html").read_text().replace("</ol>", '<li><a href="p.html">P</a></li></ol>')
    )
    (site / "index.html").write_text(index)
    text = _text(site)
    assert text.count("Package widgets.core") == 1  # the package page's title, not each class's


def test_a_skip_link_to_the_pages_main_heading_is_chrome() -> None:
    page = (
        b'<html><body><div><a href="#intro" class="x">Skip to content</a></div>'
        b'<div class="menu">Site</div><article><h1>Title</h1><h2 id="intro">Intro</h2>'
        b'<p>The body text. See <a href="#later">later</a>.</p><h2 id="later">Later</h2>'
        b"<p>More.</p></article></body></html>"
    )
    text = parse_html(page, filename="p.html").text
    assert "Skip to content" not in text
    assert "See later." in text  # a link inside the text is no skip link


def test_a_lone_link_between_blocks_is_a_pointer_not_text() -> None:
    page = (
        b'<html><body><div class="title">widget.h</div><div class="contents">'
        b'<a href="widget_8h.html">Go to the documentation of this file.</a>'
        b'<div class="fragment"><div class="line">int widget_open(void);</div></div>'
        b'<p>Read <a href="other.html">the other page</a> too.</p></div></body></html>'
    )
    text = parse_html(page, filename="widget_8h_source.html").text
    assert "Go to the documentation" not in text
    assert "int widget_open(void);" in text and "Read the other page too." in text


def test_a_member_summary_row_pointing_further_down_its_own_page_is_chrome() -> None:
    page = (
        b"<html><body><h1>widget.h File Reference</h1><table>"
        b'<tr><td>int</td><td><a href="widget_8h.html#a1">widget_open</a> (void)</td></tr>'
        b'<tr><td>Opens the widget. <a href="#a1">More...</a></td></tr>'
        b'<tr><td>int</td><td><a href="other_8h.html#a2">other_open</a> (void)</td></tr>'
        b'</table><h2><a id="a1"></a>widget_open()</h2><p>int widget_open(void)</p>'
        b"<p>Opens the widget and returns its handle.</p></body></html>"
    )
    text = parse_html(page, filename="src/widget_8h.html").text
    assert "More..." not in text and "Opens the widget. " not in text
    assert text.count("widget_open") == 2  # the member's own heading and declaration
    assert "other_open" in text  # a row leading to another page is no summary of this one


def test_a_member_summary_row_naming_types_of_other_pages_is_chrome() -> None:
    page = (
        b"<html><body><h1>Internals</h1><table>"
        b'<tr><td><a href="group__api.html#val">lib_val</a></td>'
        b'<td><a href="#a7">md_name</a></td></tr>'
        b'</table><h2><a id="a7"></a>md_name</h2><p>The name of the database.</p></body></html>'
    )
    text = parse_html(page, filename="group__internal.html").text
    assert "lib_val" not in text  # the row is the member's summary, its section follows
    assert "The name of the database." in text


def test_a_table_row_of_links_into_the_manual_is_a_contents_row() -> None:
    page = (
        b"<html><body><h1>Lib API</h1><p>The calls of the library.</p><table>"
        b"<tr><td><h2>Modules</h2></td></tr>"
        b'<tr><td>&#160;</td><td><a href="group__version.html">Version Macros</a></td></tr>'
        b'<tr><td>&#160;</td><td><a href="group__env.html">Environment Flags</a></td></tr>'
        b'<tr><td>See</td><td><a href="https://example.org/">the project site</a></td></tr>'
        b"</table></body></html>"
    )
    text = parse_html(page, filename="group__mdb.html").text
    assert "Version Macros" not in text and "Environment Flags" not in text
    assert "Modules" in text and "The calls of the library." in text
    assert "the project site" in text  # a link out of the manual is no contents entry


def test_a_pages_script_code_does_not_hide_that_it_is_an_index(tmp_path: Path) -> None:
    site = tmp_path / "html"
    site.mkdir()
    script = "<script>" + "var searchBox = new SearchBox('search', false, 'Search'); " * 40
    entries = "".join(f'<a href="p{i}.html">Page {i}</a> ' for i in range(24))
    (site / "index.html").write_text(
        "<html><body><h1>Lib</h1><p>Lib stores keys.</p>"
        + "".join(f'<p>See <a href="p{i}.html">page {i}</a> for part {i}.</p>' for i in range(24))
        + '<p><a href="classes.html">Index</a> of all.</p></body></html>'
    )
    for i in range(24):
        (site / f"p{i}.html").write_text(
            f"<html><body><h1>Page {i}</h1><p>Part {i} of the library.</p></body></html>"
        )
    (site / "classes.html").write_text(
        f"<html><head>{script}</script></head><body>{script}</script>"
        f"<h1>Data Structure Index</h1><div>{entries}</div></body></html>"
    )
    found = read_html_manual([site])
    assert found is not None
    reasons = dict(found[0].refused)
    assert reasons["classes.html"].startswith("a generated index or contents page")


def test_a_repeated_author_credit_in_a_definition_list_is_furniture(tmp_path: Path) -> None:
    site = tmp_path / "api"
    site.mkdir()
    (site / "index.html").write_text(
        "<html><body><h1>API</h1><p>The classes.</p><ul>"
        + "".join(f'<li><a href="c{i}.html">Class C{i}</a></li>' for i in range(4))
        + "</ul></body></html>"
    )
    kinds = ["public", "system", "delegate", "rewrite"]
    for i, kind in enumerate(kinds):
        (site / f"c{i}.html").write_text(
            f"<html><body><h2>Class C{i}</h2><p>C{i} parses {kind} catalog entries.</p>"
            "<dl><dt><b>Author:</b></dt><dd>Ann Writer "
            '<a href="mailto:ann@example.org">ann@example.org</a></dd></dl>'
            f"<h3>Method Detail</h3><p>It resolves a {kind} identifier.</p></body></html>"
        )
    text = _text(site)
    assert "ann@example.org" not in text
    assert all(f"It resolves a {kind} identifier." in text for kind in kinds)


def test_a_short_block_after_the_pages_text_is_its_colophon_not_text() -> None:
    page = (
        b'<html><body><div id="header"><h1>tool(1)</h1></div><div id="content">'
        b"<h2>Author</h2><p>Written by Ann.</p></div>"
        b'<div id="footnotes"><div class="footnote"><a href="#ref1">1</a>. See RFC 5905</div>'
        b'</div><div id="footer"><div>Version 4.7.5<br>Last updated 2023-03-23 07:39:58 UTC'
        b"</div></div></body></html>"
    )
    text = parse_html(page, filename="manual.html").text
    assert "Last updated" not in text and "Version 4.7.5" not in text
    assert "Written by Ann." in text and "See RFC 5905" in text  # a footnote links back


def test_the_text_after_a_heading_standing_alone_is_no_colophon() -> None:
    page = (
        b"<html><body><h1>Tool</h1><p>Lists.</p><div><h2>Authors</h2></div><p>Ann and Bob</p>"
        b"<p>Carl</p></body></html>"
    )
    text = parse_html(page, filename="manual.html").text
    assert "Ann and Bob" in text and "Carl" in text


def test_a_line_of_links_to_the_pages_own_sections_is_its_contents_not_text() -> None:
    page = (
        b'<html><body><div class="summary"><a href="#define-members">Macros</a> &#124;\n'
        b'<a href="#func-members">Functions</a></div><h1>widget.h File Reference</h1>'
        b'<h2><a id="define-members"></a>Macros</h2><p>WIDGET_MAX bounds the widgets.</p>'
        b'<h2><a id="func-members"></a>Functions</h2>'
        b'<p>See <a href="#define-members">WIDGET_MAX</a> | <a href="#x">widget_open</a>.</p>'
        b'<p>An <a href="#a">ipv4_address</a> or <a href="#b">ipv6_address</a></p>'
        b"</body></html>"
    )
    text = parse_html(page, filename="widget_8h.html").text
    assert "Macros | Functions" not in text and "Macros |" not in text
    # links to its own anchors inside a sentence are text
    assert "See WIDGET_MAX | widget_open." in text
    assert "An ipv4_address or ipv6_address" in text


def test_a_line_of_links_with_only_separators_is_navigation_wherever_they_lead() -> None:
    page = (
        b'<html><body><p class="menu"><a href="./mod/index.html">Modules</a> |'
        b' <a href="./mod/quickreference.html">Directives</a> |'
        b' <a href="https://example.org/faq">FAQ</a> | <a href="./glossary.html">Glossary</a></p>'
        b'<div id="path"><a href="https://example.org/">Example</a> &gt;'
        b' <a href="https://example.org/server/">Server</a> &gt;'
        b' <a href="./index.html">Version 2.4</a></div>'
        b"<h1>Environment Variables</h1>"
        b'<p><span>Available Languages: </span><a href="../en/env.html">&#160;en&#160;</a> |'
        b' <a href="../fr/env.html">&#160;fr&#160;</a> |'
        b' <a href="../ja/env.html">&#160;ja&#160;</a></p>'
        b"<p>There are two kinds of environment variables.</p>"
        b'<p>Set them with <a href="a.html">SetEnv</a>, <a href="b.html">PassEnv</a> and'
        b' <a href="c.html">UnsetEnv</a>.</p>'
        b"</body></html>"
    )
    text = parse_html(page, filename="env.html").text
    for chrome in ("Modules", "Glossary", "Server", "Version 2.4", "Available Languages"):
        assert chrome not in text, text
    assert "There are two kinds of environment variables." in text
    # links set in a sentence are its words, however many
    assert "Set them with SetEnv, PassEnv and UnsetEnv." in text


def test_a_one_section_chapter_contents_is_no_text() -> None:
    html = (
        b"<html><body><h1>Chapter 8. Submodules</h1><div class='toc'><p><b>Table of Contents</b>"
        b"</p><dl><dt><a href='#pitfalls'>Pitfalls with submodules</a></dt></dl></div>"
        b"<p>Large projects are often composed of smaller modules.</p>"
        b"<div><h2><a name='pitfalls'></a>Pitfalls with submodules</h2>"
        b"<p>Always publish the submodule change first.</p></div>"
        b"<ul><li><a href='#nowhere'>A lone link to no heading</a></li></ul></body></html>"
    )
    text = parse_html(html, filename="ch08.html").text
    assert "Table of Contents" not in text
    assert text.count("Pitfalls with submodules") == 1
    assert "A lone link to no heading" in text


def test_a_headed_list_of_the_pages_own_sections_goes_with_its_heading() -> None:
    """Doxygen heads each page's contents with a heading; kept, it became the section the
    page's opening text was read under."""
    html = (
        b"<html><body><h1>Markdown support</h1><div class='toc'><h3>Table of Contents</h3>"
        b"<ul><li><a href='#std'>Standard Markdown</a></li>"
        b"<li><a href='#ext'>Extensions</a></li></ul></div>"
        b"<p>Markdown support was introduced in version 1.8.0.</p>"
        b"<h2><a id='std'></a>Standard Markdown</h2><p>Paragraphs are separated by blank lines.</p>"
        b"<h2><a id='ext'></a>Extensions</h2><p>Tables are an extension.</p></body></html>"
    )
    doc = parse_html(html, filename="markdown.html")
    assert "Table of Contents" not in doc.text
    assert doc.text.count("Standard Markdown") == 1
    top = doc.root.children[0]
    assert [c.title for c in top.children] == ["Standard Markdown", "Extensions"]
    # the opening text is the page's own, above its first section
    opening = doc.text[top.body_start : top.children[0].char_start]
    assert "introduced in version 1.8.0" in opening


def test_a_title_over_the_pages_own_contents_stays() -> None:
    """Asciidoctor puts the page's title, its version line and its contents in one header: the
    title heads more than the contents list, so it stays; the list goes."""
    html = (
        b"<html><body><div id='header'><h1>ccache(1)</h1><div class='details'>version 4.7.5"
        b"</div><div id='toc'><div id='toctitle'>Table of Contents</div><ul>"
        b"<li><a href='#_name'>Name</a></li><li><a href='#_usage'>Usage</a></li></ul></div></div>"
        b"<div id='content'><h2 id='_name'>Name</h2><p>ccache - a fast compiler cache</p>"
        b"<h2 id='_usage'>Usage</h2><p>Prefix the compile command with ccache.</p></div>"
        b"</body></html>"
    )
    text = parse_html(html, filename="manual.html").text
    assert text.startswith("ccache(1)") and "version 4.7.5" in text
    assert "Table of Contents" not in text and text.count("Usage") == 1
