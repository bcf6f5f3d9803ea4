"""Pydantic's validation errors as one :class:`InvalidRequestError` (the same for CLI and HTTP).

Request models (``retriever.request``, ``retriever.selection``, the HTTP routes) validate with
pydantic. Whichever layer runs the validation, its errors become one ``InvalidRequestError`` whose
message names the field and says what is wrong; a validator that knows more (a limit and the
setting behind it) raises ``PydanticCustomError`` with a ``ctx`` that becomes the ``detail``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from indexer.errors import InvalidRequestError


def invalid_request(errors: Sequence[Any]) -> InvalidRequestError:
    """One error for a list of pydantic (or FastAPI) validation errors."""
    problems: list[dict[str, Any]] = [
        {
            "loc": [str(part) for part in err.get("loc", ())],
            "msg": str(err.get("msg", "")),
            "type": str(err.get("type", "")),
        }
        for err in errors
    ]
    if not problems:
        return InvalidRequestError("invalid request")
    first = errors[0]
    where = ".".join(problems[0]["loc"])
    msg = str(problems[0]["msg"]).removeprefix("Value error, ")
    # A message that starts with its field's name ("query is empty") needs no prefix.
    message = msg if not where or msg.startswith(where) else f"{where}: {msg}"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more)"
    ctx = first.get("ctx") if isinstance(first, dict) else None
    detail: Any = problems
    if isinstance(ctx, dict) and "field" in ctx:
        detail = {k: v for k, v in ctx.items() if not k.startswith("_")}
    return InvalidRequestError(message, detail=detail)


def validated(model: Any, data: dict[str, Any]) -> Any:
    """``model.model_validate(data)``, its errors as :class:`InvalidRequestError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors()) from exc
