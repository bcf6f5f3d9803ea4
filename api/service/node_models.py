"""What browsing a document shows: a node, its tree, a node with its parent, children and passages.

The answers of :func:`api.service.browse.node_detail` and the document tree, and the response
models of ``GET /v1/nodes/{node_id}`` and ``GET /v1/documents/{doc_id}/tree``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from retriever.answers import Sentence


class SummarizerPublic(BaseModel):
    """Which summarizer wrote a summary."""

    model_config = ConfigDict(extra="allow")

    backend: str
    model: str
    prompt_version: str


class CoversPublic(BaseModel):
    """The passages an inner node summarizes."""

    model_config = ConfigDict(extra="allow")

    passages: int = Field(description="Number of passages below the node.")
    first: str | None = Field(None, description="node_id of the first passage.")
    last: str | None = Field(None, description="node_id of the last passage.")
    ids: list[str] | None = Field(None, description="A cluster's passages, listed.")


class NodePublic(BaseModel):
    """One node of a document tree (a passage, or a summarized heading or cluster)."""

    model_config = ConfigDict(extra="allow")

    node_id: str
    level: str = Field(description="passage, section, chapter, document or cluster.")
    title: str | None
    heading_path: list[str]
    char_start: int
    char_end: int
    pages: list[int | None] | None
    hash: str
    text: str | None = Field(description="A passage's text (null for inner nodes).")
    summary: str | None = Field(description="An inner node's summary.")
    summarizer: SummarizerPublic | None
    covers: CoversPublic | None = None
    sentences: list[Sentence] | None = Field(
        None, description="An inner node's summary sentences, each with its source spans."
    )


class TreeNodePublic(NodePublic):
    """A node with its children, recursively (``GET /v1/documents/{doc_id}/tree``)."""

    children: list[TreeNodePublic]


class BrowsedNodePublic(NodePublic):
    """A node as browsed, with its document and parent."""

    doc_id: str
    parent_id: str | None
    label: str | None = Field(
        None, description="`quote` for a passage, else what its summary summarizes, with pages."
    )


class NodeItselfPublic(BrowsedNodePublic):
    """The browsed node itself, with its revision and whether that revision is served."""

    revision: str | None
    served: bool = Field(description="False for a node of a superseded revision.")


class NodeDetailPublic(BaseModel):
    """``GET /v1/nodes/{node_id}``."""

    node: NodeItselfPublic
    parent: BrowsedNodePublic | None
    children: list[BrowsedNodePublic]
    passages: list[BrowsedNodePublic] = Field(
        description="The passages the node covers (one page: passages_limit, passages_offset)."
    )
    passages_total: int
