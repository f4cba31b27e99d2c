"""Tiny TransitionSystems for the solver tests, plus an independent Dijkstra and a replayer."""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

INF = float("inf")


@dataclass
class Graph:
    """An explicit weighted digraph; move names are unique per source node."""

    adjacency: dict  # node -> list of (move, node, cost)
    start: object
    goals: frozenset
    h: dict = field(default_factory=dict)  # node -> heuristic (default 0)

    def initial(self):
        return self.start

    def successors(self, state):
        return list(self.adjacency.get(state, ()))

    def is_goal(self, state):
        return state in self.goals

    def heuristic(self, state):
        return self.h.get(state, 0)


def graph(n: int, edges, start=0, goals=(), h=None) -> Graph:
    adjacency: dict = {node: [] for node in range(n)}
    for u, v, cost in edges:
        adjacency[u].append((f"{u}>{v}#{len(adjacency[u])}", v, cost))
    return Graph(adjacency, start, frozenset(goals), dict(h or {}))


class Counter:
    """Integers from `start`; +1/-1 (or only +1) at cost 1; goal is `target`."""

    min_move_cost = 1

    def __init__(self, start=0, target=5, down=True, lo=None, hi=None):
        self.start, self.target, self.down, self.lo, self.hi = start, target, down, lo, hi

    def initial(self):
        return self.start

    def successors(self, n):
        out = []
        if self.hi is None or n + 1 <= self.hi:
            out.append(("inc", n + 1, 1))
        if self.down and (self.lo is None or n - 1 >= self.lo):
            out.append(("dec", n - 1, 1))
        return out

    def is_goal(self, n):
        return n == self.target

    def heuristic(self, n):
        return abs(self.target - n) if self.down else max(0, self.target - n)


class Maze:
    """A grid maze: '#' walls, 'S' start, 'G' goals; unit moves U/D/L/R, Manhattan h."""

    min_move_cost = 1
    STEPS = (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1))

    def __init__(self, text: str):
        self.rows = [row for row in text.strip().splitlines()]
        self.cells = {(r, c): ch for r, row in enumerate(self.rows) for c, ch in enumerate(row)}
        self.start = next(p for p, ch in self.cells.items() if ch == "S")
        self.goals = [p for p, ch in self.cells.items() if ch == "G"]

    def initial(self):
        return self.start

    def successors(self, pos):
        r, c = pos
        for name, dr, dc in self.STEPS:
            nxt = (r + dr, c + dc)
            if self.cells.get(nxt, "#") != "#":
                yield name, nxt, 1

    def is_goal(self, pos):
        return self.cells[pos] == "G"

    def heuristic(self, pos):
        if not self.goals:
            return 0
        return min(abs(pos[0] - g[0]) + abs(pos[1] - g[1]) for g in self.goals)


class Swapper:
    """Two tokens and a position: 'swap' exchanges them for free (a 0-cost cycle),
    'step' advances the position at cost 1 but only with the tokens in order."""

    def initial(self):
        return ("b", "a", 0)

    def successors(self, state):
        x, y, pos = state
        yield "swap", (y, x, pos), 0
        if (x, y) == ("a", "b") and pos < 3:
            yield "step", (x, y, pos + 1), 1

    def is_goal(self, state):
        return state[2] == 3

    def heuristic(self, state):
        return 3 - state[2]


class SlidingPuzzle:
    """The (w*h-1)-puzzle with the blank (0) moving; goal is the sorted board, blank last."""

    min_move_cost = 1

    def __init__(self, width, height, board=None):
        self.w, self.h = width, height
        size = width * height
        self.goal = tuple(range(1, size)) + (0,)
        self.board = tuple(board) if board is not None else self.goal

    def initial(self):
        return self.board

    def successors(self, board):
        blank = board.index(0)
        r, c = divmod(blank, self.w)
        for name, dr, dc in (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < self.h and 0 <= nc < self.w:
                other = nr * self.w + nc
                cells = list(board)
                cells[blank], cells[other] = cells[other], cells[blank]
                yield name, tuple(cells), 1

    def is_goal(self, board):
        return board == self.goal

    def heuristic(self, board):
        total = 0
        for index, tile in enumerate(board):
            if tile:
                gr, gc = divmod(tile - 1, self.w)
                r, c = divmod(index, self.w)
                total += abs(gr - r) + abs(gc - c)
        return total


class Slow:
    """Wraps a system, sleeping in successors() so searches take real time."""

    def __init__(self, inner, delay=0.002):
        self.inner, self.delay = inner, delay

    def initial(self):
        return self.inner.initial()

    def successors(self, state):
        time.sleep(self.delay)
        return self.inner.successors(state)

    def is_goal(self, state):
        return self.inner.is_goal(state)

    def heuristic(self, state):
        return self.inner.heuristic(state)


class Interrupting(Slow):
    """Wraps a system; successors() raises KeyboardInterrupt on call number `after` + 1."""

    def __init__(self, inner, after):
        super().__init__(inner, 0)
        self.after, self.calls = after, 0

    def successors(self, state):
        self.calls += 1
        if self.calls > self.after:
            raise KeyboardInterrupt
        return list(self.inner.successors(state))


def dijkstra(system, max_cost=None):
    """Optimal cost to a goal (None if none within max_cost), written independently."""
    start = system.initial()
    dist = {start: 0}
    heap = [(0, 0, start)]
    tie = 1
    while heap:
        g, _, state = heapq.heappop(heap)
        if g > dist[state]:
            continue
        if system.is_goal(state):
            return g
        for _move, child, cost in system.successors(state):
            ng = g + cost
            if max_cost is not None and ng > max_cost:
                continue
            if ng < dist.get(child, INF):
                dist[child] = ng
                heapq.heappush(heap, (ng, tie, child))
                tie += 1
    return None


def distances_to_goal(g: Graph) -> dict:
    """Exact remaining cost from every node (reverse Dijkstra), INF when no goal is reachable."""
    reverse: dict = {}
    for u, outs in g.adjacency.items():
        for _move, v, cost in outs:
            reverse.setdefault(v, []).append((u, cost))
    dist = {goal: 0 for goal in g.goals}
    heap = [(0, i, goal) for i, goal in enumerate(sorted(g.goals))]
    tie = len(heap)
    while heap:
        d, _, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for u, cost in reverse.get(v, ()):
            if d + cost < dist.get(u, INF):
                dist[u] = d + cost
                heapq.heappush(heap, (d + cost, tie, u))
                tie += 1
    return {node: dist.get(node, INF) for node in g.adjacency}


def replay(system, moves):
    """Apply `moves` by name from the initial state; return (final state, total cost)."""
    state, total = system.initial(), 0
    for move in moves:
        matches = [(child, cost) for name, child, cost in system.successors(state) if name == move]
        assert len(matches) == 1, f"move {move!r} is not exactly one legal move in {state!r}"
        state, cost = matches[0]
        total += cost
    return state, total


@dataclass
class Knapsack:
    """Take items (each once) until their weights sum to exactly `target`; a move costs 1. Every move persists:
    a solution that takes item i later takes it among the same items, so taking it first stays within the target
    and ends alike (solvers.PersistingSystem). With `dead`, a state from which the items not taken (and not
    banned) cannot make up the rest is a deadlock (solvers.DeadlockSystem)."""

    weights: tuple
    target: int
    dead: bool = False
    persisting: bool = True

    def initial(self):
        return frozenset()

    def successors(self, state):
        return [(m, child, k) for m, child, k, _, _ in self.ban_successors(state)]

    def ban_successors(self, state):
        total = sum(self.weights[i] for i in state)
        return [(f"take{i}", state | {i}, 1, i, True) for i, w in enumerate(self.weights)
                if i not in state and total + w <= self.target]

    def is_goal(self, state):
        return sum(self.weights[i] for i in state) == self.target

    def heuristic(self, state):
        return 0

    @property
    def deadlocks(self):
        return self.dead

    def is_dead(self, state, banned=()):
        rest = self.target - sum(self.weights[i] for i in state)
        free = [w for i, w in enumerate(self.weights) if i not in state and i not in banned and w <= rest]
        return sum(free) < rest
