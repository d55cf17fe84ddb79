"""The layout's rules, checked on the source: which package may import which, no import cycles, no long
positional parameter lists, context managers used as such. README "How it is built" says why."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("search", "store", "ingest", "webapp")
# What each package may import of the others (search knows no SQL and no Flask; nothing imports webapp).
ALLOWED = {
    "search": set(),
    "store": {"search"},
    "ingest": {"store", "search"},
    "webapp": {"store", "search", "ingest"},
}
FORBIDDEN_LIBRARIES = {"search": {"sqlalchemy", "flask", "alembic"}, "store": {"flask"}, "ingest": {"flask"}}
MAX_POSITIONAL = 6
# One job per unit: no function longer than this, no class longer than that (lines, docstrings included)...
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 250
# ...but for data tables.
LONG_BY_NATURE = {
    ("webapp/openapi.py", "openapi_document"),  # the OpenAPI document, a data table
}
# Signatures another library dictates (Whoosh calls a tokenizer with these positional arguments).
DICTATED = {("search/analysis.py", "__call__")}


def modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in the file, relative ones resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.append((target, node.lineno))
            # `from . import api` imports the module package.api
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names]
    return found


def test_each_package_imports_only_what_its_job_needs():
    wrong = []
    for path in modules():
        own = path.relative_to(ROOT).parts[0]
        for target, line in imports(path):
            top = target.split(".")[0]
            if top in PACKAGES and top != own and top not in ALLOWED[own]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
            if top in FORBIDDEN_LIBRARIES.get(own, ()):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_there_are_no_import_cycles():
    names = {module_name(p): p for p in modules()}
    graph = {
        name: {t for t, _ in imports(path) if t in names and t != name and not name.startswith(t + ".")}
        for name, path in names.items()
    }
    done, on_path, cycles = set(), [], []

    def visit(name):
        if name in on_path:
            cycles.append(" -> ".join(on_path[on_path.index(name) :] + [name]))
            return
        if name in done:
            return
        on_path.append(name)
        for target in sorted(graph[name]):
            visit(target)
        on_path.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert not cycles, "\n".join(cycles)


def test_no_function_takes_more_than_six_positional_parameters():
    long = []
    for path in modules():
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (relative, node.name) not in DICTATED:
                positional = [a for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
                if len(positional) > MAX_POSITIONAL:
                    long.append(f"{relative}:{node.lineno} {node.name} takes {len(positional)}")
    assert not long, "\n".join(long)


def test_each_unit_keeps_to_one_job():
    """No function over MAX_FUNCTION_LINES lines, no class over MAX_CLASS_LINES, but LONG_BY_NATURE."""
    long = []
    for path in modules():
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            limit = (
                MAX_FUNCTION_LINES
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                else MAX_CLASS_LINES
                if isinstance(node, ast.ClassDef)
                else None
            )
            if limit is None or (relative, node.name) in LONG_BY_NATURE:
                continue
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                long.append(f"{relative}:{node.lineno} {node.name} has {lines} lines (at most {limit})")
    assert not long, "\n".join(long)


def test_context_managers_are_entered_with_with():
    by_hand = []
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("__enter__", "__exit__")
            ):
                by_hand.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not by_hand, "\n".join(by_hand)


def test_the_checks_see_the_code():
    # Guards the tests above against passing because they read nothing.
    assert len(list(modules())) > 30
    assert ("store.settings", 1) in [(t, 1) for t, _ in imports(ROOT / "store" / "read.py")]


def test_no_private_name_is_imported_from_another_package():
    private = []
    for path in modules():
        own = path.relative_to(ROOT).parts[0]
        for target, line in imports(path):
            parts = target.split(".")
            if parts[0] in PACKAGES and parts[0] != own and any(p.startswith("_") for p in parts[1:]):
                private.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not private, "\n".join(private)
