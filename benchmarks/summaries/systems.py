"""The systems judged side by side on the same nodes, each summary as sentences with spans.

- ``overstory``: the summary the product serves for the node (from the benchmark's store).
- ``v2``: the summarizer as it was before the sourced-sentence rework, run as it ran in the
  product: bottom-up over the node's tree, a parent from its passages and its children's
  summaries (:class:`benchmarks.summaries.peers.V2Peer`).
- ``lead``, ``lexrank``, ``textrank``: peers over the node's whole text.

Every system gets the same length budget: the product's ``summary_tokens`` for a node without
sections below it, twice that for one with sections (what the product's summarizer allows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.summaries.corpus import Node
from benchmarks.summaries.peers import V2Peer, locate, make_peer
from indexer.settings import Settings
from indexer.summarizers.sentences import split_sentences

SYSTEMS = ("overstory", "v2", "lead", "lexrank", "textrank")
SECTION_BUDGET = Settings.model_fields["summary_tokens"].default
OUTLINE_BUDGET = 2 * SECTION_BUDGET


@dataclass(frozen=True)
class Sentence:
    """A summary sentence and its spans (offsets into the node's document text)."""

    text: str
    spans: tuple[tuple[int, int], ...]
    kind: str = "statement"


@dataclass(frozen=True)
class Summary:
    """One system's summary of one node."""

    system: str
    sentences: tuple[Sentence, ...]

    @property
    def text(self) -> str:
        """The sentences joined."""
        return " ".join(s.text for s in self.sentences)


def budget(node: Node) -> int:
    """The length budget of ``node``'s summary."""
    inner = any(c["level"] != "passage" for c in node.tree.get("children", []))
    return OUTLINE_BUDGET if inner else SECTION_BUDGET


def summarize(node: Node, system: str) -> Summary:
    """``system``'s summary of ``node``."""
    if system == "overstory":
        return Summary(
            system,
            tuple(
                Sentence(
                    s["text"],
                    tuple((p["char_start"], p["char_end"]) for p in s["spans"]),
                    s.get("kind", "statement"),
                )
                for s in node.tree.get("sentences") or []
            ),
        )
    if system == "v2":
        return _v2(node)
    peer = make_peer(system)
    title = node.heading_path[-1] if node.heading_path else None
    found = peer.summarize(node.source, budget_tokens=budget(node), title=title)
    return Summary(
        system,
        tuple(
            Sentence(s.text, tuple((a + node.char_start, b + node.char_start) for a, b in s.spans))
            for s in found
        ),
    )


_V2 = V2Peer()


def _v2(node: Node) -> Summary:
    text = _v2_tree(node.tree)
    out: list[Sentence] = []
    cursor = 0
    for line in text.split("\n"):
        if line.startswith("Contents: "):
            out.append(Sentence(line, ()))
            continue
        for sentence in split_sentences(line):
            begin, end = locate(sentence, node.source, cursor, None)
            if begin < 0:
                begin, end = locate(sentence, node.source, 0, None)
            spans = ((begin + node.char_start, end + node.char_start),) if begin >= 0 else ()
            out.append(Sentence(sentence, spans))
            cursor = max(cursor, end)
    return Summary("v2", tuple(out))


_V2_DONE: dict[str, str] = {}


def _v2_tree(tree: dict[str, Any]) -> str:
    """v2's summary of a node, its children summarized first, as the product ran it."""
    if tree["node_id"] in _V2_DONE:
        return _V2_DONE[tree["node_id"]]
    children = [c for c in tree.get("children", []) if c["level"] != "passage"]
    passages = [c["text"] or "" for c in tree.get("children", []) if c["level"] == "passage"]
    below = [(c.get("title") or "", _v2_tree(c)) for c in children]
    level = tree["level"]
    budget_tokens = OUTLINE_BUDGET if children else SECTION_BUDGET
    # v2 had one budget for every level; it is given the same budget as the others here.
    text = _V2.summarize_node(passages, below, level, tree.get("title"), budget_tokens)
    _V2_DONE[tree["node_id"]] = text
    return text
