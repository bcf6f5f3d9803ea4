"""The real manuals the summary benchmark judges, from Debian packages, and their split.

Split once, by manual, before any tuning: the tuning half is what the summarizer was developed
on; the held-out half (the manuals a new user reported problems with among them) is scored once
at the end. Each half covers several generators and formats, so that no rule can fit one
generator's habits. Nothing of their text is in the repository: the files are read from the
installed packages at benchmark time (installed with apt-get when missing, as root).
"""

from __future__ import annotations

import gzip
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchmarks.corpora import CACHE, install_packages

TUNING = "tuning"
HELD_OUT = "held_out"
FRESH = "fresh"
"""A second held-out half: manuals added after the first held-out half had been scored and its
faults read, summarized and judged once, so that the figures on it owe nothing to that reading."""
THIRD = "third"
"""A third held-out half: manuals added when the rules of ``extractive-v10`` had been drawn from
faults read in the first two held-out halves, so that a half nobody had read measures them."""
SPLITS = (TUNING, HELD_OUT, FRESH, THIRD)


@dataclass(frozen=True)
class Manual:
    """One manual: what installs it, which files, how it is ingested, which half it is in.

    Attributes:
        name: Short name, also the doc_id of a manual ingested as one document.
        package: The Debian package that installs it.
        generator: What wrote it (``texinfo-html``, ``sphinx``, ``docbook``, ``pdf``, ...).
        split: :data:`TUNING`, :data:`HELD_OUT`, :data:`FRESH` or :data:`THIRD`.
        files: Installed paths, in the manual's order.
        manual: Ingested as one manual of several files (else each file is a document).
    """

    name: str
    package: str
    generator: str
    split: str
    files: tuple[str, ...]
    manual: bool = False

    def folder(self) -> Path:
        """Where its files are copied for ingest (``.gz`` files decompressed)."""
        return CACHE / "summaries" / "manuals" / self.name


_PG = "/usr/share/doc/postgresql-doc-15/html/"
_NTP = "/usr/share/doc/ntpsec-doc/html/"
_CMAKE = "/usr/share/doc/cmake-data/html/manual/"
_POSTFIX = "/usr/share/doc/postfix/html/"
_RSYSLOG = "/usr/share/doc/rsyslog-doc/html/configuration/"
_APACHE = "/usr/share/doc/apache2-doc/manual/en/"

MANUALS: tuple[Manual, ...] = (
    Manual("bash", "bash-doc", "texinfo-html", TUNING, ("/usr/share/doc/bash/bashref.html",)),
    Manual("bind9", "bind9-doc", "sphinx", TUNING, ("/usr/share/doc/bind9-doc/arm/chapter5.html",)),
    Manual(
        "debian-reference",
        "debian-reference-en",
        "docbook",
        TUNING,
        ("/usr/share/debian-reference/ch05.en.html",),
    ),
    Manual(
        "libtasn1", "libtasn1-doc", "pdf", TUNING, ("/usr/share/doc/libtasn1-doc/libtasn1.pdf",)
    ),
    Manual(
        "docker",
        "docker-doc",
        "markdown",
        TUNING,
        ("/usr/share/doc/docker-doc/reference/run.md.gz",),
    ),
    # Added to the tuning half once its first five manuals no longer showed the faults the
    # held-out halves did: new manuals, judged and read before any rule was written on them.
    Manual("m4", "m4-doc", "texinfo-html", TUNING, ("/usr/share/doc/m4/",), manual=True),
    Manual(
        "postfix",
        "postfix-doc",
        "html",
        TUNING,
        (
            _POSTFIX + "BASIC_CONFIGURATION_README.html",
            _POSTFIX + "STANDARD_CONFIGURATION_README.html",
        ),
    ),
    Manual(
        "fancyhdr",
        "texlive-latex-base-doc",
        "pdf",
        TUNING,
        ("/usr/share/doc/texlive-doc/latex/fancyhdr/fancyhdr.pdf",),
    ),
    Manual(
        "rsyslog",
        "rsyslog-doc",
        "sphinx",
        TUNING,
        (_RSYSLOG + "templates.html", _RSYSLOG + "property_replacer.html"),
    ),
    Manual(
        "apache",
        "apache2-doc",
        "apache-xslt",
        TUNING,
        (_APACHE + "caching.html", _APACHE + "env.html"),
    ),
    Manual(
        "mpfr",
        "libmpfr-doc",
        "texinfo-html",
        HELD_OUT,
        ("/usr/share/doc/libmpfr-doc/mpfr.html/",),
        manual=True,
    ),
    Manual(
        "ntpsec",
        "ntpsec-doc",
        "asciidoctor",
        HELD_OUT,
        tuple(
            _NTP + f
            for f in (
                "discover.html",
                "rate.html",
                "clock.html",
                "assoc.html",
                "authentic.html",
                "miscopt.html",
            )
        ),
    ),
    Manual("libidn2", "libidn2-doc", "pdf", HELD_OUT, ("/usr/share/doc/libidn2-doc/libidn2.pdf",)),
    Manual(
        "cmake",
        "cmake-doc",
        "sphinx",
        HELD_OUT,
        (_CMAKE + "cmake-buildsystem.7.html", _CMAKE + "cmake-packages.7.html"),
    ),
    Manual(
        "postgresql",
        "postgresql-doc-15",
        "docbook",
        HELD_OUT,
        tuple(
            _PG + f
            for f in (
                "high-availability.html",
                "different-replication-solutions.html",
                "warm-standby.html",
                "warm-standby-failover.html",
                "hot-standby.html",
            )
        ),
        manual=True,
    ),
    Manual("git", "git-doc", "asciidoc", HELD_OUT, ("/usr/share/doc/git-doc/user-manual.html",)),
    Manual(
        "libtool",
        "libtool-doc",
        "texinfo-html",
        FRESH,
        ("/usr/share/doc/libtool-doc/libtool.html",),
    ),
    Manual(
        "natbib",
        "texlive-latex-base-doc",
        "pdf",
        FRESH,
        ("/usr/share/doc/texlive-doc/latex/natbib/natbib.pdf",),
    ),
    Manual(
        "maint-guide",
        "maint-guide",
        "docbook",
        FRESH,
        ("/usr/share/doc/maint-guide/html/",),
        manual=True,
    ),
    Manual("ccache", "ccache", "asciidoctor", FRESH, ("/usr/share/doc/ccache/manual.html",)),
    Manual(
        "libgcrypt",
        "libgcrypt20-doc",
        "texinfo-html",
        THIRD,
        ("/usr/share/doc/libgcrypt20-doc/html/",),
        manual=True,
    ),
    Manual("gnuplot", "gnuplot-doc", "pdf", THIRD, ("/usr/share/doc/gnuplot/gnuplot.pdf",)),
    Manual(
        "weechat-scripting",
        "weechat-doc",
        "asciidoctor",
        THIRD,
        ("/usr/share/doc/weechat-doc/html/weechat_scripting.en.html",),
    ),
    Manual(
        "itsdangerous",
        "python-itsdangerous-doc",
        "sphinx",
        THIRD,
        ("/usr/share/doc/python-itsdangerous-doc/html/",),
        manual=True,
    ),
)


def prepared(manual: Manual) -> list[Path]:
    """The manual's files copied into its folder (installing its package when missing); the
    paths to ingest (one folder for a manual of many files)."""
    install_packages({manual.package})
    folder = manual.folder()
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for name in manual.files:
        source = Path(name)
        if source.is_dir():
            target = folder / source.name
            if not target.exists():
                shutil.copytree(source, target)
            out.append(target)
            continue
        plain = source.name.removesuffix(".gz")
        target = folder / plain
        if not target.exists():
            data = source.read_bytes()
            target.write_bytes(gzip.decompress(data) if source.suffix == ".gz" else data)
        out.append(target)
    return out
