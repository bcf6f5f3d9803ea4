"""Turn the bytes of a text-format file into clean ``str``.

UTF-8 and declared encodings first; a file that is neither is read by charset-normalizer when
it finds a non-Latin script (Cyrillic, CJK, Greek, …, or UTF-16 without a byte-order mark), else
line by line as UTF-8 or cp1252, which also reads a file pasted together from both
(``benchmarks/bench_decoding.py`` measured these rules against each alone).
"""

from __future__ import annotations

import codecs
import re

from indexer.errors import BadInputError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# Control characters other than tab, newline, carriage return and form feed.
_CONTROL = bytes(b for b in range(0x20) if b not in (0x09, 0x0A, 0x0C, 0x0D)) + b"\x7f"
_MAX_CONTROL_SHARE = 0.05
_SAMPLE = 1 << 16
# A reading of another script than Latin: at least this many such letters, this share of them
# next to another one (in words, not alone inside Latin words).
_MIN_LETTERS = 8
_RUN_SHARE = 0.8
_NON_LATIN = r"[^\W\d_\x00-\u024f\u1e00-\u1eff]"
_RUN = re.compile(f"{_NON_LATIN}{{2,}}")


def _LATIN_EXT(c: str) -> bool:
    return "\u1e00" <= c < "\u1f00"


def _suffix(filename: str) -> str:
    name = filename.rsplit("/", 1)[-1].lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return "." + name.rsplit(".", 1)[-1] if "." in name else "(no extension)"


def _check_binary(data: bytes, filename: str) -> None:
    if b"\x00" in data:
        raise BadInputError(f"binary content (NUL bytes) in a {_suffix(filename)} file")
    sample = data[:_SAMPLE]
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    if controls > _MAX_CONTROL_SHARE * len(sample):
        raise BadInputError(f"binary content (control characters) in a {_suffix(filename)} file")


def _other_script(text: str) -> bool:
    """Whether a reading is of a non-Latin script: words of Cyrillic, Greek, CJK, … letters.

    A single-byte Western text read in the wrong code page also shows such letters, one here
    and there inside Latin words ("cafй", "Frан蔞ois"); a real one has them in runs.
    """
    letters = [c for c in text[:_SAMPLE] if c >= "\u0250" and c.isalpha() and not _LATIN_EXT(c)]
    if len(letters) < _MIN_LETTERS:
        return False
    runs = sum(len(m.group()) for m in _RUN.finditer(text[:_SAMPLE]))
    return runs >= _RUN_SHARE * len(letters)


def _detected(data: bytes) -> str | None:
    """charset-normalizer's reading, when it is of a non-Latin script."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        return None
    text = str(best)
    return text if _other_script(text) else None


def _wide(data: bytes) -> str | None:
    """A UTF-16 or UTF-32 text without a byte-order mark (whatever its script), else None."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or not best.encoding.startswith(("utf_16", "utf_32")):
        return None
    text = str(best)
    controls = sum(1 for c in text[:_SAMPLE] if c < " " and c not in "\t\n\x0c\r")
    return None if controls > _MAX_CONTROL_SHARE * min(len(text), _SAMPLE) else text


def _decode_line(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return line.decode("cp1252")
    except UnicodeDecodeError:
        # cp1252 leaves five bytes undefined; latin-1 maps every byte.
        return line.decode("latin-1")


def _try_declared(data: bytes, encoding: str | None) -> str | None:
    if not encoding:
        return None
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        return None
    # A wrong "utf-8"/"latin-1" declaration is common; the line-by-line fallback handles both.
    if codec in ("utf-8", "latin-1", "iso8859-1", "cp1252", "ascii"):
        return None
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def decode_text(data: bytes, *, filename: str, declared_encoding: str | None = None) -> str:
    """Decode a text file, tolerating mixed encodings.

    Strips a byte-order mark, decodes UTF-8 or the declared encoding; else takes
    charset-normalizer's reading when it is of a non-Latin script (Cyrillic, CJK, UTF-16 without
    a byte-order mark, …); else decodes line by line (UTF-8 where a line is valid, else cp1252,
    else latin-1) so a file pasted together from differently encoded parts still yields clean
    text. Newlines become ``"\\n"``.

    Args:
        data: The raw file content.
        filename: The file name, used in error messages.
        declared_encoding: An encoding the file declares for itself (e.g. an HTML ``<meta
            charset>``), tried before the line-by-line fallback when the file is not UTF-8.

    Returns:
        The decoded text.

    Raises:
        BadInputError: The file is empty, whitespace only, or binary.
    """
    if not data.strip():
        raise BadInputError("file is empty" if not data else "file contains only whitespace")
    text: str | None = None
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            if encoding != "utf-8":
                try:
                    text = data[len(bom) :].decode(encoding)
                except UnicodeDecodeError as exc:
                    raise BadInputError(f"invalid {encoding} text: {exc}") from exc
            else:
                data = data[len(bom) :]
            break
    if text is None and b"\x00" in data:
        text = _wide(data)
    if text is None:
        _check_binary(data, filename)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = _try_declared(data, declared_encoding) or _detected(data)
        if text is None:
            text = "".join(_decode_line(line) for line in data.splitlines(keepends=True))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise BadInputError("file is empty" if not text else "file contains only whitespace")
    return text
