"""The layout stays walkable: small modules and functions, SQL only in the store, imports one way.

Read from the syntax trees of the sources (``ast``), not from their text:

- no module over 450 lines and no function over 60 (``def`` to its last line, docstring
  included) in ``indexer/``, ``retriever/``, ``api/``;
- only ``indexer/store/`` speaks SQL: no ``execute``/``executemany``/``executescript`` call and
  no string starting with a SQL statement elsewhere in the packages and the benchmarks;
- dependencies point one way, ``api → retriever → indexer``;
- our own modules are imported with ``import``, never by name through ``importlib`` or
  ``__import__`` (``importlib.metadata``, ``importlib.resources`` and ``find_spec`` are fine).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.helpers import ROOT

MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
PACKAGES = ("indexer", "retriever", "api", "overstory")
STORE = ROOT / "indexer" / "store"
FIRST_PARTY = frozenset(p.parent.name for p in ROOT.glob("*/__init__.py"))
SQL_CALLS = frozenset({"execute", "executemany", "executescript"})
# A statement, not a lone word: ``"DELETE"`` as an HTTP method is not SQL, ``"DELETE FROM"`` is.
SQL_STRING = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH)\s+\S")
# Who may not import whom: the package on the left never imports those on the right.
# ``overstory.integrations`` sits above the libraries: nothing of ours imports it.
FORBIDDEN_IMPORTS = {
    "indexer": ("api", "retriever", "overstory"),
    "retriever": ("api", "overstory"),
    "api": ("overstory",),
}


def sources(*folders: str) -> list[Path]:
    """Every Python file below the given top-level folders, sorted."""
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def where(path: Path, node: ast.AST | None = None) -> str:
    line = f":{getattr(node, 'lineno', '?')}" if node is not None else ""
    return f"{path.relative_to(ROOT)}{line}"


def imported_modules(tree: ast.Module) -> Iterator[tuple[ast.stmt, str]]:
    """Every absolute module name an ``import`` or ``from … import`` statement names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node, node.module


def sql_strings(tree: ast.Module) -> Iterator[ast.expr]:
    """String literals (and f-strings, by their first part) that open with a SQL statement."""
    inside_fstrings = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            first = node.values[0] if node.values else None
            text = first.value if isinstance(first, ast.Constant) else ""
        elif isinstance(node, ast.Constant) and id(node) not in inside_fstrings:
            text = node.value
        else:
            continue
        if isinstance(text, str) and SQL_STRING.match(text):
            yield node


def called_name(call: ast.Call) -> str | None:
    """``f`` for ``f(…)`` and for ``x.f(…)``."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def test_modules_and_functions_are_small() -> None:
    too_long = []
    for path in sources(*PACKAGES):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{where(path)}: module of {lines} lines")
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{where(path, node)}: {node.name}() of {length} lines")
    assert not too_long, (
        f"over {MAX_MODULE_LINES} lines per module / {MAX_FUNCTION_LINES} per function:\n"
        + "\n".join(too_long)
    )


def test_only_the_store_speaks_sql() -> None:
    found = []
    for path in sources(*PACKAGES, "benchmarks"):
        if path.is_relative_to(STORE):
            continue
        tree = tree_of(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and called_name(node) in SQL_CALLS:
                found.append(f"{where(path, node)}: {called_name(node)}(…)")
        found += [f"{where(path, node)}: SQL string" for node in sql_strings(tree)]
    assert not found, "SQL outside indexer/store/ (add a store method):\n" + "\n".join(found)


def test_dependencies_point_one_way() -> None:
    found = []
    for package, forbidden in FORBIDDEN_IMPORTS.items():
        for path in sources(package):
            for node, module in imported_modules(tree_of(path)):
                if module.split(".")[0] in forbidden:
                    found.append(f"{where(path, node)}: imports {module}")
    assert not found, "imports against api → retriever → indexer:\n" + "\n".join(found)


def test_own_modules_are_imported_not_loaded_by_name() -> None:
    found = []
    for path in sources(*PACKAGES, "benchmarks"):
        for node in ast.walk(tree_of(path)):
            if not isinstance(node, ast.Call) or called_name(node) not in (
                "import_module",
                "__import__",
            ):
                continue
            arg = node.args[0] if node.args else None
            name = arg.value if isinstance(arg, ast.Constant) else None
            # A computed name could be anything, ours included: name a registry instead.
            if not isinstance(name, str) or name.split(".")[0] in FIRST_PARTY:
                found.append(
                    f"{where(path, node)}: {called_name(node)}({ast.unparse(arg or node)})"
                )
    assert not found, "first-party modules loaded by name:\n" + "\n".join(found)


def test_every_benchmark_is_in_the_registry() -> None:
    from benchmarks.run import BENCHMARKS

    on_disk = {p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")}
    assert set(BENCHMARKS) == on_disk


def test_the_checks_see_what_they_look_for() -> None:
    """The rules above would catch a breach: each detector fires on a small sample."""
    sample = ast.parse(
        "import api.app\n"
        "from retriever import Retriever\n"
        "importlib.import_module('indexer.ingest')\n"
        "__import__(name)\n"
        "db.execute('SELECT 1')\n"
        "q = f'WITH RECURSIVE below(id) AS ({x})'\n"
        "methods = ['DELETE']\n"
    )
    assert [m for _, m in imported_modules(sample)] == ["api.app", "retriever"]
    calls = [called_name(n) for n in ast.walk(sample) if isinstance(n, ast.Call)]
    assert {"import_module", "__import__", "execute"} <= set(calls)
    assert len(list(sql_strings(sample))) == 2
    assert {"indexer", "retriever", "api", "benchmarks"} <= FIRST_PARTY
