"""The corpus suite's manuals: real documentation from Debian packages, read where installed.

Nothing of their text is in the repository. Each entry says which package installs it, what
to ingest, and what a reader checks: the title and top-level chapters as the manual prints
them, and the manual's own running-header strings (none may survive inside a passage).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CorpusManual:
    """One manual of the corpus suite."""

    name: str
    package: str
    paths: tuple[str, ...]
    format: str
    title: str
    chapters: tuple[str, ...]
    furniture: re.Pattern[str] | None = None
    manual: bool = False  # ingested as one manual of many files
    outline: bool = False  # a PDF with an outline (bookmarks)
    skip_chapters: tuple[str, ...] = field(default_factory=tuple)  # not asked about

    @property
    def doc_id(self) -> str:
        """A manual of many files is named by the suite; a single file keeps its name."""
        return self.name if self.manual else self.paths[0].rsplit("/", 1)[-1]


ALL_MANUALS: tuple[CorpusManual, ...] = (
    CorpusManual(
        name="gnuplot",
        package="gnuplot-doc",
        paths=("/usr/share/doc/gnuplot/gnuplot.pdf",),
        format="pdf",
        outline=True,
        title="gnuplot 5.4",
        chapters=(
            "I Gnuplot",
            "II Plotting styles",
            "III Commands",
            "IV Terminal types",
            "V Bugs",
            "VI Index",
        ),
        # "126 gnuplot 5.4" / "gnuplot 5.4 127" (CONTENTS/INDEX pages add the word)
        furniture=re.compile(r"(?m)(?:^|\s)\d{1,3} gnuplot 5\.4(?:\s|$)|gnuplot 5\.4 \d{1,3}$"),
        # the index's pages are a reference list, kept out of passages: nothing to summarize
        skip_chapters=("VI Index",),
    ),
    CorpusManual(
        name="libtasn1",
        package="libtasn1-doc",
        paths=("/usr/share/doc/libtasn1-doc/libtasn1.pdf",),
        format="pdf",
        outline=True,
        title="Libtasn1",
        chapters=(
            "1 Introduction",
            "2 ASN.1 structure handling",
            "3 Utilities",
            "4 Function reference",
            "A Copying Information",
            "Concept Index",
            "Function and Data Index",
        ),
        furniture=re.compile(r"(?m)^(?:Chapter \d+: .{3,60} \d{1,3}|Appendix A: .{3,60} \d{1,3})$"),
    ),
    CorpusManual(
        name="bzip2",
        package="bzip2-doc",
        paths=("/usr/share/doc/bzip2/manual.pdf.gz",),
        format="pdf",
        title="bzip2 and libbzip2, version 1.0.8",
        chapters=(
            "1. Introduction",
            "2. How to use bzip2",
            "3. Programming with libbzip2",
            "4. Miscellanea",
        ),
        furniture=re.compile(r"(?m)^(?:How to use bzip2|Programming with libbzip2|Miscellanea)$"),
    ),
    CorpusManual(
        name="ltnews",
        package="texlive-latex-base-doc",
        paths=("/usr/share/doc/texlive-doc/latex/base/ltnews.pdf",),
        format="pdf",
        outline=True,
        # Two-column pages (TeX writes each column whole): the layout reader must keep them.
        # The cover sets "LATEX News, Issues 1–36" with the LaTeX logo.
        title="LATEX News, Issues 1–36",
        chapters=(
            "Contents",
            "Issue 01, 1994/06",
            "Issue 02, 1994/12",
            "Issue 03, 1995/06",
            "Issue 04, 1995/12",
            "Issue 05, 1996/06",
            "Issue 06, 1996/12",
            "Issue 07, 1997/06",
            "Issue 08, 1997/12",
            "Issue 09, 1998/06",
            "Issue 10, 1998/12",
            "Issue 11, 1999/06",
            "Issue 12, 1999/12",
            "Issue 13, 2000/06",
            "Issue 14, 2001/06",
            "Issue 15, 2003/12",
            "Issue 16, 2003/12",
            "Issue 17, 2005/12",
            "Issue 18, 2007/12",
            "Issue 19, 2009/09",
            "Issue 20, 2011/06",
            "Issue 21, 2014/05",
            "Issue 22, 2015/01",
            "Issue 23, 2015/10",
            "Issue 24, 2016/02",
            "Issue 25, 2016/03",
            "Issue 26, 2017/01",
            "Issue 27, 2017/04",
            "Issue 28, 2018/04",
            "Issue 29, 2018/12",
            "Issue 30, 2019/10",
            "Issue 31, 2020/02",
            "Issue 32, 2020/10",
            "Issue 33, 2021/06",
            "Issue 34, 2021/11",
            "Issue 35, 2022/06",
            "Issue 36, 2022/11",
        ),
        # the "–41" page-number footers
        furniture=re.compile(r"(?m)^–\d{1,3}$"),
    ),
    CorpusManual(
        name="bind9",
        package="bind9-doc",
        paths=("/usr/share/doc/bind9-doc/arm",),
        format="html",
        manual=True,
        title="BIND 9 Administrator Reference Manual",
        chapters=(
            "1. Introduction to DNS and BIND 9",
            "2. Resource Requirements",
            "3. Configurations and Zone Files",
            "4. Name Server Operations",
            "5. DNSSEC",
            "6. Advanced Configurations",
            "7. Security Configurations",
            "8. Configuration Reference",
            "9. Troubleshooting",
            "10. Building BIND 9",
            "DNSSEC Guide",
            "Manual Pages",
            "General DNS Reference Information",
            "Release Notes",
            "Changelog",
        ),
        furniture=re.compile(r"Built with Sphinx|View page source|Previous topic|Next topic"),
    ),
    CorpusManual(
        name="bash",
        package="bash-doc",
        paths=("/usr/share/doc/bash/bashref.html",),
        format="html",
        # Texinfo prints "Bash Reference Manual" on its title page (and in <title>), then
        # "Bash Features" as the Top node heading, which holds the chapters.
        title="Bash Reference Manual",
        chapters=(
            "1 Introduction",
            "2 Definitions",
            "3 Basic Shell Features",
            "4 Shell Builtin Commands",
            "5 Shell Variables",
            "6 Bash Features",
            "7 Job Control",
            "8 Command Line Editing",
            "9 Using History Interactively",
            "10 Installing Bash",
            "Appendix A Reporting Bugs",
            "Appendix B Major Differences From The Bourne Shell",
            "Appendix C GNU Free Documentation License",
            "Appendix D Indexes",
        ),
        furniture=re.compile(r"(?m)^(?:Next: .*|Previous: .*|Up: .*)$"),
    ),
    CorpusManual(
        name="docker-builder",
        package="docker-doc",
        paths=("/usr/share/doc/docker-doc/reference/builder.md.gz",),
        format="markdown",
        title="Dockerfile reference",
        chapters=(
            "Usage",
            "BuildKit",
            "Format",
            "Parser directives",
            "syntax",
            "escape",
            "Environment replacement",
            ".dockerignore file",
            "FROM",
            "RUN",
        ),
    ),
)

# `make test-corpus CORPUS_ONLY=bzip2,libtasn1` runs a subset (results then cover only those).
_ONLY = {n for n in os.environ.get("CORPUS_ONLY", "").split(",") if n}
MANUALS = tuple(m for m in ALL_MANUALS if not _ONLY or m.name in _ONLY)
