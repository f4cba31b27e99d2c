"""Splash Back (rulesets/splashback): the hand of drops against independent bookkeeping over the Drops simulator,
the two backends against each other, the best play against an exhaustive search, the rule variants."""
from __future__ import annotations

import random
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from helpers import ROOT, instance, system, walk_and_compare
from test_drops import boards, click, text
from gridrules import api
from solvers import Budget, solve

SPLASHBACK = "rulesets/splashback/splashback.grl"


def make(level: str, **params):
    """The Splash Back instance of a board in seed 000's format, with parameters written as on the command line."""
    pairs = [f"{k}={str(v).lower()}" for k, v in params.items()]
    return instance(SPLASHBACK, level, api.parse_params(api.load_rules(SPLASHBACK), pairs), "numbers")


def splash(board, r, c, hand, timing="half", every=3, counts_click=True, reward=0, cap=99):
    """(board, hand) after clicking (r, c), written from the spec: one drop spent, b // every earned back
    for the b drops burst (a burst cell stays empty for the rest of its chain), the reward for a cleared board."""
    after = click(board, r, c, timing)
    burst = sum(1 for i, row in enumerate(board) for j, v in enumerate(row) if v and not after[i][j])
    if not counts_click and not after[r][c] and board[r][c]:
        burst -= 1
    hand -= 1
    if every:
        hand = min(hand + burst // every, cap)
    if not any(any(row) for row in after):
        hand = min(hand + reward, cap)
    return after, hand


def hand_of(inst, state) -> int:
    return inst.unpack(state)["hand"]


def board_of(inst, state):
    flat = inst.unpack(state)["drop"]
    return [list(flat[r * inst.cols:(r + 1) * inst.cols]) for r in range(inst.rows)]


@settings(max_examples=60, deadline=None)
@given(boards, st.sampled_from(["half", "unit"]), st.sampled_from([(3, True), (2, False), (0, True)]),
       st.integers(0, 2), st.integers(1, 12), st.integers(0, 10**6))
def test_the_hand_follows_the_spec(board, timing, bonus, reward, supply, seed):
    """Every click on a random board leaves the board and the hand that the spec's bookkeeping gives; an empty
    hand allows no click."""
    every, counts = bonus
    inst = make(text(board), timing=timing, supply=supply, bonus_every=every, bonus_counts_click=counts,
                clear_reward=reward)
    ref = system(inst, "reference")
    rng = random.Random(seed)
    state, b, hand = inst.initial, board, supply
    for _ in range(8):
        full = [(r, c) for r in range(inst.rows) for c in range(inst.cols) if b[r][c]]
        if not full:
            break
        r, c = rng.choice(full)
        step = ref.step(state, f"{r + 1},{c + 1}")
        if hand == 0:
            assert step is None and ref.legal_moves(state) == []
            break
        state = step[0]
        b, hand = splash(b, r, c, hand, timing, every, counts, reward)
        assert (board_of(inst, state), hand_of(inst, state)) == (b, hand)
        assert ref.score(state) == hand


@settings(max_examples=15, deadline=None)
@given(boards, st.sampled_from(["half", "unit"]), st.integers(0, 10**6))
def test_backends_agree_on_splashback(board, timing, seed):
    inst = make(text(board), timing=timing, supply=6, clear_reward=1)
    walk_and_compare(inst, seed, steps=8)


def best_play(board, hand, timing="half"):
    """(final hand, clicks) of the best play, by exhaustive search over the simulator: the most drops in hand
    once the board is clear, then the fewest clicks; None when no play clears it."""

    @lru_cache(maxsize=None)
    def best(b, h):
        if not any(any(row) for row in b):
            return h, 0
        if h == 0:
            return None
        found = None
        for r, row in enumerate(b):
            for c, v in enumerate(row):
                if v:
                    after, h2 = splash([list(x) for x in b], r, c, h, timing)
                    rest = best(tuple(map(tuple, after)), h2)
                    if rest is not None:
                        cand = (rest[0], rest[1] + 1)
                        if found is None or (cand[0], -cand[1]) > (found[0], -found[1]):
                            found = cand
        return found

    return best(tuple(map(tuple, board)), hand)


@st.composite
def sparse_boards(draw):
    """4x4 boards with three to six drops, mostly large."""
    cells = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=6, unique=True))
    board = [[0] * 4 for _ in range(4)]
    for r, c in cells:
        board[r][c] = draw(st.sampled_from([2, 3, 4, 4]))
    return board


@settings(max_examples=25, deadline=None)
@given(sparse_boards(), st.integers(1, 8), st.sampled_from(["half", "unit"]))
def test_best_play_matches_an_exhaustive_search(board, supply, timing):
    """On boards this small the anytime search sees every state: its answer is proven, and it is the
    exhaustive search's."""
    want = best_play(board, supply, timing)
    inst = make(text(board), supply=supply, timing=timing)
    sol = solve(system(inst, "compiled", "seed004"), "anytime", Budget(time_limit=60))
    if want is None:
        assert (sol.status, sol.optimal) == ("unsolvable", True)
    else:
        assert sol.optimal and (sol.score, sol.cost) == want


def test_a_chain_of_three_earns_a_drop():
    """Hand-worked: clicking the middle 4 bursts it, its droplets burst both 4s beside it (3 bursts: one back),
    and the lone 1, out of their way, is left; it needs four more clicks. A reward for clearing adds to the
    best score; no bonus takes the drop earned away."""
    board = "4 4 4 0\n0 0 0 0\n0 0 0 1\n"
    inst = make(board, supply=10)
    ref = system(inst, "reference")
    after = ref.step(inst.initial, "1,2")[0]
    assert board_of(inst, after) == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]] and hand_of(inst, after) == 10
    sol = solve(system(inst, "compiled", "seed004"), "anytime")
    assert (sol.score, sol.cost, sol.optimal) == (10 - 5 + 1, 5, True)
    rewarded = solve(system(make(board, supply=10, clear_reward=2), "compiled", "seed004"), "anytime")
    assert rewarded.score == sol.score + 2
    no_bonus = solve(system(make(board, supply=10, bonus_every=0), "compiled", "seed004"), "anytime")
    assert no_bonus.score == sol.score - 1


def test_an_empty_hand_ends_the_game():
    """A lone 1 needs four clicks: with three drops in hand no play clears it, and that is proven."""
    inst = make("0 0 0\n0 1 0\n0 0 0\n", supply=3)
    sol = solve(system(inst, "reference", "seed004"), "anytime")
    assert (sol.status, sol.optimal) == ("unsolvable", True)
    assert solve(system(make("0 0 0\n0 1 0\n0 0 0\n", supply=4), "reference", "seed004"), "anytime").score == 0


def test_seed000_board_is_played_well():
    """Seed 000's sample with 10 drops: the anytime search clears it keeping at least 12 (five clicks that earn
    at least seven back); its line replays to the goal with that many drops in hand."""
    (inst,) = api.load(SPLASHBACK, str(ROOT / "rulesets/splashback/levels/seed000.txt"))
    # (api.solve loads the native code before the clock, as a run of `gridrules solve` does: solvers.solve would
    # compile it on a cold cache within the 5 s)
    sol = api.solve(system(inst, "compiled", "seed004"), "anytime", Budget(time_limit=5))
    assert sol.status == "solved" and sol.score >= 12
    ref = system(inst, "reference")
    state = inst.initial
    for move in sol.moves:
        state = ref.step(state, move)[0]
    assert ref.is_goal(state) and ref.score(state) == sol.score


@pytest.mark.parametrize("supply", [-1, 100])
def test_a_supply_the_hand_cannot_hold_is_refused(supply):
    from gridrules.errors import RuleError

    with pytest.raises(RuleError, match=f"`hand` would start at {supply}, outside its domain 0..99"):
        api.load(SPLASHBACK, str(ROOT / "rulesets/splashback/levels/seed000.txt"), [f"supply={supply}"])
