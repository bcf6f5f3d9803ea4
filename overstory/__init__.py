"""Overstory for agent frameworks: ``overstory.integrations`` (LlamaIndex, LangChain).

The service itself lives in ``indexer``, ``retriever`` and ``api``; this package sits above
them and nothing there imports it.
"""
