"""Results in the format of DESIGN.md: every hit says what it is and where it comes from."""

from __future__ import annotations

from collections.abc import Sequence

from indexer.reviews import correction_sentences, review_states_by_id
from indexer.sourced import ResolvedSentence
from indexer.store.catalog import Catalog
from retriever.answers import Covers, Hit, Sentence
from retriever.candidates import Candidate
from retriever.snapshot import NodeRecord, ServedDocument, Snapshot


def pages_json(node: NodeRecord) -> list[int] | None:
    """``[first, last]`` page, or None for formats without pages."""
    return [node.pages[0], node.pages[1]] if node.pages else None


def label(node: NodeRecord, doc: ServedDocument) -> str:
    """``quote`` for a passage; for a summary what it summarizes, with pages when known."""
    if node.is_passage:
        return "quote"
    if node.level == "cluster":
        what = f"a group of {node.n_passages} related passages of {doc.source}"
    elif node.level == "document":
        what = f"the whole document {node.title or doc.source}"
    else:
        what = node.title or "(untitled section)"
    if node.pages:
        first, last = node.pages
        where = f", p. {first}" if first == last else f", pp. {first}–{last}"
    else:
        where = ""
    return f"summary of {what}{where}"


def covers(node: NodeRecord) -> Covers | None:
    """What a summary covers: the number of passages, the first and last (all for clusters)."""
    if node.is_passage:
        return None
    if node.covers is None:
        return Covers(passages=node.n_passages, first=node.first_passage, last=node.last_passage)
    return Covers(
        passages=node.n_passages,
        first=node.first_passage,
        last=node.last_passage,
        ids=list(node.covers),
    )


def hit(
    node: NodeRecord,
    doc: ServedDocument,
    *,
    rank: int | None,
    score: float,
    text: str,
    summarizer: str | None,
    sentences: Sequence[ResolvedSentence] = (),
) -> Hit:
    """One result; a summary's ``sentences`` each with the source spans it rests on."""
    return Hit(
        rank=rank,
        node_id=node.node_id,
        kind=node.kind,  # type: ignore[arg-type]  # a node is a passage or a summary
        level=node.level,  # type: ignore[arg-type]
        score=round(float(score), 6),
        text=text,
        doc_id=node.doc_id,
        source=doc.source,
        revision=doc.revision,
        heading_path=list(node.heading_path),
        char_start=node.char_start,
        char_end=node.char_end,
        pages=pages_json(node),
        covers=covers(node),
        label=label(node, doc),
        summarizer=None if node.is_passage else summarizer,
        review=None,
        sentences=None if node.is_passage else [Sentence.of(s) for s in sentences],
    )


def hits_of(catalog: Catalog, top: Sequence[Candidate], snapshot: Snapshot) -> list[Hit]:
    """Ranked candidates as labelled hits, with their texts and summary sentences."""
    texts = catalog.nodes.texts_of([c.node for c in top])
    sentences = catalog.nodes.sentences_of(c.node_id for c in top if not c.node.is_passage)
    out = []
    for rank, cand in enumerate(top, start=1):
        text, writer = texts.get(cand.node_id, ("", None))
        out.append(
            hit(
                cand.node,
                snapshot.by_build[cand.node.build_id],
                rank=rank,
                score=cand.score,
                text=text,
                summarizer=writer,
                sentences=sentences.get(cand.node_id, []),
            )
        )
    return out


def reviewed(catalog: Catalog, hits: list[Hit]) -> list[Hit]:
    """Summary hits with their audit status; a corrected one serves the expert's text."""
    ids = [h.node_id for h in hits if h.kind == "summary"]
    if not ids:
        return hits
    states = review_states_by_id(catalog, ids)
    out = []
    for item in hits:
        if item.kind != "summary":
            out.append(item)
            continue
        state = states.get(item.node_id)
        update: dict[str, object] = {"review": state.status if state is not None else "pending"}
        if state is not None and state.correction is not None:
            update["text"] = state.correction
            row = catalog.node(item.node_id)
            if row is not None:
                found = correction_sentences(catalog, row, state.correction)
                update["sentences"] = [Sentence.of(s) for s in found]
        out.append(item.model_copy(update=update))
    return out
