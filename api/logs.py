"""Keep API keys out of the service's logs.

A key sent where it does not belong (in a URL path, say ``DELETE /v1/keys/ovs_…``) would be
written to the access log with the request line. :class:`RedactKeys` replaces anything shaped like
a key in a log record by ``ovs_<key_id>_[redacted]`` before any handler formats it, in every
encoding a client may send: as is, or percent-encoded in part or in full, once or more (the access
log prints the raw path and query string, and a forwarded-for header as the client);
:func:`install_key_redaction` puts it on the loggers that print request lines and errors.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote

KEY_SHAPE = re.compile(r"ovs_([0-9A-Za-z]{0,16})_[0-9A-Za-z_\-]+")
_LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn", "overstory.http")
REDACTED = r"ovs_\1_[redacted]"
# A run of URL characters: with a percent escape in it, a key may hide there (one pass, linear).
_URL_RUN = re.compile(r"[0-9A-Za-z_.~%\-]+")
_MAX_DECODES = 4


def redact(text: str) -> str:
    """``text`` with every key-shaped token's secret replaced, encoded or not."""
    text = KEY_SHAPE.sub(REDACTED, text)
    return _URL_RUN.sub(_redact_encoded, text) if "%" in text else text


def _redact_encoded(match: re.Match[str]) -> str:
    run = match.group(0)
    if "%" not in run:
        return run
    decoded = run
    for _ in range(_MAX_DECODES):
        decoded, previous = unquote(decoded), decoded
        if KEY_SHAPE.search(decoded):
            return KEY_SHAPE.sub(REDACTED, decoded)
        if decoded == previous:
            break
    return run


def _clean(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactKeys(logging.Filter):
    """Rewrites a record's message and string arguments so that no key secret is logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _clean(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _clean(v) for k, v in record.args.items()}
        return True


def install_key_redaction() -> None:
    """Add :class:`RedactKeys` to the access, server and service loggers (once each)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactKeys) for f in logger.filters):
            logger.addFilter(RedactKeys())
