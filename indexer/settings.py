"""Typed settings, read once at the edge (CLI, HTTP app) and passed inward as an object.

Sources, highest priority first: keyword arguments, ``OVERSTORY_*`` environment variables, the
TOML file named by ``OVERSTORY_CONFIG`` (default ``./overstory.toml`` when it exists), defaults.
Every field is documented in the README's settings table (a test checks it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)


def _config_file() -> Path:
    return Path(os.environ.get("OVERSTORY_CONFIG", "overstory.toml"))


class Settings(BaseSettings):
    """All of Overstory's configuration."""

    model_config = SettingsConfigDict(env_prefix="OVERSTORY_", extra="ignore")

    # storage
    store: Path = Field(Path(".overstory"), description="Folder holding the index.")
    chroma_url: str | None = Field(
        None, description="URL of a Chroma server (http://host:port); embedded store when unset."
    )

    # embedding
    embedder: Literal["minilm", "hashing"] = Field(
        "minilm", description="Embedding backend; `hashing` is a deterministic fake for tests."
    )
    torch_threads: int = Field(
        1, ge=1, description="Torch threads used to encode a query (latency under load)."
    )
    ingest_threads: int = Field(
        2, ge=1, description="Torch threads used to encode passages during ingest (throughput)."
    )
    embed_batch_size: int = Field(32, ge=1, description="Passages per encode batch.")

    # chunking
    chunk_tokens: int = Field(
        200, ge=32, le=254, description="Maximum passage length in model tokens."
    )
    chunk_overlap: int = Field(30, ge=0, description="Overlap between passages in tokens.")
    max_document_bytes: int = Field(
        25_000_000, ge=1, description="Largest file accepted for ingest, in bytes."
    )

    # summaries
    summarizer: Literal["extractive", "openai", "local", "llamacpp"] = Field(
        "extractive", description="Summarizer backend."
    )
    summary_tokens: int = Field(
        160, ge=16, description="Target length of a summary, in model tokens."
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file()
        if path.is_file():
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)


def load_settings(**overrides: Any) -> Settings:
    """Read the settings from the environment and the TOML file, with explicit overrides."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    return Settings(**clean)
