"""Bloxorz: seed samples, an independent model of the spec compared move by move on random maps, solvers."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, strategies as st

from helpers import ROOT, StartAt, bloxorz_maps, instance, replay, system
from gridrules.api import load
from gridrules.errors import LevelError
from solvers import solve
from solvers.perft import layer_counts

LEVELS = ROOT / "rulesets/bloxorz/levels"
ROLLS = {  # pose -> dir -> (new pose, anchor shift), straight from the spec
    "up": {"L": ("row", (0, -2)), "R": ("row", (0, 1)), "U": ("col", (-2, 0)), "D": ("col", (1, 0))},
    "row": {"L": ("up", (0, -1)), "R": ("up", (0, 2)), "U": ("row", (-1, 0)), "D": ("row", (1, 0))},
    "col": {"L": ("col", (0, -1)), "R": ("col", (0, 1)), "U": ("up", (-1, 0)), "D": ("up", (2, 0))},
}
COVER = {"up": ((0, 0),), "row": ((0, 0), (0, 1)), "col": ((0, 0), (1, 0))}
STEP = {"L": (0, -1), "R": (0, 1), "U": (-1, 0), "D": (1, 0)}


@pytest.mark.parametrize("level,moves", [("level16.txt", 28), ("level16-own.txt", 28), ("level33.txt", 65)])
def test_seed_samples(level, moves):
    (inst,) = load("bloxorz", str(LEVELS / level))
    s = system(inst)
    sol = solve(s, "astar")
    assert sol.cost == moves and sol.optimal
    final, cost = replay(s, sol.moves)
    assert s.is_goal(final) and cost == moves
    assert solve(s, "bfs").cost == moves


def test_level33_matches_the_seed_move_string():
    (inst,) = load("bloxorz", str(LEVELS / "level33.txt"))
    seed = "RRRRULDDLURUURRDRDRULLURDRDDRDLDDRRUDLLUURULUULULDRULLLDDDLDLLDLU"
    final, cost = replay(system(inst), list(seed))
    assert system(inst).is_goal(final) and cost == 65


def test_counting_swaps_is_a_parameter():
    (inst,) = load("bloxorz", str(LEVELS / "level16.txt"), {"swap_cost": 1})
    sol = solve(system(inst), "bfs")
    assert sol.cost >= 28 and sol.cost == len(sol.moves)


def test_blank_lines_around_the_map_are_not_rows():
    """A line of blanks before or after the map is a blank line (trailing blanks do not count), so the map's
    rows, and the coordinates of teleports, count from its first line that is not blank."""
    plain = instance("bloxorz", "+Y+\n+T+\n+++\n+Z+\n---\nteleport T: 4,1 4,3\n")
    padded = instance("bloxorz", "   \n\n+Y+\n+T+\n+++\n+Z+\n   \n---\nteleport T: 4,1 4,3\n")
    assert (padded.rows, padded.cols) == (plain.rows, plain.cols) == (4, 3)
    assert padded.initial == plain.initial and dict(padded.statics) == dict(plain.statics)


def test_the_two_formats_give_the_same_instance():
    (a,) = load("bloxorz", str(LEVELS / "level16.txt"))
    (b,) = load("bloxorz", str(LEVELS / "level16-own.txt"))
    assert a.initial == b.initial and dict(a.statics) == dict(b.statics)


# ---- an independent model of the spec --------------------------------------------------------------
class Model:
    """The spec's rules written directly; a state is (pose, anchor, cube, other, present)."""

    def __init__(self, tiles, ids, heavy, ops, first, second, present):
        self.tiles, self.ids, self.heavy, self.ops = tiles, ids, heavy, ops
        self.first, self.second = first, second
        self.h, self.w = len(tiles), len(tiles[0])
        self.present0 = tuple(present)

    def tile(self, p):
        r, c = p
        return self.tiles[r][c] if 0 <= r < self.h and 0 <= c < self.w else " "

    def solid(self, p, present):
        t = self.tile(p)
        return t != " " and not (t.islower() and not present[ord(t) - 97])

    def press(self, p, standing, present):
        t = self.tile(p)
        if "A" <= t <= "S":
            s = ord(t) - 65
            if standing or not self.heavy[s]:
                for b, op in enumerate(self.ops[s]):
                    if op == "toggle":
                        present[b] = not present[b]
                    elif op == "open":
                        present[b] = True
                    elif op == "close":
                        present[b] = False

    def moves(self, st):
        pose, anchor, cube, other, present = st
        out = {}
        if pose is not None:
            for d in "LRUD":
                to, (dr, dc) = ROLLS[pose][d]
                a = (anchor[0] + dr, anchor[1] + dc)
                cells = [(a[0] + x, a[1] + y) for x, y in COVER[to]]
                if any(not (0 <= r < self.h and 0 <= c < self.w) for r, c in cells):
                    continue
                pr = list(present)
                for p in cells:
                    self.press(p, to == "up", pr)
                if not all(self.solid(p, pr) for p in cells):
                    continue
                if to == "up" and self.tile(a) == "-":
                    continue
                if to == "up" and "T" <= self.tile(a) <= "X":
                    k = ord(self.tile(a)) - ord("T")
                    c1, c2 = self.first[k], self.second[k]
                    self.press(c1, False, pr)
                    self.press(c2, False, pr)
                    if not (self.solid(c1, pr) and self.solid(c2, pr)):
                        continue
                    out[d] = (None, None, c1, c2, tuple(pr))
                else:
                    out[d] = (to, a, None, None, tuple(pr))
            return out
        for d in "LRUD":
            c = (cube[0] + STEP[d][0], cube[1] + STEP[d][1])
            if not (0 <= c[0] < self.h and 0 <= c[1] < self.w) or c == other:
                continue
            pr = list(present)
            self.press(c, False, pr)
            if not (self.solid(c, pr) and self.solid(other, pr)):
                continue
            if abs(c[0] - other[0]) + abs(c[1] - other[1]) == 1:
                if c[0] == other[0]:
                    out[d] = ("row", (c[0], min(c[1], other[1])), None, None, tuple(pr))
                else:
                    out[d] = ("col", (min(c[0], other[0]), c[1]), None, None, tuple(pr))
            else:
                out[d] = (None, None, c, other, tuple(pr))
        out["swap"] = (None, None, other, cube, present)
        return out

    def goal(self, st):
        return st[0] == "up" and self.tile(st[1]) == "Z"


def model_state(inst, state):
    v = inst.unpack(state)
    poses = ("up", "row", "col")
    if v["cube"] is not None:  # (split: the cubes have cells)
        return (None, None, v["cube"], v["other"], tuple(v["present"]))
    pose, anchor = v["block"]
    return (poses[pose], anchor, None, None, tuple(v["present"]))


maps = bloxorz_maps(st.integers(2, 4), st.integers(3, 5))


def build(text):
    inst = instance("bloxorz", text)
    sv = inst.statics
    tiles = [list(row.ljust(inst.cols)) for row in text.rsplit("\n---\n", 1)[0].split("\n")]
    ops = [list(sv["switch_ops"][s * 26:(s + 1) * 26]) for s in range(19)]
    names = ("keep", "toggle", "open", "close")
    model = Model(tiles, None, sv["switch_heavy"], [[names[o] for o in row] for row in ops],
                  sv["split_first"], sv["split_second"], inst.unpack(inst.initial)["present"])
    return inst, model


@given(maps, st.integers(0, 10**6))
def test_successors_match_an_independent_model(text, seed):
    inst, model = build(text)
    s = system(inst)
    rng = random.Random(seed)
    state = s.initial()
    for _ in range(12):
        ms = model_state(inst, state)
        got = {m: model_state(inst, n) for m, n, _ in s.successors(state)}
        assert got == model.moves(ms), text
        assert s.is_goal(state) == model.goal(ms)
        if not got:
            break
        pick = rng.choice(sorted(got))
        state = next(n for m, n, _ in s.successors(state) if m == pick)


@given(maps)
def test_algorithms_agree_and_the_distance_bound_is_admissible(text):
    inst, _ = build(text)
    s = system(inst)
    results = {alg: solve(s, alg) for alg in ("bfs", "astar", "idastar")}
    assert len({r.cost for r in results.values()}) == 1
    assert len({r.status for r in results.values()}) == 1
    for r in results.values():
        if r.moves is not None:
            final, cost = replay(s, r.moves)
            assert s.is_goal(final) and cost == r.cost
    # along the optimal path, the declared bound never exceeds the exact remaining cost
    best = results["bfs"]
    if best.moves:
        state = s.initial()
        for i, m in enumerate(best.moves):
            exact = solve(StartAt(s, state), "bfs").cost
            assert s.heuristic(state) <= exact
            state = next(n for t, n, _ in s.successors(state) if t == m)


def test_layer_counts_match_the_model_on_level16():
    text = (LEVELS / "level16-own.txt").read_text()
    inst, model = build(text)
    seen = {model_state(inst, inst.initial)}
    layer, expected = set(seen), [1]
    for _ in range(30):
        nxt = {t for st_ in layer for t in model.moves(st_).values()} - seen
        seen |= nxt
        expected.append(len(nxt))
        layer = nxt
    got = layer_counts(system(inst), 30)
    assert got == expected
    assert sum(got) > 150  # most of the level's reachable states, not a trivial prefix


# ---- level errors -------------------------------------------------------------------------------
@pytest.mark.parametrize("text,message", [
    ("+++\n+Z+\n---\n", "the level has no start `Y`"),
    ("Y+Y\n+Z+\n---\n", "a second start `Y`: a level has one"),
    ("Y++\n+++\n---\n", "the level has no hole `Z`"),
    ("Y+A\n+Z+\n---\n", "switch `A` is on the map but has no `switch A: ...` line"),
    ("Y+?\n+Z+\n---\n", "unknown character `?` in a `bloxorz` level"),
    ("Y+A\n+Z+\n---\nswitch A: a toggle\n", "say whether the switch is `soft` or `heavy`: `switch A soft: a toggle`"),
])
def test_bad_levels(text, message):
    with pytest.raises(LevelError) as err:
        instance("bloxorz", text)
    assert err.value.message == message


@pytest.mark.parametrize("text, message, hint", [
    # a switch-shaped row too long for the map, with map rows after it: the row is wrong, not the header
    ("4 4\n+A++\nA T X ab\n+Y+Z\n++++\na 1\nb 0\n", "this map row is longer than the 4 columns the header gives",
     None),
    # a real last row whose switch no line describes, and which the map above does not hold: that switch's fault
    ("3 7\n+A++Y+Z\n+++++++\nB T X a\nA T X a\na 1\n", "switch `B` is on the map but has no line describing it",
     None),
    # one map row, then a switch line the header counted; fields apart by tabs, as split() reads them
    ("2 8\n+Y++A+Z+\nA\tT\tO\n", "the header says 2 rows, but this line, the map's row 2, reads like a switch line",
     "the map has 1 row: make the header `1 8`"),
])
def test_a_switch_shaped_row_is_blamed_on_the_header_only_where_that_explains_the_map(tmp_path, text, message, hint):
    level = tmp_path / "level.txt"
    level.write_text(text)
    with pytest.raises(LevelError) as err:
        load("bloxorz", str(level))
    assert (err.value.message, err.value.hint) == (message, hint)
