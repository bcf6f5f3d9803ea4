"""The planted-fault benchmark of the summary lint (see ``run.py``)."""
