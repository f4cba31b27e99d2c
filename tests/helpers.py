"""Shared test helpers: build instances from text, start a system at any state, replay moves."""
from __future__ import annotations

import random
from pathlib import Path

from hypothesis import strategies as st

from gridrules import api
from gridrules.api import compile_rules, detect_format, load_rules
from gridrules.errors import Source
from gridrules.instance import instantiate
from gridrules.levels import READERS
from solvers import solve

ROOT = Path(__file__).resolve().parent.parent


def system(inst, backend: str = "reference", heuristic: str | None = None):
    """The instance's TransitionSystem: the reference backend (the oracle) unless a test names another."""
    return api.system(inst, backend, heuristic)


def instance(ruleset: str, level_text: str, params: dict | None = None, fmt: str | None = None, index: int = 0):
    game = load_rules(ruleset)
    f = detect_format(game, level_text, fmt)
    raws = READERS[f.format].read(Source("<level>", level_text))
    return instantiate(game, raws[index], f, params or {})


def instance_from_rules(rules_text: str, level_text: str, params: dict | None = None, fmt: str | None = None):
    game, _ = compile_rules(rules_text, "<rules>")
    f = detect_format(game, level_text, fmt)
    raws = READERS[f.format].read(Source("<level>", level_text))
    return instantiate(game, raws[0], f, params or {})


class StartAt:
    """The same system, started from another state (exact distances from any state). Where the rules mark moves
    `redundant`, the state it starts from gets every legal move, as the inner system's own start does: the rules
    promise an optimum only to searches that try all of their first state's moves."""

    def __init__(self, inner, state):
        self.inner, self.state = inner, state
        self.min_move_cost = getattr(inner, "min_move_cost", 0)
        self.redundant = inner.inst.game.redundant

    def initial(self):
        return self.state

    def successors(self, s):
        return self.inner.successors(s, every=self.redundant and s == self.state)

    def is_goal(self, s):
        return self.inner.is_goal(s)

    def heuristic(self, s):
        return self.inner.heuristic(s)

    @property
    def deadlocks(self):
        return getattr(self.inner, "deadlocks", False)

    def is_dead(self, s):
        return self.inner.is_dead(s)


class EveryMove(StartAt):
    """The same system with every legal move as a successor: no `safe` move taken alone, no `redundant` one left
    out (what a player may do, not what a search tries)."""

    def __init__(self, inner):
        super().__init__(inner, inner.initial())

    def successors(self, s):
        return self.inner.successors(s, every=True)


def replay(sys_, moves):
    """Apply moves from the initial state; returns (final state, total cost). Asserts each move is legal."""
    state, cost = sys_.initial(), 0
    for i, m in enumerate(moves):
        step = sys_.step(state, m)
        assert step is not None, f"move {i + 1} `{m}` is not legal; legal: {sys_.legal_moves(state)}"
        state, cost = step[0], cost + step[1]
    return state, cost


@st.composite
def bloxorz_maps(draw, heights, widths):
    """Random small Bloxorz levels in gridrules' own format, with every kind of tile, switch and teleport."""
    h, w = draw(heights), draw(widths)
    kinds = st.sampled_from("++++++--  AaabBT")
    rows = [[draw(kinds) for _ in range(w)] for _ in range(h)]
    for row in (rows[0], rows[-1]):  # (the reader drops blank lines around a map: its rows count from the first
        if row == [" "] * w:         # line that is not blank, so a map's first and last lines are never all void)
            row[0] = "+"
    cells = [(r, c) for r in range(h) for c in range(w)]
    ys, zs = draw(st.lists(st.sampled_from(cells), min_size=2, max_size=2, unique=True))
    rows[ys[0]][ys[1]] = "Y"
    rows[zs[0]][zs[1]] = "Z"
    lines = ["".join(r) for r in rows]
    facts = []
    ops = ("toggle", "open", "close")
    if any("A" in ln for ln in lines):
        facts.append(f"switch A {draw(st.sampled_from(['soft', 'heavy']))}: a {draw(st.sampled_from(ops))}, "
                     f"b {draw(st.sampled_from(ops))}")
    if any("B" in ln for ln in lines):
        facts.append(f"switch B {draw(st.sampled_from(['soft', 'heavy']))}: a {draw(st.sampled_from(ops))}")
    if any("T" in ln for ln in lines):
        t1, t2 = draw(st.sampled_from(cells)), draw(st.sampled_from(cells))
        if t1 == t2:
            t2 = cells[(cells.index(t1) + 1) % len(cells)]
        facts.append(f"teleport T: {t1[0] + 1},{t1[1] + 1} {t2[0] + 1},{t2[1] + 1}")
    facts.append(f"bridge a: {draw(st.sampled_from(['present', 'absent']))}")
    facts.append(f"bridge b: {draw(st.sampled_from(['present', 'absent']))}")
    return "\n".join(lines) + "\n---\n" + "\n".join(facts) + "\n"


__all__ = ["instance", "instance_from_rules", "StartAt", "replay", "system", "bloxorz_maps", "ROOT", "native_agrees",
           "walk_and_compare", "plain", "commutes_as_promised"]


def native_agrees(inst, nat, ref, algorithms=("bfs", "astar", "idastar", "iddfs")):
    """The native searches find the optimal cost the Python solvers find, and their moves replay; the native
    deepening searches are the Python ones step for step (same expansions, same solution)."""
    for algorithm in algorithms:
        mine, oracle = nat.search(algorithm), solve(ref, algorithm)
        assert (mine.status, mine.cost) == (oracle.status, oracle.cost)
        assert mine.optimal
        if algorithm in ("idastar", "iddfs"):
            assert mine.moves == oracle.moves
            assert (mine.stats.expanded, mine.stats.generated) == (oracle.stats.expanded, oracle.stats.generated)
        if mine.moves is not None:
            state, cost = ref.initial(), 0
            for m in mine.moves:
                state, k = ref.step(state, m)
                cost += k
            assert ref.is_goal(state) and cost == mine.cost


def plain(inner):
    """The same system without its commuting moves' promise (a StartAt has no `commuting`): path searches try
    every order."""
    return StartAt(inner, inner.initial())


def commutes_as_promised(sys_, state) -> int:
    """Check the promise of `commutes` (solvers.CommutingSystem) at `state` for every pair of commuting moves
    in a row; returns how many pairs were checked."""
    checked = 0
    first = {text: (nxt, k, i) for text, nxt, k, i in sys_.path_successors(state, -1)}
    then: dict = {}  # m2 -> the moves after m2 alone

    for m1, (s1, k1, i1) in first.items():
        if i1 < 0:
            continue
        for m2, s12, k2, i2 in sys_.path_successors(s1, -1):
            if i2 < 0 or m2 == m1:
                continue
            assert m2 in first and first[m2][2] >= 0, f"{m1} then {m2}: {m2} was not a commuting move before {m1}"
            s2, k2_before = first[m2][0], first[m2][1]
            if m2 not in then:
                then[m2] = {text: (nxt, k, i) for text, nxt, k, i in sys_.path_successors(s2, -1)}
            after2 = then[m2]
            assert m1 in after2 and after2[m1][2] >= 0, f"{m1} is not a commuting move after {m2}"
            assert after2[m1][0] == s12, f"{m1} {m2} and {m2} {m1} end in different states"
            assert k1 + k2 == k2_before + after2[m1][1], f"{m1} {m2} and {m2} {m1} cost differently"
            checked += 1
    return checked


def walk_and_compare(inst, seed, steps=25):
    """A random walk on which both backends give the same moves (searched and legal), goals, heuristics and
    scores."""
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    rng = random.Random(seed)
    state = inst.initial
    assert nat.initial() == ref.initial()
    for _ in range(steps):
        a, b = sorted(ref.successors(state)), sorted(nat.successors(state))
        assert a == b
        assert ref.legal_moves(state) == nat.legal_moves(state)
        assert ref.is_goal(state) == nat.is_goal(state)
        assert ref.heuristic(state) == nat.heuristic(state)
        assert ref.scored == nat.scored and ref.score(state) == nat.score(state)
        assert ref.commuting == nat.commuting
        assert ref.deadlocks == nat.deadlocks and ref.is_dead(state) == nat.is_dead(state)
        if ref.commuting:  # what a path search gets after some commuting move, or after none
            after = rng.randrange(-1, len(ref.moves))
            assert sorted(ref.path_successors(state, after)) == sorted(nat.path_successors(state, after))
        if not a:
            break
        state = rng.choice(a)[1]
    return ref, nat
