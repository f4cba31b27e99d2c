"""Cost-bounded iterative deepening, shared by IDA* (with h) and IDDFS (without)."""
from __future__ import annotations

from typing import Callable

from ._search import Search
from .protocol import Solution, State, TransitionSystem

# Entries the IDA* transposition table keeps when budget.max_states does not say.
DEFAULT_TABLE_SIZE = 1 << 20
# Expansions in a restarting iteration's first run; run r has RESTART_UNIT * luby(r).
RESTART_UNIT = 512
RESTART_SEED = 0  # the random orders' seed: runs are repeatable
NO_G = 1 << 62  # the g of a table entry that prunes nothing (a restart's path: see deepen)
_MASK = (1 << 64) - 1


def luby(i: int) -> int:
    """The i-th term (from 0) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ...: the length of each run of a search
    that restarts (in units), optimal within a constant factor when nothing is known of the runs' lengths."""
    size, seq = 1, 0
    while size < i + 1:
        seq += 1
        size = 2 * size + 1
    while size - 1 != i:
        size = (size - 1) >> 1
        seq -= 1
        i = i % size
    return 1 << seq


class Shuffler:
    """Fisher-Yates shuffles drawing from splitmix64 (the native search draws the same: loops._shuffle)."""

    def __init__(self, seed: int = 0):
        self.state = seed

    def draw(self) -> int:
        self.state = x = (self.state + 0x9E3779B97F4A7C15) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        return x ^ (x >> 31)

    def shuffle(self, items: list) -> list:
        for i in range(len(items) - 1, 0, -1):
            j = self.draw() % (i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def deepen(system: TransitionSystem, search: Search,
           heuristic: Callable[[State], int] | None, table_size: int, restarts: bool = False) -> Solution:
    """Depth-first iterations bounded by f = g + h, each bound the least f cut off before.

    The bound never passes the optimal cost C* (when h is admissible): it starts at
    h(root) <= C* and grows to the least f seen above it. So a goal reached within the
    bound is optimal and is returned as soon as it is generated. An iteration that cuts
    nothing off has seen every state reachable within max_cost: that proves the puzzle
    unsolvable.

    States on the current path are skipped, so cycles (0-cost ones included) end.
    With `table_size > 0`, a table of the least g at which each state was entered in this
    iteration prunes re-entries at no smaller g (whatever they could reach within the
    bound was already searched); it keeps at most `table_size` entries.

    On a CommutingSystem each run of commuting moves is tried in one order (path_successors).
    A state entered after a commuting move numbered r was searched without the commuting
    moves numbered below r, so the table prunes a re-entry only at no smaller g *and* no
    smaller r.

    On a PersistingSystem (that is not also a CommutingSystem) a persisting move whose subtree
    found no goal within the bound is banned in the subtrees of its later siblings (sleep
    sets): by the promise, a goal within the bound that makes the move later could make it
    first. A ban is a fact about the bound, so the table's prunes stay sound (a state failed
    under bans fails without them), and the deadlock test may read the bans.

    With a table and `restarts` (until it bans a move: a restart would lose the bans), an iteration
    starts over from the root after RESTART_UNIT * luby(r) expansions in its run r, and every later run
    tries each state's successors in a random order: a depth-first search that one early wrong
    move sends into a huge failing subtree gets other chances, while the table keeps every state
    searched through (its failure within the bound holds whatever the order), so a restart
    repeats little work. Only the path's states, entered but not searched through, leave the
    table (they keep their place in it, with a g that prunes nothing). The table is consulted
    before the goal test and h, which cost more: a state in it is no goal.
    """
    stats = search.stats
    admissible = heuristic is None or search.budget.admissible
    optimal = search.budget.admissible if heuristic is not None else True
    root = system.initial()
    if system.is_goal(root):
        return search.solved((), 0, True)
    bound = heuristic(root) if heuristic is not None else 0
    if (admissible and search.over_cost(bound)) or search.dead(root):
        return search.unsolvable()
    shuffler = Shuffler(RESTART_SEED)
    banning = getattr(system, "persisting", False) and not getattr(system, "commuting", False)
    unit = RESTART_UNIT if restarts and table_size else 0
    if banning:
        def children(state, after):
            return iter(system.ban_successors(state))
    elif getattr(system, "commuting", False):
        def children(state, after):
            return iter(system.path_successors(state, after))
    else:
        def children(state, after):
            return ((move, child, cost, -1) for move, child, cost in system.successors(state))
    while True:
        stats.depth = bound
        if admissible:  # (the iterations before searched every path whose f was under this bound)
            search.proved(bound)
        cut: int | None = None  # least f above the bound: the next bound
        table: dict = {root: (0, -1)} if table_size else {}  # state -> (g, after) when entered
        path: list[State] = [root]
        path_g = [0]
        moves: list[str] = []
        on_path = {root}
        search.visited()
        first = list(children(root, -1))  # (the root's successors: a restart shuffles them)
        frames = [iter(first)]
        banned: set[int] = set()  # the moves banned here (banning): the union of `bans` along the path
        bans: list[list[int]] = [[]]  # per frame, the moves it banned below its later children
        into = [-1]  # per frame, the number of the persisting move that made it (else -1)
        run, run_end = 0, stats.expanded + 1 + unit * luby(0)  # (after the root's expansion below)

        def ban(number):  # (a persisting move's subtree failed within the bound)
            nonlocal unit
            if number >= 0:
                bans[-1].append(number)
                banned.add(number)
                unit = 0  # (no more restarts: one would lose the bans)

        search.expand()
        while frames:
            if unit and stats.expanded >= run_end:
                for state in path[1:]:
                    if state in table:
                        table[state] = (NO_G, -1)
                del path[1:], path_g[1:], moves[:], bans[1:], into[1:]
                bans[0].clear()
                banned.clear()
                on_path = {root}
                frames = [iter(shuffler.shuffle(first))]
                run += 1
                run_end = stats.expanded + unit * luby(run)
                continue
            g = path_g[-1]
            for move, child, cost, after, *persists in frames[-1]:
                stats.generated += 1
                fails = -1  # (banning) the move's number when it persists: banned once its subtree failed
                if banning:
                    number, after = after, -1  # (ban_successors gives numbers where path_successors gives after)
                    if number in banned:
                        continue
                    if persists[0]:
                        fails = number
                child_g = g + cost
                if child in on_path:
                    stats.duplicates += 1
                    continue
                if search.over_cost(child_g):
                    ban(fails)
                    continue
                seen = table.get(child) if table_size else None
                if seen is not None and seen[0] <= child_g and seen[1] <= after:
                    stats.duplicates += 1  # (searched through: before the goal test and h, which cost)
                    ban(fails)
                    continue
                if system.is_goal(child):
                    found = (*moves, move)
                    if child_g <= bound:
                        return search.solved(found, child_g, optimal)
                    search.offer(found, child_g)
                    cut = child_g if cut is None else min(cut, child_g)
                    ban(fails)
                    continue
                f = child_g if heuristic is None else child_g + heuristic(child)
                if f > bound:
                    if not (admissible and search.over_cost(f)):
                        cut = f if cut is None else min(cut, f)
                    ban(fails)
                    continue
                if table_size and (seen is not None or len(table) < table_size):
                    table[child] = (child_g, after)
                if search.dead(child, banned if banning else None):
                    ban(fails)
                    continue
                search.visited()
                path.append(child)
                path_g.append(child_g)
                moves.append(move)
                on_path.add(child)
                frames.append(children(child, after) if run == 0 else
                              iter(shuffler.shuffle(list(children(child, after)))))
                bans.append([])
                into.append(fails)
                search.expand()
                search.stored(len(path) + len(table), limited=False)
                break
            else:  # every successor done: backtrack
                frames.pop()
                on_path.discard(path.pop())
                path_g.pop()
                banned.difference_update(bans.pop())
                fails = into.pop()
                if bans:  # its subtree failed: banned below its later siblings
                    ban(fails)
                if moves:
                    moves.pop()
        if cut is None:
            return search.unsolvable()
        bound = cut
