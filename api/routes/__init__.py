"""HTTP routes, one module per resource; each exposes a FastAPI ``router``."""
