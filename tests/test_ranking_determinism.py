"""The same query on the same index ranks the same in every process.

Chroma rebuilds part of its HNSW graph from its log whenever a process opens the store, and the
rebuilt graph differs between processes: an approximate search then finds different tails of a
query's nearest vectors, and the fused ranking moves with them. Small stores are searched
exactly, and ties are broken by stable keys, so a second process (another hash seed, another
graph) must return exactly what the ingesting process returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from indexer.embedding import Embedder
from indexer.index import Index
from retriever.retriever import Retriever

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "fixtures" / "questions.jsonl"

_RANK_IN_A_NEW_PROCESS = """
import json, sys
from pathlib import Path
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever

index = Index(Settings(store=Path(sys.argv[1])))
retriever = Retriever(index)
out = {}
for q in json.loads(sys.argv[2]):
    answer = retriever.query(retriever.request(q, k=10))
    out[q] = [[h.node_id, h.score] for h in answer.results]
print(json.dumps(out))
"""


def _questions() -> list[str]:
    lines = QUESTIONS.read_text().splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def test_a_second_process_ranks_every_question_exactly_alike(
    fixtures_index: Index, minilm: Embedder
) -> None:
    questions = _questions()
    retriever = Retriever(fixtures_index, embedder=minilm)
    here = {}
    for q in questions:
        answer = retriever.query(retriever.request(q, k=10))
        here[q] = [[h.node_id, h.score] for h in answer.results]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _RANK_IN_A_NEW_PROCESS,
            str(fixtures_index.settings.store),
            json.dumps(questions),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    there = json.loads(done.stdout)
    moved = [q for q in questions if here[q] != there[q]]
    assert len(questions) == 72
    assert moved == []
