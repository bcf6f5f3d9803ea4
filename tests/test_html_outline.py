"""The outline of an HTML manual from its generator's own contents (docs/html-manuals.md)."""

from __future__ import annotations

from pathlib import Path

from indexer.manual import ManualPage, parse_manual
from indexer.sources import read_html_manual

_SPHINX = '<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />'


def _chapters(site: Path) -> list[str | None]:
    found = read_html_manual([site])
    assert found is not None
    reading, _ = found
    pages = [ManualPage(p.name, p.data, p.parent, title=p.title) for p in reading.pages]
    doc = parse_manual(
        pages, front=True, front_sections=reading.start_sections, furniture=reading.furniture
    )
    return [c.title for c in doc.root.children]


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
        '<li><a href="index.html">Overview</a></li>'
        '<li><a href="reference.html">Reference</a></li></ul></nav></li></ul></nav>'
    )
    head = '<script src="search/main.js"></script>'
    (site / "index.html").write_text(_page("this-plugin", f"{menu}<h2>Usage</h2><p>Use.</p>", head))
    (site / "reference.html").write_text(_page("Reference", f"{menu}<p>All options.</p>", head))
    assert _chapters(site) == ["Usage", "Reference"]
