"""The LlamaIndex and LangChain retrievers in real engines and chains, over HTTP and in-process.

The language models are scripted (LlamaIndex's ``MockLLM`` answers with the prompt it was
given; LangChain's ``FakeListChatModel`` with a fixed answer); the retrieval is real: the app
under uvicorn with an API key, or the retriever of the same store in this process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeRelationship

from indexer.errors import AuthError, InvalidRequestError, NotFoundError, UnavailableError
from indexer.settings import Settings
from overstory.integrations import HttpSource, LocalSource, QuerySource, metadata_of
from overstory.integrations.langchain import OverstoryRetriever as LangChainRetriever
from overstory.integrations.llama_index import OverstoryRetriever as LlamaIndexRetriever
from overstory.integrations.results import citation, pages_text
from tests.http_support import free_port, served
from tests.test_retriever import manual, other_manual

QUESTION = "What working length do I set for the mechanical seal?"


@pytest.fixture
def sources(fast_settings: Settings) -> Iterator[dict[str, Any]]:
    """The same store as an HTTP source (reader key) and as an in-process source."""
    with served(fast_settings) as (svc, server):
        index = svc.app.state.index
        index.ingest_bytes(manual(), doc_id="pump.md")
        index.ingest_bytes(other_manual(), doc_id="fan.md")
        http = HttpSource(server.url, api_key=svc.keys["reader"])
        local = LocalSource(svc.app.state.retriever)
        rest = svc.client.post(
            "/v1/query", json={"query": QUESTION, "k": 6}, headers=svc.as_role("reader")
        ).json()
        yield {"http": http, "local": local, "rest": rest, "url": server.url, "svc": svc}
        http.close()


def _check_provenance(meta: dict[str, Any], result: dict[str, Any]) -> None:
    """One retrieved item's metadata carries the REST result's label and provenance."""
    for key in ("kind", "label", "level", "covers", "revision", "char_start", "char_end"):
        assert meta[key] == result[key], key
    assert meta["doc_id"] == result["doc_id"] and meta["node_id"] == result["node_id"]
    assert meta["heading_path"] == " › ".join(result["heading_path"])
    assert meta["pages"] == pages_text(result["pages"])


@pytest.mark.parametrize("where", ["http", "local"])
def test_llama_index_query_engine_keeps_labels_in_its_sources(
    sources: dict[str, Any], where: str
) -> None:
    source: QuerySource = sources[where]
    retriever = LlamaIndexRetriever(source, k=6)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query(QUESTION)
    rest = {r["node_id"]: r for r in sources["rest"]["results"]}
    assert [n.node.node_id for n in response.source_nodes] == list(rest)
    kinds = set()
    for scored in response.source_nodes:
        _check_provenance(scored.node.metadata, rest[scored.node.node_id])
        assert scored.score == rest[scored.node.node_id]["score"]
        kinds.add(scored.node.metadata["kind"])
    assert kinds == {"passage", "summary"}
    # MockLLM answers with its prompt: what the model saw names each text's label and pages.
    answer = str(response)
    assert "label: quote" in answer
    assert "label: summary of 2 Maintenance" in answer
    assert "42.5 mm" in answer
    assert "node_id" not in answer  # provenance ids stay in the metadata, not in the prompt


def _format(docs: list[Document]) -> str:
    return "\n\n".join(
        f"[{i}] {citation(d.metadata)}\n{d.page_content}" for i, d in enumerate(docs, start=1)
    )


@pytest.mark.parametrize("where", ["http", "local"])
def test_langchain_chain_keeps_labels_in_its_sources(sources: dict[str, Any], where: str) -> None:
    retriever = LangChainRetriever(source=sources[where], k=6)
    seen: list[str] = []

    def tap(prompt: Any) -> Any:
        seen.append(prompt.to_string())
        return prompt

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from these sources:\n{context}"), ("human", "{question}")]
    )
    llm = FakeListChatModel(responses=["Set it to 42.5 mm [1]."])
    answer = (
        RunnablePassthrough.assign(context=lambda x: _format(x["docs"]))
        | prompt
        | RunnableLambda(tap)
        | llm
        | StrOutputParser()
    )
    chain = RunnableParallel(docs=retriever, question=RunnablePassthrough()).assign(answer=answer)
    out = chain.invoke(QUESTION)
    assert out["answer"] == "Set it to 42.5 mm [1]."
    rest = {r["node_id"]: r for r in sources["rest"]["results"]}
    assert [d.id for d in out["docs"]] == list(rest)
    for doc in out["docs"]:
        _check_provenance(doc.metadata, rest[doc.id])
        assert doc.page_content == rest[doc.id]["text"]
    assert {d.metadata["kind"] for d in out["docs"]} == {"passage", "summary"}
    assert "quote — pump.md › PX-9 Pump Manual › 2 Maintenance › 2.1 Seal replacement" in seen[0]
    assert "summary of 2 Maintenance — pump.md" in seen[0]


def test_expand_puts_supporting_passages_in_the_metadata(sources: dict[str, Any]) -> None:
    docs = LangChainRetriever(source=sources["local"], k=6, expand=True).invoke(QUESTION)
    summaries = [d for d in docs if d.metadata["kind"] == "summary"]
    assert summaries
    for doc in summaries:
        support = doc.metadata["support"]
        assert support and {s["label"] for s in support} == {"quote"}
        assert all(s["text"] and s["heading_path"] for s in support)


def test_filters_reach_the_query(sources: dict[str, Any]) -> None:
    for source in (sources["http"], sources["local"]):
        docs = LangChainRetriever(
            source=source, k=3, kinds=["passage"], documents=["fan.md"]
        ).invoke("blades")
        assert docs and {(d.metadata["doc_id"], d.metadata["kind"]) for d in docs} == {
            ("fan.md", "passage")
        }


def test_errors_keep_their_kind(sources: dict[str, Any]) -> None:
    with pytest.raises(UnavailableError, match="cannot reach"):
        HttpSource(f"http://127.0.0.1:{free_port()}", api_key="k").query("seal")
    with pytest.raises(AuthError, match="invalid API key"):
        HttpSource(sources["url"], api_key="ovs_00000000_wrong").query("seal")
    for source in (sources["http"], sources["local"]):
        with pytest.raises(InvalidRequestError, match="k"):
            source.query("seal", k=0)
        with pytest.raises(NotFoundError, match="nope.md"):
            LlamaIndexRetriever(source, documents=["nope.md"]).retrieve("seal")


def test_metadata_of_a_passage_and_a_summary(sources: dict[str, Any]) -> None:
    results = sources["rest"]["results"]
    passage = next(r for r in results if r["kind"] == "passage")
    summary = next(r for r in results if r["kind"] == "summary")
    assert metadata_of(passage)["covers"] is None
    assert metadata_of(summary)["covers"]["passages"] >= 1
    assert citation(metadata_of(summary)).startswith("summary of ")


@pytest.mark.parametrize("where", ["http", "local"])
def test_langchain_honours_k_given_to_invoke(sources: dict[str, Any], where: str) -> None:
    retriever = LangChainRetriever(source=sources[where])
    assert len(retriever.invoke(QUESTION, k=2)) == 2
    assert len(retriever.invoke(QUESTION)) == 5


@pytest.mark.parametrize("where", ["http", "local"])
def test_context_mode_gives_the_pieces_of_the_budgeted_context(
    sources: dict[str, Any], where: str
) -> None:
    svc = sources["svc"]
    body = {"query": QUESTION, "budget": 400}
    rest = svc.client.post("/v1/context", json=body, headers=svc.as_role("reader")).json()
    assert rest["pieces"]
    docs = LangChainRetriever(source=sources[where], mode="context", budget=400).invoke(QUESTION)
    nodes = LlamaIndexRetriever(sources[where], mode="context", budget=400).retrieve(QUESTION)
    assert [d.page_content for d in docs] == [p["text"] for p in rest["pieces"]]
    assert [n.node.get_content() for n in nodes] == [p["text"] for p in rest["pieces"]]
    for doc, node, piece in zip(docs, nodes, rest["pieces"], strict=True):
        assert doc.metadata == node.node.metadata
        assert doc.metadata["citation"] == piece["citation"]
        assert doc.metadata["node_ids"] == piece["node_ids"]
        assert doc.metadata["where"] == " › ".join([piece["source"], *piece["heading_path"]])
    shown = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert f"label: {rest['pieces'][0]['label']}" in shown
    assert "node_ids" not in shown and "None" not in shown and "['" not in shown


def test_llama_index_nodes_carry_their_document_span_and_tree(sources: dict[str, Any]) -> None:
    nodes = LlamaIndexRetriever(sources["local"], k=10).retrieve(QUESTION)
    by_id = {n.node.node_id: n.node for n in nodes}
    rest = {
        r["node_id"]: r
        for r in sources["svc"]
        .client.post(
            "/v1/query", json={"query": QUESTION, "k": 10}, headers=sources["svc"].as_role("reader")
        )
        .json()["results"]
    }
    assert list(by_id) == list(rest)
    parented = 0
    for node_id, node in by_id.items():
        result = rest[node_id]
        assert node.ref_doc_id == result["doc_id"]
        assert (node.start_char_idx, node.end_char_idx) == (
            result["char_start"],
            result["char_end"],
        )
        parent = node.relationships.get(NodeRelationship.PARENT)
        if parent is None:
            continue
        parented += 1
        above = rest[parent.node_id]  # type: ignore[union-attr]
        assert above["kind"] == "summary" and above["doc_id"] == result["doc_id"]
        assert (
            above["char_start"] <= result["char_start"] <= result["char_end"] <= above["char_end"]
        )
        assert result["heading_path"][: len(above["heading_path"])] == above["heading_path"]
        children = by_id[above["node_id"]].relationships[NodeRelationship.CHILD]
        assert node_id in [c.node_id for c in children]  # type: ignore[union-attr]
    assert parented, "the pump manual's passages sit under its section summaries"
    # what the language model sees is plain text: no lists, no None
    for node in by_id.values():
        shown = node.get_content(metadata_mode=MetadataMode.LLM)
        assert "['" not in shown and "None" not in shown and "(" not in shown.split("\n\n")[0]
        assert f"heading_path: {node.metadata['heading_path']}" in shown


async def _while_ticking(call: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """The call's result and how often another task ran while the call was awaited."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    try:
        result = await call()
    finally:
        task.cancel()
    return result, ticks - before


@pytest.mark.parametrize("where", ["http", "local"])
def test_async_retrieval_leaves_the_event_loop_running(sources: dict[str, Any], where: str) -> None:
    source = sources[where]
    llama = LlamaIndexRetriever(source, k=6)
    chain = LangChainRetriever(source=source)
    context = LangChainRetriever(source=source, mode="context", budget=300)

    async def main() -> dict[str, tuple[Any, int]]:
        out = {
            "llama": await _while_ticking(lambda: llama.aretrieve(QUESTION)),
            "langchain": await _while_ticking(lambda: chain.ainvoke(QUESTION, k=2)),
            "context": await _while_ticking(lambda: context.ainvoke(QUESTION)),
        }
        if isinstance(source, HttpSource):
            await source.aclose()
        return out

    out = asyncio.run(main())
    # A call that blocked the loop would let the ticker run only at the framework's own awaits
    # (LangChain's callbacks: three). How many more times it runs depends on how the machine's
    # load shares the interpreter between the loop and the worker thread, so the bound is that
    # semantic one, not a count of ticks per millisecond.
    for name, (_, ticks) in out.items():
        assert ticks > 3, (name, ticks)
    rest = [r["node_id"] for r in sources["rest"]["results"]]
    assert [n.node.node_id for n in out["llama"][0]] == rest
    assert [d.id for d in out["langchain"][0]] == rest[:2]
    assert [d.page_content for d in out["context"][0]] == [
        d.page_content for d in context.invoke(QUESTION)
    ]
