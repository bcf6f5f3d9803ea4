"""The budgeted context: its assembly (merged quotes, no paraphrase of a quote, reading order,
labels) and the same context out of HTTP, the CLI, MCP and the LangChain and LlamaIndex retrievers
(over HTTP and in-process, called and awaited) for the fixture manuals."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from api.mcp import MCP_PATH, build_server, http_app
from api.service.wiring import Stack
from indexer.errors import InvalidRequestError
from indexer.settings import Settings
from indexer.sourced import ResolvedSentence, ResolvedSpan
from indexer.store.records import NodeRecord, ServedDocument
from indexer.summarizers.framing import NO_STATEMENT
from indexer.validation import validated
from overstory.integrations import HttpSource, LocalSource
from overstory.integrations.langchain import OverstoryRetriever as LangChainRetriever
from overstory.integrations.llama_index import OverstoryRetriever as LlamaIndexRetriever
from retriever.context import (
    HEADER,
    RANKED,
    SUMMARIES,
    TOP,
    ContextRequest,
    _fitting,
    alternate,
    build_context,
    plan,
)
from retriever.context_pieces import Chosen, drafts, finish, render
from tests.http_support import BIN, FIXTURES, Service, ThreadServer, mcp_http_client, served

DOC = ServedDocument(doc_id="m.md", source="m.md", build_id=1, revision="r1", summarizer="x")
TEXT = "Alpha one. Beta two. Gamma three. Delta four. Epsilon five."


def _node(node_id: str, start: int, end: int, *, level: str = "passage") -> NodeRecord:
    return NodeRecord(
        node_id=node_id,
        build_id=1,
        doc_id="m.md",
        parent_id=None if level != "passage" else "sec",
        ordinal=start,
        level=level,
        title="2 Seals" if level != "passage" else None,
        heading_path=("Manual", "2 Seals"),
        char_start=start,
        char_end=end,
        pages=(3, 4),
        vector_id=None,
        summary_key=None,
        n_passages=3,
        first_passage=None,
        last_passage=None,
    )


def _passage(node_id: str, start: int, end: int) -> Chosen:
    return Chosen(_node(node_id, start, end), DOC, TEXT[start:end])


def _words(text: str) -> int:
    return len(text.split())


def test_overlapping_quotes_merge_and_a_quoted_sentence_is_not_repeated() -> None:
    sentences = (
        ResolvedSentence("Beta two.", (ResolvedSpan(11, 20),)),
        ResolvedSentence("Epsilon five.", (ResolvedSpan(47, 60),)),
    )
    summary = Chosen(
        _node("sec", 0, 60, level="section"), DOC, "Beta two. Epsilon five.", sentences
    )
    chosen = [_passage("p2", 11, 33), summary, _passage("p1", 0, 20)]
    pieces = finish(drafts(chosen), _words)
    assert [p.kind for p in pieces] == ["summary", "quote"]  # reading order: the node first
    summary_piece, quote = pieces
    assert summary_piece.text == "Epsilon five."  # "Beta two." is quoted below
    assert quote.text == "Alpha one. Beta two. Gamma three."
    assert quote.node_ids == ("p2", "p1") or set(quote.node_ids) == {"p1", "p2"}
    assert (quote.ranges[0].char_start, quote.ranges[0].char_end) == (0, 33)
    assert [p.citation for p in pieces] == [1, 2]
    text = render(pieces)
    assert text.startswith("# m.md › Manual › 2 Seals\n[1] summary of 2 Seals, pp. 3–4\n")
    assert "\n\n[2] quote, pp. 3–4\nAlpha one." in text
    assert "None" not in text and "['" not in text and "(" not in text
    assert sum(p.tokens for p in pieces) == _words(text)


def _at(node_id: str, doc: ServedDocument, path: tuple[str, ...], start: int, end: int) -> Chosen:
    node = replace(
        _node(node_id, start, end), doc_id=doc.doc_id, build_id=doc.build_id, heading_path=path
    )
    return Chosen(node, doc, TEXT[start:end])


def test_each_document_is_named_once_and_each_piece_by_the_headings_below_it() -> None:
    other = replace(DOC, doc_id="o.md", source="o.md", build_id=2)
    seals = ("Manual", "2 Seals")
    chosen = [
        _at("a", DOC, (*seals, "2.1 Lips"), 0, 11),
        _at("b", other, ("Guide", "Start"), 0, 11),
        _at("c", DOC, (*seals, "2.2 Rings"), 34, 46),
        Chosen(
            replace(_node("s", 0, 60, level="section"), heading_path=seals),
            DOC,
            "",
            (ResolvedSentence("Gamma three.", (ResolvedSpan(21, 33),)),),
        ),
    ]
    pieces = finish(drafts(chosen), _words)
    text = render(pieces)
    assert text.split("\n\n") == [
        "# m.md › Manual › 2 Seals\n[1] summary of 2 Seals, pp. 3–4\nGamma three.",
        "[2] quote, pp. 3–4 | 2.1 Lips\nAlpha one.",
        "[3] quote, pp. 3–4 | 2.2 Rings\nDelta four.",
        "# o.md › Guide › Start\n[4] quote, pp. 3–4\nAlpha one.",
    ]
    assert [p.heading_path for p in pieces][1] == (*seals, "2.1 Lips")  # the JSON keeps it all
    assert sum(p.tokens for p in pieces) == _words(text)


def test_a_summary_sentence_that_quotes_nothing_is_left_out() -> None:
    placeholder = f"lips, rings: {NO_STATEMENT}."
    sentences = (
        ResolvedSentence("Beta two.", (ResolvedSpan(11, 20),)),
        ResolvedSentence(placeholder, (ResolvedSpan(21, 60),)),
    )
    summary = Chosen(_node("s", 0, 60, level="section"), DOC, "", sentences)
    assert [p.text for p in finish(drafts([summary]), _words)] == ["Beta two."]
    empty = Chosen(_node("t", 0, 60, level="section"), DOC, "", sentences[1:])
    assert finish(drafts([empty]), _words) == []


def test_touching_quotes_merge_separate_ones_do_not() -> None:
    pieces = finish(
        drafts([_passage("a", 0, 11), _passage("b", 11, 21), _passage("c", 34, 46)]), _words
    )
    assert [p.text for p in pieces] == ["Alpha one. Beta two.", "Delta four."]


def test_a_summary_too_long_keeps_its_first_sentences() -> None:
    sentences = tuple(
        ResolvedSentence(t, (ResolvedSpan(i * 12, i * 12 + 10),))
        for i, t in enumerate(["Alpha one.", "Beta two.", "Gamma three."])
    )
    summary = Chosen(_node("sec", 0, 60, level="section"), DOC, "", sentences)
    whole = finish(drafts([summary]), _words)[0]
    header = whole.tokens - _words(whole.text)  # its document line and header line
    fitted = _fitting([], summary, _words, budget=header + 4)
    assert fitted is not None
    assert fitted[1][0].text == "Alpha one. Beta two."
    assert _fitting([], summary, _words, budget=header) is None


def _sized(node_id: str, words: int) -> Chosen:
    return Chosen(_node(node_id, 0, 10, level="section"), DOC, " ".join(["word"] * words))


def test_a_share_of_the_budget_follows_the_ranking() -> None:
    # the reading's order opens with three long summaries; the ranking has a short one second
    ours = [_sized("head", 200), _sized("child1", 200), _sized("child2", 200)]
    ranked = [ours[0], _sized("ranked", 30), ours[1]]
    merged = [c.node.node_id for c in alternate(ours, ranked, _words, RANKED)]
    assert merged == ["head", "ranked", "child1", "child2"]  # each once, the ranked one early
    # without a share the ranked one would come last, after 600 words of the reading's order
    alone = [c.node.node_id for c in alternate(ours, ranked, _words, 0.0)]
    assert alone == ["head", "child1", "child2", "ranked"]
    # once the ranking has had more than its share, the reading's order catches up first
    long_rank = [ours[0], _sized("long", 400), _sized("next", 10)]
    merged = [c.node.node_id for c in alternate(ours, long_rank, _words, RANKED)]
    assert merged == ["head", "long", "child1", "child2", "next"]
    assert (400 + HEADER) * (1 - RANKED) > (600 + 3 * HEADER) * RANKED  # what that relies on


def test_request_limits() -> None:
    with pytest.raises(InvalidRequestError, match="budget"):
        validated(ContextRequest, {"query": "x", "budget": 10})
    with pytest.raises(InvalidRequestError, match="tokenizer"):
        validated(ContextRequest, {"query": "x", "tokenizer": "gpt"})


@pytest.fixture(scope="module")
def fixtures_service(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Service, str, str]]:
    """The fixture manuals behind the real app under uvicorn, and the MCP server over HTTP
    (the service, the MCP server's URL, the app's URL)."""
    settings = Settings(store=tmp_path_factory.mktemp("ctx") / "store", embedder="hashing")
    with served(settings) as (svc, server):
        index = svc.app.state.index
        assert index.ingest_paths([FIXTURES]).ok
        stack = Stack(index=index, retriever=svc.app.state.retriever)
        with ThreadServer(http_app(build_server(stack), settings, stack)) as mcp:  # type: ignore[arg-type]
            yield svc, mcp.url, server.url


QUESTIONS = [
    ("torque for the impeller nut", 300),
    ("what does the maintenance chapter cover", 1000),
]


@pytest.mark.parametrize(("question", "budget"), QUESTIONS)
def test_the_same_context_over_http_cli_mcp_and_the_framework_retrievers(
    fixtures_service: tuple[Service, str, str], question: str, budget: int
) -> None:
    svc, mcp_url, api_url = fixtures_service
    body = {"query": question, "budget": budget}
    r = svc.client.post("/v1/context", json=body, headers=svc.as_role("reader"))
    assert r.status_code == 200, r.text
    http = r.json()
    store = str(svc.app.state.index.settings.store)
    env = {**os.environ, "OVERSTORY_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    cli = subprocess.run(
        [
            str(BIN / "overstory"),
            "context",
            question,
            "--budget",
            str(budget),
            "--store",
            store,
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(cli.stdout) == http

    async def call() -> Any:
        http_client = mcp_http_client(headers={"Authorization": f"Bearer {svc.keys['reader']}"})
        async with Client(streamable_http_client(mcp_url + MCP_PATH, http_client=http_client)) as c:
            return await c.call_tool("context", body)

    result = anyio.run(call)
    assert not result.is_error, result.content
    assert result.structured_content == http
    _check_context(http, budget)
    sources = {
        "http": HttpSource(api_url, api_key=svc.keys["reader"]),
        "local": LocalSource(svc.app.state.retriever),
    }
    for where, source in sources.items():
        langchain = LangChainRetriever(source=source, mode="context", budget=budget)
        llama = LlamaIndexRetriever(source, mode="context", budget=budget)

        async def both(
            langchain: LangChainRetriever = langchain, llama: LlamaIndexRetriever = llama
        ) -> tuple[list[Any], list[Any]]:
            return await langchain.ainvoke(question), await llama.aretrieve(question)

        texts = [p["text"] for p in http["pieces"]]
        for docs, nodes in (
            (langchain.invoke(question), llama.retrieve(question)),
            anyio.run(both),
        ):
            assert [d.page_content for d in docs] == texts, where
            assert [n.node.get_content() for n in nodes] == texts, where
            for doc, node, piece in zip(docs, nodes, http["pieces"], strict=True):
                assert doc.metadata == node.node.metadata
                assert doc.metadata["citation"] == piece["citation"]
                assert doc.metadata["node_ids"] == piece["node_ids"]
                assert doc.metadata["tokens"] == piece["tokens"]
                assert node.node.ref_doc_id == piece["doc_id"]
                assert doc.id == node.node.node_id == "+".join(piece["node_ids"])
    sources["http"].close()


def _check_context(ctx: dict[str, Any], budget: int) -> None:
    assert 0 < ctx["tokens"] <= budget
    assert ctx["pieces"], ctx
    blocks = ctx["text"].split("\n\n")
    assert len(blocks) == len(ctx["pieces"])
    opened: list[str] = []
    for block, p in zip(blocks, ctx["pieces"], strict=True):
        lines = block.split("\n", 2 if block.startswith("# ") else 1)
        if block.startswith("# "):  # each document's pieces open with its line, once
            opened, lines = lines[0][2:].split(" › "), lines[1:]
            assert opened[0] == p["source"]
        header, text = lines
        assert text == p["text"]
        label, _, below = header.partition(" | ")
        assert label == f"[{p['citation']}] {p['label']}"
        path = [*opened, *(below.split(" › ") if below else [])]
        title = [p["heading_path"][-1]] if p["kind"] == "summary" else []
        assert [*path, *title][: len(p["heading_path"]) + 1] == [p["source"], *p["heading_path"]]
    assert [p["citation"] for p in ctx["pieces"]] == list(range(1, len(ctx["pieces"]) + 1))
    for token in ("None", "['", "']"):
        assert token not in ctx["text"]
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for p in ctx["pieces"]:
        rng = p["ranges"][0]
        by_doc.setdefault(p["doc_id"], []).append(
            (rng["char_start"], 0 if p["kind"] == "summary" else 1)
        )
    for starts in by_doc.values():
        assert starts == sorted(starts), "reading order within a document"
    quotes = sorted(
        (p["doc_id"], r["char_start"], r["char_end"])
        for p in ctx["pieces"]
        if p["kind"] == "quote"
        for r in p["ranges"]
    )
    for (d1, _, e1), (d2, s2, _) in zip(quotes, quotes[1:], strict=False):
        assert d1 != d2 or s2 > e1, "overlapping quotes are merged"


def test_global_question_opens_with_the_summary(fixtures_service: tuple[Service, str, str]) -> None:
    svc, _, _ = fixtures_service
    body = {"query": "what does the maintenance chapter cover", "budget": 1500, "intent": "section"}
    ctx = svc.client.post("/v1/context", json=body, headers=svc.as_role("reader")).json()
    assert ctx["mode"] == "global"
    first = ctx["pieces"][0]
    assert first["kind"] == "summary" and "Maintenance" in first["label"], first
    # no sentence twice: summaries of nested nodes share sources, quotes hold summary sentences
    sentences = [
        s.strip()
        for p in ctx["pieces"]
        if p["kind"] == "summary"
        for s in p["text"].split(". ")
        if len(s) > 40
    ]
    assert len(sentences) == len(set(sentences))
    quoted = " ".join(p["text"] for p in ctx["pieces"] if p["kind"] == "quote")
    assert not [s for s in sentences if s in quoted]


def _ranked(retriever: Any, question: str, intent: str = "auto") -> list[Any]:
    """The ranking a context plan reads (the mix of ``POST /v1/query``)."""
    request = retriever.request(question, k=30, intent=intent)
    vector = retriever.encode(request.query)
    ranking = retriever.rank(
        request, vector, retriever.snapshots.take(), pipeline=retriever.pipeline
    )
    return [c.node for c in ranking.candidates]


def test_a_global_context_takes_what_the_ranking_found_before_unranked_passages(
    fixtures_service: tuple[Service, str, str],
) -> None:
    svc, _, _ = fixtures_service
    retriever = svc.app.state.retriever
    question = "what does the maintenance chapter cover"
    planned = plan(retriever, ContextRequest(query=question, intent="section"))
    assert planned.mode == "global"
    ranked = {n.node_id for n in _ranked(retriever, question, "section")}
    order = [n.node_id for n in planned.wanted]
    assert ranked <= set(order), "every ranked summary and passage may be taken"
    unranked = [i for i, n in enumerate(planned.wanted) if n.node_id not in ranked and n.is_passage]
    assert unranked, "passages under the summary that the ranking did not find come too"
    last_ranked = max(i for i, node_id in enumerate(order) if node_id in ranked)
    assert last_ranked < min(unranked)


def test_an_unsure_specific_reading_takes_the_top_summaries_third(
    fixtures_service: tuple[Service, str, str],
) -> None:
    svc, _, _ = fixtures_service
    retriever = svc.app.state.retriever
    question = "torque for the impeller nut"
    planned = plan(retriever, ContextRequest(query=question))
    assert planned.mode == "specific"
    tops = [n.node_id for n in _ranked(retriever, question)[:TOP] if not n.is_passage]
    assert len(tops) >= 2, "the question must be read without confidence"
    taken = tops[:SUMMARIES]
    assert [n.node_id for n in planned.wanted[2 : 2 + len(taken)]] == taken
    assert all(n.is_passage for n in planned.wanted[:2])


@pytest.mark.parametrize("budget", [100, 500, 2000])
@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k_base", "words"])
def test_the_budget_holds(
    fixtures_service: tuple[Service, str, str], budget: int, tokenizer: str
) -> None:
    svc, _, _ = fixtures_service
    retriever = svc.app.state.retriever
    request = ContextRequest(query="seal working length", budget=budget, tokenizer=tokenizer)  # type: ignore[arg-type]
    ctx = build_context(retriever, request)
    assert ctx.tokens <= budget
    assert ctx.pieces


def test_errors_are_the_canonical_body(fixtures_service: tuple[Service, str, str]) -> None:
    svc, _, _ = fixtures_service
    post = svc.client.post
    assert post("/v1/context", json={"query": "x"}).status_code == 401
    r = post("/v1/context", json={"query": "x", "budget": 5}, headers=svc.as_role("reader"))
    assert r.status_code == 422 and r.json()["error"]["code"], r.text
    r = post(
        "/v1/context", json={"query": "x", "documents": ["nope.md"]}, headers=svc.as_role("reader")
    )
    assert r.status_code == 404 and "nope.md" in r.json()["error"]["message"]
    r = post("/v1/context", json={"query": "   "}, headers=svc.as_role("reader"))
    assert r.status_code == 422
