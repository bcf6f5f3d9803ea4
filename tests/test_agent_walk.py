"""The scripted agent of ``benchmarks/bench_agent_walk.py`` walks a real store through the tools."""

from __future__ import annotations

from api.mcp.tools import Tools
from api.service.wiring import Stack
from benchmarks.bench_agent_walk import PLANS, Agent
from indexer.settings import Settings
from tests.http_support import service
from tests.test_retriever import manual, other_manual


def test_the_walk_reads_the_outline_then_the_node_it_chooses(fast_settings: Settings) -> None:
    with service(fast_settings) as svc:
        index = svc.app.state.index
        index.ingest_bytes(manual(), doc_id="pump.md")
        index.ingest_bytes(other_manual(), doc_id="fan.md")
        tools = Tools(Stack(index=index, retriever=svc.app.state.retriever))
        agent = Agent(tools)
        question = "Replace the mechanical seal with kit PX-2010-A"
        walk = agent.walk(question, ["pump.md"], PLANS["section"])
        assert walk.calls == 2  # one outline, one read_node
        seal = tools.search(question, k=1, kinds=["passage"]).results[0]
        assert walk.chosen and walk.answer[0] == seal.node_id
        assert set(walk.answer) <= set(walk.read)
        everywhere = agent.walk(question, None, PLANS["section_top3"])
        assert everywhere.calls == 1 + 2 + 3  # list_documents, two outlines, three reads
        assert len(everywhere.chosen) == 3
