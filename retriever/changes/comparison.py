"""A change question answered from the diff: two revisions, a scope, the changes, quotes.

For every document the question is about (:mod:`retriever.changes.scope`), the two revisions it
compares (:mod:`retriever.changes.when`) are diffed (:mod:`indexer.diff`); the changes are cut to
the part the question names; a question about a value keeps the changes whose changed sentences
hold it, or, when none does, says that the passages holding it did not change and quotes them.
A change summary written by the configured summarizer heads each comparison
(:mod:`retriever.changes.summary`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from indexer.diff import RevisionDiff, SectionChange, build_for, diff_builds
from indexer.diff_sections import Section, changed_sentences, load_sections, passage_json, sentences
from indexer.store.catalog import Catalog
from indexer.store.records import BuildInfo
from indexer.summarizers import Summarizer
from retriever.answers import Comparison
from retriever.changes.scope import (
    NamedPart,
    change_kinds,
    documents_named,
    part_named,
    value_terms,
)
from retriever.changes.summary import change_summary
from retriever.changes.when import Anchor, anchor
from retriever.tokenize import tokenize

MAX_DOCUMENTS = 5
UNCHANGED_QUOTES = 3
_MISSING = 4  # a value's words a sentence and its headings may lack: one in this many

Sections = dict[tuple[str, ...], Section]


@dataclass(frozen=True, kw_only=True)
class ChangeQuestion:
    """A change question and how to answer it."""

    question: str
    documents: tuple[str, ...] | None = None
    summarizer: Summarizer | None = None  # None: no change summary
    now: datetime | None = None


def compare(catalog: Catalog, ask: ChangeQuestion) -> list[Comparison]:
    """One comparison per document the question is about, newest change first.

    Raises:
        NotFoundError: A document the request names is not indexed, or a revision is unknown.
        GoneError: A revision the question names was pruned.
    """
    now = ask.now or datetime.now(UTC)
    served = {d.doc_id: d for d in catalog.served_documents()}
    titles = _titles(catalog, [d.root_node for d in served.values() if d.root_node])
    names = {d: titles.get(s.root_node or "") for d, s in served.items()}
    if ask.documents:
        for doc_id in ask.documents:
            catalog.require_document(doc_id)
        wanted = list(ask.documents)
    else:
        wanted = documents_named(ask.question, names) or sorted(served)
    out = []
    for doc_id in wanted:
        found = _comparison(catalog, ask, doc_id, now=now, title=names.get(doc_id))
        if found is not None:
            out.append(found)
    if not ask.documents and len(out) > 1:
        out = [c for c in out if c.changes or c.value] or out[:1]
        out.sort(key=lambda c: -(c.to.ingested_at or 0.0))
        out = out[:MAX_DOCUMENTS]
    return out


def _comparison(
    catalog: Catalog, ask: ChangeQuestion, doc_id: str, *, now: datetime, title: str | None
) -> Comparison | None:
    builds = catalog.revisions(doc_id)
    if not builds:
        return None
    known = tuple(b.revision for b in builds) + tuple(
        p.revision for p in catalog.history.pruned(doc_id)
    )
    when = anchor(ask.question, now=now, known=known)
    old_id, new_id, note = _pair(catalog, doc_id, builds, when)
    by_id = {b.build_id: b for b in builds}
    old, new = load_sections(catalog, old_id), load_sections(catalog, new_id)
    diff = diff_builds(catalog, doc_id, old_id, new_id, loaded=(old, new))
    part = part_named(ask.question, _parts(new) + _parts(old))
    kinds = change_kinds(ask.question)
    scoped = [c for c in diff.changes if part is None or _within(c, part.path, diff)]
    in_scope = [c for c in scoped if kinds is None or c.change in kinds]
    terms = value_terms(ask.question, documents=[doc_id, title], part=part)
    value = None
    changes = in_scope
    if terms:
        changes = [c for c in in_scope if _holds_value(c, terms, old, new)]
        value = {"terms": terms, "changed": bool(changes), "unchanged": []}
        if not changes:
            value["unchanged"] = _unchanged_quotes(new, terms, part, diff.to_revision)
    summary = None
    if ask.summarizer is not None and old_id != new_id:
        summary = change_summary(
            catalog,
            ask.summarizer,
            diff=diff,
            changes=scoped,
            old=old,
            new=new,
            scope=part.path if part else None,
            title=title or doc_id,
        )
    return Comparison.model_validate(
        {
            "doc_id": doc_id,
            "change_summary": summary,
            "from": _revision(by_id[old_id]),
            "to": _revision(by_id[new_id]),
            "anchor": when.to_json(),
            "scope": _scope(part, title),
            "value": value,
            "counts": _counts(changes),
            "changes": [asdict(c) for c in changes],
            "note": note,
        }
    )


def _pair(
    catalog: Catalog, doc_id: str, builds: list[BuildInfo], when: Anchor
) -> tuple[int, int, str | None]:
    """The builds compared, and a note when the question's anchor had to be read loosely."""
    newest = builds[-1].build_id
    if when.revisions:
        ids = sorted(
            {build_for(catalog, doc_id, r, default=-1) for r in when.revisions},
            key=lambda b: b,
        )
        return (ids[0], ids[-1] if len(ids) > 1 else newest, None)
    if when.since is not None:
        cut = when.since.timestamp()
        before = [b for b in builds if (b.completed_at or 0.0) <= cut]
        if before:
            note = None if before[-1].build_id != newest else "no new revision since then"
            return before[-1].build_id, newest, note
        return (
            builds[0].build_id,
            newest,
            f"the oldest kept revision is newer than {when.since.date().isoformat()}: "
            "compared from it",
        )
    if len(builds) == 1:
        return newest, newest, "only one revision is kept: nothing to compare"
    return builds[-2].build_id, newest, when.note()


def _within(change: SectionChange, scope: tuple[str, ...], diff: RevisionDiff) -> bool:
    roots = {scope}
    for c in diff.changes:  # a renamed part is the same part under its old heading
        if c.old_heading_path and tuple(c.heading_path) == scope and c.change == "renamed":
            roots.add(tuple(c.old_heading_path))
    return any(tuple(p[: len(r)]) == r for p in change.paths() for r in roots)


def _holds_value(change: SectionChange, terms: list[str], old: Sections, new: Sections) -> bool:
    """Whether a sentence that changed (or the part added, removed, renamed) holds the value."""
    path, before = tuple(change.heading_path), tuple(change.old_heading_path or change.heading_path)
    heading = set(tokenize(" ".join(change.heading_path + (change.old_heading_path or []))))
    if change.change in ("changed",) or change.edited:
        gone, came = changed_sentences(old[before].body, new[path].body)
        units = gone + came
    elif change.change == "added":
        units = sentences(new[path].body) + [path[-1]]
    elif change.change == "removed":
        units = sentences(old[path].body) + [path[-1]]
    else:
        units = [change.heading_path[-1], *(change.old_heading_path or [])[-1:]]
    return any(_matches(set(tokenize(u)), heading, terms) for u in units)


def _matches(unit: set[str], heading: set[str], terms: list[str]) -> bool:
    """A sentence holds a value when it holds every number of it, one of its words at least,
    and, with its headings, all its words (one in four may be missing)."""
    numbers = [t for t in terms if any(ch.isdigit() for ch in t)]
    if any(n not in unit for n in numbers):
        return False
    words = [t for t in terms if t not in numbers] or numbers
    missing = [t for t in words if t not in unit and t not in heading]
    return bool(unit & set(terms)) and len(missing) <= len(words) // _MISSING


def _unchanged_quotes(
    new: Sections, terms: list[str], part: NamedPart | None, revision: str
) -> list[dict[str, Any]]:
    """The passages of the newer revision that hold the value (none of them changed)."""
    scored = []
    for path, sec in new.items():
        if part is not None and path[: len(part.path)] != part.path:
            continue
        heading = set(tokenize(" ".join(path)))
        for p in sec.passages:
            unit = set(tokenize(p.text))
            if _matches(unit, heading, terms):
                held = sum(1 for t in terms if t in unit or t in heading)
                scored.append((-held, sec.ordinal, p.char_start, path, p))
    scored.sort(key=lambda s: s[:3])
    return [
        passage_json(p, revision=revision, heading_path=path)
        for *_, path, p in scored[:UNCHANGED_QUOTES]
    ]


def _parts(sections: Sections) -> list[NamedPart]:
    return [
        NamedPart(path=p, title=s.title, level=s.level)
        for p, s in sections.items()
        if s.title and s.parent is not None
    ]


def _titles(catalog: Catalog, root_ids: list[str]) -> dict[str, str | None]:
    return {n.node_id: n.title for n in catalog.nodes.records_by_id(root_ids).values()}


def _revision(build: BuildInfo) -> dict[str, Any]:
    at = build.completed_at
    return {
        "revision": build.revision,
        "ingested_at": at,
        "ingested": datetime.fromtimestamp(at, UTC).isoformat() if at else None,
    }


def _scope(part: NamedPart | None, title: str | None) -> dict[str, Any]:
    if part is None:
        return {"level": "document", "heading_path": [title] if title else [], "named": None}
    return {"level": part.level, "heading_path": list(part.path), "named": part.title}


def _counts(changes: list[SectionChange]) -> dict[str, int]:
    counts = {k: 0 for k in ("added", "removed", "moved", "renamed", "changed")}
    for c in changes:
        counts[c.change] += 1
    return counts
