"""One module per group of CLI commands."""
