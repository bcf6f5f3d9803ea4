"""The bundled all-MiniLM-L6-v2 as ONNX files, exported once from the local weights.

The export runs the transformer with mean pooling over the attention mask and L2 normalization
(what sentence-transformers does for this model) inside one graph, so encoding needs only
ONNX Runtime and ``tokenizers``. ``int8`` is that graph with its weights quantized per channel
(ONNX Runtime's dynamic quantization). The files are written once, by ``make install``
(``overstory export-onnx``) or on first use, under a name that carries a fingerprint of the
weights they came from; nothing is downloaded. Exporting needs torch; using the files does not.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
import warnings
from pathlib import Path

from indexer.errors import ConfigError
from indexer.tokens import model_dir

log = logging.getLogger(__name__)

PRECISIONS = ("fp32", "int8")
OPSET = 17


def default_dir() -> Path:
    """Where exported files live unless a setting says otherwise: next to the installed
    packages (``<prefix>/share/overstory/onnx``), so a new install exports anew."""
    return Path(sys.prefix) / "share" / "overstory" / "onnx"


def fingerprint() -> str:
    """A short hash of the bundled weights (config and weight file sizes and contents' head)."""
    digest = hashlib.sha256()
    folder = model_dir()
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        path = folder / name
        digest.update(name.encode())
        digest.update(str(path.stat().st_size).encode())
        with path.open("rb") as f:
            digest.update(f.read(1 << 20))
    return digest.hexdigest()[:12]


def model_path(folder: Path, precision: str) -> Path:
    """The graph file of one precision in ``folder`` (it may not exist yet); its weights are
    in the same name plus :data:`DATA_SUFFIX`."""
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown encoder precision {precision!r}; use one of {PRECISIONS}")
    return folder / f"all-MiniLM-L6-v2-{fingerprint()}.{precision}.onnx"


def _complete(path: Path) -> bool:
    """The graph and its weights file are both there (the graph is renamed in last)."""
    return path.exists() and path.with_name(path.name + DATA_SUFFIX).exists()


def ensure(folder: Path, precision: str) -> Path:
    """The ONNX file of ``precision``, exported first if it is missing.

    Raises:
        ConfigError: The export failed (torch or the weights missing, the folder not writable).
    """
    target = model_path(folder, precision)
    if _complete(target):
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fp32 = model_path(folder, "fp32")
        if not _complete(fp32):
            log.info("exporting the bundled MiniLM to ONNX once: %s", fp32)
            _atomic(fp32, _export_fp32)
        if precision == "int8" and target != fp32:
            log.info("quantizing the ONNX MiniLM to int8 once: %s", target)
            _atomic(target, lambda out: _quantize(fp32, out))
    except (OSError, ImportError, RuntimeError) as exc:
        raise ConfigError(
            f"cannot export the embedding model to ONNX in {folder}: {exc} "
            "(set onnx_dir to a writable folder, or encoder_runtime=torch)"
        ) from exc
    return target


def _atomic(target: Path, write) -> None:  # type: ignore[no-untyped-def]
    # Another process may export at the same time: each writes into its own temporary folder
    # and the renames (weights first, then the graph that names them) make whichever finishes
    # last the files, never a half-written one.
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as tmp:
        raw = Path(tmp) / "raw.onnx"
        root = logging.getLogger()
        level = root.level
        try:
            # the exporter's and quantizer's advice is for model authors, not for our users
            root.setLevel(logging.ERROR)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                write(raw)
        finally:
            root.setLevel(level)
        _save_external(raw, Path(tmp) / target.name)
        for name in (target.name + DATA_SUFFIX, target.name):
            os.chmod(Path(tmp) / name, 0o644)
            os.replace(Path(tmp) / name, target.parent / name)


def _save_external(source: Path, out: Path) -> None:
    # Weights in a file of their own are memory-mapped by ONNX Runtime: a service holding the
    # encoder costs about 60 MB instead of 140 (the graph is parsed, the weights paged in).
    import onnx

    model = onnx.load(str(source))
    onnx.save_model(
        model,
        str(out),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=out.name + DATA_SUFFIX,
        size_threshold=1024,
    )


def _export_fp32(out: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    class Pooled(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    model = AutoModel.from_pretrained(str(model_dir())).eval()
    example = tuple(torch.ones((2, 8), dtype=torch.long) for _ in range(3))
    axes = {"batch": 0, "tokens": 1}
    dynamic = {name: {v: k for k, v in axes.items()} for name in INPUTS}
    dynamic["embedding"] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(
            Pooled(model),
            example,
            str(out),
            input_names=list(INPUTS),
            output_names=["embedding"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            dynamo=False,
        )


def _quantize(source: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(source),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul"],
    )


INPUTS = ("input_ids", "attention_mask", "token_type_ids")
DATA_SUFFIX = ".data"
