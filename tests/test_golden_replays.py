"""Golden replays: rules + level + moves -> every board on the way, exactly as `gridrules show` prints them.

Regenerate after an intended change of rules or rendering with GOLDEN_UPDATE=1 and review the diff.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gridrules.cli import cli as main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests/golden/replays"
SEED16 = "R R R R swap R D swap R U swap R L L L R R R R L L L L L D swap R U swap R R R R"
SEED33 = " ".join("RRRRULDDLURUURRDRDRULLURDRDDRDLDDRRUDLLUURULUULULDRULLLDDDLDLLDLU")

CASES = {
    "floodit-sample": ("floodit", "rulesets/floodit/levels/hdu4127-sample.txt", ["--case", "2"], "1 2 1"),
    "floodit-free": ("floodit", "tests/golden/replays/free.txt", ["--param", "free=true", "--param", "colours=3"],
                     "2,2:1 1,2:0"),
    "bloxorz-level16": ("bloxorz", "rulesets/bloxorz/levels/level16.txt", [], SEED16),
    "bloxorz-level33": ("bloxorz", "rulesets/bloxorz/levels/level33.txt", [], SEED33),
    "bloxorz-switches": ("bloxorz", "tests/golden/replays/switches.txt", [], "R U L D R U R R R D R"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_replay(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    ruleset, level, extra, moves = CASES[name]
    result = CliRunner().invoke(main, ["show", ruleset, level, "--no-color", "--solution", moves, *extra])
    assert "Traceback" not in result.output
    out = result.output
    golden = GOLDEN / f"{name}.out"
    if os.environ.get("GOLDEN_UPDATE"):
        golden.write_text(out)
    assert out == golden.read_text()
    assert result.exit_code == 0  # the moves reach the goal
