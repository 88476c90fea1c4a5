"""The structure of the code: no import cycles, nothing ``_private`` used across modules.

import-linter (``make lint``, contracts in pyproject.toml) keeps the layers' one direction and
forbids cycles between siblings; this test checks what it cannot see: a cycle between any two
modules of canasta_service, games and bots (function-level and ``TYPE_CHECKING`` imports
included), and a module that imports or uses another module's ``_private`` name. If module A
needs B's ``_helper``, the helper is part of B's public API (drop the underscore) or belongs in
a module both can import.

The checker reads the source with :mod:`ast` and imports nothing, so it runs without Django.
Migrations are left out (Django writes them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("canasta_service", "games", "bots")
SKIPPED_DIRS = frozenset({"migrations", "__pycache__"})


def is_private(name: str) -> bool:
    """``_helper`` is private; ``__all__``, ``__version__`` and ``__init__`` are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass
class Report:
    """What the checker found: each cycle as its sorted module names; each private use."""

    cycles: list[list[str]] = field(default_factory=list)
    private: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    module: str  # dotted name; a package is named by its __init__.py
    path: Path
    is_package: bool


def sources(root: Path, packages: Sequence[str]) -> dict[str, Source]:
    found: dict[str, Source] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if SKIPPED_DIRS.intersection(parts):
                continue
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            found[name] = Source(name, path, is_package)
    return found


def package_dirs_without_init(root: Path, packages: Sequence[str]) -> list[str]:
    """Directories holding Python modules but no __init__.py (namespace packages)."""
    missing = []
    for package in packages:
        for directory in sorted({p.parent for p in (root / package).rglob("*.py")}):
            parts = directory.relative_to(root).parts
            if SKIPPED_DIRS.intersection(parts):
                continue
            if not (directory / "__init__.py").exists():
                missing.append("/".join(parts))
    return missing


class Checker:
    def __init__(self, root: Path, packages: Sequence[str]) -> None:
        self.sources = sources(root, packages)
        self.edges: dict[str, set[str]] = {m: set() for m in self.sources}
        self.private: set[str] = set()

    # -- names

    def owner(self, dotted: str) -> str | None:
        """The project module that ``dotted`` (a module, or a name in one) lives in."""
        while dotted:
            if dotted in self.sources:
                return dotted
            dotted = dotted.rpartition(".")[0]
        return None

    @staticmethod
    def absolute(source: Source, level: int, module: str | None) -> str:
        """The absolute module name of ``from <level dots><module> import ...``."""
        if level == 0:
            return module or ""
        base = source.module.split(".")
        if not source.is_package:
            base = base[:-1]
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def private_module_outside(self, importer: str, target: str) -> str | None:
        """The first ``_private`` module in ``target``'s path that ``importer`` is outside of."""
        parts = target.split(".")
        for i, part in enumerate(parts):
            if is_private(part):
                parent = ".".join(parts[:i])
                if not (importer == parent or importer.startswith(parent + ".")):
                    return ".".join(parts[: i + 1])
        return None

    # -- one module

    def visit(self, source: Source) -> None:
        tree = ast.parse(source.path.read_text(encoding="utf-8"), str(source.path))
        me = source.module
        bound: dict[str, str] = {}  # local name -> the project module (or package) it is
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.import_edge(me, alias.name)
                    if alias.asname:
                        if alias.name in self.sources or self.is_namespace(alias.name):
                            bound[alias.asname] = alias.name
                    else:
                        top = alias.name.partition(".")[0]
                        if top in self.sources or self.is_namespace(top):
                            bound[top] = top
            elif isinstance(node, ast.ImportFrom):
                target = self.absolute(source, node.level, node.module)
                for alias in node.names:
                    if alias.name == "*":
                        self.import_edge(me, target)
                        continue
                    full = f"{target}.{alias.name}"
                    if full in self.sources or self.is_namespace(full):
                        self.import_edge(me, full)
                        bound[alias.asname or alias.name] = full
                    else:
                        self.import_edge(me, target)
                        owner = self.owner(target)
                        if owner is not None and owner != me and is_private(alias.name):
                            self.private.add(f"{me} imports {owner}.{alias.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                base = self.dotted(node.value, bound)
                if base is not None and base != me:
                    self.private.add(f"{me} uses {base}.{node.attr}")

    def is_namespace(self, dotted: str) -> bool:
        """A directory of modules without __init__.py (``from games.selectors import x``)."""
        return dotted not in self.sources and any(m.startswith(dotted + ".") for m in self.sources)

    def import_edge(self, importer: str, target: str) -> None:
        private_module = self.private_module_outside(importer, target)
        if private_module is not None and self.owner(private_module) is not None:
            self.private.add(f"{importer} imports {private_module}")
        owner = self.owner(target)
        if owner is not None and owner != importer:
            self.edges[importer].add(owner)

    def dotted(self, node: ast.expr, bound: dict[str, str]) -> str | None:
        """The project module an expression such as ``games.models.game`` names, if any."""
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in bound:
            return None
        name = bound[node.id]
        for attr in reversed(attrs):
            longer = f"{name}.{attr}"
            if longer not in self.sources and not self.is_namespace(longer):
                return None  # an attribute of a module, not a module: not ours to judge
            name = longer
        return name if name in self.sources else None

    # -- the whole graph

    def cycles(self) -> list[list[str]]:
        """Strongly connected components of more than one module (iterative Tarjan)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        work: list[tuple[str, Iterator[str]]] = []  # the depth-first path, each with its successors

        def enter(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            work.append((v, iter(sorted(self.edges[v]))))

        for start in sorted(self.edges):
            if start in index:
                continue
            enter(start)
            while work:
                v, successors = work[-1]
                w = next(successors, None)
                if w is not None:
                    if w not in index:
                        enter(w)
                    elif w in on_stack:
                        low[v] = min(low[v], index[w])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
        return sorted(found)

    def run(self) -> Report:
        for source in self.sources.values():
            self.visit(source)
        return Report(cycles=self.cycles(), private=sorted(self.private))


def check(root: Path, packages: Sequence[str]) -> Report:
    return Checker(root, packages).run()


@cache
def project_report() -> Report:
    return check(ROOT, PACKAGES)


# ---------------------------------------------------------------------------- the project


def test_the_checker_reads_the_project() -> None:
    checker = Checker(ROOT, PACKAGES)
    checker.run()
    assert {"games.engine", "games.services.moves", "bots.policies", "canasta_service.urls"} <= set(
        checker.sources
    )
    assert not any("migrations" in m for m in checker.sources)
    assert "games.models" in checker.edges["games.services.moves"]


def test_no_import_cycles() -> None:
    cycles = project_report().cycles
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_private_names_across_modules() -> None:
    private = project_report().private
    assert not private, "private names used across modules:\n" + "\n".join(private)


def test_every_package_has_an_init() -> None:
    # import-linter (grimp) does not see a directory without __init__.py: its modules and their
    # imports would silently drop out of the contracts in pyproject.toml.
    missing = package_dirs_without_init(ROOT, PACKAGES)
    assert not missing, "directories of modules without __init__.py: " + ", ".join(missing)


# ---------------------------------------------------------------------------- the checker


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_reports_cycles_and_private_names(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            # a <-> b, one side imported inside a function
            "pkg/a.py": "from pkg.b import thing\n\n_helper = 1\n",
            "pkg/b.py": "def thing():\n    from pkg import a\n    return a\n",
            # relative imports: sub.x -> sub.y -> sub.z -> sub.x
            "pkg/sub/__init__.py": "",
            "pkg/sub/x.py": "from . import y\n",
            "pkg/sub/y.py": "from .z import w\n",
            "pkg/sub/z.py": "from ..sub.x import *\nw = 1\n",
            # private names of other modules, imported and used
            "pkg/c.py": (
                "import pkg.a\n"
                "from pkg import a as alias\n"
                "from pkg.a import _helper\n"
                "from pkg.sub._secret import tool\n"
                "print(alias._helper, pkg.a._other, tool)\n"
            ),
            # a private module is private to its package (pkg.sub)
            "pkg/sub/_secret.py": "tool = 1\n",
            "pkg/migrations/__init__.py": "",
            "pkg/migrations/0001_initial.py": "from pkg.a import _helper\n",
        },
    )
    report = check(tmp_path, ["pkg"])
    assert report.cycles == [["pkg.a", "pkg.b"], ["pkg.sub.x", "pkg.sub.y", "pkg.sub.z"]]
    assert report.private == [
        "pkg.c imports pkg.a._helper",
        "pkg.c imports pkg.sub._secret",
        "pkg.c uses pkg.a._helper",
        "pkg.c uses pkg.a._other",
    ]


def test_the_checker_allows_what_is_not_a_violation(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            # a package uses its private module, which imports from a sibling
            "pkg/__init__.py": "from ._impl import run\n__all__ = ['run']\n",
            "pkg/_impl.py": "from pkg.util import Box\nrun = Box\n",
            # a module's own private names; private attributes of objects, not of modules
            "pkg/util.py": (
                "_cache = {}\n"
                "class Box:\n"
                "    def _peek(self):\n"
                "        return self._value\n"
                "def use():\n"
                "    import pkg.util as me\n"
                "    return me._cache, Box()._peek()\n"
            ),
            # dunders of other modules; a private module of the same package
            "pkg/other.py": (
                "import pkg\n"
                "import pkg.util as u\n"
                "from pkg import _impl\n"
                "print(u.__name__, pkg.__all__, _impl.run, u.Box()._peek())\n"
            ),
        },
    )
    report = check(tmp_path, ["pkg"])
    assert report.cycles == []
    assert report.private == []


def test_the_checker_finds_namespace_packages(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/inner/mod.py": "", "pkg/ok/__init__.py": ""})
    assert package_dirs_without_init(tmp_path, ["pkg"]) == ["pkg/inner"]


@pytest.mark.parametrize(
    ("name", "private"),
    [("_x", True), ("__x", True), ("__all__", False), ("__init__", False), ("x_", False)],
)
def test_private_names(name: str, private: bool) -> None:
    assert is_private(name) is private
