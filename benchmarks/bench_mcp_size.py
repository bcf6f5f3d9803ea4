"""How much an agent reads per ``search``: the compact answer beside the detailed one.

The fixtures are ingested (the bundled encoder, the default summarizer) and every fixture
question is asked through the MCP ``search`` tool as the server answers it
(:func:`api.mcp.server.tool_result`), at k = 5, without and with ``expand``. The baseline is
``detail: true``, the REST body, which is what ``search`` answered before it was made compact.
Sizes are the UTF-8 bytes of the tool's text content (what a client that ignores structured
content puts in the model's context) and of the whole result as sent (text and structured
content).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, timed

K = 5


def _sizes(answer: Any) -> tuple[int, int]:
    from api.mcp.server import tool_result

    result = tool_result(answer)
    text = result.content[0].text  # type: ignore[union-attr]
    wire = result.model_dump_json(by_alias=True, exclude_none=True)
    return len(text.encode("utf-8")), len(wire.encode("utf-8"))


def _summary(values: list[int]) -> dict[str, float]:
    return {
        "median": float(statistics.median(values)),
        "mean": round(statistics.fmean(values), 1),
        "max": float(max(values)),
    }


def main() -> dict[str, Any]:
    """Ingest the fixtures, ask every question compact and detailed, report the sizes."""
    from api.mcp.tools import Tools
    from api.service.wiring import open_stack
    from indexer.settings import Settings
    from retriever.evaluation import load_questions

    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="ovs-mcp-size-"))
    stack = open_stack(Settings(store=folder / "store"))
    report, ingest_seconds = timed(lambda: stack.index.ingest_paths([FIXTURES]))
    assert report.ok, report.errors
    tools = Tools(stack)
    questions = load_questions(FIXTURES / "questions.jsonl")
    out: dict[str, Any] = {
        "corpus": {"documents": len(report.documents), "ingest_seconds": round(ingest_seconds, 1)},
        "questions": len(questions),
        "k": K,
    }
    for expand in (False, True):
        sizes: dict[str, dict[str, list[int]]] = {
            d: {"text": [], "wire": []} for d in ("compact", "detail")
        }
        for q in questions:
            for name, detail in (("compact", False), ("detail", True)):
                answer = tools.search(q.question, k=K, expand=expand, detail=detail)
                text, wire = _sizes(answer)
                sizes[name]["text"].append(text)
                sizes[name]["wire"].append(wire)
        ratios = [
            c / d for c, d in zip(sizes["compact"]["text"], sizes["detail"]["text"], strict=True)
        ]
        out["expand" if expand else "plain"] = {
            "text_bytes": {n: _summary(s["text"]) for n, s in sizes.items()},
            "wire_bytes": {n: _summary(s["wire"]) for n, s in sizes.items()},
            "compact_over_detail_text": {
                "median": round(statistics.median(ratios), 3),
                "max": round(max(ratios), 3),
            },
        }
    stack.index.close()
    out["total_seconds"] = round(time.perf_counter() - started, 1)
    return out
