"""Figures, the Markdown table and the plot of the peer benchmark, from the systems' raw output."""

from __future__ import annotations

from typing import Any

from benchmarks.peer import scoring

NAMES = {
    "overstory": "Overstory",
    "raptor_collapsed": "RAPTOR pack (collapsed tree)",
    "auto_merging": "Auto-merging retrieval",
}


def _cost(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "seconds": round(row["seconds"], 2),
        "summarizer_calls": row["llm_calls"],
        "embedded": row["embedded"],
    }


def _probe(ranked: list[dict[str, Any]], probe: dict[str, Any]) -> dict[str, Any]:
    """Where the revised text shows in the top 5, and whether the replaced text still does."""
    new = scoring.normalize(probe["new"])
    new_rank = next(
        (r for r, res in enumerate(ranked[:5], 1) if new in scoring.normalize(res["text"])), None
    )
    old = scoring.normalize(probe["old"]) if probe["old"] else None
    stale = bool(old) and any(old in scoring.normalize(res["text"]) for res in ranked[:5])
    return {"new_text_rank": new_rank, "old_text_in_top5": stale}


def system(
    raw: dict[str, Any],
    questions: list[dict[str, Any]],
    golds: dict[str, scoring.Section],
    probes: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """One system's figures: build cost, retrieval per split and kind, latency, re-indexing."""
    reindex: dict[str, Any] = {}
    for revision, modes in raw["reindex"].items():
        reindex[revision] = {}
        for mode, row in modes.items():
            figures = _cost(row)
            if "changed_units" in row:
                figures["changed_units"] = row["changed_units"]
            probe = next(p for p in probes if p["id"] == revision)
            figures["answer"] = _probe(row["probes"][revision], probe)
            reindex[revision][mode] = figures
    return {
        "build": _cost(raw["build"]),
        "retrieval": scoring.evaluate(questions, golds, raw["rankings"]),
        "latency": scoring.latency(raw["query_seconds"]),
        "reindex": reindex,
    }


def _retrieval_rows(part: dict[str, Any], split: str) -> list[str]:
    rows = []
    for name, fig in part["systems"].items():
        r = fig["retrieval"].get(split)
        if r is None:
            continue
        g, s = r["global"], r["specific"]
        rows.append(
            f"| {NAMES[name]} | {g['coverage@5']:.3f} | {g['hit@5']:.3f} | {g['mrr@10']:.3f} "
            f"| {s['hit@5']:.3f} | {s['mrr@10']:.3f} | {s['coverage@5']:.3f} "
            f"| {fig['latency']['p50_ms']:.0f} / {fig['latency']['p99_ms']:.0f} |"
        )
    return rows


def _answer(a: dict[str, Any]) -> str:
    out = (
        f"new text at rank {a['new_text_rank']}" if a["new_text_rank"] else "new text not in top 5"
    )
    return out + ("; replaced text still in top 5" if a["old_text_in_top5"] else "")


def _cost_rows(part: dict[str, Any]) -> list[str]:
    rows = []
    for name, fig in part["systems"].items():
        b = fig["build"]
        rows.append(
            f"| {NAMES[name]} | full build | {b['seconds']:.1f} | {b['summarizer_calls']} "
            f"| {b['embedded']} | |"
        )
        for revision, modes in fig["reindex"].items():
            for mode, row in modes.items():
                rows.append(
                    f"| {NAMES[name]} | {revision} ({mode}) | {row['seconds']:.1f} "
                    f"| {row['summarizer_calls']} | {row['embedded']} | {_answer(row['answer'])} |"
                )
    return rows


HEAD = (
    "| system | global coverage@5 | global hit@5 | global MRR@10 | specific hit@5 "
    "| specific MRR@10 | specific coverage@5 | query p50 / p99 ms |\n"
    "|---|---|---|---|---|---|---|---|"
)
COST_HEAD = (
    "| system | what | wall s | summarizer calls | texts embedded | answer after |\n"
    "|---|---|---|---|---|---|"
)


def _part(title: str, part: dict[str, Any], splits: tuple[str, ...]) -> list[str]:
    c, q = part["corpus"], part["questions"]
    out = [
        f"## {title}\n",
        f"{c['documents']} documents, {c['passages']} passages, {c['characters']:,} characters; "
        f"{q['n']} questions (`{q['file']}`).\n",
    ]
    for split in splits:
        rows = _retrieval_rows(part, split)
        if rows:
            out += [f"### Retrieval, {split} questions\n", HEAD, *rows, ""]
    out += ["### Build and re-index cost\n"]
    if "edited_passage_depth" in part:
        out.append(
            f"The edited passage lies at depth {part['edited_passage_depth']} (the summaries on "
            "its path, the document's included).\n"
        )
    return [*out, COST_HEAD, *_cost_rows(part), ""]


def markdown(result: dict[str, Any]) -> str:
    """The results as Markdown tables (``benchmarks/results/peer.md``)."""
    versions = ", ".join(f"{k}=={v}" for k, v in sorted(result["peer_versions"].items()))
    parts = [
        "# Overstory beside the LlamaIndex RAPTOR pack and auto-merging retrieval\n",
        f"Produced by `make bench-peer` in {result.get('wall_seconds', 0):.0f} s on 2 shared "
        "cores; scored by `benchmarks/peer/scoring.py` (the same scorer for every system).\n",
        f"Peers and shared code, pinned: {versions}.\n",
        *_part(
            f"PostgreSQL 15 manual (`{result['postgresql']['corpus']['package']}`)",
            result["postgresql"],
            ("heldout", "tune", "all"),
        ),
        *_part("Fixtures", result["fixtures"], ("all",)),
        *_small_model(result.get("small_model")),
    ]
    return "\n".join(parts)


def _small_model(small: dict[str, Any] | None) -> list[str]:
    if small is None:
        return [
            "## With a language model\n",
            "Left out of this run (`BENCH_PEER_SMALL_MODEL=0`).\n",
        ]
    ours, peer = small["overstory"], small["raptor_collapsed"]
    return [
        "## With a language model\n",
        f"`{small['model']}` (the bundled GGUF, greedy, at most {small['max_new_tokens']} new "
        f"tokens) summarizing one page, `{small['page']}`, on both summarizing sides; model "
        "load time excluded.\n",
        "| system | build wall s | model calls | tokens generated |",
        "|---|---|---|---|",
        f"| Overstory ({ours['summaries']} summaries) | {ours['seconds']:.1f} "
        f"| {ours['summarizer_calls']} | {ours['output_tokens']} |",
        f"| {NAMES['raptor_collapsed']} | {peer['seconds']:.1f} | {peer['summarizer_calls']} "
        f"| {peer['output_tokens']} |",
        "",
    ]
