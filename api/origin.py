"""Who may call a service that runs without API keys: its own origin, on an allowed host.

With auth ``off`` any page the developer's browser opens could otherwise drive the service: a
plain multipart POST from another origin (CSRF) needs no preflight, and a hostile DNS name that
resolves to 127.0.0.1 (DNS rebinding) makes the service same-origin with that page. So, with auth
off, :func:`check_request` refuses a request whose ``Host`` is not a loopback name or one of the
setting ``allowed_hosts``, and a state-changing request whose ``Origin`` (else ``Referer``) is
present and not the service's own. Clients that send neither (the CLI, curl) are let through.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import Scope

from indexer.errors import ForbiddenOriginError

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_name(host: str) -> str:
    """The name in a ``Host`` header or netloc, without port, brackets or a final dot."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _origin(scheme: str, netloc: str) -> tuple[str, str, int | None]:
    parts = urlsplit(f"{scheme}://{netloc}")
    try:
        port = parts.port
    except ValueError:
        port = -1  # unparseable: matches nothing real
    return scheme.lower(), host_name(netloc), port or _DEFAULT_PORTS.get(scheme.lower())


def check_request(scope: Scope, *, allowed_hosts: Iterable[str]) -> None:
    """Refuse a request from a foreign ``Host`` or a state-changing one from another origin.

    Raises:
        ForbiddenOriginError: The ``Host`` is not allowed, or ``Origin``/``Referer`` is not the
            service's own origin on a POST, PUT, PATCH or DELETE.
    """
    host = _header(scope, b"host")
    allowed = LOOPBACK_HOSTS | {host_name(h) for h in allowed_hosts}
    if host is not None and host_name(host) not in allowed:
        raise ForbiddenOriginError(
            f"host {host!r} is not allowed (loopback names or the setting allowed_hosts)",
            detail={"host": host},
        )
    if scope["method"] not in STATE_CHANGING:
        return
    claimed = _header(scope, b"origin")
    header = "Origin"
    if claimed is None:
        claimed, header = _header(scope, b"referer"), "Referer"
    if claimed is None:
        return
    parts = urlsplit(claimed.strip())
    own = _origin(str(scope.get("scheme", "http")), host or "")
    if not parts.scheme or not parts.netloc or _origin(parts.scheme, parts.netloc) != own:
        raise ForbiddenOriginError(
            f"a {scope['method']} from another origin ({header} {claimed!r}) is refused: "
            "without API keys only the service's own pages may change it",
            detail={"header": header.lower(), "origin": claimed},
        )
