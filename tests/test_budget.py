"""The per-document budget: an oversized document is refused from an estimate, before embedding."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from indexer.budget import estimate_cost, estimate_tokens
from indexer.index import Index
from indexer.parsers import parse_bytes
from indexer.settings import Settings
from indexer.tokens import count_tokens
from tests.http_support import FIXTURES, served

TWENTY_MB_LINE = b"word " * 4_000_000  # 20 MB, one line


def test_the_estimate_is_close_to_the_real_count() -> None:
    text = (FIXTURES / "pump-x200.md").read_text() * 20
    real = count_tokens(text)
    assert abs(estimate_tokens(text) - real) <= 0.1 * real
    parsed = parse_bytes(text.encode(), filename="pump.md")
    cost = estimate_cost(parsed, Settings(store=Path("unused")))
    assert cost.passages >= cost.tokens // 200 and cost.summaries >= 1


def test_the_default_budget_takes_a_manual_of_hundreds_of_pages() -> None:
    page = "Tighten the M6 bolts of the pump housing to 9 N·m and check the gasket. " * 40
    manual = "\n\n".join(f"## Page {n}\n\n{page}" for n in range(600)).encode()
    parsed = parse_bytes(manual, filename="manual.md")
    assert estimate_cost(parsed, Settings(store=Path("unused"))).tokens < (
        Settings.model_fields["max_document_tokens"].default
    )


def test_an_oversized_document_is_refused_before_embedding(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing", max_document_tokens=5_000)
    index = Index(settings)
    try:
        with pytest.raises(Exception) as caught:
            index.ingest_bytes(b"word " * 20_000, doc_id="big.txt", filename="big.txt")
        assert "max_document_tokens" in str(caught.value)
        assert index.vectors.count() == 0
        assert index.documents() == []
    finally:
        index.close()


@pytest.mark.slow
def test_a_20_mb_single_line_upload_is_refused_with_what_to_change(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "s", embedder="hashing")
    with served(settings) as (svc, _):
        started = time.monotonic()
        r = svc.upload("one-line.txt", TWENTY_MB_LINE)
        print(f"\n20 MB single-line upload refused in {time.monotonic() - started:.2f} s")
        assert r.status_code == 413, r.text
        error = r.json()["error"]
        assert error["code"] == "too_large"
        assert "max_document_tokens" in error["message"]
        assert "split the document" in error["message"]
        assert error["detail"]["setting"] == "max_document_tokens"
        assert svc.app.state.jobs.store.counts() == {} or not any(
            svc.app.state.jobs.store.counts().values()
        )
