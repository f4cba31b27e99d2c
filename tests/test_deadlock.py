"""`deadlock:` — states the rules promise lead to no goal: every search, in both backends and in Python or native
code, skips them when it would expand them, and answers as it would without them."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridrules import api
from helpers import instance_from_rules, replay, walk_and_compare
from solvers import ALGORITHMS, SOLVED, UNSOLVABLE, Budget, solve

SOKOBAN = """
game corners "Sokoban that knows its corners"

layer wall: bool static
layer target: bool static
layer box: bool
global me: cell

action go(d: dir) "{d}":
    let to = me + d
    require on_board(to) and not wall[to]
    if box[to]:
        let beyond = to + d
        require on_board(beyond) and not wall[beyond] and not box[beyond]
        box[to] = false
        box[beyond] = true
    me = to

goal: empty(cells where box and not target)

def blocked(c: cell):
    return not on_board(c) or wall[c]

DEADLOCK

heuristic boxes_left admissible: count(cells where box and not target)

level grid:
    ' ': pass
    '#': wall = true
    '$': box = true
    '.': target = true
    '*': box = true; target = true
    '@': me = here
"""
CORNERED = ("deadlock: any(cells where box and not target and (blocked(here + U) or blocked(here + D))\n"
            "                                              and (blocked(here + L) or blocked(here + R)))")
WITH, WITHOUT = SOKOBAN.replace("DEADLOCK", CORNERED), SOKOBAN.replace("DEADLOCK", "goal: false and blocked(me)")

TWO_BOXES = "#######\n#.   .#\n# $$  #\n#@    #\n#######\n"
BOX_IN_CORNER = "######\n#$  .#\n#@   #\n######\n"
SEARCHES = sorted(ALGORITHMS)


def _solve(rules, level, backend, algorithm):
    system = api.system(instance_from_rules(rules, level), backend)
    return system, api.solve(system, algorithm, Budget(time_limit=60, admissible=True))


@pytest.mark.parametrize("backend", ["reference", "compiled"])
@pytest.mark.parametrize("algorithm", SEARCHES)
def test_a_deadlock_prunes_without_changing_the_answer(backend, algorithm):
    system, sol = _solve(WITH, TWO_BOXES, backend, algorithm)
    _, plain = _solve(WITHOUT, TWO_BOXES, backend, algorithm)
    assert system.deadlocks
    assert sol.status == plain.status == SOLVED and sol.cost == plain.cost == 11
    assert sol.optimal == plain.optimal
    final, _ = replay(system, sol.moves)
    assert system.is_goal(final)
    assert sol.stats.dead > 0 and plain.stats.dead == 0
    assert sol.stats.expanded < plain.stats.expanded


@pytest.mark.parametrize("backend", ["reference", "compiled"])
@pytest.mark.parametrize("algorithm", SEARCHES)
def test_a_dead_start_is_unsolvable_without_a_search(backend, algorithm):
    system, sol = _solve(WITH, BOX_IN_CORNER, backend, algorithm)
    assert system.is_dead(system.initial())
    assert sol.status == UNSOLVABLE and sol.optimal
    assert sol.stats.expanded == 0 and sol.stats.dead == 1
    _, plain = _solve(WITHOUT, BOX_IN_CORNER, backend, algorithm)
    assert plain.status == UNSOLVABLE and plain.stats.expanded > 0


def test_moves_into_a_deadlock_stay_legal():
    """A deadlock is no rule: the push into the corner is a legal move, and replays make it."""
    for backend in ("reference", "compiled"):
        system = api.system(instance_from_rules(WITH, "#######\n##    #\n# $@  #\n#.    #\n#######\n"), backend)
        assert not system.is_dead(system.initial())
        assert "L" in system.legal_moves(system.initial())
        state, _ = replay(system, ["L"])
        assert system.is_dead(state)
        assert api.solve(system, "astar").moves == ("U", "L", "D", "R", "D", "L")  # (down, then left)


class _Ladder:
    """Plain Python: states 0..n; a move goes up one (cost 1) or jumps up two (cost 3); the goal is n. From
    `trap` on, the only move circles among trap, trap + 1 and trap + 2, never reaching n: is_dead says so when
    `declare`, and records each state it was asked about."""

    def __init__(self, n, trap, declare):
        self.n, self.trap, self.deadlocks, self.calls = n, trap, declare, []

    def initial(self):
        return 0

    def successors(self, s):
        if s >= self.trap:
            return [("circle", self.trap + (s - self.trap + 1) % 3, 1)]
        return [(m, s + k, c) for m, k, c in (("up", 1, 1), ("jump", 2, 3)) if s + k <= self.n]

    def is_goal(self, s):
        return s == self.n

    def heuristic(self, s):
        return 0

    def is_dead(self, s):
        self.calls.append(s)
        return s >= self.trap


@pytest.mark.parametrize("algorithm", SEARCHES)
def test_python_searches_ask_once_per_state_they_would_expand(algorithm):
    ladder = _Ladder(6, 99, True)
    sol = solve(ladder, algorithm, Budget(time_limit=10))
    assert sol.status == SOLVED and sol.cost == 6 and sol.stats.dead == 0
    # at most once per state expanded (an iterative deepening expands its start again each round, asking once)
    assert len(ladder.calls) <= sol.stats.expanded < sol.stats.generated
    trapped = _Ladder(30, 4, True)
    sol = solve(trapped, algorithm, Budget(time_limit=10))
    assert sol.status == UNSOLVABLE and sol.stats.dead > 0
    assert len(trapped.calls) <= sol.stats.expanded + sol.stats.dead
    assert max(trapped.calls) <= 5  # (4 and 5, reached from 3; nothing beyond was generated)
    plain = solve(_Ladder(30, 4, False), algorithm, Budget(time_limit=10))
    assert plain.status == UNSOLVABLE and plain.stats.dead == 0 and plain.stats.expanded > sol.stats.expanded


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(" #$.", min_size=5, max_size=5), min_size=3, max_size=5), st.integers(0, 24),
       st.integers(0, 1000))
def test_both_backends_agree_on_deadlocks(rows, spot, seed):
    """Random little Sokoban rooms: both backends call the same states deadlocked along a random walk."""
    cells = [list(r) for r in rows]
    r, c = divmod(spot % (len(cells) * 5), 5)
    cells[r][c] = "@"
    level = "\n".join("".join(row) for row in cells) + "\n"
    inst = instance_from_rules(WITH, level)
    walk_and_compare(inst, seed, steps=30)


def test_a_random_walk_meets_deadlocks_in_both_backends():
    """(The differential test above is worth something only if walks do reach deadlocks.)"""
    inst = instance_from_rules(WITH, TWO_BOXES)
    ref = api.system(inst, "reference")
    rng, seen = random.Random(3), 0
    for _ in range(40):
        state = inst.initial
        for _ in range(30):
            moves = ref.successors(state)
            if not moves:
                break
            state = rng.choice(moves)[1]
            seen += ref.is_dead(state)
    assert seen > 0


def test_moves_says_when_the_rules_call_a_state_a_deadlock(tmp_path):
    """`gridrules moves` lists a deadlocked state's moves (they are legal) and says it is lost: exit 1."""
    from click.testing import CliRunner

    from gridrules.cli import cli

    rules = tmp_path / "corners.grl"
    rules.write_text(WITH)
    level = tmp_path / "room.txt"
    level.write_text("#######\n##    #\n# $@  #\n#.    #\n#######\n")
    run = CliRunner().invoke(cli, ["moves", str(rules), str(level)])
    assert run.exit_code == 0 and run.output == "4 legal moves\n  L\n  R\n  U\n  D\n"
    run = CliRunner().invoke(cli, ["moves", str(rules), str(level), "--after", "L"])
    assert run.exit_code == 1
    assert run.output == ("3 legal moves (a deadlock: the rules say no goal can be reached from here)\n"
                          "  R\n  U\n  D\n")
    run = CliRunner().invoke(cli, ["moves", str(rules), str(level), "--after", "L", "--hint"])
    assert run.exit_code == 1 and "a deadlock" in run.output
    run = CliRunner().invoke(cli, ["moves", str(rules), str(level), "--after", "L", "--format", "json"])
    assert run.exit_code == 1 and '"deadlock": true' in run.output


TRIOS = """
game trios "Trios"

layer tile: 0..9

action take(a: cell, b: cell, c: cell) unordered "{a}+{b}+{c}":
    require tile[a] != 0 and tile[a] == tile[b] and tile[b] == tile[c]
    persists
    tile[a] = 0
    tile[b] = 0
    tile[c] = 0

goal: empty(cells where tile != 0)

# A tile is stuck when every trio it could be taken in is banned (`banned` names the trio in any order).
def stuck(a: cell):
    for b in cells where tile == tile[a] and here != a:
        for c in cells where tile == tile[a] and here != a and here != b:
            if not banned(take(c, a, b)):
                return false
    return true

deadlock: any(cells where tile != 0 and stuck(here))

level numbers:
    * : tile = value
"""


@pytest.mark.parametrize("seed", range(4))
def test_banned_names_a_move_of_an_unordered_action_in_any_order(seed):
    """`banned(take(c, a, b))` finds the banned trio whatever the order of its cells, in both backends alike."""
    inst = instance_from_rules(TRIOS, "1 1 2 2\n1 2 1 2\n")
    ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
    rnd = random.Random(seed)
    numbers = [i for i, (text, *_) in enumerate(ref.moves) if text in ref.legal_moves(inst.initial)]
    for _ in range(20):
        banned = set(rnd.sample(numbers, rnd.randint(0, len(numbers))))
        dead = ref.is_dead(inst.initial, banned)
        assert nat.is_dead(inst.initial, banned) == dead, banned
    assert ref.is_dead(inst.initial, set(numbers)) and not ref.is_dead(inst.initial, set())
