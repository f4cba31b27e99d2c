"""layer_counts and perft against numbers known independently."""
from __future__ import annotations

from solvers import layer_counts, perft
from solver_systems import Counter, SlidingPuzzle

# OEIS A089473: 8-puzzle configurations at each distance from the goal (blank in a corner).
EIGHT_PUZZLE_LAYERS = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
    9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
]


def test_counter():
    assert layer_counts(Counter(), 5) == [1, 2, 2, 2, 2, 2]
    assert [perft(Counter(), d) for d in range(6)] == [1, 2, 4, 8, 16, 32]


def test_two_by_two_puzzle_is_a_twelve_cycle():
    puzzle = SlidingPuzzle(2, 2)
    assert layer_counts(puzzle, 8) == [1, 2, 2, 2, 2, 2, 1, 0, 0]
    assert perft(puzzle, 10) == 2 ** 10


def test_eight_puzzle_layers():
    counts = layer_counts(SlidingPuzzle(3, 3), 32)
    assert counts == EIGHT_PUZZLE_LAYERS + [0]
    assert sum(counts) == 181440  # half of 9!: the reachable permutations


def test_eight_puzzle_perft():
    # Walks of the blank from a corner: corners have 2 moves, edges 3, the centre 4.
    assert [perft(SlidingPuzzle(3, 3), d) for d in range(7)] == [1, 2, 6, 16, 48, 128, 384]
