"""The document tree Overstory indexes: document → chapter → section → … → passages.

Built from a parser's heading tree plus the chunker's passages, then hashed bottom-up as a Merkle
tree. Levels follow DESIGN.md: ``document``, ``chapter`` (the top heading level under the
document), ``section`` (any deeper heading), ``cluster`` (built by clustering where headings are
missing) and ``passage``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from indexer.chunking import MAX_PASSAGE_CHARS, Span, chunk_spans
from indexer.hashing import hash_text, merkle
from indexer.parsers.base import ParsedDocument, Section

PASSAGE = "passage"
SECTION = "section"
CHAPTER = "chapter"
DOCUMENT = "document"
CLUSTER = "cluster"
LEVELS = (PASSAGE, SECTION, CHAPTER, DOCUMENT, CLUSTER)


@dataclass
class TreeNode:
    """One node of a document tree, before or after it is stored."""

    level: str
    title: str | None
    heading_path: list[str]
    char_start: int
    char_end: int
    pages: list[int] | None
    text: str | None = None
    children: list[TreeNode] = field(default_factory=list)
    hash: str = ""
    # The content address of the node's vector (indexer.vector_text.embedding_key).
    vector_key: str = ""
    node_id: str = ""
    ordinal: int = 0
    # End of the node's own heading line (its start is char_start); equal to char_start where
    # the node has no heading in the text (a cluster, an untitled document).
    heading_end: int = -1
    # A passage's link to the passage before it in the same section: the document's text between
    # them when that is a little whitespace (the chunker cut a paragraph or a list there), ""
    # when they overlap, None when they are apart. A summarizer reads such passages as one text.
    joined: str | None = None

    @property
    def heading_span(self) -> tuple[int, int] | None:
        """The heading's ``[start, end)`` in the document's text, or None."""
        if self.heading_end <= self.char_start:
            return None
        return self.char_start, self.heading_end

    @property
    def is_passage(self) -> bool:
        return self.level == PASSAGE

    def walk(self) -> Iterator[TreeNode]:
        """This node and everything below it, pre-order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def passages(self) -> list[TreeNode]:
        """The passages below this node in document order (a cluster's may be non-contiguous)."""
        return [n for n in self.walk() if n.is_passage]

    def inner_post_order(self) -> Iterator[TreeNode]:
        """Inner (summarizable) nodes, children before parents."""
        for child in self.children:
            yield from child.inner_post_order()
        if not self.is_passage:
            yield self


_MAX_PREAMBLE_CHARS = 300


def title_section(root: Section, text: str) -> Section | None:
    """The top heading that titles the whole document, if there is one.

    It is the last top-level heading when everything before it is short: a running page header,
    a cover line, or a lone title-page heading such as Texinfo's ``settitle`` before its ``Top``
    node. That preamble stays as passages of the document node.
    """
    tops = root.children
    if not tops or any(t.children for t in tops[:-1]):
        return None
    preamble = text[root.body_start : tops[-1].char_start].strip()
    return tops[-1] if len(preamble) <= _MAX_PREAMBLE_CHARS else None


def build_tree(
    doc: ParsedDocument,
    *,
    chunk_tokens: int,
    overlap: int,
    max_chars: int = MAX_PASSAGE_CHARS,
    spans: Callable[..., list[Span]] = chunk_spans,
) -> TreeNode:
    """The document's tree of headings and passages (not yet hashed).

    A single top-level heading with nothing before it is the document's title: the document node
    takes its title and heading path, and its sub-headings become the chapters (a title-page
    heading before it, when there is one, names the document instead); otherwise the
    title the format carries (``ParsedDocument.title``) is the document's. No passage is
    longer than ``chunk_tokens`` tokens or ``max_chars`` characters; ``spans`` cuts a section's
    body into passages (:func:`indexer.chunking.chunk_spans`, or the same reused by content).
    """
    sizes = _Sizes(chunk_tokens=chunk_tokens, overlap=overlap, max_chars=max_chars, spans=spans)
    titled = title_section(doc.root, doc.text)
    title = titled.title if titled else doc.title
    if titled is not None and doc.root.children[0] is not titled:
        # A title-page heading before the titling section (Texinfo's settitle "Bash Reference
        # Manual" before its Top node "Bash Features") is the name the manual prints.
        title = doc.root.children[0].title
    path = [title] if title else []
    node = TreeNode(
        level=DOCUMENT,
        title=title,
        heading_path=path,
        char_start=0,
        char_end=len(doc.text),
        pages=doc.pages_for(0, len(doc.text)),
    )
    if titled is not None and doc.root.children[0] is titled and titled.char_start == 0:
        node.heading_end = titled.body_start
    if titled is not None:
        # The preamble's passages, then the title section's own body and sub-headings.
        preamble = Section(None, 0, 0, titled.char_start, doc.root.body_start, titled.char_start)
        _fill(node, preamble, doc, depth_below_doc=0, sizes=sizes)
        _fill(node, titled, doc, depth_below_doc=0, sizes=sizes)
    else:
        _fill(node, doc.root, doc, depth_below_doc=0, sizes=sizes)
    assign_ordinals(node)
    return node


@dataclass(frozen=True)
class _Sizes:
    chunk_tokens: int
    overlap: int
    max_chars: int
    spans: Callable[..., list[Span]] = chunk_spans


def _fill(
    node: TreeNode,
    section: Section,
    doc: ParsedDocument,
    *,
    depth_below_doc: int,
    sizes: _Sizes,
) -> None:
    previous: int | None = None
    for span in sizes.spans(
        doc.text,
        section.body_start,
        section.body_end,
        chunk_tokens=sizes.chunk_tokens,
        overlap=sizes.overlap,
        max_chars=sizes.max_chars,
    ):
        node.children.append(
            TreeNode(
                level=PASSAGE,
                title=None,
                heading_path=list(node.heading_path),
                char_start=span.start,
                char_end=span.end,
                pages=doc.pages_for(span.start, span.end),
                text=doc.text[span.start : span.end],
                joined=_joined(doc.text, previous, span.start),
            )
        )
        previous = span.end
    for sub in section.children:
        title = (sub.title or "").strip() or "(untitled)"
        child = TreeNode(
            level=CHAPTER if depth_below_doc == 0 else SECTION,
            title=title,
            heading_path=[*node.heading_path, title],
            char_start=sub.char_start,
            char_end=sub.char_end,
            pages=doc.pages_for(sub.char_start, sub.char_end),
            heading_end=sub.body_start,
        )
        _fill(
            child,
            sub,
            doc,
            depth_below_doc=depth_below_doc + 1,
            sizes=sizes,
        )
        node.children.append(child)


# The most whitespace between two passages still read as one text: a paragraph break and an
# indented list's margin.
_MAX_JOIN = 4


def _joined(text: str, previous: int | None, start: int) -> str | None:
    if previous is None:
        return None
    if start <= previous:
        return ""
    gap = text[previous:start]
    return gap if len(gap) <= _MAX_JOIN and not gap.strip() else None


def assign_ordinals(root: TreeNode) -> None:
    """Number nodes in pre-order (their stable position inside one build)."""
    for i, n in enumerate(root.walk()):
        n.ordinal = i


def compute_hashes(root: TreeNode) -> None:
    """Merkle hashes: a passage hashes its normalized text, an inner node its title and children."""
    for n in _post_order(root):
        if n.is_passage:
            n.hash = hash_text(n.text or "")
        else:
            n.hash = merkle(f"{n.level}:{n.title or ''}", [c.hash for c in n.children])


def _post_order(node: TreeNode) -> Iterator[TreeNode]:
    for child in node.children:
        yield from _post_order(child)
    yield node


def summary_depth(root: TreeNode) -> int:
    """Number of summarized levels on the longest path (the depth reported by ingest)."""

    def depth(n: TreeNode) -> int:
        if n.is_passage:
            return 0
        return 1 + max((depth(c) for c in n.children), default=0)

    return depth(root)
