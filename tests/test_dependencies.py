"""The dependency direction of the packages (README, "Architecture"):

- `game` imports none of the other packages;
- `vision` and `robot` may use `game` and `calibration`, never each other, `sim` or `app`;
- `calibration` uses only `game`; `sim` uses only `game` and `calibration`;
- only `app` imports `sim`.

Checked on the source with `ast`, so an import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("game", "vision", "robot", "calibration", "sim", "app")
ALLOWED = {
    "game": set(),
    "calibration": {"game"},
    "vision": {"game", "calibration"},
    "robot": {"game", "calibration"},
    "sim": {"game", "calibration"},
    "app": {"game", "calibration", "vision", "robot", "sim"},
}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add((alias.name.split(".")[0], node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.module.split(".")[0], node.lineno))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.add((str(node.args[0].value).split(".")[0], node.lineno))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_dependency_direction(package: str) -> None:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name, line in imported_packages(path):
            if name in PACKAGES and name != package and name not in ALLOWED[package]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not bad, "forbidden imports:\n" + "\n".join(bad)


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from sim.world import World\n    import robot.grbl\n")
    assert {n for n, _ in imported_packages(f)} == {"sim", "robot"}
