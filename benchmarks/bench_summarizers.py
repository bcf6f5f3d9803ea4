"""Issue 5 benchmark: summarizer throughput per backend, and what a 500-page manual would cost.

- ``extractive``: a full build of all fixtures (hashing embedder, so that the figures are the
  summarizer's and the build's own, not the embedding model's), timing every summarize call.
- ``local`` (SmolLM2-135M through transformers) and ``llamacpp`` (the same GGUF through
  llama-cpp-python, when installed): too slow for a full build inside the benchmark's budget, so
  a fixed sample of real nodes (their passages and the extractive build's child summaries as
  stand-ins) is summarized with the default settings, and the full build is EXTRAPOLATED:
  model load + summaries × mean seconds per summary + the build's non-summary time.
- The 500-page manual: summaries per page measured on the PDF fixture, times each backend's
  seconds per summary. The GPU server line is a CALCULATION from a stated throughput, not a
  measurement (there is no GPU here).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import FIXTURES, timed

SAMPLES = {"local": 3, "llamacpp": 8}
PAGES = 500
# Assumed, not measured: one GPU server (vLLM, an 8B instruct model on an L4/A10G-class GPU,
# 32 requests in flight). Published vLLM figures for this class are of this order.
GPU_PROMPT_TOKENS_PER_S = 8000.0
GPU_OUTPUT_TOKENS_PER_S = 1000.0


class _TimedSummarizer:
    """Wraps a summarizer and adds up the time and tokens of its calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.seconds = 0.0
        self.summaries = 0
        self.input_tokens = 0
        self.output_tokens = 0

    async def summarize(self, requests: Sequence[Any]) -> list[Any]:
        started = time.perf_counter()
        results = await self.inner.summarize(requests)
        self.seconds += time.perf_counter() - started
        good = [r for r in results if r.text is not None]
        self.summaries += len(good)
        self.input_tokens += sum(r.input_tokens for r in good)
        self.output_tokens += sum(r.output_tokens for r in good)
        return list(results)


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for c in node["children"]:
        out.extend(_walk(c))
    return out


def _sample_requests(index: Any, n: int) -> list[Any]:
    """``n`` real nodes spread over the fixtures, as summary requests (deterministic)."""
    from indexer.summarizers.base import SummaryRequest

    nodes = [
        node
        for d in index.documents()
        for node in _walk(index.tree(d["doc_id"]))
        if node["level"] != "passage" and node["summary"]
    ]
    step = max(1, len(nodes) // n)
    picked = nodes[::step][:n]
    return [
        SummaryRequest(
            key=f"bench-{i}",
            level=node["level"],
            title=node["title"],
            heading_path=node["heading_path"],
            passages=[c["text"] for c in node["children"] if c["level"] == "passage"],
            children=[
                (c["title"] or "", c["summary"] or "")
                for c in node["children"]
                if c["level"] != "passage"
            ],
        )
        for i, node in enumerate(picked)
    ]


def _measure_model(backend: str, requests: list[Any], work: Path) -> dict[str, Any]:
    from indexer.settings import Settings
    from indexer.summarizers import make_summarizer

    settings = Settings(store=work / f"store-{backend}", summarizer=backend)
    summarizer = make_summarizer(settings)
    _, load_s = timed(lambda: asyncio.run(summarizer.model.prepare()))  # type: ignore[attr-defined]
    seconds, n_in, n_out, failures = [], 0, 0, 0
    for request in requests:
        results, s = timed(lambda r=request: asyncio.run(summarizer.summarize([r])))
        if results[0].text is None:
            failures += 1
            continue
        seconds.append(s)
        n_in += results[0].input_tokens
        n_out += results[0].output_tokens
    total = sum(seconds)
    return {
        "model": summarizer.identity.model,
        "prompt_version": summarizer.identity.prompt_version,
        "max_new_tokens": settings.summarizer_max_new_tokens,
        "load_seconds": round(load_s, 1),
        "sampled_nodes": len(requests),
        "failures": failures,
        "seconds_per_summary": round(total / max(len(seconds), 1), 2),
        "summaries_per_s": round(len(seconds) / total, 3) if total else None,
        "output_tokens_per_s": round(n_out / total, 1) if total else None,
        "total_tokens_per_s": round((n_in + n_out) / total, 1) if total else None,
        "mean_input_tokens": round(n_in / max(len(seconds), 1)),
        "mean_output_tokens": round(n_out / max(len(seconds), 1)),
    }


def main() -> dict[str, Any]:
    import importlib.util

    from indexer.index import Index
    from indexer.settings import Settings
    from indexer.summarizers import make_summarizer

    work = Path(tempfile.mkdtemp(prefix="ovs-bench-summ-"))
    try:
        manuals = work / "manuals"
        shutil.copytree(FIXTURES, manuals, ignore=shutil.ignore_patterns("*.jsonl"))
        (manuals / "README.md").unlink(missing_ok=True)
        settings = Settings(store=work / "store", embedder="hashing")
        timed_summ = _TimedSummarizer(make_summarizer(settings))
        index = Index(settings, summarizer=timed_summ)
        plan = index.plan_paths([manuals]).to_json()
        report, build_s = timed(lambda: index.ingest_paths([manuals]))
        assert report.ok, report.errors
        n_summaries = report.summarizer_calls
        other_s = build_s - timed_summ.seconds

        # What a page costs, from the one fixture with pages.
        pdf = index.tree("cnc-m500.pdf")
        pages = pdf["pages"][1] - pdf["pages"][0] + 1
        pdf_summaries = sum(1 for n in _walk(pdf) if n["level"] != "passage")
        per_page = pdf_summaries / pages
        manual_summaries = round(PAGES * per_page)
        other_per_summary = other_s / n_summaries

        backends: dict[str, Any] = {
            "extractive": {
                "model": timed_summ.identity.model,
                "summaries": n_summaries,
                "summarizer_seconds": round(timed_summ.seconds, 2),
                "summaries_per_s": round(n_summaries / timed_summ.seconds, 1),
                "output_tokens_per_s": round(timed_summ.output_tokens / timed_summ.seconds),
                "full_build_seconds": round(build_s, 1),
                "full_build": "measured",
            }
        }
        requests = _sample_requests(index, max(SAMPLES.values()))
        for backend, n in SAMPLES.items():
            module = "llama_cpp" if backend == "llamacpp" else "transformers"
            if importlib.util.find_spec(module) is None:
                backends[backend] = {"skipped": f"{module} is not installed"}
                continue
            try:
                row = _measure_model(backend, requests[:n], work)
            except Exception as exc:  # a missing model must not hide the other figures
                backends[backend] = {"error": repr(exc)}
                continue
            row["full_build_seconds"] = round(
                row["load_seconds"] + n_summaries * row["seconds_per_summary"] + other_s, 1
            )
            row["full_build"] = (
                f"extrapolated from {row['sampled_nodes']} sampled nodes: load + "
                f"{n_summaries} summaries x seconds per summary + non-summary build time"
            )
            backends[backend] = row

        est = plan["estimate"]
        in_per_summary = est["input_tokens"] / max(plan["summaries_computed"], 1)
        # LLM prompts add instructions to the source text; measure that overhead from a sample.
        llm_in = next(
            (b["mean_input_tokens"] for b in backends.values() if "mean_input_tokens" in b),
            round(in_per_summary * 1.4),
        )
        out_tokens = settings.summary_tokens
        manual: dict[str, Any] = {
            "pages": PAGES,
            "summaries": manual_summaries,
            "basis": f"{pdf_summaries} summaries over {pages} pages of cnc-m500.pdf "
            f"({per_page:.2f} per page); non-summary build time {other_per_summary:.2f} s per "
            "summary with the hashing embedder (MiniLM embedding adds ~20 passages/s)",
        }
        for name, b in backends.items():
            if "seconds_per_summary" in b:
                s = b["load_seconds"] + manual_summaries * b["seconds_per_summary"]
            elif "summaries_per_s" in b:
                s = manual_summaries / b["summaries_per_s"]
            else:
                continue
            manual[f"{name}_summarizer_minutes"] = round(s / 60, 1)
        gpu_s = manual_summaries * (
            llm_in / GPU_PROMPT_TOKENS_PER_S + out_tokens / GPU_OUTPUT_TOKENS_PER_S
        )
        manual["gpu_server_summarizer_minutes_CALCULATED"] = round(gpu_s / 60, 1)
        manual["gpu_server_assumption"] = (
            f"a calculation, not a measurement: {GPU_PROMPT_TOKENS_PER_S:.0f} prompt tokens/s and "
            f"{GPU_OUTPUT_TOKENS_PER_S:.0f} output tokens/s aggregate (vLLM, 8B model, one "
            f"L4/A10G-class GPU, 32 requests in flight), {llm_in} input and {out_tokens} output "
            "tokens per summary; bottom-up levels limit concurrency near the root"
        )
        return {
            "fixtures_summaries": n_summaries,
            "dry_run_predicted": plan["summaries_computed"],
            "dry_run_estimate_tokens": {
                "input": est["input_tokens"],
                "output": est["output_tokens"],
            },
            "backends": backends,
            "manual_500_pages": manual,
            "load_average_1min": round(os.getloadavg()[0], 2),
            "cores": os.cpu_count(),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
