"""Move-generation counts, like chess perft: a regression oracle for a game's rules.

Both ignore costs and goals: they count what successors() produces, nothing else.
"""
from __future__ import annotations

from collections import Counter

from .protocol import TransitionSystem


def layer_counts(system: TransitionSystem, depth: int) -> list[int]:
    """Distinct states first reached at each move count 0..depth (BFS layers)."""
    root = system.initial()
    seen = {root}
    layer = [root]
    counts = [1]
    for _ in range(depth):
        following = []
        for state in layer:
            for _move, child, _cost in system.successors(state):
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        counts.append(len(following))
        layer = following
    return counts


def perft(system: TransitionSystem, depth: int) -> int:
    """Number of move sequences of exactly `depth` moves from the initial state.

    Counted layer by layer with a multiplicity per distinct state, so transpositions are
    counted once per path yet expanded once per layer.
    """
    paths = Counter({system.initial(): 1})
    for _ in range(depth):
        following: Counter = Counter()
        for state, ways in paths.items():
            for _move, child, _cost in system.successors(state):
                following[child] += ways
        paths = following
    return sum(paths.values())
