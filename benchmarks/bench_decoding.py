"""Text decoding compared on real files: the hand-written rules against charset-normalizer.

The corpus is the documentation a Debian system ships (``/usr/share/doc``): text, Markdown and
HTML files, read as bytes. Each sample has a true text:

- ``utf-8``: files that are valid UTF-8 (most with non-ASCII characters) — true text: UTF-8;
- ``declared``: HTML pages written in another encoding that they declare (``<meta charset>``:
  EUC-KR, ISO-8859-1, windows-1252), the declaration passed as the HTML parser passes it —
  true text: the declared encoding;
- ``undeclared-latin``: the text files that are not UTF-8 and declare nothing (names such as
  François, Schröder; checked by eye) — true text: latin-1;
- ``re-encoded``: UTF-8 files with non-ASCII text written again, without any declaration, in
  the encodings text files really come in: latin-1, cp1252, iso-8859-2 (Western and Central
  European pages), cp1251 and koi8-r (Russian), shift_jis and euc-jp (Japanese), gb18030
  (Chinese), euc-kr (Korean), UTF-16 with a byte-order mark and without one — true text: the
  UTF-8 original;
- ``mixed``: UTF-8 files whose every other non-ASCII paragraph is written in cp1252 (a file
  pasted together from two sources) — true text: the UTF-8 original.

Each decoder is scored on ``exact`` (decoded text equal to the true text, newlines normalized)
and ``seconds`` (all samples decoded once, best of three). Decoders:

- ``hand``: the rules Overstory used until charset-normalizer (UTF-8, the declaration, else
  UTF-8 line by line with cp1252/latin-1 for the other lines), kept here to compare against;
- ``charset_normalizer``: UTF-8, the declaration, else charset-normalizer's best guess;
- ``shipped``: :func:`indexer.parsers.decoding.decode_text` as it is now.

Writes ``benchmarks/results/decoding.json``.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT
from indexer.errors import BadInputError
from indexer.parsers.decoding import decode_text

RESULTS = ROOT / "benchmarks" / "results" / "decoding.json"
DOCS = Path("/usr/share/doc")
SUFFIXES = (".txt", ".md", ".html", ".htm", ".rst")
NAMES = ("README", "AUTHORS", "THANKS", "NEWS")
MAX_BYTES = 256 * 1024
PER_GROUP = 40  # re-encoded samples per target encoding
UTF8_SAMPLES = 300
_META = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)|<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)""",
    re.IGNORECASE,
)
_DECLARATION = re.compile(r"""(charset|encoding)\s*=\s*["']?[\w.:-]+""", re.IGNORECASE)
TARGETS = (
    "latin-1",
    "cp1252",
    "iso-8859-2",
    "cp1251",
    "koi8-r",
    "shift_jis",
    "euc-jp",
    "gb18030",
    "euc-kr",
    "utf-16",
    "utf-16-le",
)

Sample = dict[str, Any]


def _files() -> list[Path]:
    out = []
    for p in sorted(DOCS.rglob("*")):
        name = p.name[:-3] if p.name.endswith(".gz") else p.name
        if p.is_file() and not p.is_symlink() and (name.endswith(SUFFIXES) or name in NAMES):
            out.append(p)
    return out


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            return b""
    return data[:MAX_BYTES] if len(data) > MAX_BYTES else data


def _declared(data: bytes) -> str | None:
    m = _META.search(data[:4096])
    return (m.group(1) or m.group(2)).decode("ascii", "replace") if m else None


def _normal(text: str) -> str:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _mixed(text: str) -> bytes | None:
    parts = text.split("\n\n")
    out, pasted = [], 0
    for i, part in enumerate(parts):
        foreign = not part.isascii() and i % 2 == 1
        try:
            out.append(part.encode("cp1252" if foreign else "utf-8"))
            pasted += foreign
        except UnicodeEncodeError:
            out.append(part.encode("utf-8"))
    return b"\n\n".join(out) if pasted else None


def corpus() -> list[Sample]:
    """The samples, every one with its group, true text and declaration."""
    samples: list[Sample] = []
    utf8: list[tuple[Path, str]] = []
    for path in _files():
        data = _read(path)
        if not data.strip() or b"\x00" in data:
            continue
        declared = _declared(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            utf8.append((path, text))
            continue
        if declared and _codec(declared) not in (None, "utf-8"):
            try:
                truth = data.decode(declared)
            except UnicodeDecodeError:  # the declaration is wrong: no truth known
                continue
            samples.append(_sample("declared", path, data, truth, declared, declared))
        elif not path.name.endswith((".html", ".htm")):
            truth = data.decode("latin-1")
            samples.append(_sample("undeclared-latin", path, data, truth, None, "latin-1"))
    non_ascii = [(p, t) for p, t in utf8 if not t.isascii()]
    step = max(1, len(utf8) // UTF8_SAMPLES)
    for path, text in utf8[::step][:UTF8_SAMPLES]:
        samples.append(_sample("utf-8", path, text.encode("utf-8"), text, _declared_of(text)))
    for target in TARGETS:
        taken = 0
        for path, text in non_ascii:
            plain = _DECLARATION.sub("", text)
            try:
                data = plain.encode(target)
            except UnicodeEncodeError:
                continue
            if _useful(data, plain, target):
                samples.append(_sample("re-encoded", path, data, plain, None, target))
                taken += 1
                if taken == PER_GROUP:
                    break
    taken = 0
    for path, text in non_ascii:
        data = _mixed(text)
        if data is not None:
            samples.append(_sample("mixed", path, data, text, None, "utf-8+cp1252"))
            taken += 1
            if taken == PER_GROUP:
                break
    return samples


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _declared_of(text: str) -> str | None:
    return _declared(text[:4096].encode("utf-8"))


def _useful(data: bytes, text: str, target: str) -> bool:
    """A re-encoded sample tells something only if it is not also UTF-8 already, and a
    single-byte target is used for the script it is made for (no Cyrillic file in latin-1)."""
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError:
        pass
    letters = Counter(
        "cyrillic" if "\u0400" <= c <= "\u04ff" else "cjk" if c >= "\u3000" else "latin"
        for c in text
        if not c.isascii() and c.isalpha()
    )
    script = letters.most_common(1)[0][0] if letters else "latin"
    wants = {
        "cp1251": "cyrillic",
        "koi8-r": "cyrillic",
        "shift_jis": "cjk",
        "euc-jp": "cjk",
        "gb18030": "cjk",
        "euc-kr": "cjk",
        "latin-1": "latin",
        "cp1252": "latin",
        "iso-8859-2": "latin",
    }
    return wants.get(target, script) == script


def _sample(
    group: str,
    path: Path,
    data: bytes,
    truth: str,
    declared: str | None = None,
    encoding: str = "utf-8",
) -> Sample:
    return {
        "group": group,
        "path": str(path),
        "data": data,
        "truth": _normal(truth),
        "declared": declared,
        "encoding": encoding,
    }


# the decoders ----------------------------------------------------------------------------------
def _hand_line(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return line.decode("cp1252")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def hand(data: bytes, declared: str | None) -> str:
    """The rules before charset-normalizer (binary and empty checks left out: none here)."""
    for bom, enc in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return _normal(data[len(bom) :].decode(enc))
    if b"\x00" in data:
        raise BadInputError("binary content (NUL bytes)")
    try:
        return _normal(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            codec = codecs.lookup(declared).name
            if codec not in ("utf-8", "latin-1", "iso8859-1", "cp1252", "ascii"):
                return _normal(data.decode(codec))
        except (LookupError, UnicodeDecodeError):
            pass
    return _normal("".join(_hand_line(x) for x in data.splitlines(keepends=True)))


def charset_normalizer_alone(data: bytes, declared: str | None) -> str:
    """UTF-8, the declaration, else charset-normalizer's best guess."""
    from charset_normalizer import from_bytes

    try:
        return _normal(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return _normal(data.decode(declared))
        except (LookupError, UnicodeDecodeError):
            pass
    best = from_bytes(data).best()
    if best is None:
        raise BadInputError("no encoding found")
    return _normal(str(best))


def shipped(data: bytes, declared: str | None) -> str:
    return decode_text(data, filename="sample", declared_encoding=declared)


DECODERS: dict[str, Callable[[bytes, str | None], str]] = {
    "hand": hand,
    "charset_normalizer": charset_normalizer_alone,
    "shipped": shipped,
}


def score(decode: Callable[[bytes, str | None], str], samples: list[Sample]) -> dict[str, Any]:
    """Exact decodings per group, the misses (a few, for reading) and the best of 3 times."""
    exact: Counter[str] = Counter()
    by_encoding: Counter[str] = Counter()
    misses: list[str] = []
    for s in samples:
        try:
            ok = decode(s["data"], s["declared"]) == s["truth"]
        except BadInputError:
            ok = False
        exact[s["group"]] += ok
        by_encoding[s["encoding"].lower()] += ok
        if not ok and len(misses) < 12:
            misses.append(f"{s['group']} {s['encoding']} {s['path']}")
    seconds: Counter[str] = Counter()
    for group in sorted({s["group"] for s in samples}):
        of_group = [s for s in samples if s["group"] == group]
        seconds[group] = min(_time(decode, of_group) for _ in range(3))
    return {
        "exact": sum(exact.values()),
        "exact_by_group": dict(sorted(exact.items())),
        "exact_by_encoding": dict(sorted(by_encoding.items())),
        "seconds": round(sum(seconds.values()), 3),
        "seconds_by_group": {g: round(t, 3) for g, t in sorted(seconds.items())},
        "misses": misses,
    }


def _time(decode: Callable[[bytes, str | None], str], samples: list[Sample]) -> float:
    started = time.perf_counter()
    for s in samples:
        with contextlib.suppress(BadInputError):
            decode(s["data"], s["declared"])
    return time.perf_counter() - started


def main() -> dict[str, Any]:
    samples = corpus()
    megabytes = sum(len(s["data"]) for s in samples) / 1e6
    out: dict[str, Any] = {
        "samples": len(samples),
        "megabytes": round(megabytes, 2),
        "samples_by_group": dict(sorted(Counter(s["group"] for s in samples).items())),
        "samples_by_encoding": dict(
            sorted(Counter(s["encoding"].lower() for s in samples).items())
        ),
        "decoders": {},
    }
    for name, decode in DECODERS.items():
        row = score(decode, samples)
        row["accuracy"] = round(row["exact"] / len(samples), 4)
        row["megabytes_per_second"] = round(megabytes / row["seconds"], 1)
        out["decoders"][name] = row
        print(name, json.dumps({k: v for k, v in row.items() if k != "misses"}))
    base = out["decoders"]["hand"]
    for row in out["decoders"].values():
        row["time_vs_hand"] = round(row["seconds"] / base["seconds"], 2)
        row["utf8_time_vs_hand"] = round(
            row["seconds_by_group"]["utf-8"] / base["seconds_by_group"]["utf-8"], 2
        )
    RESULTS.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
