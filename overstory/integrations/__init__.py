"""Retrievers for agent frameworks, over the HTTP API or an index in this process.

- ``overstory.integrations.llama_index.OverstoryRetriever`` (``pip install
  'overstory[llama-index]'``): a LlamaIndex ``BaseRetriever`` returning ``NodeWithScore``;
- ``overstory.integrations.langchain.OverstoryRetriever`` (``pip install
  'overstory[langchain]'``): a LangChain ``BaseRetriever`` returning ``Document``.

Both keep every result's label and provenance in its metadata (:mod:`.results`), and both
await without blocking the event loop (``aretrieve``, ``ainvoke``; :mod:`.source`). The framework
is imported only by its own module, so importing this package needs neither.
"""

from overstory.integrations.results import METADATA_KEYS, metadata_of
from overstory.integrations.source import HttpSource, LocalSource, QuerySource

__all__ = ["METADATA_KEYS", "HttpSource", "LocalSource", "QuerySource", "metadata_of"]
