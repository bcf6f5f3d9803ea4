"""The audit page in a real browser: Playwright drives Debian's Chromium against a real server.

The app runs under uvicorn on a loopback port over a small store whose summaries have known lint
flags. An auditor enters the key, sees the queue, opens the flagged summary beside its source,
writes a correction, saves it and sees its lint flags and its new status. Playwright never
downloads a browser: it launches ``/usr/bin/chromium`` (``make test`` installs it when missing).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.settings import Settings
from tests.audit_support import DOC, audit_index, ingest_manual
from tests.browser_support import chromium, require_chromium, sign_in, tab
from tests.http_support import Service, ThreadServer, served

CORRECTION = (
    "Replace the seal only if the leakage exceeds 10 drops per minute. Do not start the pump "
    "before the casing is filled with liquid. Tighten the gland to 99 Nm."
)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, ThreadServer]]:
    require_chromium()
    settings = Settings(store=tmp_path_factory.mktemp("audit-page") / "store", embedder="hashing")
    index = audit_index(settings)
    ingest_manual(index)
    index.close()
    with served(settings) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Any) -> Iterator[Any]:
    with chromium(sync_api) as chromium_browser:
        yield chromium_browser


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with tab(browser) as opened:
        yield opened


def test_auditor_corrects_a_flagged_summary(
    server: tuple[Service, ThreadServer], page: Any, tmp_path: Path
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])

    # The likeliest fault first: an invented number, then the dropped condition.
    page.locator(".queue-item").first.wait_for()
    assert "1.2 Inspection" in page.locator(".queue-item").first.inner_text()
    first = page.locator(".queue-item", has_text="1.1 Replacement")
    # Flags less likely than lint_min_confidence to name a real fault are hidden, and counted
    # (here the dropped condition and the dropped negation).
    assert "2 unlikely flags hidden" in first.inner_text()
    assert "no lint flags" not in first.inner_text()
    assert "dropped condition" not in first.inner_text()
    page.get_by_label("Also unlikely flags").check()
    page.get_by_role("button", name="Show", exact=True).click()
    sync_api.expect(first).to_contain_text("dropped condition")
    assert "hidden" not in first.inner_text()
    assert first.locator(".label-summary").inner_text() == "Summary — not a quote"

    # Open it with the keyboard: the queue items are buttons.
    first.focus()
    page.keyboard.press("Enter")
    page.locator("#detail-passages li").first.wait_for()
    assert page.locator("#detail-title").inner_text().endswith("1.1 Replacement")
    assert "only if the leakage exceeds" in page.locator("#detail-passages").inner_text()
    assert page.locator("#detail-summary mark.flag-condition").count() >= 1
    # The dropped condition is marked where the source says it, and quoted in the flag.
    marked = page.locator("#detail-passages mark.source-hit")
    assert any(
        "only if the leakage exceeds" in marked.nth(i).inner_text() for i in range(marked.count())
    )
    assert page.locator("#detail-flags mark.source-hit").count() >= 1
    assert "only if" in page.locator("#detail-flags").inner_text()
    assert (
        page.locator("#detail-flags .flag-confidence")
        .first.inner_text()
        .startswith(" · confidence ")
    )

    page.get_by_role("button", name="Edit a correction", exact=True).click()
    page.get_by_label("Corrected summary").fill(CORRECTION)
    page.get_by_label("Note for the log").fill("restored the condition")
    page.get_by_role("button", name="Save correction", exact=True).click()

    flags = page.locator("#correction-flags li")
    flags.first.wait_for()
    assert flags.count() == 1 and "99 Nm" in flags.first.inner_text()
    assert "Correction saved" in page.locator("#review-result").inner_text()
    assert page.locator("#detail-summary").inner_text() == CORRECTION
    assert "status: corrected" in page.locator("#detail-meta").inner_text()
    assert "Corrected by test-auditor" in page.locator("#detail-summarizer").inner_text()
    assert "corrected" in page.locator(".queue-item", has_text="1.1 Replacement").inner_text()

    page.get_by_label("Status").select_option("corrected")
    page.get_by_role("button", name="Show", exact=True).click()
    sync_api.expect(page.locator("#queue-summary")).to_contain_text("Showing 1 corrected")
    listed = page.locator(".queue-item")
    assert listed.count() == 1
    assert "1.1 Replacement" in listed.first.inner_text()
    assert "number not in the source" in listed.first.inner_text()  # the correction's flag

    shot = tmp_path / "audit.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert page.locator(".label-summary").first.is_visible()

    # The correction is what the service now serves.
    node_id = listed.first.get_attribute("data-node-id")
    r = svc.client.get(f"/v1/nodes/{node_id}", headers=svc.as_role("reader"))
    assert r.json()["node"]["summary"] == CORRECTION
    log = svc.client.get("/v1/audit/log", headers=svc.as_role("auditor")).json()
    assert log["entries"][0]["detail"]["note"] == "restored the condition"


def test_document_filter_and_approve(server: tuple[Service, ThreadServer], page: Any) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["auditor"])
    page.locator(".queue-item").first.wait_for()
    page.get_by_label("Document").select_option(DOC)
    page.get_by_role("button", name="Show", exact=True).click()
    item = page.locator(".queue-item", has_text="1.2 Inspection")
    item.click()
    page.locator("#detail-passages li").first.wait_for()
    page.get_by_role("button", name="Approve", exact=True).click()
    page.locator("#review-result .ok").wait_for()
    sync_api.expect(page.locator(".queue-item", has_text="1.2 Inspection")).to_contain_text(
        "approved"
    )


def test_a_reader_key_is_told_it_cannot_audit(
    server: tuple[Service, ThreadServer], page: Any
) -> None:
    svc, srv = server
    sign_in(page, srv.url, svc.keys["reader"])
    sync_api.expect(page.locator("#key-error")).to_contain_text("may not audit")
    assert page.locator("#workspace").is_hidden()


def test_a_wrong_key_asks_again(server: tuple[Service, ThreadServer], page: Any) -> None:
    _, srv = server
    sign_in(page, srv.url, "ovs_00000000_not-a-key")
    sync_api.expect(page.locator("#key-error")).not_to_be_empty()
    assert page.get_by_role("textbox", name="API key").is_visible()
    assert page.evaluate("sessionStorage.getItem('overstory.apiKey')") is None
