"""The outline of an HTML manual from its generator's own contents (docs/html-manuals.md)."""

from __future__ import annotations

from pathlib import Path

from indexer.manual import ManualPage, parse_manual
from indexer.manual_site import SiteReading
from indexer.parsers.base import ParsedDocument
from indexer.sources import read_html_manual

_SPHINX = '<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />'


def _manual(site: Path) -> ParsedDocument:
    found = read_html_manual([site])
    assert found is not None
    reading, _ = found
    pages = [ManualPage(p.name, p.data, p.parent, title=p.title) for p in reading.pages]
    return parse_manual(
        pages,
        title=reading.title,
        front=True,
        front_sections=reading.start_sections,
        chapters_from=reading.chapters_from,
        furniture=reading.furniture,
    )


def _chapters(site: Path) -> list[str | None]:
    return [c.title for c in _manual(site).root.children]


def _reading(site: Path) -> SiteReading:
    found = read_html_manual([site])
    assert found is not None
    return found[0]


def _page(title: str, body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><h1>{title}</h1>{body}</body></html>"


def test_sphinx_chapters_are_the_root_toctrees_pages_not_the_start_pages_sections(
    tmp_path: Path,
) -> None:
    site = tmp_path / "tutorial"
    site.mkdir()
    toctree = (
        '<div class="toctree-wrapper compound"><ul>'
        '<li class="toctree-l1"><a href="one.html">Step 1: Start</a></li>'
        '<li class="toctree-l1"><a href="two.html">Step 2: Grow</a></li></ul></div>'
    )
    (site / "index.html").write_text(
        _page("Tutorial", f"<h2>Introduction</h2><p>Why.</p><h2>Steps</h2>{toctree}", _SPHINX)
    )
    (site / "one.html").write_text(_page("Step 1: Start", "<p>Begin here.</p>", _SPHINX))
    (site / "two.html").write_text(_page("Step 2: Grow", "<p>Then grow.</p>", _SPHINX))
    assert _chapters(site) == ["Step 1: Start", "Step 2: Grow"]


def test_mkdocs_the_menu_section_holding_the_start_page_is_the_manual_itself(
    tmp_path: Path,
) -> None:
    site = tmp_path / "plugin"
    site.mkdir()
    menu = (
        '<nav class="md-nav"><ul>'
        '<li><a href="https://example.org/other/">other-plugin</a></li>'
        '<li><label>this-plugin <span></span></label><nav class="md-nav">'
        "<label>this-plugin</label><ul>"
        '<li><a href="index.html">Overview</a>'
        '<ul><li><a href="#usage">Usage</a></li></ul></li>'
        '<li><a href="reference.html">Reference</a></li></ul></nav></li></ul></nav>'
    )
    head = '<script src="search/main.js"></script>'
    (site / "index.html").write_text(
        _page("this-plugin", f'{menu}<h2 id="usage">Usage</h2><p>Use.</p>', head)
    )
    (site / "reference.html").write_text(_page("Reference", f"{menu}<p>All options.</p>", head))
    assert _chapters(site) == ["Usage", "Reference"]


def test_mkdocs_a_start_page_listed_beside_the_chapters_keeps_its_sections(
    tmp_path: Path,
) -> None:
    site = tmp_path / "project"
    site.mkdir()
    menu = (
        '<nav><ul><li><a href="index.html">Home</a></li>'
        '<li><a href="guide.html">Guide</a></li></ul></nav>'
    )
    head = '<script src="search/main.js"></script>'
    (site / "index.html").write_text(
        _page("Project", f"{menu}<h2>Features</h2><p>Fast.</p><h2>Support</h2><p>Ask.</p>", head)
    )
    (site / "guide.html").write_text(_page("Guide", f"{menu}<p>How to use it.</p>", head))
    doc = _manual(site)
    assert [c.title for c in doc.root.children] == ["Guide"]
    assert "Fast." in doc.text[doc.root.body_start : doc.root.body_end]  # the front matter


def test_mkdocs_without_a_menu_reads_the_site_map_and_sub_folder_indexes(
    tmp_path: Path,
) -> None:
    site = tmp_path / "docs"
    (site / "extensions").mkdir(parents=True)
    head = '<script src="search/main.js"></script>'
    home = '<div class="related"><a href="{up}index.html">Project documentation</a></div>'
    (site / "index.html").write_text(
        _page("Project", home.format(up="") + "<h2>Goals</h2><p>Be simple.</p>", head)
    )
    (site / "sitemap.html").write_text(
        _page(
            "Sitemap",
            '<ul><li><a href="index.html">Project</a></li>'
            '<li><a href="install.html">Installation</a></li>'
            '<li><a href="extensions/index.html">Extensions</a></li>'
            '<li><a href="extensions/tables.html">Tables</a></li></ul>',
            head,
        )
    )
    (site / "install.html").write_text(_page("Installing", "<p>Run pip.</p>", head))
    for name, title in (("index.html", "Extensions"), ("tables.html", "Tables")):
        body = home.format(up="../") + f"<p>About {title.lower()}.</p>"
        (site / "extensions" / name).write_text(_page(title, body, head))
    reading = _reading(site)
    assert [p.name for p in reading.pages] == [
        "index.html",
        "install.html",
        "extensions/index.html",
        "extensions/tables.html",
    ]
    assert [n for n, _ in reading.refused] == ["sitemap.html"]
    assert _chapters(site) == ["Installing", "Extensions", "Tables"]


def test_mkdocs_a_folders_index_heads_the_pages_of_its_folder_it_cites(tmp_path: Path) -> None:
    site = tmp_path / "docs"
    (site / "changes").mkdir(parents=True)
    head = '<script src="search/main.js"></script>'
    (site / "index.html").write_text(_page("Project", "<h2>Goals</h2><p>Be simple.</p>", head))
    names = ["index", "v2", "v1", "policy"]
    (site / "sitemap.html").write_text(
        _page(
            "Sitemap",
            "<ul>"
            + "".join(f'<li><a href="changes/{n}.html">{n}</a></li>' for n in names)
            + '<li><a href="authors.html">Authors</a></li></ul>',
            head,
        )
    )
    (site / "changes" / "index.html").write_text(
        _page(
            "Change Log",
            '<p>Version 2 (<a href="v2.html">notes</a>).</p>'
            '<p>Version 1 (<a href="v1.html">notes</a>).</p>',
            head,
        )
    )
    for name in ("v2", "v1", "policy"):
        (site / "changes" / f"{name}.html").write_text(
            _page(f"Notes {name}", f"<p>What {name} says.</p>", head)
        )
    (site / "authors.html").write_text(_page("Authors", "<p>Ann wrote it.</p>", head))
    reading = _reading(site)
    parents = {p.name: p.parent for p in reading.pages}
    # the release notes the change log cites nest under it; a page it does not cite stays
    assert parents["changes/v2.html"] == parents["changes/v1.html"] == "changes/index.html"
    assert parents["changes/policy.html"] is None and parents["authors.html"] is None
    assert _chapters(site) == ["Goals", "Change Log", "Notes policy", "Authors"]


def test_a_sub_folder_index_not_leading_back_is_another_site(tmp_path: Path) -> None:
    site = tmp_path / "docs"
    (site / "example").mkdir(parents=True)
    (site / "index.html").write_text(
        _page("Manual", '<ul><li><a href="guide.html">Guide</a></li></ul><p>Intro.</p>')
    )
    (site / "guide.html").write_text(_page("Guide", "<p>Use it.</p>"))
    (site / "example" / "index.html").write_text(_page("Example", "<p>Its own site.</p>"))
    reasons = dict(_reading(site).refused)
    assert reasons["example/index.html"].startswith("part of another site in the folder")


def _javadoc(title: str, body: str) -> str:
    return (
        f"<html><head><!-- Generated by javadoc --><title>{title}</title></head>"
        f"<body>{body}</body></html>"
    )


def test_javadoc_frameset_is_followed_to_its_content_frame(tmp_path: Path) -> None:
    site = tmp_path / "api"
    (site / "pkg").mkdir(parents=True)
    (site / "index.html").write_text(
        "<html><head><!-- Generated by javadoc --><title>Lib API</title></head>"
        '<frameset cols="20%,80%"><frameset rows="30%,70%">'
        '<frame src="overview-frame.html" name="packageListFrame">'
        '<frame src="allclasses-frame.html" name="packageFrame"></frameset>'
        '<frame src="overview-summary.html" name="classFrame"></frameset></html>'
    )
    (site / "overview-frame.html").write_text(
        _javadoc("Overview", '<a href="pkg/package-frame.html" target="packageFrame">pkg</a>')
    )
    (site / "allclasses-frame.html").write_text(
        _javadoc(
            "All Classes",
            '<a href="pkg/A.html" target="classFrame">A</a> '
            '<a href="pkg/B.html" target="classFrame">B</a>',
        )
    )
    (site / "pkg" / "package-frame.html").write_text(
        _javadoc("pkg", '<a href="A.html" target="classFrame">A</a>')
    )
    (site / "overview-summary.html").write_text(
        _javadoc(
            "Overview",
            '<h2>lib</h2><p>A library.</p><table><tr><td><a href="pkg/package-summary.html">'
            "pkg</a></td><td>The package.</td></tr></table><h1>Overview</h1><p>Details.</p>",
        )
    )
    (site / "pkg" / "package-summary.html").write_text(
        _javadoc(
            "pkg",
            '<h2>Package pkg</h2><p>Classes: <a href="A.html">A</a>, <a href="B.html">B</a>.</p>',
        )
    )
    for name in ("A", "B"):
        (site / "pkg" / f"{name}.html").write_text(
            _javadoc(name, f"<h2>Class {name}</h2><p>What {name} does.</p>")
        )
    reading = _reading(site)
    assert reading.generator == "javadoc"
    assert reading.start == "overview-summary.html"
    assert "index.html" in dict(reading.refused)
    doc = _manual(site)
    assert doc.title == "Lib API"
    assert [c.title for c in doc.root.children] == ["Package pkg"]
    assert [c.title for c in doc.root.children[0].children] == ["Class A", "Class B"]


_DOXYGEN = '<meta name="generator" content="Doxygen 1.9.4"/>'


def test_doxygen_menu_bar_orders_chapters_and_nests_submenus(tmp_path: Path) -> None:
    site = tmp_path / "html"
    site.mkdir()
    (site / "menudata.js").write_text(
        "var menudata={children:["
        '{text:"Main Page",url:"index.html"},'
        '{text:"Modules",url:"modules.html"},'
        '{text:"Data Structures",url:"annotated.html",children:['
        '{text:"Data Structures",url:"annotated.html"},'
        '{text:"Data Fields",url:"functions.html"}]}]}'
    )

    def page(title: str, body: str) -> str:
        return (
            f"<html><head>{_DOXYGEN}<title>Lib: {title}</title></head><body>"
            '<div id="projectname">Lib</div>'
            f'<div class="headertitle"><div class="title">{title}</div></div>{body}</body></html>'
        )

    (site / "index.html").write_text(
        page(
            "The Lib Library",
            "<h1>The Lib Library</h1><h2>Introduction</h2><p>Lib stores keys.</p>"
            "<h2>Caveats</h2><p>Locks.</p>",
        )
    )
    (site / "modules.html").write_text(page("Modules", "<p>The modules of the library.</p>"))
    (site / "annotated.html").write_text(page("Data Structures", "<p>The structures here.</p>"))
    (site / "functions.html").write_text(page("Data Fields", "<p>The fields of structures.</p>"))
    doc = _manual(site)
    assert doc.title == "Lib"
    # "Main Page" is the root of Doxygen's tree: its sections are the first chapters
    assert [c.title for c in doc.root.children] == [
        "Introduction",
        "Caveats",
        "Modules",
        "Data Structures",
    ]
    assert [c.title for c in doc.root.children[3].children] == ["Data Fields"]


def _doxygen_page(title: str, body: str) -> str:
    return (
        f"<html><head>{_DOXYGEN}<title>Lib: {title}</title>"
        "<script>var searchBox = new SearchBox('searchBox', 'search', false, 'Search');"
        "$(function() { initMenu('', true, false, 'search.php', 'Search'); });</script>"
        f'</head><body><div class="headertitle"><div class="title">{title}</div></div>'
        f"{body}</body></html>"
    )


def test_a_page_only_listing_the_pages_below_it_is_a_group_of_the_outline(
    tmp_path: Path,
) -> None:
    site = tmp_path / "html"
    site.mkdir()
    (site / "menudata.js").write_text(
        "var menudata={children:["
        '{text:"Main Page",url:"index.html"},'
        '{text:"Modules",url:"modules.html"}]}'
    )
    # the main page refers to a module's page in a sentence before the module list names it
    (site / "index.html").write_text(
        _doxygen_page(
            "Lib",
            "<h1>Lib</h1><h2>Introduction</h2><p>Lib stores keys; see "
            '<a href="group__env.html">the environment</a> for its flags.</p>'
            "<h2>Caveats</h2><p>One writer at a time.</p>",
        )
    )
    rows = "".join(
        f'<tr><td class="entry"><span class="arrow">&#9660;</span>'
        f'<a class="el" href="group__{n}.html">{t}</a></td><td class="desc">{d}</td></tr>'
        for n, t, d in [("api", "Lib API", "The public API."), ("env", "Environment", "")]
    )
    (site / "modules.html").write_text(
        _doxygen_page(
            "Modules",
            f'<div class="textblock">Here is a list of all modules:</div><table>{rows}</table>',
        )
    )
    for name, title, text in [
        ("api", "Lib API", "Open a store with lib_open before any call."),
        ("env", "Environment", "The environment flags change how a store is opened."),
    ]:
        (site / f"group__{name}.html").write_text(
            _doxygen_page(title, f"<h2>Detailed Description</h2><p>{text}</p>")
        )
    reading = _reading(site)
    assert "modules.html" in dict(reading.refused)
    groups = [p for p in reading.pages if p.title is not None]
    assert [g.title for g in groups] == ["Modules"]
    below = [p.name for p in reading.pages if p.parent == groups[0].name]
    assert below == ["group__api.html", "group__env.html"]  # listed, not cross-referenced
    doc = _manual(site)
    assert [c.title for c in doc.root.children] == ["Introduction", "Caveats", "Modules"]
    assert "Here is a list" not in doc.text


def test_a_chapter_page_introducing_its_sections_in_a_sentence_stays_a_page(
    tmp_path: Path,
) -> None:
    site = tmp_path / "html"
    site.mkdir()
    (site / "menudata.js").write_text(
        'var menudata={children:[{text:"Main Page",url:"index.html"},'
        '{text:"Guides",url:"guides.html"}]}'
    )
    (site / "index.html").write_text(_doxygen_page("Lib", "<p>Lib stores keys.</p>"))
    (site / "guides.html").write_text(
        _doxygen_page(
            "Guides",
            "<p>These guides walk through a store's life.</p>"
            '<table><tr><td><a href="start.html">Starting</a></td></tr></table>',
        )
    )
    (site / "start.html").write_text(_doxygen_page("Starting", "<p>Call lib_open first.</p>"))
    reading = _reading(site)
    assert [p.name for p in reading.pages] == ["index.html", "guides.html", "start.html"]
    assert "These guides walk through a store's life." in _manual(site).text


def test_docbook_title_page_authors_are_no_chapters(tmp_path: Path) -> None:
    site = tmp_path / "guide"
    site.mkdir()
    meta = '<meta name="generator" content="DocBook XSL Stylesheets V1.79.2"/>'

    def page(body: str, up: str = "") -> str:
        link = f'<a accesskey="u" href="{up}">Up</a>' if up else ""
        return f"<html><head>{meta}</head><body>{link}{body}</body></html>"

    (site / "index.html").write_text(
        page(
            '<div class="titlepage"><h1 class="title">The Guide</h1>'
            '<div class="authorgroup"><div class="author"><h3 class="author">Ann Writer</h3>'
            '</div></div></div><div class="toc"><a href="ch01.html">1. Start</a></div>'
        )
    )
    (site / "ch01.html").write_text(
        page('<h2 class="title">Chapter 1. Start</h2><p>Begin.</p>', up="index.html")
    )
    doc = _manual(site)
    assert doc.title == "The Guide"
    assert [c.title for c in doc.root.children] == ["Chapter 1. Start"]
    assert "Ann Writer" in doc.text


def test_a_start_page_given_reads_what_its_contents_reach_not_the_documents_it_cites(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "html"
    folder.mkdir()
    meta = '<meta name="generator" content="Asciidoctor 2.0.18"/>'

    def page(body: str) -> str:
        return f"<html><head>{meta}</head><body>{body}</body></html>"

    (folder / "index.html").write_text(
        page(
            '<h1>FAQ</h1><ul><li><a href="extra.html">Extra answers</a></li></ul>'
            '<h2>1. Buffers</h2><p>See the <a href="user.html">user\'s guide</a> on buffers.</p>'
            "<h2>2. Keys</h2><p>Alt+j jumps to a buffer.</p>"
        )
    )
    (folder / "extra.html").write_text(page("<h1>Extra</h1><p>More answers here.</p>"))
    (folder / "user.html").write_text(page("<h1>User's guide</h1><p>Buffers hold lines.</p>"))
    found = read_html_manual([folder / "index.html"])
    assert found is not None
    assert [p.name for p in found[0].pages] == ["index.html", "extra.html"]
    # the same folder given whole: every page is read, the cited one under its citing page
    whole = _reading(folder)
    assert sorted(p.name for p in whole.pages) == ["extra.html", "index.html", "user.html"]


def test_mkdocs_a_labelled_section_after_a_folders_index_stays_beside_it(tmp_path: Path) -> None:
    site = tmp_path / "docs"
    (site / "ext").mkdir(parents=True)
    head = '<script src="search/main.js"></script>'
    (site / "index.html").write_text(_page("Project", "<h2>Goals</h2><p>Be simple.</p>", head))
    (site / "sitemap.html").write_text(
        _page(
            "Sitemap",
            '<ul><li><a href="ext/index.html">Extensions</a></li>'
            '<li>Bundled<ul><li><a href="ext/tables.html">Tables</a></li></ul></li>'
            '<li><a href="ext/api.html">Extension API</a></li></ul>',
            head,
        )
    )
    (site / "ext" / "index.html").write_text(
        _page(
            "Extensions",
            '<p>Bundled: <a href="tables.html">tables</a>.</p>'
            '<p>Write your own with <a href="api.html">the API</a>.</p>',
            head,
        )
    )
    for name, title in (("tables", "Tables"), ("api", "Writing Extensions")):
        (site / "ext" / f"{name}.html").write_text(_page(title, f"<p>About {name}.</p>", head))
    reading = _reading(site)
    parents = {p.name: p.parent for p in reading.pages}
    # the nav's own section is a level its author chose: it and the pages after it stay
    # beside the folder's index though the index cites them
    assert parents["ext/tables.html"] != "ext/index.html" and parents["ext/api.html"] is None
    assert _chapters(site) == ["Goals", "Extensions", "Bundled", "Writing Extensions"]


def test_the_start_pages_sections_before_its_own_contents_list_are_front_matter(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    meta = '<meta name="generator" content="Asciidoctor 2.0.18">'
    contents = "".join(
        f'<li><a href="#{a}">{t}</a></li>' for a, t in (("intro", "Intro"), ("use", "Use"))
    )
    (site / "index.html").write_text(
        _page(
            "Tool",
            '<h2 id="links">1. Related Links</h2><p>All pages are on the '
            '<a href="guide.html">guide</a>.</p>'
            f'<h2 id="toc">2. Table of Contents</h2><ul>{contents}</ul>'
            '<h2 id="intro">3. Intro</h2><p>What it is.</p>'
            '<h2 id="use">4. Use</h2><p>How to run it.</p>',
            meta,
        )
    )
    (site / "guide.html").write_text(_page("Guide", "<p>The guide.</p>", meta))
    reading = _reading(site)
    assert reading.chapters_from == "3. Intro"
    chapters = _chapters(site)
    assert chapters[:2] == ["3. Intro", "4. Use"] and "1. Related Links" not in chapters
    # the sections left out are the front matter's text, not lost
    assert "All pages are on the guide." in _manual(site).text
