"""An agent that navigates the tree (outline → read_node) beside one ``search``, on the fixture
questions: the share of questions whose gold it reaches and the tool calls it needs.

The fixture manuals are ingested for real (all-MiniLM-L6-v2, extractive summaries) and both
agents call the MCP server's tools in-process (:class:`api.mcp.tools.Tools`, the functions the
MCP server runs), so a tool call here is one MCP call. The walking agent is scripted and sees
only what the tools return:

1. ``list_documents`` (skipped when the question names its document), then ``outline`` (depth
   3) of every document in scope;
2. it chooses the outline node whose title and one-line summary are most similar to the
   question (cosine of MiniLM embeddings): the outline's summaries alone decide;
3. ``read_node`` of that node with one page of its passages (up to :data:`PAGE`); it answers
   with that node's summary and the :data:`ANSWER` passages most similar to the question.

Scored with the gold of :mod:`retriever.evaluation`: a specific question's gold is a passage
holding its evidence, a global question's the node at its gold heading path. ``reached``: the
gold was among what the agent read (the chosen node for a global question, the passages of the
page for a specific one); ``hit@3``: the gold is the chosen node (global) or among the 3
passages it answers with (specific). ``search`` is one ``search`` call (k = 5), hit@3 and hit@5
as in ``overstory eval``. The walk's rules (depth 3, one page of 50, answer 3) were fixed before
its first run and nothing here is tuned on these questions, so there is no tuning half to hold
out; the figures are reported by question kind and by half, and the questions the two disagree
on are listed. ``search``'s intent and mix models were fitted with these fixture questions among
others (``benchmarks/train_mix.py``), so its figure here is in-sample; its held-out figures
over real manuals are in ``results/mix.json``.

``python -m benchmarks.run agent_walk``.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from api.mcp.server import tool_result
from api.service.outline import one_line
from benchmarks.common import FIXTURES, timed

PAGE = 50
ANSWER = 3
SEARCH_K = 5


@dataclass(frozen=True)
class Plan:
    """How the scripted agent walks: how deep it outlines, how many nodes it reads."""

    depth: int  # outline depth
    reads: int  # nodes read (the most similar first)
    all_pages: bool  # read every page of a node's passages, not only the first


PLANS = {
    # outline to depth 3, read the one most similar node
    "section": Plan(depth=3, reads=1, all_pages=False),
    # the same, reading the three most similar nodes
    "section_top3": Plan(depth=3, reads=3, all_pages=False),
    # outline the chapters only, read the chosen chapter and all its passages
    "chapter": Plan(depth=1, reads=1, all_pages=True),
}


@dataclass
class Walk:
    """One question's walk: what it chose, read and answered, and its tool calls."""

    calls: int = 0
    chosen: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)


class Agent:
    """The scripted agent: chooses by cosine similarity, remembers the vectors it computed."""

    def __init__(self, tools: Any) -> None:
        self.tools = tools
        self.embedder = tools.retriever.embedder
        self._vectors: dict[str, np.ndarray] = {}

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def rank(self, question: str, texts: Sequence[str]) -> list[int]:
        """Indexes of ``texts``, most similar to the question first."""
        scores = self.vectors(texts) @ self.vectors([question])[0]
        return [int(i) for i in np.argsort(-scores, kind="stable")]

    def walk(self, question: str, documents: list[str] | None, plan: Plan) -> Walk:
        """outline → choose by the outline's summaries → read_node with its passages."""
        out = Walk()
        if documents is None:
            listed = _seen(self.tools.list_documents())
            out.calls += 1
            documents = [d["doc_id"] for d in listed["documents"]]
        entries: list[dict[str, Any]] = []
        for doc_id in documents:
            entries.extend(_flatten(_seen(self.tools.outline(doc_id, depth=plan.depth))["outline"]))
            out.calls += 1
        order = self.rank(question, [_entry_text(e) for e in entries])
        passages: list[dict[str, Any]] = []
        for i in order[: plan.reads]:
            detail, calls = self.read(entries[i]["node_id"], all_pages=plan.all_pages)
            out.calls += calls
            out.chosen.append(self.settle(question, detail))
            passages.extend(detail["passages"])
        out.read = [p["node_id"] for p in passages]
        if passages:
            best = self.rank(question, [p["text"] for p in passages])[:ANSWER]
            out.answer = [passages[i]["node_id"] for i in best]
        return out

    def read(self, node_id: str, *, all_pages: bool) -> tuple[dict[str, Any], int]:
        """``read_node`` with one page of passages, or every page; the detail and the calls."""
        detail = _seen(self.tools.read_node(node_id, passages_limit=PAGE))
        calls = 1
        while all_pages and len(detail["passages"]) < detail["passages_total"]:
            more = _seen(
                self.tools.read_node(
                    node_id, passages_limit=PAGE, passages_offset=len(detail["passages"])
                )
            )
            calls += 1
            if not more["passages"]:
                break
            detail["passages"].extend(more["passages"])
        return detail, calls

    def settle(self, question: str, detail: dict[str, Any]) -> str:
        """The node the agent answers a global question with: the node read, or one of its
        children when a child's summary (given by read_node) is more similar."""
        options = [detail["node"], *(c for c in detail["children"] if c["level"] != "passage")]
        texts = [_entry_text({**o, "summary": o.get("summary")}) for o in options]
        return str(options[self.rank(question, texts)[0]]["node_id"])


def _seen(answer: BaseModel) -> dict[str, Any]:
    """What an MCP client reads of a tool's answer: its structured content."""
    return tool_result(answer).structured_content or {}


def _flatten(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for child in node["children"]:
        out.extend(_flatten(child))
    return out


def _entry_text(entry: dict[str, Any]) -> str:
    title = entry.get("title") or entry.get("label") or ""
    summary = one_line(entry.get("summary"))
    return f"{title}: {summary}" if summary else title


def _walk_row(q: Any, want: set[str], walk: Walk) -> dict[str, Any]:
    if q.kind == "global":
        reached = hit = bool(want & set(walk.chosen))
    else:
        reached = bool(want & set(walk.read))
        hit = bool(want & set(walk.answer))
    return {
        "id": q.id,
        "kind": q.kind,
        "calls": walk.calls,
        "reached": reached,
        "hit@3": hit,
        "passages_read": len(walk.read),
    }


def _search_row(q: Any, want: set[str], found: dict[str, Any]) -> dict[str, Any]:
    ranked = [r["node_id"] for r in found["results"]]
    return {
        "id": q.id,
        "kind": q.kind,
        "calls": 1,
        "reached": bool(want & set(ranked[:SEARCH_K])),
        "hit@3": bool(want & set(ranked[:3])),
        "hit@5": bool(want & set(ranked[:5])),
        "passages_read": sum(r["kind"] == "passage" for r in found["results"]),
    }


def _run(
    questions: Sequence[Any], gold: dict[str, set[str]], agent: Agent
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, float]]:
    """Every question through every plan and through search: rows and seconds by system."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in (*PLANS, "search")}
    seconds = dict.fromkeys(rows, 0.0)
    for q in questions:
        for name, plan in PLANS.items():
            walk, took = timed(lambda q=q, plan=plan: agent.walk(q.question, q.documents, plan))
            seconds[name] += took
            rows[name].append(_walk_row(q, gold[q.id], walk))
        found, took = timed(
            lambda q=q: _seen(agent.tools.search(q.question, k=SEARCH_K, documents=q.documents))
        )
        seconds["search"] += took
        rows["search"].append(_search_row(q, gold[q.id], found))
    return rows, seconds


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str) -> float:
        return round(sum(float(r[key]) for r in rows) / len(rows), 4) if rows else 0.0

    out = {
        "n": len(rows),
        "reached": mean("reached"),
        "hit@3": mean("hit@3"),
        "tool_calls_mean": mean("calls"),
        "tool_calls_max": max((r["calls"] for r in rows), default=0),
        "passages_read_mean": mean("passages_read"),
    }
    if rows and "hit@5" in rows[0]:
        out["hit@5"] = mean("hit@5")
    return out


def _groups(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """All questions, by kind, and by half (odd and even question numbers)."""

    def number(r: dict[str, Any]) -> int:
        return int("".join(ch for ch in r["id"] if ch.isdigit()) or 0)

    return {
        "all": _summary(rows),
        "specific": _summary([r for r in rows if r["kind"] == "specific"]),
        "global": _summary([r for r in rows if r["kind"] == "global"]),
        "half_odd": _summary([r for r in rows if number(r) % 2 == 1]),
        "half_even": _summary([r for r in rows if number(r) % 2 == 0]),
    }


def _store() -> tuple[Any, dict[str, Any]]:
    from api.service.wiring import open_stack
    from indexer.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="ovs-agent-walk-"))
    stack = open_stack(Settings(store=folder / "store"))
    report, seconds = timed(lambda: stack.index.ingest_paths([FIXTURES]))
    assert report.ok, report.errors
    return stack, {"documents": len(report.documents), "ingest_seconds": round(seconds, 1)}


def main() -> dict[str, Any]:
    """Ingest the fixtures, walk and search every fixture question, report both."""
    from api.mcp.tools import Tools
    from retriever.evaluation import Evaluation, load_questions

    started = time.perf_counter()
    stack, corpus = _store()
    questions = load_questions(FIXTURES / "questions.jsonl")
    snapshot = stack.retriever.snapshots.take()
    evaluation = Evaluation(stack.retriever)
    gold = {q.id: evaluation.gold_ids(q, snapshot) for q in questions}
    agent = Agent(Tools(stack))
    agent.vectors([q.question for q in questions])  # load the encoder before timing
    rows, seconds = _run(questions, gold, agent)
    search_seconds = max(seconds["search"], 1e-9)
    hits = {name: {r["id"] for r in rows[name] if r["hit@3"]} for name in rows}
    return {
        "corpus": corpus,
        "cpus": os.cpu_count(),
        "questions": len(questions),
        "unresolved_gold": sorted(q for q, ids in gold.items() if not ids),
        "rules": {"page": PAGE, "answer_passages": ANSWER, "search_k": SEARCH_K},
        "note": "search's intent and mix models were fitted with these questions among others: "
        "its figures are in-sample; the walk has nothing fitted",
        "plans": {name: vars(plan) for name, plan in PLANS.items()},
        "results": {name: _groups(r) for name, r in rows.items()},
        "seconds_per_question": {n: round(t / len(questions), 4) for n, t in seconds.items()},
        "seconds_over_search": {n: round(t / search_seconds, 2) for n, t in seconds.items()},
        "hit@3_only_by_walk": {n: sorted(hits[n] - hits["search"]) for n in PLANS},
        "hit@3_only_by_search": {n: sorted(hits["search"] - hits[n]) for n in PLANS},
        "total_seconds": round(time.perf_counter() - started, 1),
    }
