"""Shared by the CLI tests: the bundled sample, small rule files, and an in-process runner."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "rulesets" / "floodit" / "levels" / "hdu4127-sample.txt"

# A walker on a grid: `S` start, `T` target, `#` walls. Unit-cost moves L R U D.
WALK = """\
game walk "Walker"
layer wall: bool static
global me: cell
global target: cell static

action step(d: dir) "{d}" cost 1:
    let n = me + d
    require on_board(n)
    require not wall[n]
    me = n

goal: me == target

heuristic far:
    return 100

level grid:
    '.' : pass
    '#' : wall[here] = true
    'S' : me = here
    'T' : target = here
"""

# A rolling 1x1x2 block (a body) on tiles.
BLOCK = """\
game block "Block"
enum Tile = void, floor, goal
layer tile: Tile static

body block:
    pose Up: (0,0)
    pose Row: (0,0) (0,1)
    pose Col: (0,0) (1,0)
    roll Up: L -> Row (0,-2), R -> Row (0,1), U -> Col (-2,0), D -> Col (1,0)
    roll Row: L -> Up (0,-1), R -> Up (0,2), U -> Row (-1,0), D -> Row (1,0)
    roll Col: L -> Col (0,-1), R -> Col (0,1), U -> Up (-1,0), D -> Up (2,0)

action roll_(d: dir) "{d}":
    let b = roll(block, d)
    require on_board(b)
    require empty(cells(b) where tile == void)
    block = b

goal: block.pose == Up and tile[block.at] == goal

level grid:
    '.' : pass
    '+' : tile[here] = floor
    'S' : tile[here] = floor; block = Up at here
    'G' : tile[here] = goal
"""


class Run:
    """Runs the CLI in-process; `.code`, `.out` (stdout), `.err` (stderr), `.all` (both)."""

    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args, env=None):
        from gridrules.cli import cli

        result = self.runner.invoke(cli, [str(a) for a in args], env=env)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # a leak past the CLI's error handling: fail loudly
        result.code = result.exit_code
        result.out = result.stdout
        result.err = result.stderr
        result.all = result.output
        return result
