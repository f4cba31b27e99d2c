"""The README's examples are real: each rule file in it compiles and solves what it claims."""
from __future__ import annotations

import re

from helpers import ROOT, instance_from_rules, system
from solvers import solve


def readme_rules():
    text = (ROOT / "README.md").read_text()
    return [b for b in re.findall(r"```\n(.*?)```", text, re.S) if b.startswith("game ")]


def test_readme_has_its_two_rule_files():
    assert len(readme_rules()) == 2


def test_lights_example_solves():
    lights = readme_rules()[0]
    s = system(instance_from_rules(lights, "#..#.#\n"))
    sol = solve(s, "bfs")
    assert sol.status == "solved" and sol.optimal and sol.cost == 4
    assert sol.moves == ("1,1", "1,3", "1,4", "1,5")  # the only solution: a strip's toggle matrix is invertible


def test_floodit_example_solves_the_seed_sample_board():
    floodit = readme_rules()[1]
    s = system(instance_from_rules(floodit, "012\n112\n221\n"))
    assert solve(s, "bfs").cost == 3
    assert solve(s, "astar").cost == 3
