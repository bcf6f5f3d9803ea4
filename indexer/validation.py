"""Pydantic's validation errors as one :class:`InvalidRequestError` (the same for CLI and HTTP).

Request models (``retriever.request``, ``retriever.selection``, ``api.service.review``) validate
with pydantic, once: FastAPI runs the model on a request body, the CLI and library callers go
through :func:`validated`. Whichever layer runs the validation, its errors become one
``InvalidRequestError`` (:func:`invalid_request`) whose message names the field and says what is
wrong. A limit that was hit becomes the detail ``{"field", "limit"}``: a validator that knows the
setting behind a limit raises :func:`limit_error`; pydantic's own constraints (``max_length``,
``le``, …) are read from the error's context.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from indexer.errors import InvalidRequestError

M = TypeVar("M", bound=BaseModel)

# The configuration of every request model (HTTP bodies, CLI requests): no coercion (``true`` or
# ``"5"`` is not a number, ``"yes"`` not a boolean) and no unknown fields.
REQUEST_CONFIG = ConfigDict(strict=True, extra="forbid")


# What str.strip() removes, as real characters for a regex class: Python counts \x1c-\x1f and
# \x85 as whitespace where JSON Schema's (ECMA) \s does not, so schema patterns that mean "not
# only spaces" spell the class out instead of using \s.
SPACE_CLASS = "\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

# Control characters other than tab, newline and carriage return: text holding one is binary.
CONTROL_CHARS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
_CONTROL = re.compile(f"[{CONTROL_CHARS}]")


def is_binary_text(text: str) -> bool:
    """Whether a request's text holds control characters or lone surrogates (binary data)."""
    if _CONTROL.search(text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _whole(value: Any) -> Any:
    # JSON has one number type: 5.0 is the integer 5 (as JSON Schema's "integer" says), while
    # "5" and true stay refused by the strict int below.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole), Field(strict=True)]
"""An integer field of a request: ``5`` or ``5.0``, never ``"5"``, ``true`` or ``5.5``."""

# Where FastAPI found a value: the first part of its error locations, not part of the field name.
_SOURCES = ("body", "query", "path", "header", "cookie")
# The context keys of pydantic's constraint errors that hold the bound.
_BOUNDS = ("max_length", "min_length", "le", "ge", "lt", "gt")


def limit_error(message: str, *, field: str, limit: int, **more: Any) -> PydanticCustomError:
    """The error of a validator whose value is outside a limit (detail ``{"field", "limit"}``).

    ``message`` is final (already formatted); ``more`` adds keys to the detail.
    """
    # Braces would be read as placeholders of the context.
    template = message.replace("{", "(").replace("}", ")")
    return PydanticCustomError("limit", template, {"field": field, "limit": limit, **more})


def invalid_request(errors: Sequence[Any]) -> InvalidRequestError:
    """One error for a list of pydantic (or FastAPI) validation errors."""
    problems: list[dict[str, Any]] = [
        {
            "loc": [str(part) for part in err.get("loc", ())],
            "msg": str(err.get("msg", "")).removeprefix("Value error, "),
            "type": str(err.get("type", "")),
        }
        for err in errors
    ]
    if not problems:
        return InvalidRequestError("invalid request")
    loc = problems[0]["loc"]
    field = ".".join(loc[1:] if loc and loc[0] in _SOURCES else loc)
    msg = str(problems[0]["msg"])
    # A message that starts with its field's name ("query is empty") needs no prefix.
    named = bool(field) and re.match(rf"{re.escape(field)}\b", msg) is not None
    message = msg if not loc or named else f"{'.'.join(loc)}: {msg}"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more)"
    return InvalidRequestError(message, detail=_detail(errors[0], field, problems))


def _detail(first: Any, field: str, problems: list[dict[str, Any]]) -> Any:
    ctx = first.get("ctx") if isinstance(first, Mapping) else None
    if not isinstance(ctx, Mapping):
        return problems
    if "field" in ctx:
        return {k: v for k, v in ctx.items() if not str(k).startswith("_")}
    bound = next((key for key in _BOUNDS if key in ctx), None)
    if bound is not None and field:
        return {"field": field, "limit": ctx[bound]}
    return problems


def validated(model: type[M], data: Mapping[str, Any]) -> M:
    """``model.model_validate(data)``, its errors as one :class:`InvalidRequestError`.

    The entry point of the CLI and of library callers (HTTP routes let FastAPI validate).
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors(include_url=False)) from exc
