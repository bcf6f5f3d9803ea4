"""A manual of many files ingested as one document; --sync; summaries repeating their child."""

from __future__ import annotations

import shutil
from pathlib import Path

from indexer.index import Index
from indexer.manual import reading_order
from retriever import Retriever
from retriever.request import QueryRequest
from tests.helpers import run_cli, walk

HASHING = {"OVERSTORY_EMBEDDER": "hashing"}
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _chapter(n: int, topic: str) -> str:
    sentences = " ".join(
        f"Step {i} of the {topic} procedure checks part {n}{i:02d} against its limit of "
        f"{i * 3 + n} millimetres before the next step begins."
        for i in range(1, 9)
    )
    return (
        f"# {n} {topic.title()}\n\nThe {topic} chapter explains how the {topic} works.\n\n"
        f"## {n}.1 {topic.title()} checks\n\n{sentences}\n\n"
        f"## {n}.2 {topic.title()} records\n\nRecord every {topic} reading in the log. "
        f"Keep the {topic} log for five years and show it to the inspector on request.\n"
    )


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "pump-manual"
    folder.mkdir()
    for n, topic in enumerate(("intake", "impeller", "seals"), start=1):
        (folder / f"{n:02d}-{topic}.md").write_text(_chapter(n, topic), encoding="utf-8")
    return folder


def test_a_folder_is_one_manual_with_chapters_in_order(fast_index: Index, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    report = fast_index.ingest_paths([folder], manual=True)
    assert report.ok and [d.doc_id for d in report.documents] == ["pump-manual"]
    tree = fast_index.tree("pump-manual")
    assert tree["level"] == "document" and tree["title"] == "pump-manual"
    assert tree["summary"]  # the manual-level summary
    chapters = [c for c in tree["children"] if c["level"] == "chapter"]
    assert [c["title"] for c in chapters] == ["1 Intake", "2 Impeller", "3 Seals"]
    assert [s["title"] for s in chapters[1]["children"] if s["level"] == "section"] == [
        "2.1 Impeller checks",
        "2.2 Impeller records",
    ]
    row = fast_index.catalog.require_document("pump-manual")
    text = fast_index.catalog.build_text(int(row["current_build"]))
    for node in walk(tree):
        if node["level"] == "passage":
            assert text[node["char_start"] : node["char_end"]] == node["text"]


def test_a_page_edit_recomputes_only_its_path(fast_index: Index, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    first = fast_index.ingest_paths([folder], manual=True)
    page = folder / "02-impeller.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("five years", "six years"), encoding="utf-8"
    )
    edited = fast_index.ingest_paths([folder], manual=True)
    doc = edited.documents[0]
    assert doc.status == "changed"
    # 2.2 Impeller records, 2 Impeller and the manual itself: nothing in the other pages.
    assert edited.summarizer_calls == 3
    assert edited.cache_hits == first.documents[0].summaries - 3


def _page(title: str, body: str, *, nxt: str | None = None, up: str | None = None) -> str:
    links = "".join(
        f'<link rel="{rel}" href="{href}" />' for rel, href in (("next", nxt), ("up", up)) if href
    )
    return (
        f"<html><head><title>{title} — Widget docs</title>{links}</head><body>"
        f'<div class="navheader"><a href="index.html">Home</a></div>'
        f"<h1>{title}</h1><p>{body}</p></body></html>"
    )


def test_an_html_book_follows_next_links_and_nests_by_up(tmp_path: Path) -> None:
    book = tmp_path / "html"
    book.mkdir()
    pages = {
        "index.html": _page("Widget Manual", "About widgets.", nxt="part1.html"),
        "part1.html": _page("I. Basics", "The basics part.", nxt="ch1.html", up="index.html"),
        "ch1.html": _page("1. Setup", "Set the widget up.", nxt="ch2.html", up="part1.html"),
        "ch2.html": _page("2. Use", "Use the widget daily.", nxt="part2.html", up="part1.html"),
        "part2.html": _page("II. Care", "Care for it.", nxt="index.html", up="index.html"),
        "orphan.html": _page("Not linked", "Never reached."),
    }
    for name, html in pages.items():
        (book / name).write_text(html, encoding="utf-8")
    order = reading_order(book / "index.html", Path.read_bytes)
    assert [(p.name, p.parent) for p in order] == [
        ("index.html", None),
        ("part1.html", None),
        ("ch1.html", "part1.html"),
        ("ch2.html", "part1.html"),
        ("part2.html", None),
    ]
    store = tmp_path / "store"
    code, report, _ = run_cli("ingest", str(book), "--manual", "--doc-id", "widget",
                              "--store", str(store), "--json", env=HASHING)  # fmt: skip
    assert code == 0 and [d["doc_id"] for d in report["documents"]] == ["widget"]
    code, tree, _ = run_cli("tree", "widget", "--store", str(store), "--json", env=HASHING)
    assert tree["title"] == "Widget Manual"
    tops = [(c["title"], [g["title"] for g in c["children"] if g["level"] != "passage"])
            for c in tree["children"] if c["level"] != "passage"]  # fmt: skip
    assert tops == [("I. Basics", ["1. Setup", "2. Use"]), ("II. Care", [])]
    assert "Never reached" not in str(tree) and "Home" not in str(tree)


def test_sync_drops_documents_whose_files_are_gone(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("pump-x200.md", "field-service-call.txt"):
        shutil.copy(FIXTURES / name, folder / name)
    store = tmp_path / "store"
    run_cli("ingest", str(folder), "--store", str(store), "--json", env=HASHING)
    (folder / "field-service-call.txt").unlink()
    _, kept, _ = run_cli("ingest", str(folder), "--store", str(store), "--json", env=HASHING)
    assert kept["removed"] == []  # without --sync nothing goes
    _, synced, _ = run_cli("ingest", str(folder), "--sync", "--store", str(store), env=HASHING)
    assert "removed   field-service-call.txt" in synced
    _, docs, _ = run_cli("docs", "--store", str(store), "--json", env=HASHING)
    assert [d["doc_id"] for d in docs["documents"]] == ["pump-x200.md"]


def test_a_summary_repeating_its_only_passage_is_not_indexed(
    fast_index: Index, tmp_path: Path
) -> None:
    doc = tmp_path / "short.md"
    doc.write_text(
        "# Guide\n\n## Alpha\n\nThe alpha valve opens at two bar.\n\n"
        "## Beta\n\nThe beta valve closes at three bar. It is checked weekly. "
        + " ".join(f"Sentence {i} about the beta valve and its spring." for i in range(30))
        + "\n",
        encoding="utf-8",
    )
    fast_index.ingest_paths([doc])
    tree = fast_index.tree("short.md")
    alpha = next(n for n in walk(tree) if n.get("title") == "Alpha")
    assert alpha["summary"]  # kept for browsing and audit
    found = (
        Retriever(fast_index)
        .query(QueryRequest(query="which valve opens at two bar", k=10))
        .to_json()["results"]
    )
    assert any(r["kind"] == "passage" and "alpha valve opens" in r["text"] for r in found)
    assert alpha["node_id"] not in {r["node_id"] for r in found}
    # a summary of several passages is indexed as before
    beta = next(n for n in walk(tree) if n.get("title") == "Beta")
    assert beta["summary"] and len([c for c in beta["children"]]) > 1
    summaries = (
        Retriever(fast_index)
        .query(QueryRequest(query="beta valve spring", k=10, kinds=frozenset({"summary"})))
        .to_json()["results"]
    )
    assert beta["node_id"] in {r["node_id"] for r in summaries}


def test_a_themes_page_footer_is_chrome_and_an_articles_footer_is_content() -> None:
    from indexer.parsers import parse_bytes

    page = (
        "<html><body><section class='wy-nav-content-wrap'><h1>Zones</h1><p>Zone text.</p>"
        "<article><p>Article text.</p><footer>Article footnote.</footer></article>"
        "<footer><div role='navigation'>Previous Next</div><div role='contentinfo'>"
        "<p>Copyright 2026.</p></div>Built with Sphinx.</footer></section></body></html>"
    )
    text = parse_bytes(page.encode(), filename="zones.html").text
    assert "Zone text." in text and "Article footnote." in text
    assert "Built with Sphinx" not in text and "Copyright" not in text


def test_a_folder_with_a_refused_name_and_an_outside_link_ingests_the_rest(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(FIXTURES / "pump-x200.md", folder / "pump-x200.md")
    (folder / "sub" / "notes.md").write_text("# Notes\n\nThe seal kit is part 77.\n")
    (folder / "bad\nname.md").write_text("# Bad\n\nA refused name.\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("A system file that must not be indexed.\n")
    (folder / "secret.txt").symlink_to(outside)
    (folder / "sub" / "loop").symlink_to(folder / "sub")
    store = tmp_path / "store"
    code, report, _ = run_cli("ingest", str(folder), "--store", str(store), "--json", env=HASHING)
    assert sorted(d["doc_id"] for d in report["documents"]) == ["pump-x200.md", "sub/notes.md"]
    reasons = {s["doc_id"]: s["reason"] for s in report["skipped"]}
    assert "name refused" in reasons["bad\nname.md"]
    assert "leaving the folder" in reasons["secret.txt"]
    assert "loop" in reasons["sub/loop"]
    _, docs, _ = run_cli("docs", "--store", str(store), "--json", env=HASHING)
    assert "secret.txt" not in {d["doc_id"] for d in docs["documents"]}


def _texinfo_node(name: str, title: str, body: str, *, up: str, menu: str = "") -> str:
    return (
        '<html><head><meta name="Generator" content="makeinfo"><title>'
        f'{title} (Widget)</title></head><body><div class="header"><p>Next: '
        f'<a href="x.html" accesskey="n" rel="next">X</a>, Up: <a href="{up}" accesskey="u" '
        f'rel="up">Up</a></p></div><h2>{title}</h2><p>{body}</p>{menu}</body></html>'
    )


def _menu(*links: tuple[str, str]) -> str:
    items = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    return f"<ul>{items}</ul>"


def test_a_texinfo_folder_nests_nodes_by_their_up_links_in_menu_order(tmp_path: Path) -> None:
    book = tmp_path / "widget.html"
    book.mkdir()
    pages = {
        "index.html": _texinfo_node(
            "index", "Widget", "The widget manual.", up="../dir/index.html",
            menu=_menu(("Using.html", "Using"), ("Caring.html", "Caring")),
        ),
        # Alphabetically Caring comes first; the Top node's menu says Using does.
        "Using.html": _texinfo_node(
            "Using", "1 Using", "How to use it.", up="index.html",
            menu=_menu(("Starting.html", "Starting"), ("Stopping.html", "Stopping")),
        ),
        "Stopping.html": _texinfo_node("Stopping", "1.2 Stopping", "Press stop.", up="Using.html"),
        "Starting.html": _texinfo_node("Starting", "1.1 Starting", "Press go.", up="Using.html"),
        "Caring.html": _texinfo_node("Caring", "2 Caring", "Oil it weekly.", up="index.html"),
        "Old.html": '<html><head><meta http-equiv="Refresh" content="0; url=Caring.html">'
        "</head><body><p>Moved.</p></body></html>",
    }  # fmt: skip
    for name, html in pages.items():
        (book / name).write_text(html, encoding="utf-8")
    store = tmp_path / "store"
    code, report, _ = run_cli("ingest", str(book), "--manual", "--doc-id", "widget",
                              "--store", str(store), "--json", env=HASHING)  # fmt: skip
    assert code == 0
    assert [(s["doc_id"], s["reason"]) for s in report["skipped"]] == [
        ("widget: Old.html", "a redirection to Caring.html")
    ]
    _, tree, _ = run_cli("tree", "widget", "--store", str(store), "--json", env=HASHING)
    tops = [(c["title"], [g["title"] for g in c["children"] if g["level"] != "passage"])
            for c in tree["children"] if c["level"] != "passage"]  # fmt: skip
    assert tops == [("1 Using", ["1.1 Starting", "1.2 Stopping"]), ("2 Caring", [])]
    text = str(tree)
    assert "Next:" not in text and "Press go." in text


_RELATED = (
    '<div class="sect1"><h2>1. Related Links</h2><ul><li><a href="a.html">Alpha</a></li>'
    '<li><a href="b.html">Beta</a></li></ul></div>'
)


def _adoc_page(title: str, body: str, *, picture: str, day: int) -> str:
    return (
        '<html><head><meta name="generator" content="Asciidoctor 2.0.18"></head><body>'
        f'<div id="header"><h1>{title}</h1></div><div id="content"><div id="preamble">'
        f'<table><tr><td><img src="pic/{picture}.gif"></td><td><a href="https://x.org/pics">'
        f"from <em>{picture.title()}</em></a><p>A caption about {picture}.</p></td></tr></table>"
        f'</div>{_RELATED}<div class="sect1"><h2>2. Body</h2>'
        f'<p>{body}</p></div></div><div id="footer">Last updated 2023-07-{day:02d} 10:00 UTC'
        "</div></body></html>"
    )


def test_an_asciidoctor_site_is_outlined_by_its_site_map_without_its_furniture(
    tmp_path: Path,
) -> None:
    site = tmp_path / "html"
    site.mkdir()
    pages = {
        "index.html": _adoc_page("Widget Site", "Welcome to widgets.", picture="owl", day=1),
        "a.html": _adoc_page("Alpha Guide", "Alpha valves open at two bar.", picture="cat", day=2),
        "b.html": _adoc_page("Beta Guide", "Beta valves close at three.", picture="dog", day=3),
        "c.html": _adoc_page("Gamma Notes", "Gamma is linked from Beta.", picture="emu", day=4),
        "sitemap.html": _adoc_page("Site Map", "", picture="fox", day=5)
        .replace(_RELATED, "")
        .replace(
            "<h2>2. Body</h2><p></p>",
            '<h2>Guides</h2><ul><li><a href="b.html">Beta Guide</a></li>'
            '<li><a href="a.html">Alpha Guide</a></li><li><a href="index.html">Home</a></li></ul>',
        ),
    }
    pages["b.html"] = pages["b.html"].replace("Beta valves", 'See <a href="c.html">Gamma</a>. Beta')
    for name, html in pages.items():
        (site / name).write_text(html, encoding="utf-8")
    store = tmp_path / "store"
    code, report, _ = run_cli("ingest", str(site), "--manual", "--doc-id", "w",
                              "--store", str(store), "--json", env=HASHING)  # fmt: skip
    assert code == 0
    assert [s["doc_id"] for s in report["skipped"]] == ["w: sitemap.html"]
    _, tree, _ = run_cli("tree", "w", "--store", str(store), "--json", env=HASHING)
    chapters = [c["title"] for c in tree["children"] if c["level"] != "passage"]
    # the site map's order (Beta before Alpha; its one heading groups nothing), Gamma under
    # the page linking to it
    assert chapters[-2:] == ["Beta Guide", "Alpha Guide"]
    beta = next(n for n in walk(tree) if n.get("title") == "Beta Guide")
    assert "Gamma Notes" in [c["title"] for c in beta["children"]]
    text = str(tree)
    for chrome in ("Last updated", "A caption about", "Related Links", "from Owl"):
        assert chrome not in text
    assert "Alpha valves open at two bar." in text
