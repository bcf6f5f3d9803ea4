"""Turn the bytes of a text-format file into clean ``str``."""

from __future__ import annotations

import codecs

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

    Strips a byte-order mark, decodes UTF-8, and when the whole file is not valid UTF-8 decodes
    it line by line (UTF-8 where a line is valid, else cp1252, else latin-1) so a file pasted
    together from differently encoded parts still yields clean text. Newlines become ``"\\n"``.

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
    if text is None:
        _check_binary(data, filename)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = _try_declared(data, declared_encoding)
        if text is None:
            text = "".join(_decode_line(line) for line in data.splitlines(keepends=True))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise BadInputError("file is empty" if not text else "file contains only whitespace")
    return text
