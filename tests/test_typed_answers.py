"""Results travel as typed values: no public function of the retriever, the HTTP routes or the
MCP server takes or returns an ``Any``-typed dictionary, and no route handler returns ``Any``.

The walk reads every public function and public method of every module of ``retriever``,
``api.routes`` and ``api.mcp`` with :func:`typing.get_type_hints` and looks for ``dict[str, Any]``
anywhere in a parameter or return annotation (``list[dict[str, Any]]`` too).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

import api.mcp
import api.routes
import retriever
from retriever.answers import Answer, QueryAnswer

# Dictionaries that are not results, each with why.
NOT_RESULTS = {
    # the JSON schema of the request model, adjusted in place for OpenAPI
    "retriever.request.query_schema",
    # the metrics report of `overstory eval` (hit@k and MRR per system and group), not a query
    "retriever.evaluation.Evaluation.run",
    # the plain-data form of the typed SelectionResult, for the CLI's --json
    "retriever.selection.base.SelectionResult.to_dict",
    # a clustering step's own statistics, shown free-form as select's `method_detail`
    "retriever.selection.balanced.merge_by_similarity",
}


def _modules(*packages: ModuleType) -> Iterator[ModuleType]:
    for package in packages:
        yield package
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            yield importlib.import_module(info.name)


def _public_functions(module: ModuleType) -> Iterator[tuple[str, Callable[..., Any]]]:
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield f"{module.__name__}.{name}", value
        elif inspect.isclass(value) and not issubclass(value, BaseModel):
            for attr, member in vars(value).items():
                fn = member.__func__ if isinstance(member, staticmethod | classmethod) else member
                if not attr.startswith("_") and inspect.isfunction(fn):
                    yield f"{module.__name__}.{name}.{attr}", fn


def _has_any_dict(annotation: Any) -> bool:
    if isinstance(annotation, str):  # unresolvable: read as written
        return "dict[str, Any]" in annotation
    if typing.get_origin(annotation) is dict and typing.get_args(annotation)[1:] == (Any,):
        return True
    return any(_has_any_dict(arg) for arg in typing.get_args(annotation))


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations; a name imported for type checking only stays a string."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError:
        raw = inspect.get_annotations(fn)
        return {name: _resolved(fn, text) for name, text in raw.items()}


def _resolved(fn: Callable[..., Any], text: Any) -> Any:
    try:
        return typing.get_type_hints(_Holder(text, fn.__globals__), include_extras=True)["x"]
    except NameError:
        return text


class _Holder:
    def __init__(self, text: Any, globalns: dict[str, Any]) -> None:
        self.__annotations__ = {"x": text}
        self.__globals__ = globalns


def untyped(*packages: ModuleType) -> list[str]:
    """Public functions of ``packages`` whose signature carries ``dict[str, Any]``."""
    found = []
    for module in _modules(*packages):
        for qualname, fn in _public_functions(module):
            hints = _hints(fn)
            where = [name for name, hint in hints.items() if _has_any_dict(hint)]
            if module.__name__.startswith("api.routes.") and hints.get("return") is Any:
                where.append("return")
            if where and qualname not in NOT_RESULTS:
                found.append(f"{qualname}: {', '.join(where)}")
    return found


def test_no_public_signature_carries_an_untyped_result() -> None:
    assert untyped(retriever, api.routes, api.mcp) == []


def test_the_walk_finds_an_untyped_result() -> None:
    """The check itself: a module with such a function is reported."""
    module = ModuleType("api.routes.sample")

    def post_sample() -> dict[str, Any]:
        return {}

    def get_sample() -> Any:
        return {}

    def typed(answer: QueryAnswer) -> list[dict[str, Any]]:
        return []

    for fn in (post_sample, get_sample, typed):
        fn.__module__ = module.__name__
        setattr(module, fn.__name__, fn)
    found = [qualname for qualname, _ in _public_functions(module)]
    assert found == [
        "api.routes.sample.post_sample",
        "api.routes.sample.get_sample",
        "api.routes.sample.typed",
    ]
    hints = {name: typing.get_type_hints(fn) for name, fn in _public_functions(module)}
    assert _has_any_dict(hints["api.routes.sample.post_sample"]["return"])
    assert hints["api.routes.sample.get_sample"]["return"] is Any
    assert _has_any_dict(hints["api.routes.sample.typed"]["return"])
    assert not _has_any_dict(hints["api.routes.sample.typed"]["answer"])


@pytest.mark.parametrize("model", [QueryAnswer])
def test_the_answer_models_hold_no_any(model: type[Answer]) -> None:
    """Every field of the answer, nested models included, has a concrete type."""
    seen: set[type[BaseModel]] = set()

    def walk(cls: type[BaseModel]) -> Iterator[tuple[str, Any]]:
        if cls in seen:
            return
        seen.add(cls)
        for name, info in cls.model_fields.items():
            yield f"{cls.__name__}.{name}", info.annotation
            for arg in _flatten(info.annotation):
                if inspect.isclass(arg) and issubclass(arg, BaseModel):
                    yield from walk(arg)

    loose = [name for name, ann in walk(model) if Any in _flatten(ann)]
    assert loose == []
    assert len(seen) > 10  # the walk reached the hits, sentences and comparisons


def _flatten(annotation: Any) -> list[Any]:
    return [annotation, *(a for arg in typing.get_args(annotation) for a in _flatten(arg))]
