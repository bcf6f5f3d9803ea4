"""Third-party code as its authors publish it: what we declare we use, only its public API.

Read from ``pyproject.toml`` and the syntax trees of the sources (``ast``):

- every distribution declared in ``[project] dependencies`` or an extra is imported somewhere
  in the project (the packages, scripts, benchmarks, tests), looked for by name where a module
  is loaded on demand (``pytest.importorskip``, ``require_packages``), or named below with the
  reason it is declared yet never imported (a command-line tool, a plugin, a backend another
  library loads);
- nothing reaches into a third-party package's private names: no ``from x import _name``, no
  ``import x._mod``, no ``x._name`` on an imported module.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.helpers import ROOT
from tests.test_layout import FIRST_PARTY, PACKAGES, sources, tree_of, where

FOLDERS = (*PACKAGES, "scripts", "benchmarks", "tests", "examples")
# Declared, never imported by us: why each is there.
NOT_IMPORTED = {
    "cryptography": "pypdf decrypts AES-encrypted PDFs with it",
    "python-multipart": "FastAPI parses multipart uploads with it",
    "pytest-timeout": "a pytest plugin (the timeout setting)",
    "ruff": "the linter (make lint)",
    "mypy": "the type checker (make lint)",
    "mkdocs": "builds the documentation site (make docs)",
    "mkdocs-material": "the documentation site's theme",
    "gguf": "transformers reads GGUF summarizer models with it (checked by require_packages)",
    "accelerate": "transformers loads GGUF summarizer models with it (require_packages)",
}
# Import names of optional distributions that may not be installed here.
UNINSTALLED_IMPORT_NAMES = {"llama-cpp-python": {"llama_cpp"}}
# Calls whose string arguments name modules loaded on demand.
LOADERS = frozenset({"importorskip", "require_packages", "find_spec", "import_module"})


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    """Every distribution pyproject.toml declares, main and extras, by normalized name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        reqs += extra
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", r).group()) for r in reqs}  # type: ignore[union-attr]


def _strings(node: ast.AST) -> list[str]:
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


@cache
def used_modules() -> frozenset[str]:
    """Top-level module names the project imports or loads by name."""
    used: set[str] = set()
    for path in sources(*FOLDERS):
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.Import):
                used.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                used.add(node.module.split(".")[0])
            elif isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in LOADERS:
                    used.update(s.split(".")[0] for arg in node.args for s in _strings(arg))
    return frozenset(used)


def import_names() -> dict[str, set[str]]:
    """Installed distribution (normalized) -> the top-level modules it provides."""
    out: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            out.setdefault(_normal(dist), set()).add(module)
    return out


def test_every_declared_dependency_is_used() -> None:
    provides = import_names()
    unused = []
    for dist in sorted(declared() - set(NOT_IMPORTED)):
        modules = provides.get(dist) or UNINSTALLED_IMPORT_NAMES.get(dist)
        assert modules, f"{dist}: not installed and its import name unknown"
        if not modules & used_modules():
            unused.append(f"{dist} (imports as {', '.join(sorted(modules))})")
    assert not unused, f"declared but never imported: {unused}"


def test_reasons_name_declared_dependencies() -> None:
    assert set(NOT_IMPORTED) <= declared(), "a reason for a dependency no longer declared"
    assert not set(NOT_IMPORTED) & {_normal(m) for m in used_modules()}, "now imported: drop it"


@cache
def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return top not in FIRST_PARTY and top not in sys.stdlib_module_names and top != "tests"


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def private_uses(tree: ast.Module) -> list[tuple[ast.AST, str]]:
    """``(node, what)`` for each reach into a third-party package's private names."""
    found: list[tuple[ast.AST, str]] = []
    modules: set[str] = set()  # local names bound to third-party modules
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _third_party(a.name):
                    modules.add(a.asname or a.name.split(".")[0])
                    if any(_private(p) for p in a.name.split(".")):
                        found.append((node, f"import {a.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if not _third_party(node.module):
                continue
            private_module = any(_private(p) for p in node.module.split("."))
            for a in node.names:
                if _private(a.name) or private_module:
                    found.append((node, f"from {node.module} import {a.name}"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append((node, f"{node.value.id}.{node.attr}"))
    return found


def test_no_private_names_of_other_packages() -> None:
    found = {
        (str(path.relative_to(ROOT)), what): where(path, node)
        for path in sources(*FOLDERS)
        for node, what in private_uses(tree_of(path))
    }
    bad = [f"{at}: {what}" for (_, what), at in found.items()]
    assert not bad, bad


def test_private_use_is_caught() -> None:
    code = (
        "import numpy as np\nimport bm25s\nfrom bm25s.scoring import _select_tfc_scorer\n"
        "from bm25s._impl import x\nimport json\nfrom indexer import _y\n"
        "import pypdf.generic._font\nfrom pypdf.generic._font import Font\n"
        "np._core\nbm25s.__version__\njson._default_decoder\n"
    )
    caught = [what for _, what in private_uses(ast.parse(code))]
    assert sorted(caught) == sorted(
        [
            "from bm25s.scoring import _select_tfc_scorer",
            "from bm25s._impl import x",
            "import pypdf.generic._font",
            "from pypdf.generic._font import Font",
            "np._core",
        ]
    )


def test_project_paths_are_read() -> None:
    # A typo in FOLDERS would make both checks pass on nothing.
    assert {"bm25s", "chromadb", "fastapi", "pytest"} <= used_modules()
    assert all(Path(ROOT / f).is_dir() for f in FOLDERS)
