"""Results travel as typed values: no public border of the retriever or the API hands on ``Any``.

The walk imports every module of ``retriever`` and ``api`` (``pkgutil``) and reads, with
:func:`typing.get_type_hints`, every public function, every public method of a public class
and every field of a public class (a dataclass or pydantic model: the answers themselves). It
fails on:

- a parameter that takes an ``Any``-valued mapping (``dict[str, Any]``, ``Dict[str, Any]``,
  ``Mapping[str, Any]``), anywhere inside its annotation;
- a return annotation or a field that contains ``Any`` at all: bare, ``dict[str, Any]``,
  ``list[Any]``.

A parameter that is bare ``Any`` (``**options`` handed on to a request model, a value printed
as JSON) is an input, not a result, and passes. JSON that is free-form by nature is typed as
pydantic's ``JsonValue``. What must stay ``Any`` is named in ``FREE_FORM`` with its reason.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
import typing
from collections.abc import Iterator, Mapping, MutableMapping
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

import api
import retriever
from retriever.answers import Answer, QueryAnswer

# Public names whose annotations may carry Any, each with why.
FREE_FORM = {
    "api.deps.json_body_schema": "the OpenAPI schema of a request model: JSON Schema as FastAPI "
    "takes it (`openapi_extra`)",
    "api.models.errors": "FastAPI's `responses=` argument: OpenAPI response objects by status",
    "api.origin.check_request": "takes the ASGI scope, a mapping of Any by the ASGI spec "
    "(Starlette's `Scope`)",
    "retriever.request.query_schema": "edits the properties of a JSON Schema in place",
}
_MAPPINGS = (dict, typing.Dict, Mapping, MutableMapping)  # noqa: UP006 - the old spelling too


def _modules(*packages: ModuleType) -> Iterator[ModuleType]:
    for package in packages:
        yield package
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            yield importlib.import_module(info.name)


def _public(name: str) -> bool:
    return not name.startswith("_")


def members(module: ModuleType) -> Iterator[tuple[str, object]]:
    """(qualified name, object): the module's own public functions, classes and methods."""
    for name, value in vars(module).items():
        if not _public(name) or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield f"{module.__name__}.{name}", value
        elif inspect.isclass(value):
            yield f"{module.__name__}.{name}", value
            for attr, member in vars(value).items():
                fn = member.__func__ if isinstance(member, staticmethod | classmethod) else member
                fn = fn.fget if isinstance(fn, property) else fn
                if _public(attr) and inspect.isfunction(fn):
                    yield f"{module.__name__}.{name}.{attr}", fn


def _hints(obj: object) -> dict[str, Any]:
    """Resolved annotations (a class: its own fields only); a name imported for type checking
    only stays the string it was written as."""
    raw = inspect.get_annotations(obj)  # type: ignore[arg-type]
    try:
        resolved = typing.get_type_hints(obj)
    except NameError:
        namespace = getattr(obj, "__globals__", None) or vars(sys.modules[obj.__module__])
        resolved = {name: _evaluated(text, namespace) for name, text in raw.items()}
    return {name: hint for name, hint in resolved.items() if name in raw}


def _evaluated(text: Any, namespace: dict[str, Any]) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return eval(text, dict(namespace))  # noqa: S307 - an annotation of our own code
    except NameError:
        return text


def has_any(annotation: Any) -> bool:
    """``Any`` anywhere in the annotation."""
    if isinstance(annotation, str):
        return re.search(r"\bAny\b", annotation) is not None
    return annotation is Any or any(has_any(arg) for arg in typing.get_args(annotation))


def has_any_mapping(annotation: Any) -> bool:
    """A mapping with ``Any`` values anywhere in the annotation (``dict[str, Any]``)."""
    if isinstance(annotation, str):
        return re.search(r"(?i)\b(dict|mapping)\[[^\]]*,\s*Any\]", annotation) is not None
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in _MAPPINGS and args[1:] == (Any,):
        return True
    return any(has_any_mapping(arg) for arg in args)


def untyped(modules: list[ModuleType]) -> dict[str, list[str]]:
    """Public name -> its annotations that hand on Any (see the module doc)."""
    found: dict[str, list[str]] = {}
    for module in modules:
        for qualname, obj in members(module):
            is_class = inspect.isclass(obj)
            bad = [
                name
                for name, hint in _hints(obj).items()
                if ((is_class or name == "return") and has_any(hint)) or has_any_mapping(hint)
            ]
            if bad:
                found[qualname] = bad
    return found


ALL = list(_modules(retriever, api))


def test_no_public_border_hands_on_any() -> None:
    found = untyped(ALL)
    bad = [f"{name}: {', '.join(parts)}" for name, parts in found.items() if name not in FREE_FORM]
    assert bad == []


def test_free_form_entries_are_still_needed() -> None:
    found = untyped(ALL)
    assert set(FREE_FORM) <= set(found), "a free-form entry no longer carries Any: drop it"


def test_the_walk_reaches_every_border() -> None:
    """A walk that found nothing would pass: the borders the audit names are among its members."""
    names = {name for module in ALL for name, _ in members(module)}
    assert {
        "api.service.audit_queue.queue",
        "api.service.review.record_review",
        "api.service.browse.node_detail",
        "api.service.changes.what_changed",
        "api.service.outline.outline",
        "api.service.jobs.JobRunner.check_store",
        "api.service.audit_nodes.AuditNodes.view",
        "api.service.lint_cache.machine_flags",
        "api.routes.select.SelectResponse",
        "retriever.evaluation.Evaluation.run",
        "retriever.selection.base.SelectionResult",
        "retriever.answers.Answer.to_json",
    } <= names
    assert {m.__name__ for m in ALL} >= {"api.routes.audit", "api.mcp.tools", "api.commands.audit"}


def _sample(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    code = (
        "from typing import Any, Dict\n"
        "from collections.abc import Mapping\n"
        "from dataclasses import dataclass\n"
        "def plain(x: int, **options: Any) -> str: ...\n"
        "def loose(x: int) -> dict[str, Any]: ...\n"
        "def old(x: Dict[str, Any]) -> None: ...\n"
        "def read_only(x: Mapping[str, Any]) -> None: ...\n"
        "def nested(x: int) -> list[tuple[str, Any]] | None: ...\n"
        "def bare(x: int) -> Any: ...\n"
        "def _private() -> dict[str, Any]: ...\n"
        "@dataclass\nclass Result:\n    detail: dict[str, Any]\n    n: int\n"
        "    def view(self) -> Any: ...\n    def _inner(self) -> Any: ...\n"
        "@dataclass\nclass Typed:\n    n: int\n    def view(self, value: Any) -> int: ...\n"
    )
    module = ModuleType("sample_borders")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    exec(compile(code, "sample_borders", "exec"), module.__dict__)  # noqa: S102
    return module


def test_the_walk_catches_any_at_a_border(monkeypatch: pytest.MonkeyPatch) -> None:
    found = untyped([_sample(monkeypatch)])
    assert found == {
        "sample_borders.loose": ["return"],
        "sample_borders.old": ["x"],
        "sample_borders.read_only": ["x"],
        "sample_borders.nested": ["return"],
        "sample_borders.bare": ["return"],
        "sample_borders.Result": ["detail"],
        "sample_borders.Result.view": ["return"],
    }


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
