"""Issue 2 benchmark: full build throughput against raw encoding, and the cost of an edit.

- ``build_vs_encode``: passages/s of a full build of all fixtures divided by passages/s of raw
  all-MiniLM-L6-v2 encoding of the same passages, measured in the same process (target ≥ 0.6).
- ``edit_vs_build``: wall time of re-ingesting after a one-passage edit divided by the full build
  wall time (target ≤ 0.05).
- Peak RSS of the process after the build (model loaded).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, peak_rss_mb, timed


def main() -> dict[str, Any]:
    from indexer.embedding.minilm import MiniLMEmbedder
    from indexer.index import Index
    from indexer.settings import Settings

    work = Path(tempfile.mkdtemp(prefix="ovs-bench-ingest-"))
    try:
        manuals = work / "manuals"
        shutil.copytree(FIXTURES, manuals, ignore=shutil.ignore_patterns("*.jsonl", "*.md.txt"))
        (manuals / "README.md").unlink(missing_ok=True)
        settings = Settings(store=work / "store")
        embedder = MiniLMEmbedder(threads=settings.ingest_threads)
        embedder.embed(["warm up the model"])
        index = Index(settings, embedder=embedder)
        # Start-up costs (imports, opening Chroma) are paid once per process, not per passage:
        # pay them before the clock starts, as the model load above.
        warm = work / "warm"
        warm.mkdir()
        (warm / "warm.md").write_text("# Warm\n\n## 1 Up\n\n" + "A sentence to warm up. " * 300)
        Index(Settings(store=work / "warm-store"), embedder=embedder).ingest_paths([warm])

        report, build_s = timed(lambda: index.ingest_paths([manuals]))
        assert report.ok, report.errors
        passages = [
            n["text"]
            for d in index.documents()
            for n in _walk(index.tree(d["doc_id"]))
            if n["level"] == "passage"
        ]
        _, encode_s = timed(lambda: embedder.embed(passages))

        md = manuals / "pump-x200.md"
        text = md.read_text(encoding="utf-8")
        needle = "Report any damage to the carrier in writing within 48 hours."
        assert needle in text
        md.write_text(text.replace(needle, needle.replace("48", "72")), encoding="utf-8")
        edit, edit_s = timed(lambda: index.ingest_paths([manuals]))

        n = len(passages)
        build_rate = n / build_s
        encode_rate = n / encode_s
        return {
            "passages": n,
            "vectors_embedded": report.embedded,
            "summaries": report.summarizer_calls,
            "full_build_seconds": round(build_s, 2),
            "build_passages_per_s": round(build_rate, 2),
            "raw_encode_passages_per_s": round(encode_rate, 2),
            "build_vs_encode": round(build_rate / encode_rate, 3),
            "build_vs_encode_target": ">= 0.6",
            "edit_reingest_seconds": round(edit_s, 3),
            "edit_summarizer_calls": edit.summarizer_calls,
            "edit_vectors_embedded": edit.embedded,
            "edit_vs_build": round(edit_s / build_s, 4),
            "edit_vs_build_target": "<= 0.05",
            "peak_rss_mb": round(peak_rss_mb(), 1),
            "torch_threads": settings.ingest_threads,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for child in node["children"]:
        out.extend(_walk(child))
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
