"""Generated indexes of terms in an HTML manual are reported, not read (docs/html-manuals.md)."""

from __future__ import annotations

from pathlib import Path

from indexer.manual_site import SiteReading
from indexer.sources import read_html_manual

_DOXYGEN = '<meta name="generator" content="Doxygen 1.9.4"/>'


def _page(title: str, body: str) -> str:
    return (
        f"<html><head>{_DOXYGEN}<title>Lib: {title}</title></head><body>"
        '<div id="projectname">Lib</div>'
        f'<div class="headertitle"><div class="title">{title}</div></div>{body}</body></html>'
    )


def _entries(names: list[str]) -> str:
    # Doxygen's member index: the term, then a link to where it is documented
    return "".join(
        f'<li>{n}\n: <a class="el" href="group__api.html#ga{i}">lib.c</a></li>'
        for i, n in enumerate(names)
    )


def _site(tmp_path: Path, globals_body: str) -> SiteReading:
    site = tmp_path / "html"
    site.mkdir()
    (site / "menudata.js").write_text(
        "var menudata={children:["
        '{text:"Main Page",url:"index.html"},'
        '{text:"Modules",url:"group__api.html"},'
        '{text:"Globals",url:"globals.html"}]}'
    )
    (site / "index.html").write_text(
        _page("Lib", "<h2>Introduction</h2><p>Lib stores keys in a file.</p>")
    )
    (site / "group__api.html").write_text(
        _page(
            "Lib API",
            '<h2>Function Documentation</h2><h2><a id="ga0"></a>lib_open()</h2>'
            "<p>Open a store before any other call.</p>"
            '<h2><a id="ga1"></a>lib_close()</h2><p>Close the store and free its memory.</p>',
        )
    )
    (site / "globals.html").write_text(_page("Globals", globals_body))
    found = read_html_manual([site])
    assert found is not None
    return found[0]


def test_a_list_of_terms_linking_to_where_they_are_documented_is_an_index(
    tmp_path: Path,
) -> None:
    # the links are the file names after each term, not most of the page's text, yet every
    # entry is a term pointing into another page
    reading = _site(
        tmp_path,
        '<div class="textblock">Here is a list of all documented functions with links to '
        'the documentation:</div><h3><a id="index_l"></a>- l -</h3><ul>'
        f"{_entries(['lib_open()', 'lib_close()'])}</ul>",
    )
    refused = dict(reading.refused)
    assert "generated index" in refused["globals.html"]
    assert "globals.html" not in [p.name for p in reading.pages]
    assert "group__api.html" in [p.name for p in reading.pages]


def test_a_page_with_a_sentence_of_its_own_beside_such_a_list_stays_a_page(
    tmp_path: Path,
) -> None:
    reading = _site(
        tmp_path,
        "<p>Every global of the library is declared in lib.h. Link against it with -llib.</p>"
        f"<ul>{_entries(['lib_open()', 'lib_close()'])}</ul>",
    )
    assert "globals.html" not in dict(reading.refused)
    assert "globals.html" in [p.name for p in reading.pages]


def test_a_list_of_whole_pages_is_no_index_of_terms(tmp_path: Path) -> None:
    # links to pages, not to places in them: a contents list (its entries are the outline)
    reading = _site(
        tmp_path,
        '<ul><li>Lib API: <a href="group__api.html">lib.c</a></li></ul>',
    )
    assert "generated index (" not in dict(reading.refused).get("globals.html", "")
