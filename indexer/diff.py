"""Compare two revisions of a document: sections added, removed, moved, renamed and changed.

"What changed between revisions" is a comparison, not a retrieval: it is answered from the
stored trees of both revisions. Sections are matched in four passes, each only among what the
earlier ones left unmatched:

1. the same heading path;
2. under matched parents, the same heading (a renamed parent changes its children's paths, not
   the children), else a sibling with the same or a very similar body (a renamed heading);
3. anywhere, the same subtree (Merkle hash) or the same heading and body: a move;
4. what is left was added or removed; a subtree added or removed whole is one change.

Children of one parent that kept their parent but not their order are moved too (the fewest:
those off the longest run in the old order). A matched section whose own text differs is
changed, with the passages that differ on each side and both revisions' summaries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from indexer.diff_sections import (
    Section,
    changed_passages,
    load_sections,
    passage_json,
    similarity,
    text_diff,
)
from indexer.errors import GoneError, NotFoundError
from indexer.store.catalog import Catalog

CHANGE_KINDS = ("added", "removed", "moved", "renamed", "changed")
RENAME_SIMILARITY = 0.6  # a sibling this alike, under a new heading, was renamed
_EXCERPT = 2000
_MARK = re.compile(r" \[(\d+)\]$")  # a repeated heading's place (indexer.diff_sections)


@dataclass
class SectionChange:
    """One section that differs between the two revisions."""

    change: str  # added | removed | moved | renamed | changed
    heading_path: list[str]
    old_heading_path: list[str] | None = None
    pages: list[int] | None = None
    old_pages: list[int] | None = None
    diff: str | None = None
    before: list[dict[str, Any]] = field(default_factory=list)
    after: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)
    includes: list[list[str]] = field(default_factory=list)
    edited: bool = False  # a moved or renamed section whose text changed too

    def paths(self) -> list[list[str]]:
        """Every heading path this change is about (both sides, subtrees included)."""
        out = [self.heading_path, *self.includes]
        return out + ([self.old_heading_path] if self.old_heading_path else [])


@dataclass
class RevisionDiff:
    """The comparison of two revisions of one document."""

    doc_id: str
    from_revision: str
    to_revision: str
    changes: list[SectionChange] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Changes by kind."""
        counts = {k: 0 for k in CHANGE_KINDS}
        for c in self.changes:
            counts[c.change] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, with counts per kind of change."""
        return {
            "doc_id": self.doc_id,
            "from": self.from_revision,
            "to": self.to_revision,
            "summary": self.counts(),
            "changes": [asdict(c) for c in self.changes],
        }


def revisions(catalog: Catalog, doc_id: str) -> list[dict[str, Any]]:
    """Completed revisions of a document, oldest first."""
    return [
        {
            "build_id": b.build_id,
            "revision": b.revision,
            "status": b.status,
            "completed_at": b.completed_at,
        }
        for b in catalog.revisions(doc_id)
    ]


def build_for(catalog: Catalog, doc_id: str, revision: str | None, *, default: int) -> int:
    """The build of a revision given by hash or prefix (``default``: an index into the kept
    revisions, oldest first, used when ``revision`` is None).

    Raises:
        NotFoundError: No such document, or no such revision.
        GoneError: The revision existed and the retention rule dropped it.
    """
    revs = revisions(catalog, doc_id)
    if not revs:
        raise NotFoundError(f"no document {doc_id!r}", detail={"doc_id": doc_id})
    if revision is None:
        return int(revs[max(-len(revs), default)]["build_id"])
    for r in reversed(revs):
        if r["revision"].startswith(revision):
            return int(r["build_id"])
    for p in catalog.history.pruned(doc_id):
        if p.revision.startswith(revision):
            raise GoneError(
                f"revision {p.revision[:12]} of {doc_id!r} was dropped by the retention rule"
                " (setting keep_revisions); list the kept ones with overstory revisions",
                detail={"doc_id": doc_id, "revision": p.revision, "pruned_at": p.pruned_at},
            )
    raise NotFoundError(
        f"{doc_id!r} has no revision {revision!r}",
        detail={"revisions": [r["revision"] for r in revs]},
    )


def diff_revisions(
    catalog: Catalog,
    doc_id: str,
    *,
    from_revision: str | None = None,
    to_revision: str | None = None,
) -> RevisionDiff:
    """Sections added, removed, moved, renamed and changed between two revisions.

    Args:
        catalog: The store.
        doc_id: The document.
        from_revision: A revision hash or prefix; default the one before the newest.
        to_revision: A revision hash or prefix; default the newest.

    Raises:
        NotFoundError: No such document or revision.
        GoneError: A revision asked for was pruned.
    """
    old_id = build_for(catalog, doc_id, from_revision, default=-2)
    new_id = build_for(catalog, doc_id, to_revision, default=-1)
    return diff_builds(catalog, doc_id, old_id, new_id)


def diff_builds(
    catalog: Catalog,
    doc_id: str,
    old_id: int,
    new_id: int,
    *,
    loaded: tuple[dict[tuple[str, ...], Section], dict[tuple[str, ...], Section]] | None = None,
) -> RevisionDiff:
    """The comparison of two builds of one document (``loaded``: both builds' sections, when
    the caller has read them already)."""
    rev = {b: info.revision for b, info in catalog.builds([old_id, new_id]).items()}
    old, new = loaded or (load_sections(catalog, old_id), load_sections(catalog, new_id))
    pairs = _match(old, new)
    result = RevisionDiff(doc_id, rev[old_id], rev[new_id])
    moved = _reordered(old, new, pairs)
    result.changes = _changes(old, new, pairs, moved=moved, revs=(rev[old_id], rev[new_id]))
    _attach_summaries(catalog, result, old, new, pairs)
    return result


Paths = dict[tuple[str, ...], tuple[str, ...]]


def _match(old: dict[tuple[str, ...], Section], new: dict[tuple[str, ...], Section]) -> Paths:
    """Old path → new path of every section found in both revisions."""
    repeated = _repeated(old) | _repeated(new)
    pairs = {p: p for p in new if p in old and p not in repeated}
    roots_old = [p for p, s in old.items() if s.parent is None and p not in pairs]
    roots_new = [p for p, s in new.items() if s.parent is None and p not in pairs]
    if len(roots_old) == 1 and len(roots_new) == 1:  # a retitled document
        pairs[roots_old[0]] = roots_new[0]
    back = {n: o for o, n in pairs.items()}
    free: dict[tuple[str, ...] | None, list[tuple[str, ...]]] = {}
    for p, sec in old.items():
        if p not in pairs:
            free.setdefault(sec.parent, []).append(p)
    # Under matched parents, most certain first; again while a pass matched a new parent.
    picks = (_same_heading_and_body, _same_body, _same_heading, _similar_body)
    grew = True
    while grew:
        grew = False
        for pick in picks:
            grew |= _pair_under_parents(old, new, pairs, back, free, pick)
    left = {p for siblings in free.values() for p in siblings}
    by_hash = {old[o].hash: o for o in left}
    by_body = {(old[o].title, old[o].body_hash): o for o in left if old[o].body}
    for path, sec in new.items():  # moves: anywhere, the same subtree or heading and body
        if path in back:
            continue
        found = by_hash.get(sec.hash) or by_body.get((sec.title, sec.body_hash))
        if found is not None and found in left:
            pairs[found], back[path] = path, found
            left.discard(found)
    return pairs


def _repeated(sections: dict[tuple[str, ...], Section]) -> set[tuple[str, ...]]:
    """Paths of headings that occur more than once under one parent (matched by content)."""
    seen: dict[tuple[tuple[str, ...] | None, str | None], list[tuple[str, ...]]] = {}
    for p, sec in sections.items():
        seen.setdefault((sec.parent, sec.title), []).append(p)
    return {p for paths in seen.values() if len(paths) > 1 for p in paths}


Pick = Callable[[Section, list[Section]], "tuple[str, ...] | None"]


def _pair_under_parents(
    old: dict[tuple[str, ...], Section],
    new: dict[tuple[str, ...], Section],
    pairs: Paths,
    back: Paths,
    free: dict[tuple[str, ...] | None, list[tuple[str, ...]]],
    pick: Pick,
) -> bool:
    """Pair unmatched new sections with unmatched old siblings chosen by ``pick``."""
    grew = False
    for path, sec in new.items():  # document order: parents before children
        if path in back or sec.parent is None or sec.parent not in back:
            continue
        siblings = free.get(back[sec.parent], [])
        found = pick(sec, [old[o] for o in siblings]) if siblings else None
        if found is not None:
            pairs[found], back[path] = path, found
            siblings.remove(found)
            grew = True
    return grew


def _nearest(sec: Section, found: list[Section]) -> tuple[str, ...] | None:
    """Of equal candidates, the one whose place among its same-titled siblings is nearest:
    identical "Environment" sections of ten reference pages pair in order, not crosswise."""
    if not found:
        return None
    return min(found, key=lambda o: abs(_nth(o.path) - _nth(sec.path))).path


def _nth(path: tuple[str, ...]) -> int:
    m = _MARK.search(path[-1]) if path else None
    return int(m[1]) if m else 1


def _same_heading_and_body(sec: Section, siblings: list[Section]) -> tuple[str, ...] | None:
    return _nearest(sec, [o for o in siblings if o.title == sec.title and o.hash == sec.hash])


def _same_body(sec: Section, siblings: list[Section]) -> tuple[str, ...] | None:
    if not sec.body:
        return None
    return _nearest(sec, [o for o in siblings if o.body and o.body_hash == sec.body_hash])


def _same_heading(sec: Section, siblings: list[Section]) -> tuple[str, ...] | None:
    return _nearest(sec, [o for o in siblings if o.title == sec.title])


def _similar_body(sec: Section, siblings: list[Section]) -> tuple[str, ...] | None:
    return _renamed_from(sec, siblings)


def _renamed_from(sec: Section, siblings: list[Section]) -> tuple[str, ...] | None:
    if not sec.body:
        return None
    best, score = None, RENAME_SIMILARITY
    for o in siblings:
        if not o.body:
            continue
        s = 1.0 if o.body_hash == sec.body_hash else similarity(o.body, sec.body)
        if s >= score:
            best, score = o.path, s
    return best


def _reordered(
    old: dict[tuple[str, ...], Section],
    new: dict[tuple[str, ...], Section],
    pairs: dict[tuple[str, ...], tuple[str, ...]],
) -> set[tuple[str, ...]]:
    """New paths of the sections that kept their parent but left their place among siblings."""
    back = {n: o for o, n in pairs.items()}
    by_parent: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for path, sec in new.items():
        o = back.get(path)
        if o is None or sec.parent is None:
            continue
        if back.get(sec.parent) == old[o].parent:
            by_parent.setdefault(sec.parent, []).append(path)
    out: set[tuple[str, ...]] = set()
    for children in by_parent.values():
        order = [old[back[c]].ordinal for c in children]
        keep = _longest_increasing(order)
        out.update(c for i, c in enumerate(children) if i not in keep)
    return out


def _longest_increasing(values: list[int]) -> set[int]:
    """Indexes of one longest strictly increasing subsequence (quadratic: siblings are few)."""
    if not values:
        return set()
    best = [1] * len(values)
    prev = [-1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i] and best[j] + 1 > best[i]:
                best[i], prev[i] = best[j] + 1, j
    i = max(range(len(values)), key=lambda k: best[k])
    out = set()
    while i != -1:
        out.add(i)
        i = prev[i]
    return out


def _changes(
    old: dict[tuple[str, ...], Section],
    new: dict[tuple[str, ...], Section],
    pairs: dict[tuple[str, ...], tuple[str, ...]],
    *,
    moved: set[tuple[str, ...]],
    revs: tuple[str, str],
) -> list[SectionChange]:
    back = {n: o for o, n in pairs.items()}
    out: list[SectionChange] = []
    for path, sec in new.items():
        o = back.get(path)
        if o is None:
            if sec.parent is None or sec.parent in back:  # the top of an added subtree
                out.append(_whole("added", sec, new, back, revs[1]))
            continue
        before = old[o]
        relocated = path in moved or (before.parent != back.get(sec.parent or ()) and o != path)
        kind = "moved" if relocated else "renamed" if before.title != sec.title else None
        edited = before.body_hash != sec.body_hash
        if kind is None and not edited:
            continue
        change = SectionChange(
            kind or "changed",
            list(path),
            old_heading_path=list(o) if kind or o != path else None,
            pages=sec.pages,
            old_pages=before.pages,
            edited=edited and kind is not None,
        )
        if edited:
            change.diff = text_diff(before.body, sec.body)
            b, a = changed_passages(before, sec)
            change.before = [passage_json(p, revision=revs[0], heading_path=o) for p in b]
            change.after = [passage_json(p, revision=revs[1], heading_path=path) for p in a]
        out.append(change)
    for path, sec in old.items():
        if path not in pairs and (sec.parent is None or sec.parent in pairs):
            out.append(_whole("removed", sec, old, pairs, revs[0]))
    return out


def _whole(
    kind: str,
    sec: Section,
    side: dict[tuple[str, ...], Section],
    matched: dict[tuple[str, ...], tuple[str, ...]],
    revision: str,
) -> SectionChange:
    """An added or removed subtree as one change: its top section, the headings below listed."""
    below = [
        p
        for p in side
        if len(p) > len(sec.path) and p[: len(sec.path)] == sec.path and p not in matched
    ]
    quotes = [passage_json(p, revision=revision, heading_path=sec.path) for p in sec.passages]
    return SectionChange(
        kind,
        list(sec.path),
        pages=sec.pages,
        diff=sec.body[:_EXCERPT],
        before=quotes if kind == "removed" else [],
        after=quotes if kind == "added" else [],
        includes=[list(p) for p in below],
    )


def _attach_summaries(
    catalog: Catalog,
    result: RevisionDiff,
    old: dict[tuple[str, ...], Section],
    new: dict[tuple[str, ...], Section],
    pairs: dict[tuple[str, ...], tuple[str, ...]],
) -> None:
    """Both revisions' summaries of every section whose text changed."""
    back = {n: o for o, n in pairs.items()}
    wanted: list[tuple[SectionChange, Section, Section]] = []
    for c in result.changes:
        path = tuple(c.heading_path)
        if c.change == "changed" or c.edited:
            wanted.append((c, old[back[path]], new[path]))
    keys = [s.summary_key for _, a, b in wanted for s in (a, b) if s.summary_key]
    found = catalog.summaries(keys)
    for c, before, after in wanted:
        for sec, revision in ((before, result.from_revision), (after, result.to_revision)):
            stored = found.get(sec.summary_key or "")
            if stored is not None:
                c.summaries.append(
                    {
                        "label": f"summary of {sec.title or 'the document'}, revision"
                        f" {revision[:12]}",
                        "revision": revision,
                        "node_id": sec.node_id,
                        "text": stored.text,
                        "summarizer": stored.writer,
                    }
                )
