"""The bundled rulesets: one folder per game, each with its rule file(s), sample levels and a README."""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def bundled() -> dict[str, Path]:
    """name -> the DSL rule file of each bundled ruleset."""
    out = {}
    for folder in sorted(HERE.iterdir()):
        rule = folder / f"{folder.name}.grl"
        if folder.is_dir() and rule.exists():
            out[folder.name] = rule
    return out
