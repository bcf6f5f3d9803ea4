"""The audit page as a review tool, in Chromium against a real server over real SQLite.

A summary sentence selected (clicked, or reached with the keyboard) marks exactly the characters
of its source spans in every passage shown that holds them, overlapping passages included;
passages are labelled by heading path and page; pipe rows render as tables; a stale review shows
what changed in its source since; the auditor reviews from the keyboard. The summaries are the
real extractive summarizer's; passages are kept short so that they overlap.

``make audit-screenshots`` also saves what the tests see into ``benchmarks/results/audit_page/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.index import Index
from indexer.settings import Settings
from tests.audit_support import MANUAL
from tests.browser_support import chromium, require_chromium, screenshot, sign_in, tab
from tests.http_support import Service, ThreadServer, served
from tests.pdfgen import build_pdf

sync_api = pytest.importorskip("playwright.sync_api")

MD = "valve-manual.md"
PDF = "valve-manual.pdf"
SEALS = "seal-manual.md"
VALVES = """# Valve Service Manual

## 1 Isolation

Close the inlet valve before any work on the line.

Open the drain cock and let the line run empty into a suitable container.

Check the pressure gauge: it must read zero before a flange is loosened.

Never loosen a flange while the line is under pressure, because the medium escapes at once.

Fit the padlock to the inlet valve handle and hang the warning tag on it.

Keep the key of the padlock on your person until the work is finished.

Vent the actuator by opening its exhaust screw half a turn.

Wait five minutes so that the valve body cools below 40 °C.

## 2 Torques

Tighten the flange bolts crosswise in three passes to the torques below.

| Bolt | Torque | Lubricant |
|---|---|---|
| M12 | 60 Nm | dry |
| M16 | 150 Nm | oiled |
| M20 | 290 Nm | oiled |

Check the torque again after the first heat cycle.

## 3 Spare parts

Order spare parts by their numbers:

Gasket set | VS-100-G | every service
Stem packing | VS-100-P | every second service
Actuator diaphragm | VS-100-D | every five years
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, ThreadServer]]:
    require_chromium()
    folder = tmp_path_factory.mktemp("audit-review")
    build_pdf(VALVES, folder / PDF, running_title="Valve Service Manual")
    # Short passages: the isolation procedure is cut into passages that overlap.
    settings = Settings(store=folder / "store", embedder="hashing", chunk_tokens=100)
    index = Index(settings)
    for doc_id, data in (
        (MD, VALVES.encode()),
        (PDF, (folder / PDF).read_bytes()),
        (SEALS, MANUAL.encode()),
    ):
        assert index.ingest_bytes(data, doc_id=doc_id).ok
    index.close()
    with served(settings) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Any) -> Iterator[Any]:
    with chromium(sync_api) as opened:
        yield opened


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with tab(browser, width=1280, height=860) as opened:
        yield opened


def _show(page: Any, doc_id: str) -> None:
    page.locator(".queue-item").first.wait_for()
    page.get_by_label("Document").select_option(doc_id)
    page.get_by_role("button", name="Show", exact=True).click()
    sync_api.expect(page.locator(".queue-item").filter(has_not_text=doc_id)).to_have_count(0)
    sync_api.expect(page.locator(".queue-item").first).to_contain_text(doc_id)


def _item(page: Any, title: str) -> Any:
    path = page.locator(".item-path", has_text=re.compile(f"(^|› ){re.escape(title)}$"))
    return page.locator(".queue-item").filter(has=path)


def _open(page: Any, title: str) -> None:
    _item(page, title).click()
    sync_api.expect(page.locator("#detail-title")).to_have_text(re.compile(f"{title}$"))
    page.locator("#detail-passages li").first.wait_for()


def _detail(svc: Service, page: Any) -> dict[str, Any]:
    node_id = page.locator('.queue-item[aria-current="true"]').get_attribute("data-node-id")
    r = svc.client.get(f"/v1/nodes/{node_id}?passages_limit=200", headers=svc.as_role("auditor"))
    assert r.status_code == 200, r.text
    return dict(r.json())


SEGMENTS = """() => [...document.querySelectorAll('#detail-passages li')].flatMap((li) =>
  [...li.querySelectorAll('.seg')].map((s) => ({
    passage: Number(li.dataset.start), start: Number(s.dataset.start),
    end: Number(s.dataset.end), text: s.textContent, hit: s.classList.contains('sentence-hit'),
    cell: s.closest('td, th') !== null })))"""


def _ranges(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _check_marks(page: Any, passages: list[dict[str, Any]], sentence: dict[str, Any]) -> int:
    """Exactly the sentence's characters are marked, in every passage shown; how many hold it."""
    spans = [(s["char_start"], s["char_end"]) for s in sentence["spans"]]
    by_start = {p["char_start"]: p for p in passages}
    holders = set()
    segments = page.evaluate(SEGMENTS)
    assert segments
    for seg in segments:
        p = by_start[seg["passage"]]
        base = p["char_start"]
        assert seg["text"] == p["text"][seg["start"] - base : seg["end"] - base]
        inside = any(a <= seg["start"] and seg["end"] <= b for a, b in spans)
        touches = any(seg["start"] < b and a < seg["end"] for a, b in spans)
        assert seg["hit"] == inside and inside == touches, seg
        holders |= {p["char_start"]} if inside else set()
    for p in passages:  # prose: the marked characters are the spans', without a gap
        if any(s["cell"] for s in segments if s["passage"] == p["char_start"]):
            continue
        want = [(max(a, p["char_start"]), min(b, p["char_end"])) for a, b in spans]
        want = [(a, b) for a, b in want if a < b]
        got = [(s["start"], s["end"]) for s in segments if s["passage"] == p["char_start"]]
        assert _ranges([g for g in got if any(a <= g[0] and g[1] <= b for a, b in want)]) == (
            _ranges(want)
        )
    return len(holders)


def test_a_sentence_marks_exactly_its_source(
    server: tuple[Service, ThreadServer], page: Any, tmp_path: Path
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    _show(page, MD)
    _open(page, "1 Isolation")
    detail = _detail(svc, page)
    sentences, passages = detail["node"]["sentences"], detail["passages"]
    assert len(sentences) >= 6 and len(passages) >= 2
    shown = page.locator("#detail-summary .sentence")
    assert shown.count() == len(sentences)
    assert page.locator("#detail-summary").inner_text() == detail["node"]["summary"]
    # Labelled by heading path (and page, where the format has pages), not by offsets.
    labels = page.locator("#detail-passages .passage-meta").all_inner_texts()
    assert labels == ["Valve Service Manual › 1 Isolation"] * len(passages)
    assert page.locator(".seg.sentence-hit").count() == 0

    in_two = None
    for n, sentence in enumerate(sentences):
        shown.nth(n).click()
        assert shown.nth(n).get_attribute("aria-selected") == "true"
        holders = _check_marks(page, passages, sentence)
        assert holders >= 1
        info = page.locator("#sentence-source").inner_text()
        assert info.startswith(f"Sentence {n + 1} of {len(sentences)}")
        assert f"in {holders} passage" in info and "outside" not in info
        if holders == 2 and in_two is None:
            in_two = n
    assert in_two is not None, "no sentence lies where two passages overlap"
    shown.nth(in_two).click()
    hit = page.locator(".seg.sentence-hit").first
    assert hit.is_visible() and hit.bounding_box()["y"] >= 0
    assert page.locator("#detail-passages li.holds-sentence").count() == 2
    screenshot(page, tmp_path, "sentence-highlight.png")

    # A part of the document's summary cites the part's heading too, which is in no passage.
    _open(page, "Valve Service Manual")
    detail = _detail(svc, page)
    part = detail["node"]["sentences"][0]
    spans = len(part["spans"])  # the heading, the lead's sentences, any further statements
    assert part["kind"] == "part" and spans >= 3
    page.locator("#detail-summary .sentence").first.click()
    _check_marks(page, detail["passages"], part)
    info = page.locator("#sentence-source").inner_text()
    assert f"1 of its {spans} source spans outside the passages shown" in info


def test_pages_label_passages_and_sentences(
    server: tuple[Service, ThreadServer], page: Any
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    _show(page, PDF)
    _open(page, "1 Isolation")
    detail = _detail(svc, page)
    labels = page.locator("#detail-passages .passage-meta").all_inner_texts()
    assert labels and all(label.endswith("1 Isolation · p. 1") for label in labels)
    # A PDF page has no blank lines between paragraphs: the section's summary may be one
    # statement, its paragraph quoted from the opening; its last sentence is checked.
    page.locator("#detail-summary .sentence").last.click()
    assert "source p. 1" in page.locator("#sentence-source").inner_text()
    _check_marks(page, detail["passages"], detail["node"]["sentences"][-1])


def _table(page: Any, n: int = 0) -> Any:
    return page.locator("#detail-passages table.passage-table").nth(n)


def test_pipe_rows_render_as_tables(
    server: tuple[Service, ThreadServer], page: Any, tmp_path: Path
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    _show(page, MD)
    _open(page, "2 Torques")
    table = _table(page)
    assert table.locator("thead th").all_inner_texts() == ["Bolt", "Torque", "Lubricant"]
    rows = table.locator("tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).locator("td").all_inner_texts() == ["M12", "60 Nm", "dry"]
    assert "|" not in table.inner_text() and "---" not in table.inner_text()
    text = page.locator("#detail-passages").inner_text()
    assert "Tighten the flange bolts" in text and "first heat cycle" in text

    # The sentence that cites the table marks every cell of it.
    detail = _detail(svc, page)
    cites = next(i for i, s in enumerate(detail["node"]["sentences"]) if "Bolt" in s["text"])
    page.locator("#detail-summary .sentence").nth(cites).click()
    _check_marks(page, detail["passages"], detail["node"]["sentences"][cites])
    cells = table.locator("th, td")
    assert cells.count() == 12
    assert table.locator(".seg.sentence-hit").count() >= 12
    screenshot(page, tmp_path, "table.png")

    # Rows without a separator (as HTML and PDF tables are extracted): a table without header.
    _open(page, "3 Spare parts")
    table = _table(page)
    assert table.locator("thead").count() == 0
    assert table.locator("tbody tr").nth(1).locator("td").all_inner_texts() == [
        "Stem packing",
        "VS-100-P",
        "every second service",
    ]
    _show(page, PDF)
    _open(page, "2 Torques")
    assert _table(page).locator("tr").nth(3).locator("td").all_inner_texts() == [
        "M20",
        "290 Nm",
        "oiled",
    ]


BLOCKS = """(text) => window.OverstoryAuditSource.blocks(text).map((b) => b.type === "text"
  ? ["text", text.slice(b.start, b.end)]
  : ["table", b.rows.map((r) => [r.header, r.cells.map((c) => text.slice(c.start, c.end))])])"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Torques:\n| Bolt | Nm |\n|:---|---:|\n| M6 | 10 |\n\nDone.",
            [
                ["text", "Torques:"],
                ["table", [[True, ["Bolt", "Nm"]], [False, ["M6", "10"]]]],
                ["text", "\nDone."],
            ],
        ),
        (
            "a | b | c\nd |  | f",
            [["table", [[False, ["a", "b", "c"]], [False, ["d", "", "f"]]]]],
        ),
        ("Pipe them:\nls | sort\nps | grep x", [["text", "Pipe them:\nls | sort\nps | grep x"]]),
        (
            "k | v\nx | 1\ny | 2",
            [["table", [[False, ["k", "v"]], [False, ["x", "1"]], [False, ["y", "2"]]]]],
        ),
        ("Above\n\n---\n\nBelow", [["text", "Above\n\n---\n\nBelow"]]),
        (
            "a \\| b | c | d\nd | e | f",
            [["table", [[False, ["a \\| b", "c", "d"]], [False, ["d", "e", "f"]]]]],
        ),
        (
            "|\n|---|---|\n| 1 | 2 |\n| 3 | 4 |",
            [["text", "|"], ["table", [[False, ["1", "2"]], [False, ["3", "4"]]]]],
        ),
    ],
    ids=["markdown", "rows", "pipelines", "three-rows", "rule", "escaped", "mid-table"],
)
def test_table_detection(page: Any, server: Any, text: str, expected: list[Any]) -> None:
    page.goto(f"{server[1].url}/audit")
    assert page.evaluate(BLOCKS, text) == expected


def test_a_stale_review_shows_the_source_diff(
    server: tuple[Service, ThreadServer], page: Any, tmp_path: Path
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    _show(page, SEALS)
    _open(page, "1.1 Replacement")
    assert page.locator("#source-diff").is_hidden()
    page.keyboard.press("a")
    sync_api.expect(page.locator("#review-result .ok")).to_contain_text("approved")

    svc.ingest(SEALS, MANUAL.replace("10 drops per minute", "12 drops per minute").encode())
    page.get_by_role("button", name="Show", exact=True).click()
    stale = page.locator(".queue-item").first
    sync_api.expect(stale).to_contain_text("source changed — re-check")
    assert "1.1 Replacement" in stale.inner_text()
    stale.click()
    diff = page.locator("#source-diff")
    diff.locator(".diff-text del").first.wait_for()
    assert "changed since it was reviewed" in diff.inner_text()
    assert "1 word added, 1 removed" in diff.inner_text()
    assert diff.locator(".diff-text del").all_inner_texts() == ["10"]
    assert diff.locator(".diff-text ins").all_inner_texts() == ["12"]
    struck = diff.locator(".diff-text del").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert struck == "line-through"
    assert "12 drops per minute" in diff.inner_text()
    node_id = stale.get_attribute("data-node-id")
    body = svc.client.get(f"/v1/nodes/{node_id}/source-diff", headers=svc.as_role("auditor"))
    assert body.json()["status"] == "changed"
    screenshot(page, tmp_path, "stale-diff.png")

    # Reviewed again, it is no longer stale: the diff goes.
    page.keyboard.press("a")
    sync_api.expect(page.locator("#review-result .ok")).to_contain_text("approved")
    assert diff.is_hidden()


def _current_title(page: Any) -> str:
    return str(page.locator("#detail-title").inner_text())


def test_review_from_the_keyboard(
    server: tuple[Service, ThreadServer], page: Any, tmp_path: Path
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    _show(page, MD)
    help_text = page.locator("#key-help").inner_text()
    assert "approve" in help_text and "next / previous summary" in help_text
    assert page.locator("#approve").get_attribute("aria-keyshortcuts") == "A"
    titles = page.locator(".queue-item .item-path").all_inner_texts()

    page.keyboard.press("n")  # nothing open: the first summary
    sync_api.expect(page.locator("#detail-title")).to_have_text(titles[0])
    page.keyboard.press("n")
    sync_api.expect(page.locator("#detail-title")).to_have_text(titles[1])
    page.keyboard.press("p")
    sync_api.expect(page.locator("#detail-title")).to_have_text(titles[0])
    while not _current_title(page).endswith("1 Isolation"):
        before = _current_title(page)
        page.keyboard.press("n")
        sync_api.expect(page.locator("#detail-title")).not_to_have_text(before)

    # Sentences: J and K, and the arrows inside the summary.
    sentences = page.locator("#detail-summary .sentence")
    page.keyboard.press("j")
    sync_api.expect(sentences.nth(0)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    sync_api.expect(sentences.nth(2)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("k")
    sync_api.expect(sentences.nth(1)).to_have_attribute("aria-selected", "true")
    assert page.locator(".seg.sentence-hit").count() >= 1

    # Keys typed in a field stay in it.
    note = page.get_by_label("Note for the log")
    note.click()
    page.keyboard.type("rank")
    assert note.input_value() == "rank"
    page.keyboard.press("c")  # still in the note: typed, not a command
    assert note.input_value() == "rankc" and page.locator("#correction-box").is_hidden()
    note.fill("")
    page.locator("#detail-title").focus()
    page.keyboard.press("c")
    box = page.locator("#correction")
    sync_api.expect(box).to_be_focused()
    page.keyboard.press("Control+A")
    typed = "Close the inlet valve before any work on the line. Run a jack and a pump on diesel."
    page.keyboard.type(typed)
    assert box.input_value() == typed
    assert page.locator("#review-result").inner_text() == "" and _current_title(page).endswith(
        "1 Isolation"
    )
    page.keyboard.press("Control+Enter")
    sync_api.expect(page.locator("#review-result .ok")).to_contain_text("Correction saved")

    # The correction's sentences, found in the source by the service; the invented one is marked.
    sync_api.expect(sentences).to_have_count(2)
    unverified = page.locator("#detail-summary .sentence.unverified")
    sync_api.expect(unverified).to_have_count(1)
    assert unverified.inner_text() == "Run a jack and a pump on diesel."
    assert page.locator("#detail-summary").inner_text() == typed
    detail = _detail(svc, page)
    assert [s["verified"] for s in detail["node"]["sentences"]] == [True, False]
    unverified.click()
    assert "NOT VERIFIED" in page.locator("#sentence-source").inner_text()
    _check_marks(page, detail["passages"], detail["node"]["sentences"][1])
    sentences.nth(0).click()
    assert _check_marks(page, detail["passages"], detail["node"]["sentences"][0]) >= 1
    screenshot(page, tmp_path, "keyboard-correction.png")

    corrected = page.locator('.queue-item[aria-current="true"]').get_attribute("data-node-id")
    page.keyboard.press("n")
    sync_api.expect(page.locator("#detail-title")).not_to_have_text(re.compile("1 Isolation$"))
    page.keyboard.press("r")
    sync_api.expect(page.locator("#review-result .ok")).to_contain_text("rejected")
    rejected = page.locator('.queue-item[aria-current="true"]').get_attribute("data-node-id")
    auditor = svc.as_role("auditor")
    node = svc.client.get(f"/v1/nodes/{corrected}", headers=auditor).json()["node"]
    assert node["summary"] == typed and node["review"]["status"] == "corrected"
    node = svc.client.get(f"/v1/nodes/{rejected}", headers=auditor).json()["node"]
    assert node["review"]["status"] == "rejected"
