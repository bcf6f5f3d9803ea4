"""The inner nodes of served builds, kept in memory: who is above a passage, and at what level.

The mix gives every summary above the best passages a chance (their chapter, their document):
that needs each passage's ancestors on every query. A build never changes once published, so
its inner nodes (about a third of its nodes, no text) are read once and kept; the least recently
used builds are dropped beyond ``max_nodes``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from indexer.store.catalog import Catalog
from indexer.store.records import NodeRecord
from retriever import heap
from retriever.names import heading_parts, node_name

# A kept inner node is its record, heading tuple and index entries (about six objects).
_OBJECTS_PER_NODE = 6


@dataclass
class _Build:
    """One build's inner nodes, and its headings by number and by word."""

    nodes: dict[str, NodeRecord]
    by_number: dict[str, list[NodeRecord]] = field(default_factory=lambda: defaultdict(list))
    by_word: dict[str, list[NodeRecord]] = field(default_factory=lambda: defaultdict(list))
    words: dict[str, frozenset[str]] = field(default_factory=dict)

    @staticmethod
    def of(nodes: list[NodeRecord]) -> _Build:
        build = _Build({n.node_id: n for n in nodes})
        for n in nodes:
            root = n.parent_id is None
            name = node_name(n.title, n.doc_id, root=root)
            if not name or not n.summary_key:
                continue
            number, words = heading_parts(name)
            if number is not None:
                build.by_number[number].append(n)
            build.words[n.node_id] = words
            for w in sorted(words):
                build.by_word[w].append(n)
        return build


class Skeletons:
    """Inner nodes by build, read on first use."""

    def __init__(self, catalog: Catalog, *, max_nodes: int = 500_000) -> None:
        self.catalog = catalog
        self.max_nodes = max_nodes
        self._builds: OrderedDict[int, _Build] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def of_build(self, build_id: int) -> dict[str, NodeRecord]:
        """The inner nodes of one build by node id."""
        return self._build(build_id).nodes

    def _build(self, build_id: int) -> _Build:
        with self._lock:
            found = self._builds.get(build_id)
            if found is not None:
                self._builds.move_to_end(build_id)
                return found
        build = _Build.of(self.catalog.nodes.records_of_build(build_id, inner=True))
        self._keep(build_id, build)
        return build

    def _keep(self, build_id: int, build: _Build) -> None:
        with self._lock:
            held = self._held
            old = self._builds.pop(build_id, None)
            self._held -= len(old.nodes) if old is not None else 0
            self._builds[build_id] = build
            self._held += len(build.nodes)
            while self._held > self.max_nodes and len(self._builds) > 1:
                _, dropped = self._builds.popitem(last=False)
                self._held -= len(dropped.nodes)
            heap.kept(_OBJECTS_PER_NODE * (self._held - held))

    def warm(self, build_ids: Iterable[int], *, chunk: int = 500) -> int:
        """Read the inner nodes of the builds not kept yet, ``chunk`` builds per statement
        (a query that meets a build first reads it alone: 2–3 ms each, dozens per query on a
        cold process at 150k passages); stops once ``max_nodes`` are held. Returns how many
        builds were read."""
        with self._lock:
            todo = [b for b in sorted(set(build_ids)) if b not in self._builds]
        read = 0
        for i in range(0, len(todo), chunk):
            found = self.catalog.nodes.records_of_builds(todo[i : i + chunk], inner=True)
            for build_id, nodes in found.items():
                self._keep(build_id, _Build.of(nodes))
                read += 1
            if self._held >= self.max_nodes:
                break
        return read

    def named(
        self, build_ids: list[int], *, words: set[str], numbers: set[str], limit: int = 10
    ) -> list[NodeRecord]:
        """Headed nodes the query names: by their number ("section 3.2"), or by every word of
        their heading ("the troubleshooting chapter", a chapter shipped as its own page, or a
        document by its name); at most ``limit``, numbers first."""
        out: dict[str, NodeRecord] = {}
        for build_id in build_ids:
            build = self._build(build_id)
            for number in sorted(numbers):
                for n in build.by_number.get(number, []):
                    out.setdefault(n.node_id, n)
        for build_id in build_ids:
            build = self._build(build_id)
            seen: set[str] = set()
            for w in sorted(words):
                for n in build.by_word.get(w, []):
                    if n.node_id not in seen:
                        seen.add(n.node_id)
                        if build.words[n.node_id] <= words:
                            out.setdefault(n.node_id, n)
        return list(out.values())[:limit]

    def ancestors(self, node: NodeRecord) -> list[NodeRecord]:
        """The inner nodes above ``node``, nearest first, up to its document's root."""
        inner = self.of_build(node.build_id)
        out: list[NodeRecord] = []
        current = inner.get(node.parent_id or "")
        while current is not None and len(out) < 64:
            out.append(current)
            current = inner.get(current.parent_id or "")
        return out

    def root(self, build_id: int, root_id: str | None) -> NodeRecord | None:
        """A build's root node."""
        return self.of_build(build_id).get(root_id or "")
