"""The peers, run in their own virtual environment: the LlamaIndex RAPTOR pack (collapsed-tree
mode) and LlamaIndex's hierarchical node parser with the auto-merging retriever.

Run by :mod:`benchmarks.peer.run` as ``<peer venv>/bin/python -m benchmarks.peer.peers JOB OUT``.
The peers are installed from PyPI at benchmark time (``requirements.txt``); none of their code is
in the repository. Both use Overstory's own encoder (the bundled all-MiniLM-L6-v2 on ONNX
Runtime, :mod:`indexer.embedding.onnx_runtime`) and the RAPTOR pack uses Overstory's extractive
summarizer (:mod:`indexer.summarizers.extractive`), each wrapped in the LlamaIndex interface so
that every call is counted. The job file names the exported corpora (:func:`corpus.export`), the
questions and the probes; this module writes raw rankings (what each result is and which spans
of the document text it covers) and costs; :mod:`benchmarks.peer.scoring` scores them with the
one scorer all systems share.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.node_parser import HierarchicalNodeParser, get_leaf_nodes
from llama_index.core.retrievers import AutoMergingRetriever
from llama_index.core.schema import BaseNode, TextNode, TransformComponent
from llama_index.packs.raptor import RaptorPack
from llama_index.packs.raptor.base import SummaryModule

from indexer.embedding.onnx_runtime import OnnxMiniLMEmbedder
from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.extractive import ExtractiveSummarizer

TOP_K = 10
CONTEXT_WINDOW = 4096  # tokens the wrapped summarizer accepts per call (a small local model's)
RULE = "---------------------"
COUNTS = {"llm_calls": 0, "embedded": 0}
CLUSTERS: dict[str, list[str]] = {}  # RAPTOR summary text -> ids of the nodes it summarizes


class MiniLM(BaseEmbedding):
    """Overstory's ONNX MiniLM as a LlamaIndex embedding: one session for batches (the ingest
    thread count) and one for queries (the query thread count), as Overstory runs them."""

    _batch: Any = None
    _query: Any = None

    def __init__(self, folder: str, ingest_threads: int, query_threads: int) -> None:
        super().__init__(model_name="all-MiniLM-L6-v2", embed_batch_size=32)
        self._batch = OnnxMiniLMEmbedder(folder=Path(folder), threads=ingest_threads)
        self._query = OnnxMiniLMEmbedder(folder=Path(folder), threads=query_threads)

    def _embed(self, texts: list[str], encoder: Any) -> list[list[float]]:
        COUNTS["embedded"] += len(texts)
        return [list(map(float, v)) for v in encoder.embed(texts)]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embed([query], self._query)[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embed([text], self._batch)[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embed(texts, self._batch)


class ExtractiveLLM(CustomLLM):
    """Overstory's extractive summarizer behind the LlamaIndex LLM interface: it summarizes the
    context of the prompt it is sent (between the template's rules) and counts its calls."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=CONTEXT_WINDOW, num_output=256, model_name="extractive")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        COUNTS["llm_calls"] += 1
        parts = prompt.split(RULE)
        context = parts[1] if len(parts) >= 3 else prompt
        chunks = [c.strip() for c in context.split("\n\n") if c.strip()]
        request = SummaryRequest(key="", level="cluster", title=None, heading_path=[])
        request.passages = chunks
        text = ExtractiveSummarizer().summarize_one(request).text or ""
        return CompletionResponse(text=text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("the benchmark never streams")


class RemoteLLM(CustomLLM):
    """A language model served by the benchmark on the loopback address (the SmolLM2 GGUF that
    Overstory's ``local`` backend runs, so both sides use one model); counts its calls."""

    url: str
    context_window: int
    max_tokens: int

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window, num_output=self.max_tokens, model_name="local"
        )

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        COUNTS["llm_calls"] += 1
        body = json.dumps({"prompt": prompt, "max_tokens": self.max_tokens}).encode()
        request = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=600) as answer:
            return CompletionResponse(text=json.loads(answer.read())["text"])

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("the benchmark never streams")


class Keep(TransformComponent):
    """No transformation: the passages go in as they are (an empty list would mean the
    default sentence splitter, which gives the nodes new ids)."""

    def __call__(self, nodes: list[BaseNode], **kwargs: Any) -> list[BaseNode]:
        return nodes


class RecordingSummaryModule(SummaryModule):
    """The pack's summary module, recording which nodes each summary covers (the pack keeps
    only one parent per node, and a node may sit in several clusters)."""

    async def generate_summaries(self, documents_per_cluster: list[Any]) -> list[str]:
        out: list[str] = await super().generate_summaries(documents_per_cluster)
        for nodes, text in zip(documents_per_cluster, out, strict=True):
            CLUSTERS.setdefault(text, []).extend(n.id_ for n in nodes)
        return out


def _passage_nodes(corpus: dict[str, Any]) -> list[TextNode]:
    return [
        TextNode(
            id_=p["id"],
            text=p["text"],
            metadata={"doc_id": d["doc_id"]},
            excluded_embed_metadata_keys=["doc_id"],
            excluded_llm_metadata_keys=["doc_id"],
        )
        for d in corpus["documents"]
        for p in d["passages"]
    ]


class Raptor:
    """The RAPTOR pack in collapsed-tree mode over Overstory's passages (one node each)."""

    name = "raptor_collapsed"

    def __init__(self, embed: MiniLM, corpus: dict[str, Any], llm: Any = None) -> None:
        self.embed = embed
        self.passages = {p["id"]: p for d in corpus["documents"] for p in d["passages"]}
        module = RecordingSummaryModule(llm=llm or ExtractiveLLM(), num_workers=1)
        self.pack = RaptorPack(
            _passage_nodes(corpus),
            embed_model=embed,
            similarity_top_k=TOP_K,
            mode="collapsed",
            verbose=False,
            transformations=[Keep()],
            summary_module=module,
        )
        self.retriever = self.pack.retriever

    def insert_changed(self, corpus: dict[str, Any]) -> int:
        """The pack's incremental path: insert the passages it has not seen (a tree of their
        own above them); nothing is removed, the pack has no delete. Returns the count."""
        known = {p["text"] for p in self.passages.values()}
        new = [n for n in _passage_nodes(corpus) if n.text not in known]
        for n in new:
            n.id_ = n.id_ + "@" + corpus["name"]
            self.passages[n.id_] = _find(corpus, n.id_.split("@")[0])
        if new:
            asyncio.run(self.retriever.insert(new))
        return len(new)

    def search(self, query: str) -> list[dict[str, Any]]:
        found = self.retriever.retrieve(query)
        return [self._result(r.node) for r in found[:TOP_K]]

    def _leaves(self, node_id: str, text: str, seen: set[str]) -> list[str]:
        if node_id in self.passages:
            return [node_id]
        out = []
        for child in CLUSTERS.get(text, []):
            if child in seen:
                continue
            seen.add(child)
            child_text = self.passages[child]["text"] if child in self.passages else None
            if child_text is None:
                node = self.retriever.index.docstore.get_node(child, raise_error=False)
                child_text = node.get_content() if node is not None else ""
            out += self._leaves(child, child_text, seen)
        return out

    def _result(self, node: Any) -> dict[str, Any]:
        text = node.get_content()
        leaves = self._leaves(node.id_, text, set())
        spans: dict[str, list[list[int]]] = {}
        for pid in leaves:
            p = self.passages[pid]
            spans.setdefault(pid.split("#")[0], []).append([p["char_start"], p["char_end"]])
        source = node.id_ in self.passages
        return {"spans": spans, "source_text": source, "text": text}


def _find(corpus: dict[str, Any], pid: str) -> dict[str, Any]:
    doc_id = pid.split("#")[0]
    doc = next(d for d in corpus["documents"] if d["doc_id"] == doc_id)
    return next(p for p in doc["passages"] if p["id"] == pid)


class AutoMerging:
    """HierarchicalNodeParser (its default 2048/512/128-token levels) over each document's text
    and the AutoMergingRetriever over a vector index of the leaves."""

    name = "auto_merging"

    def __init__(self, embed: MiniLM, corpus: dict[str, Any], llm: Any = None) -> None:
        self.embed = embed
        self.parser = HierarchicalNodeParser.from_defaults()
        self.storage = StorageContext.from_defaults()
        self.texts: dict[str, str] = {}
        self.index = VectorStoreIndex([], storage_context=self.storage, embed_model=embed)
        for doc in corpus["documents"]:
            self._add(doc)
        self._retriever()

    def _retriever(self) -> None:
        base = self.index.as_retriever(similarity_top_k=TOP_K)
        self.retriever = AutoMergingRetriever(base, self.storage, verbose=False)

    def _add(self, doc: dict[str, Any]) -> int:
        self.texts[doc["doc_id"]] = doc["text"]
        source = Document(text=doc["text"], id_=doc["doc_id"], metadata={"doc_id": doc["doc_id"]})
        source.excluded_embed_metadata_keys = ["doc_id"]
        source.excluded_llm_metadata_keys = ["doc_id"]
        nodes = self.parser.get_nodes_from_documents([source])
        self.storage.docstore.add_documents(nodes)
        leaves = get_leaf_nodes(nodes)
        self.index.insert_nodes(leaves)
        return len(leaves)

    def reindex(self, corpus: dict[str, Any]) -> int:
        """Delete and re-add every document whose text changed; returns the leaves embedded."""
        added = 0
        for doc in corpus["documents"]:
            if self.texts.get(doc["doc_id"]) == doc["text"]:
                continue
            self._delete(doc["doc_id"])
            added += self._add(doc)
        self._retriever()
        return added

    def _delete(self, doc_id: str) -> None:
        """The document's leaves out of the index, all its nodes out of the docstore
        (``delete_ref_doc`` fails here: the parents are in the docstore, not the index)."""
        info = self.storage.docstore.get_ref_doc_info(doc_id)
        ids = info.node_ids if info is not None else []
        leaves = [i for i in ids if i in self.index.index_struct.nodes_dict]
        self.index.delete_nodes(leaves, delete_from_docstore=True)
        self.storage.docstore.delete_ref_doc(doc_id, raise_error=False)

    def search(self, query: str) -> list[dict[str, Any]]:
        found = self.retriever.retrieve(query)
        out = []
        for r in found[:TOP_K]:
            text = r.node.get_content()
            doc_id = r.node.metadata.get("doc_id", "")
            start = _locate(self.texts.get(doc_id, ""), text)
            spans = {doc_id: [[start, start + len(text)]]} if start >= 0 else {}
            out.append({"spans": spans, "source_text": True, "text": text})
        return out


def _locate(haystack: str, text: str) -> int:
    """Where a chunk's text starts in its document (the splitter may trim whitespace)."""
    at = haystack.find(text)
    if at < 0:
        at = haystack.find(text[:80].strip())
    return at


def _timed(fn: Any) -> tuple[Any, float, dict[str, int]]:
    before = dict(COUNTS)
    started = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - started
    return out, seconds, {k: COUNTS[k] - before[k] for k in COUNTS}


def _queries(system: Any, questions: list[dict[str, str]]) -> dict[str, Any]:
    rankings, seconds = {}, []
    for q in questions[:5]:  # warm caches
        system.search(q["question"])
    for q in questions:
        started = time.perf_counter()
        rankings[q["id"]] = system.search(q["question"])
        seconds.append(time.perf_counter() - started)
    return {"rankings": rankings, "query_seconds": seconds}


def _revise(system: Any, corpus: dict[str, Any]) -> int:
    return system.insert_changed(corpus) if isinstance(system, Raptor) else system.reindex(corpus)


def run_system(cls: Any, job: dict[str, Any], embed: MiniLM) -> dict[str, Any]:
    """Build, query, then re-index each revision incrementally; RAPTOR also rebuilt."""
    corpora = {name: _load(path, name) for name, path in job["corpora"].items()}
    first, *revisions = job["order"]
    llm = RemoteLLM(**job["llm"]) if job.get("llm") else None
    system, seconds, counts = _timed(lambda: cls(embed, corpora[first], llm))
    out: dict[str, Any] = {"build": {"seconds": seconds, **counts}}
    print(f"{cls.name}: built in {seconds:.0f} s, {counts}", file=sys.stderr, flush=True)
    out.update(_queries(system, job["questions"]))
    out["reindex"] = {}
    for name in revisions:
        n, seconds, counts = _timed(lambda c=corpora[name]: _revise(system, c))
        probes = {p["id"]: system.search(p["question"]) for p in job["probes"]}
        row = {"seconds": seconds, "changed_units": n, **counts, "probes": probes}
        out["reindex"][name] = {"incremental": row}
        if cls is Raptor and name in job.get("rebuild", []):
            rebuilt, seconds, counts = _timed(lambda c=corpora[name]: cls(embed, c, llm))
            probes = {p["id"]: rebuilt.search(p["question"]) for p in job["probes"]}
            out["reindex"][name]["rebuild"] = {"seconds": seconds, **counts, "probes": probes}
        print(f"{cls.name}: {name} re-indexed", file=sys.stderr, flush=True)
    return out


def _load(path: str, name: str) -> dict[str, Any]:
    corpus: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    corpus["name"] = name
    return corpus


def main(job_path: str, out_path: str) -> None:
    """Run every peer the job names and write their raw results."""
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    embed = MiniLM(job["onnx_dir"], job["ingest_threads"], job["query_threads"])
    systems = {c.name: c for c in (Raptor, AutoMerging)}
    out = {name: run_system(systems[name], job, embed) for name in job["systems"]}
    Path(out_path).write_text(json.dumps(out), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
