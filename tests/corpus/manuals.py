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
    generator: str | None = None  # an HTML manual of many pages: the generator it is read as
    held_out: bool = False  # kept out of the tuning of the HTML reader, checked at the end

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

# HTML manuals of many pages, one or more per generator; the held-out ones were kept out of
# the tuning of the HTML reader (indexer/manual_site.py, indexer/parsers/generators/).
HTML_MANUALS: tuple[CorpusManual, ...] = (
    CorpusManual(
        name="mpfr",
        package="libmpfr-doc",
        paths=("/usr/share/doc/libmpfr-doc/mpfr.html",),
        format="html",
        manual=True,
        generator="texinfo",
        title="GNU MPFR",
        chapters=(
            "MPFR Copying Conditions",
            "1 Introduction to MPFR",
            "2 Installing MPFR",
            "3 Reporting Bugs",
            "4 MPFR Basics",
            "5 MPFR Interface",
            "6 API Compatibility",
            "7 MPFR and the IEEE 754 Standard",
            "Contributors",
            "References",
            "Appendix A GNU Free Documentation License",
        ),
        furniture=re.compile(r"(?m)^(?:Next: .*|Previous: .*|Up: .*)$|^Table of Contents$"),
    ),
    CorpusManual(
        name="ntpsec",
        package="ntpsec-doc",
        paths=("/usr/share/doc/ntpsec-doc/html",),
        format="html",
        manual=True,
        generator="asciidoc",
        title="The Secure Network Time Protocol (NTPsec) Distribution",
        chapters=(
            "1. Related Links",
            "3. Introduction",
            "4. Supported platforms",
            "5. The Handbook",
            "6. Building and Installing NTP",
            "7. Resolving Problems",
            "8. Further Information",
            "1.1. Build and Install",
            "1.2. Manual Pages",
            "1.3. Handbook Pages",
            "1.4. Reference Clock Support",
            "1.5. Miscellaneous Pages",
            "1.6. Special Topics",
        ),
        furniture=re.compile(r"Home Page \| Site Map|Last updated \d{4}-|Walt Kelly|Lewis Carroll"),
    ),
    CorpusManual(
        name="debian-reference",
        package="debian-reference-en",
        paths=("/usr/share/debian-reference",),
        format="html",
        manual=True,
        generator="docbook",
        title="Debian Reference",
        chapters=(
            "Osamu Aoki",
            "Preface",
            "Chapter 1. GNU/Linux tutorials",
            "Chapter 2. Debian package management",
            "Chapter 3. The system initialization",
            "Chapter 4. Authentication and access controls",
            "Chapter 5. Network setup",
            "Chapter 6. Network applications",
            "Chapter 7. GUI System",
            "Chapter 8. I18N and L10N",
            "Chapter 9. System tips",
            "Chapter 10. Data management",
            "Chapter 11. Data conversion",
            "Chapter 12. Programming",
            "Appendix A. Appendix",
        ),
        furniture=re.compile(r"(?m)^(?:Prev|Next|Home|Up)$|Table of Contents"),
    ),
    CorpusManual(
        name="mkdocs",
        package="mkdocs-doc",
        paths=("/usr/share/doc/mkdocs/html",),
        format="html",
        manual=True,
        generator="mkdocs",
        title="MkDocs",
        chapters=(
            "Features",
            "Getting Started with MkDocs",
            "User Guide",
            "Developer Guide",
            "About",
        ),
        furniture=re.compile(r"Documentation built with|Maintained by the MkDocs Team"),
    ),
    CorpusManual(
        name="doxygen",
        package="doxygen-doc",
        paths=("/usr/share/doc/doxygen/html",),
        format="html",
        manual=True,
        generator="doxygen",
        title="Doxygen",
        chapters=(
            "Introduction",
            "Doxygen license",
            "User examples",
            "Future work",
            "Acknowledgments",
            "Installation",
            "Getting started",
            "Documenting the code",
            "Markdown support",
            "Lists",
            "Grouping",
        ),
        furniture=re.compile(r"Generated by (?:doxygen|\d)|Go to the documentation of this file"),
    ),
    CorpusManual(
        name="joptsimple",
        package="libjoptsimple-java-doc",
        paths=("/usr/share/doc/libjoptsimple-java/api",),
        format="html",
        manual=True,
        generator="javadoc",
        title="JOpt Simple 5.0.4 API",
        chapters=("Package joptsimple", "Package joptsimple.internal", "Package joptsimple.util"),
        furniture=re.compile(r"Skip navigation links|All Classes|Overview Package Class"),
    ),
)

# Held out of the HTML reader's tuning: expected chapters taken from each manual's own contents
# (its table of contents, toctree or menu), checked once at the end.
HELD_OUT_MANUALS: tuple[CorpusManual, ...] = (
    CorpusManual(
        name="libgcrypt",
        package="libgcrypt20-doc",
        paths=("/usr/share/doc/libgcrypt20-doc/html",),
        format="html",
        manual=True,
        generator="texinfo",
        held_out=True,
        title="The Libgcrypt Library",
        chapters=(
            "1 Introduction",
            "2 Preparation",
            "3 Generalities",
            "4 Handler Functions",
            "5 Symmetric cryptography",
            "6 Public Key cryptography",
            "7 Hashing",
            "8 Message Authentication Codes",
            "9 Key Derivation",
            "10 Random Numbers",
            "11 S-expressions",
            "12 MPI library",
            "13 Prime numbers",
            "14 Utilities",
            "15 Tools",
            "16 Configuration files and environment variables",
            "17 Architecture",
            "Appendix A Description of the Self-Tests",
            "Appendix B Description of the FIPS Mode",
            "GNU Lesser General Public License",
            "GNU General Public License",
        ),
        furniture=re.compile(r"(?m)^(?:Next: .*|Previous: .*|Up: .*)$|^Table of Contents$"),
    ),
    CorpusManual(
        name="ccache",
        package="ccache",
        paths=("/usr/share/doc/ccache/manual.html",),
        format="html",
        manual=True,
        generator="asciidoc",
        held_out=True,
        title="ccache(1)",
        chapters=(
            "Name",
            "Synopsis",
            "Description",
            "Run modes",
            "Command line options",
            "Configuration",
            "Remote storage backends",
            "Cache size management",
            "Cache compression",
            "Cache statistics",
            "How ccache works",
        ),
        furniture=re.compile(r"Last updated \d{4}-|Table of Contents"),
    ),
    CorpusManual(
        name="cmake-tutorial",
        package="cmake-doc",
        paths=("/usr/share/doc/cmake-data/html/guide/tutorial",),
        format="html",
        manual=True,
        generator="sphinx",
        held_out=True,
        title="CMake Tutorial",
        chapters=tuple(
            f"Step {n}: {t}"
            for n, t in enumerate(
                (
                    "A Basic Starting Point",
                    "Adding a Library",
                    "Adding Usage Requirements for a Library",
                    "Adding Generator Expressions",
                    "Installing and Testing",
                    "Adding Support for a Testing Dashboard",
                    "Adding System Introspection",
                    "Adding a Custom Command and Generated File",
                    "Packaging an Installer",
                    "Selecting Static or Shared Libraries",
                    "Adding Export Configuration",
                    "Packaging Debug and Release",
                ),
                start=1,
            )
        ),
        furniture=re.compile(r"Table of Contents|Previous topic|Next topic|This Page"),
    ),
    CorpusManual(
        name="debian-faq",
        package="debian-faq",
        paths=("/usr/share/doc/debian/FAQ",),
        format="html",
        manual=True,
        generator="docbook",
        held_out=True,
        title="The Debian GNU/Linux FAQ",
        chapters=(
            "Chapter 1. Definitions and overview",
            "Chapter 2. Getting and installing Debian GNU/Linux",
            "Chapter 3. Choosing a Debian distribution",
            "Chapter 4. Compatibility issues",
            "Chapter 5. Software available in the Debian system",
            "Chapter 6. The Debian archives",
            "Chapter 7. Basics of the Debian package management system",
            "Chapter 8. The Debian package management tools",
            "Chapter 9. Keeping your Debian system up-to-date",
            "Chapter 10. Debian and the kernel",
            "Chapter 11. Customizing your Debian GNU/Linux system",
            "Chapter 12. Getting support for Debian GNU/Linux",
            "Chapter 13. Contributing to the Debian Project",
            "Chapter 14. Redistributing Debian GNU/Linux in a commercial product",
            "Chapter 15. Changes expected in the next major release of Debian",
            "Chapter 16. General information about the FAQ",
        ),
        furniture=re.compile(r"(?m)^(?:Prev|Next|Home|Up)$|Table of Contents"),
    ),
    CorpusManual(
        name="literate-nav",
        package="mkdocs-literate-nav-doc",
        paths=("/usr/share/doc/mkdocs-literate-nav-doc/html",),
        format="html",
        manual=True,
        generator="mkdocs",
        held_out=True,
        title="mkdocs-literate-nav",
        chapters=("Usage", "Reference"),
        furniture=re.compile(r"Made with Material for MkDocs|Skip to content"),
    ),
    CorpusManual(
        name="opus",
        package="libopus-doc",
        paths=("/usr/share/doc/libopus-dev/html",),
        format="html",
        manual=True,
        generator="doxygen",
        held_out=True,
        title="Opus",
        chapters=("Modules", "File List"),
        furniture=re.compile(r"Generated by (?:doxygen|\d)|Go to the documentation of this file"),
    ),
    CorpusManual(
        name="jcommander",
        package="libjcommander-java-doc",
        paths=("/usr/share/doc/libjcommander-java/api",),
        format="html",
        manual=True,
        generator="javadoc",
        held_out=True,
        title="jcommander 1.71 API",
        chapters=(
            "Package com.beust.jcommander",
            "Package com.beust.jcommander.converters",
            "Package com.beust.jcommander.defaultprovider",
            "Package com.beust.jcommander.internal",
            "Package com.beust.jcommander.validators",
        ),
        furniture=re.compile(r"Skip navigation links|All Classes|Overview Package Class"),
    ),
)

# `make test-corpus CORPUS_ONLY=bzip2,libtasn1` runs a subset (results then cover only those).
_ONLY = {n for n in os.environ.get("CORPUS_ONLY", "").split(",") if n}
MANUALS = tuple(
    m for m in ALL_MANUALS + HTML_MANUALS + HELD_OUT_MANUALS if not _ONLY or m.name in _ONLY
)
