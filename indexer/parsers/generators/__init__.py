"""HTML documentation generators: how each writes a manual's structure into its pages.

One module per generator, each a small class with ``detect`` (its marks in the markup:
``<meta name="generator">``, a comment, a script) and ``outline`` (the chapters and sections
from the manual's own contents or navigation). :func:`detect` picks the first that knows the
start page; :class:`Generic` reads a manual of no known generator.
"""

from indexer.parsers.generators.base import Entry, Generator, Site
from indexer.parsers.generators.registry import GENERATORS, Generic, detect

__all__ = ["GENERATORS", "Entry", "Generator", "Generic", "Site", "detect"]
