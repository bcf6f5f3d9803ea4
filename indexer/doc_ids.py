"""The one normalization of a ``doc_id``, for every way one comes in (CLI, HTTP, library).

A doc_id is a relative, slash-separated name such as ``pump/pump-x200.md``: never a host path.
Backslashes become slashes, repeated slashes and ``.`` segments are dropped; ``..`` segments,
absolute paths, drive letters, control characters, empty and overlong ids are refused.
"""

from __future__ import annotations

import re

from indexer.errors import InvalidRequestError

DOC_ID_MAX_CHARS = 512
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


def normalize_doc_id(raw: str) -> str:
    """``raw`` as a canonical doc_id (``a\\\\b`` → ``a/b``, ``./a//b`` → ``a/b``).

    Raises:
        InvalidRequestError: Not a string, empty, longer than ``DOC_ID_MAX_CHARS``, with control
            characters, absolute (``/x``, ``\\\\x``, ``C:x``) or with a ``..`` segment.
    """
    if not isinstance(raw, str):
        raise _invalid("doc_id must be a string")
    if _CONTROL.search(raw):
        raise _invalid("doc_id contains control characters")
    text = raw.replace("\\", "/")
    if text.startswith("/"):
        raise _invalid(f"doc_id {raw!r} is an absolute path: give a relative name")
    if _DRIVE.match(text):
        raise _invalid(f"doc_id {raw!r} starts with a drive letter: give a relative name")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise _invalid(f"doc_id {raw!r} must not contain '..' segments")
    doc_id = "/".join(parts)
    if not doc_id.strip():
        raise _invalid("doc_id is empty")
    if len(doc_id) > DOC_ID_MAX_CHARS:
        raise _invalid(
            f"doc_id is {len(doc_id):,} characters long; the limit is {DOC_ID_MAX_CHARS}"
        )
    return doc_id


def _invalid(message: str) -> InvalidRequestError:
    return InvalidRequestError(message, detail={"field": "doc_id"})
