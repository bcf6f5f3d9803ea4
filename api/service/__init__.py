"""The service wing: what the HTTP service and the CLI add around the indexer.

- :mod:`api.service.jobs` — ingestion jobs: uploads checked and kept, worker threads, recovery;
- :mod:`api.service.keys` — API keys with roles;
- :mod:`api.service.audit` — the audit workflow: reviews, the queue, the log
  (:mod:`api.service.review`, :mod:`api.service.audit_queue`, with the lint cache in
  :mod:`api.service.lint_cache`);
- :mod:`api.service.browse` — one node with its parent, children and covered passages;
- :mod:`api.service.wiring` — the index and retriever built the same way for CLI and service.
"""
