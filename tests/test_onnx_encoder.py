"""The encoder on ONNX Runtime: torch's vectors without torch, and one encoder per store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from indexer.embedding import encoder_identity
from indexer.embedding.minilm import MiniLMEmbedder
from indexer.embedding.onnx_export import default_dir
from indexer.embedding.onnx_runtime import OnnxMiniLMEmbedder
from indexer.errors import ConfigError, EncoderMismatchError
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever
from tests.helpers import ROOT, run_cli


def _passages() -> list[str]:
    text = (ROOT / "fixtures" / "pump-x200.md").read_text(encoding="utf-8")
    chunks = [text[i : i + 600] for i in range(0, len(text), 600)]
    # short, empty and over-long inputs too (the model truncates at 256 tokens)
    return [*chunks, "", "E-17", "seal " * 400]


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return MiniLMEmbedder().embed(_passages())


def test_fp32_vectors_equal_torch_vectors(torch_vectors: np.ndarray) -> None:
    onnx = OnnxMiniLMEmbedder(folder=default_dir(), batch_size=7).embed(_passages())
    assert onnx.shape == torch_vectors.shape and onnx.dtype == np.float32
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)
    cosines = (onnx * torch_vectors).sum(axis=1)
    assert cosines.min() >= 0.999, cosines.min()


def test_int8_vectors_are_close_and_a_distinct_encoder(torch_vectors: np.ndarray) -> None:
    int8 = OnnxMiniLMEmbedder(folder=default_dir(), precision="int8").embed(_passages())
    cosines = (int8 * torch_vectors).sum(axis=1)
    assert cosines.mean() >= 0.98 and cosines.min() >= 0.9, (cosines.mean(), cosines.min())
    assert encoder_identity(Settings(encoder_precision="int8")) != encoder_identity(Settings())
    # torch and fp32 ONNX vectors are one encoder: a store made by either serves the other
    assert encoder_identity(Settings(encoder_runtime="torch")) == encoder_identity(Settings())


def test_int8_on_torch_is_refused() -> None:
    from indexer.embedding import make_embedder

    with pytest.raises(ConfigError, match="int8"):
        make_embedder(Settings(encoder_runtime="torch", encoder_precision="int8"))


def test_a_missing_export_is_made_on_first_use(tmp_path: Path) -> None:
    embedder = OnnxMiniLMEmbedder(folder=tmp_path / "onnx")
    vector = embedder.embed(["replace the mechanical seal"])
    assert vector.shape == (1, 384)
    files = sorted(p.name for p in (tmp_path / "onnx").iterdir())
    # the graph and its memory-mapped weights, no temporary file left
    assert len(files) == 2 and files[0].endswith(".fp32.onnx"), files
    assert files[1] == files[0] + ".data"


_NO_TORCH = """
import json, sys
from indexer.index import Index
from indexer.settings import Settings
from retriever.retriever import Retriever
from pathlib import Path
index = Index(Settings(store=Path(sys.argv[1])))
if sys.argv[2] == "ingest":
    index.ingest_paths([Path("fixtures/pump-x200.md")])
retriever = Retriever(index)
out = retriever.query(retriever.request("torque for the impeller nut", k=3)).to_json()
if sys.argv[2] == "serve":  # the HTTP service, as `overstory serve` builds it
    from fastapi.testclient import TestClient
    from api.app import create_app
    settings = Settings(store=Path(sys.argv[1]), auth="off")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        out = client.post("/v1/query", json={"query": "impeller nut torque", "k": 3}).json()
heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)
print(json.dumps({"results": len(out["results"]), "heavy": heavy}))
"""


def test_ingest_query_and_serve_never_import_torch(tmp_path: Path) -> None:
    for step in ("ingest", "query", "serve"):
        proc = subprocess.run(
            [sys.executable, "-c", _NO_TORCH, str(tmp_path / "store"), step],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
            timeout=600,
            check=True,
        )
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out == {"results": 3, "heavy": []}, (step, out, proc.stderr[-2000:])


def test_switching_the_encoder_needs_reembed(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run_cli("ingest", "fixtures/pump-x200.md", "--store", str(store), "--json")
    int8 = {"OVERSTORY_ENCODER_PRECISION": "int8"}
    # refused, with the remedy, by reads and writes alike
    code, _, err = run_cli("query", "seal", "--store", str(store), env=int8, check=False)
    assert code == 1 and "overstory reembed" in err and "all-MiniLM-L6-v2/int8" in err, err
    code, _, err = run_cli(
        "ingest", "fixtures/netgate-ng40.html", "--store", str(store), env=int8, check=False
    )
    assert code == 1 and "overstory reembed" in err, err
    with pytest.raises(EncoderMismatchError):
        Retriever(Index(Settings(store=store, encoder_precision="int8")))
    code, doctor, _ = run_cli("doctor", "--store", str(store), "--json", env=int8, check=False)
    assert code == 1 and doctor["consistent"] is False
    assert doctor["stored_encoders"] == {"all-MiniLM-L6-v2": 1}
    # reembed, then everything works with int8
    _, done, _ = run_cli("reembed", "--store", str(store), "--json", env=int8)
    assert done["encoder"] == "all-MiniLM-L6-v2/int8" and done["documents"] == 1
    assert done["vectors"] > 10
    _, out, _ = run_cli(
        "query", "replace the mechanical seal", "--store", str(store), "--json", env=int8
    )
    assert out["results"], out
    _, doctor, _ = run_cli("doctor", "--store", str(store), "--json", env=int8)
    assert doctor["consistent"] is True and doctor["n_missing"] == 0
    # a second reembed has nothing to do; the fp32 settings are now the refused ones
    _, again, _ = run_cli("reembed", "--store", str(store), "--json", env=int8)
    assert again["documents"] == 0
    code, _, err = run_cli("query", "seal", "--store", str(store), check=False)
    assert code == 1 and "overstory reembed" in err
