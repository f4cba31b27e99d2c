"""Seeded generators for the benchmarks: random Flood-It boards, Lianliankan deals, Drops boards and large
Bloxorz maps.

Everything here is deterministic for a given seed (string seeds: stable across Python versions).

    python -m bench.gen floodit --size 14 --count 3 --seed 1            # HDU 4127 input on stdout
    python -m bench.gen floodit --size 14 --count 1 --plain             # one board as a plain digit grid
    python -m bench.gen bloxorz --size 60 --seed 1                      # gridrules' own `bloxorz` format
    python -m bench.gen bloxorz --size 60 --seed 1 --seed-compatible --seed002   # seed 002's format
    python -m bench.gen bloxorz --size 24 --count-states                # independent reachable-state count

The Bloxorz maps are built from rooms on a grid joined by short corridors:

* a spanning tree of floor (or fragile) corridors joins every ordinary room, so the start (in the first room)
  always reaches the hole (in the last room) whatever the bridges do: every map is solvable;
* a share (`loops`) of the remaining room pairs are joined by bridge corridors (a letter per corridor, letters
  reused once the 25 run out), present or absent at the start, driven by soft and heavy switches that toggle,
  open or close them;
* five rooms are "pods" reached by teleports (split switches): the teleport puts the two cubes in a pod, the
  active cube lands on a soft switch that closes every pod door (bridge `z`), so the cubes stay in their pod
  (quadratic cube-pair states stay bounded) until they merge and the standing block opens the doors with the
  heavy switch in the pod;
* `hole="unreachable"` moves the hole to an isolated corner: a breadth-first search must then exhaust the
  whole reachable space to prove the level unsolvable — the states/s benchmark.

`seed_compatible=True` restricts a map to what seed 002's Pascal program implements (no fragile tiles; each
switch toggles or closes all its bridges), so the map can be written in seed 002's format as well.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import deque
from dataclasses import dataclass, field

# ---- Flood-It ----------------------------------------------------------------------------------


def floodit_board(n: int, colours: int, seed, index: int) -> list[list[int]]:
    """One random n x n board; board `index` of the series `seed` (independent of how many are drawn)."""
    rng = random.Random(f"floodit:{n}x{n}:{colours}:{seed}:{index}")
    return [[rng.randrange(colours) for _ in range(n)] for _ in range(n)]


def floodit_boards(count: int, n: int, colours: int = 6, seed=1) -> list[list[list[int]]]:
    return [floodit_board(n, colours, seed, i) for i in range(count)]


def hdu_text(boards: list[list[list[int]]]) -> str:
    """HDU 4127 input: per board a line N then N rows of blank-separated colours; a final `0`."""
    out = []
    for b in boards:
        out.append(str(len(b)))
        out.extend(" ".join(str(v) for v in row) for row in b)
    out.append("0")
    return "\n".join(out) + "\n"


def grid_text(board: list[list[int]]) -> str:
    """A plain grid: one line per row, one digit per cell."""
    return "\n".join("".join(str(v) for v in row) for row in board) + "\n"


# ---- Lianliankan ----------------------------------------------------------------------------------
def lianliankan_deal(rows: int = 8, cols: int = 18, kinds: int = 36, seed=1, index: int = 0) -> list[list[int]]:
    """A Shisen-Sho deal: `kinds` tile types, each rows*cols/kinds times, shuffled (deal `index` of series
    `seed`)."""
    rnd = random.Random(f"lianliankan-{seed}-{index}")
    tiles = [t for t in range(1, kinds + 1) for _ in range(rows * cols // kinds)]
    rnd.shuffle(tiles)
    return [tiles[r * cols:(r + 1) * cols] for r in range(rows)]


# ---- Drops ----------------------------------------------------------------------------------------
def drops_board(kind: str, index: int, seed=1, size: int = 6) -> list[list[int]]:
    """A seeded Drops board. `threes`: each cell a 3 or a 4 with probability 1/4, else empty (seed 000's
    program is exact on these: it only clicks 3s and 4s); `dense`: each cell 0..4 with weights 2, 1, 1, 1, 2
    (boards that need clicks on small drops too: optimal depths 5..9 and more); `level`: Splash Back's random
    level of shared/spec/drops.md (24 drops at distinct cells: two 1s, five 2s, eight 3s, nine 4s)."""
    rnd = random.Random(f"drops-{kind}-{seed}-{index}")
    if kind == "threes":
        return [[rnd.choice((3, 4)) if rnd.random() < 0.25 else 0 for _ in range(size)] for _ in range(size)]
    if kind == "dense":
        return [[rnd.choice((0, 0, 1, 2, 3, 4, 4)) for _ in range(size)] for _ in range(size)]
    if kind == "level":
        board = [[0] * size for _ in range(size)]
        sizes = [1] * 2 + [2] * 5 + [3] * 8 + [4] * 9
        for i, v in zip(rnd.sample(range(size * size), len(sizes)), sizes):
            board[i // size][i % size] = v
        return board
    raise ValueError(f"unknown kind of Drops board `{kind}`")


def hdu1175_case(n: int = 1000, m: int = 1000, queries: int = 50, seed=1) -> str:
    """One HDU 1175 case: an n x m board, 98% empty (long free runs: the searches have work to do), four tile
    types; half the queries ask about two cells of one type, half about random cells."""
    rnd = random.Random(f"hdu1175-{seed}")
    board = [[rnd.choice((1, 2, 3, 4)) if rnd.random() < 0.02 else 0 for _ in range(m)] for _ in range(n)]
    by_type: dict[int, list] = {}
    for r in range(n):
        for c in range(m):
            by_type.setdefault(board[r][c], []).append((r, c))
    lines = [f"{n} {m}", *(" ".join(map(str, row)) for row in board), str(queries)]
    for k in range(queries):
        if k % 2 == 0:
            a, b = rnd.sample(by_type[rnd.randint(1, 4)], 2)
        else:
            a, b = (rnd.randrange(n), rnd.randrange(m)), (rnd.randrange(n), rnd.randrange(m))
        lines.append(f"{a[0] + 1} {a[1] + 1} {b[0] + 1} {b[1] + 1}")
    return "\n".join(lines + ["0 0"]) + "\n"


# ---- Bloxorz -----------------------------------------------------------------------------------

SWITCHES = "ABCDEFGHIJKLMNOPQRS"
SPLITS = "TUVWX"
BRIDGES = "abcdefghijklmnopqrstuvwxyz"
DOOR = "z"  # the bridge letter of every pod door
MAIN_BRIDGES = BRIDGES[:25]


@dataclass
class BloxMap:
    """A Bloxorz level: the map (a list of rows of characters) and its switch/teleport/bridge facts."""

    rows: list[list[str]]
    teleports: dict[str, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)  # 0-based
    switches: dict[str, tuple[bool, dict[str, str]]] = field(default_factory=dict)  # heavy, bridge -> op
    bridges: dict[str, bool] = field(default_factory=dict)  # present at the start
    title: str = ""

    @property
    def size(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    def _map_lines(self) -> list[str]:
        return ["".join(r).rstrip() for r in self.rows]

    def used(self) -> set[str]:
        return {ch for r in self.rows for ch in r}

    def own_text(self) -> str:
        """gridrules' own `bloxorz` format (see gridrules/levels/bloxorz.py)."""
        used = self.used()
        lines = self._map_lines()
        # the reader drops blank rows before the map (and after it): teleport rows count from the first
        # row that has a tile
        top = next(i for i, ln in enumerate(lines) if ln.strip())
        lines = lines[top:]
        while not lines[-1].strip():
            lines.pop()
        lines.append("---")
        if self.title:
            lines.append(f"# {self.title}")
        for t in SPLITS:
            if t in used:
                (r1, c1), (r2, c2) = self.teleports[t]
                lines.append(f"teleport {t}: {r1 + 1 - top},{c1 + 1} {r2 + 1 - top},{c2 + 1}")
        for s in SWITCHES:
            if s in used:
                heavy, ops = self.switches[s]
                effects = ", ".join(f"{b} {op}" for b, op in sorted(ops.items()))
                lines.append(f"switch {s} {'heavy' if heavy else 'soft'}: {effects}")
        for b in BRIDGES:
            if b in self.bridges:
                lines.append(f"bridge {b}: {'present' if self.bridges[b] else 'absent'}")
        return "\n".join(lines) + "\n"

    def seed002_text(self) -> str:
        """Seed 002's format (`N M`, the map, split/switch/bridge lines); only for seed-compatible maps."""
        if "-" in self.used():
            raise ValueError("seed 002 does not implement fragile tiles")
        n, m = self.size
        used = self.used()
        lines = [f"{n} {m}"] + self._map_lines()
        for t in SPLITS:
            if t in used:
                (r1, c1), (r2, c2) = self.teleports[t]
                lines.append(f"{t} {r1 + 1} {c1 + 1} {r2 + 1} {c2 + 1}")
        for s in SWITCHES:
            if s in used:
                heavy, ops = self.switches[s]
                kinds = set(ops.values())
                if len(kinds) != 1 or kinds - {"toggle", "close"}:
                    raise ValueError(f"switch {s}: seed 002 needs one operation, toggle or close, per switch")
                kind = "T" if kinds == {"toggle"} else "F"
                lines.append(f"{s} {kind} {'X' if heavy else 'O'} " + " ".join(sorted(ops)))
        for b in BRIDGES:
            if b in self.bridges:
                lines.append(f"{b} {1 if self.bridges[b] else 0}")
        return "\n".join(lines) + "\n"


def bloxorz_map(size: int = 60, seed=1, *, cols: int | None = None, room: int = 5, corridor: int = 2,
                switches: int = 8, teleports: int = 5, loops: float = 0.6, fragile: float = 0.08,
                seed_compatible: bool = False, hole: str = "far") -> BloxMap:
    """A large solvable map (see the module's docstring). `switches`: main switches (at most 17), the knob
    that sets the size of the reachable space; `loops`: the share of the non-tree room pairs joined by
    bridge corridors; `hole`: "far" (the last room) or "unreachable" (an isolated corner)."""
    rows, cols = size, cols or size
    rng = random.Random(f"bloxorz:{rows}x{cols}:{seed}:{room}:{corridor}:{switches}:{teleports}:{loops}:"
                        f"{fragile}:{seed_compatible}")
    border = 2
    pitch = room + corridor
    nr = (rows - 2 * border + corridor) // pitch
    nc = (cols - 2 * border + corridor) // pitch
    if nr < 2 or nc < 2:
        raise ValueError(f"a {rows}x{cols} map is too small for rooms of {room} and corridors of {corridor}")
    teleports = min(teleports, len(SPLITS), max(0, nr * nc - 4))
    # every switch letter is on the map once (seed 002 counts switch cells, not letters): each pod takes
    # two letters from the end of A..S (its door closer and opener), the main switches the first ones
    switches = min(switches, len(SWITCHES) - 2 * teleports)
    grid = [[" "] * cols for _ in range(rows)]

    def origin(i, j):
        return border + i * pitch, border + j * pitch

    def neighbours(i, j):
        for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            if 0 <= i + di < nr and 0 <= j + dj < nc:
                yield i + di, j + dj

    start_room, hole_room = (0, 0), (nr - 1, nc - 1)
    # pods: room slots whose removal leaves the ordinary rooms connected, each beside an ordinary room
    slots = [(i, j) for i in range(nr) for j in range(nc) if (i, j) not in (start_room, hole_room)]
    for _ in range(1000):
        pods = rng.sample(slots, teleports)
        main = {(i, j) for i in range(nr) for j in range(nc)} - set(pods)
        seen, todo = {start_room}, [start_room]
        while todo:
            cur = todo.pop()
            for nb in neighbours(*cur):
                if nb in main and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        if seen == main and all(any(nb in main for nb in neighbours(*p)) for p in pods):
            break
    else:
        raise ValueError("could not place the pods")

    for (i, j) in [(i, j) for i in range(nr) for j in range(nc)]:
        r0, c0 = origin(i, j)
        for r in range(r0, r0 + room):
            for c in range(c0, c0 + room):
                grid[r][c] = "+"

    def corridor_cells(a, b, width):
        (i1, j1), (i2, j2) = sorted((a, b))
        r0, c0 = origin(i1, j1)
        off = rng.randrange(0, room - width + 1)
        if i1 == i2:  # side by side
            return [(r, c) for r in range(r0 + off, r0 + off + width) for c in range(c0 + room, c0 + pitch)]
        return [(r, c) for r in range(r0 + room, r0 + pitch) for c in range(c0 + off, c0 + off + width)]

    # spanning tree over the ordinary rooms (randomised DFS): floor or fragile corridors
    tree: set[frozenset] = set()
    seen, stack = {start_room}, [start_room]
    while stack:
        cur = stack[-1]
        options = [nb for nb in neighbours(*cur) if nb in main and nb not in seen]
        if not options:
            stack.pop()
            continue
        nb = rng.choice(options)
        tree.add(frozenset((cur, nb)))
        seen.add(nb)
        stack.append(nb)
    fragile_ok = fragile > 0 and not seed_compatible
    for edge in sorted(tree, key=sorted):
        a, b = sorted(edge)
        ch = "-" if fragile_ok and rng.random() < 0.15 else "+"
        for r, c in corridor_cells(a, b, rng.choice((1, 2, 3))):
            grid[r][c] = ch
    # bridge corridors between the other ordinary neighbours
    extra = sorted({frozenset((a, b)) for a in main for b in neighbours(*a) if b in main} - tree, key=sorted)
    rng.shuffle(extra)
    extra = extra[: int(round(loops * len(extra)))]
    letters = list(MAIN_BRIDGES)
    rng.shuffle(letters)
    bridges: dict[str, bool] = {}
    for k, edge in enumerate(extra):
        a, b = sorted(edge)
        letter = letters[k % len(letters)]
        bridges.setdefault(letter, rng.random() < 0.5)
        for r, c in corridor_cells(a, b, rng.choice((1, 2, 3))):
            grid[r][c] = letter
    # pod doors: one bridge corridor from each pod to an ordinary neighbour
    if pods:
        bridges[DOOR] = False
    for p in pods:
        nb = rng.choice([nb for nb in neighbours(*p) if nb in main])
        for r, c in corridor_cells(p, nb, rng.choice((1, 2))):
            grid[r][c] = DOOR

    # free cells of ordinary rooms for switches and teleports (not the start/hole room centres)
    def centre(rm):
        r0, c0 = origin(*rm)
        return r0 + room // 2, c0 + room // 2

    # Only a room's inner cells get switches, teleports and fragile tiles: its border ring stays floor, so
    # a block can always stand beside a corridor and roll across it (the map stays solvable).
    reserved = {centre(start_room), centre(hole_room)}
    free = [(r, c) for rm in sorted(main) for r in range(origin(*rm)[0] + 1, origin(*rm)[0] + room - 1)
            for c in range(origin(*rm)[1] + 1, origin(*rm)[1] + room - 1) if (r, c) not in reserved]
    rng.shuffle(free)
    switch_facts: dict[str, tuple[bool, dict[str, str]]] = {}
    groups = sorted(b for b in bridges if b != DOOR)
    for s in SWITCHES[:switches]:
        if not groups:
            break
        r, c = free.pop()
        grid[r][c] = s
        heavy = rng.random() < 0.3
        targets = rng.sample(groups, min(len(groups), rng.choice((1, 1, 2, 2, 3))))
        if seed_compatible:
            kind = "toggle" if rng.random() < 0.75 else "close"
            ops = {b: kind for b in targets}
        else:
            ops = {b: rng.choices(("toggle", "open", "close"), (6, 2, 2))[0] for b in targets}
        switch_facts[s] = (heavy, ops)
    tele_facts = {}
    for k, p in enumerate(pods):
        t = SPLITS[k]
        r, c = free.pop()
        grid[r][c] = t
        r0, c0 = origin(*p)
        cells = [(r, c) for r in range(r0, r0 + room) for c in range(c0, c0 + room)]
        first = rng.choice(cells)
        second = rng.choice([x for x in cells if abs(x[0] - first[0]) + abs(x[1] - first[1]) >= 3])
        heavy_at = rng.choice([x for x in cells if x not in (first, second)])
        closer, opener = SWITCHES[-1 - 2 * k], SWITCHES[-2 - 2 * k]
        grid[first[0]][first[1]] = closer
        grid[heavy_at[0]][heavy_at[1]] = opener
        switch_facts[closer] = (False, {DOOR: "close"})
        switch_facts[opener] = (True, {DOOR: "toggle" if seed_compatible else "open"})
        tele_facts[t] = (first, second)
    if fragile_ok:  # fragile tiles sprinkled over the rooms (a lying block crosses them; it cannot stand)
        for r, c in free:
            if rng.random() < fragile:
                grid[r][c] = "-"
    sr, sc = centre(start_room)
    grid[sr][sc] = "Y"
    hr, hc = centre(hole_room)
    if hole == "far":
        grid[hr][hc] = "Z"
    elif hole == "unreachable":
        grid[0][0] = "Z"  # the border is void: nothing reaches the corner
    else:
        raise ValueError(f"hole must be `far` or `unreachable`, not {hole!r}")
    used = {ch for row in grid for ch in row}
    bridges = {b: v for b, v in bridges.items() if b in used}
    title = (f"generated by bench/gen.py: {rows}x{cols}, seed {seed}, {switches} switches, {teleports} teleports"
             + (", seed-compatible" if seed_compatible else "") + f", hole {hole}")
    return BloxMap(grid, tele_facts, switch_facts, bridges, title)


# ---- an independent reachable-state counter (a check on the generator, not on gridrules) -------

def bloxorz_count(bmap: BloxMap, max_states: int | None = None) -> dict:
    """Breadth-first over the spec's rules (shared/spec/bloxorz.md), written directly in Python.

    Returns {"states": reachable states (or the count when max_states stopped it), "complete": bool,
    "optimal": least moves to the hole (swaps free) or None}. States are (pose, a, b, bridges) like
    the bundled ruleset's: pose 0 up, 1 row, 2 col, 3 split (a = active cube, b = the other)."""
    n, m = bmap.size
    grid = bmap.rows
    VOID, FLOOR, FRAGILE, SWITCH, TELE, BRIDGE, HOLE = range(7)
    kind = [[VOID] * m for _ in range(n)]
    ident = [[0] * m for _ in range(n)]
    start = hole_at = None
    for r in range(n):
        for c in range(m):
            ch = grid[r][c]
            if ch == " ":
                continue
            if ch in "+Y":
                kind[r][c] = FLOOR
                if ch == "Y":
                    start = (r, c)
            elif ch == "-":
                kind[r][c] = FRAGILE
            elif ch == "Z":
                kind[r][c] = HOLE
                hole_at = (r, c)
            elif ch in SWITCHES:
                kind[r][c], ident[r][c] = SWITCH, SWITCHES.index(ch)
            elif ch in SPLITS:
                kind[r][c], ident[r][c] = TELE, SPLITS.index(ch)
            else:
                kind[r][c], ident[r][c] = BRIDGE, BRIDGES.index(ch)
    heavy = {SWITCHES.index(s): h for s, (h, _) in bmap.switches.items()}
    masks = {}
    for s, (_, ops) in bmap.switches.items():
        t = o = cl = 0
        for b, op in ops.items():
            bit = 1 << BRIDGES.index(b)
            if op == "toggle":
                t |= bit
            elif op == "open":
                o |= bit
            else:
                cl |= bit
        masks[SWITCHES.index(s)] = (t, o, cl)
    tele = {SPLITS.index(t): v for t, v in bmap.teleports.items()}
    br0 = sum(1 << BRIDGES.index(b) for b, v in bmap.bridges.items() if v)

    def press(p, standing, br):
        r, c = p
        if kind[r][c] == SWITCH and (standing or not heavy[ident[r][c]]):
            t, o, cl = masks[ident[r][c]]
            br = ((br ^ t) | o) & ~cl
        return br

    def solid(p, br):
        r, c = p
        if not (0 <= r < n and 0 <= c < m):
            return False
        k = kind[r][c]
        return k != VOID and (k != BRIDGE or (br >> ident[r][c]) & 1)

    def on(p):
        return 0 <= p[0] < n and 0 <= p[1] < m

    D = ((0, -1), (0, 1), (-1, 0), (1, 0))  # L R U D
    ROLL = {
        0: {0: (1, 0, -2), 1: (1, 0, 1), 2: (2, -2, 0), 3: (2, 1, 0)},
        1: {0: (0, 0, -1), 1: (0, 0, 2), 2: (1, -1, 0), 3: (1, 1, 0)},
        2: {0: (2, 0, -1), 1: (2, 0, 1), 2: (0, -1, 0), 3: (0, 2, 0)},
    }

    def cover(pose, r, c):
        return ((r, c),) if pose == 0 else ((r, c), (r, c + 1)) if pose == 1 else ((r, c), (r + 1, c))

    def successors(state):
        pose, a, b, br = state
        if pose < 3:
            r, c = a
            for d in range(4):
                np_, dr, dc = ROLL[pose][d]
                na = (r + dr, c + dc)
                cells = cover(np_, *na)
                if not all(on(p) for p in cells):
                    continue
                nbr = br
                for p in cells:
                    nbr = press(p, np_ == 0, nbr)
                if not all(solid(p, nbr) for p in cells):
                    continue
                if np_ == 0 and kind[na[0]][na[1]] == FRAGILE:
                    continue
                if np_ == 0 and kind[na[0]][na[1]] == TELE:
                    first, second = tele[ident[na[0]][na[1]]]
                    nbr = press(first, False, nbr)
                    nbr = press(second, False, nbr)
                    if not (solid(first, nbr) and solid(second, nbr)):
                        continue
                    yield (3, first, second, nbr), 1
                    continue
                yield (np_, na, None, nbr), 1
            return
        for d in range(4):
            dr, dc = D[d]
            na = (a[0] + dr, a[1] + dc)
            if not on(na) or na == b:
                continue
            nbr = press(na, False, br)
            if not (solid(na, nbr) and solid(b, nbr)):
                continue
            if abs(na[0] - b[0]) + abs(na[1] - b[1]) == 1:
                if na[0] == b[0]:
                    yield (1, (na[0], min(na[1], b[1])), None, nbr), 1
                else:
                    yield (2, (min(na[0], b[0]), na[1]), None, nbr), 1
            else:
                yield (3, na, b, nbr), 1
        yield (3, b, a, br), 0  # swap: free

    root = (0, start, None, br0)
    dist = {root: 0}
    dq = deque([root])
    best = None
    complete = True
    while dq:
        s = dq.popleft()
        g = dist[s]
        if s[0] == 0 and s[1] == hole_at and (best is None or g < best):
            best = g
        for t, cost in successors(s):
            ng = g + cost
            old = dist.get(t)
            if old is None or ng < old:
                if old is None and max_states is not None and len(dist) >= max_states:
                    complete = False
                    dq.clear()
                    break
                dist[t] = ng
                (dq.appendleft if cost == 0 else dq.append)(t)
    return {"states": len(dist), "complete": complete, "optimal": best if complete else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.gen", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="game", required=True)
    f = sub.add_parser("floodit", help="random Flood-It boards")
    f.add_argument("--size", type=int, default=8)
    f.add_argument("--colours", type=int, default=6)
    f.add_argument("--count", type=int, default=1)
    f.add_argument("--seed", default="1")
    f.add_argument("--plain", action="store_true", help="plain digit grids (one board per file: use --count 1)")
    b = sub.add_parser("bloxorz", help="a large Bloxorz map")
    b.add_argument("--size", type=int, default=60)
    b.add_argument("--seed", default="1")
    b.add_argument("--switches", type=int, default=8)
    b.add_argument("--teleports", type=int, default=5)
    b.add_argument("--seed-compatible", action="store_true")
    b.add_argument("--hole", choices=("far", "unreachable"), default="far")
    b.add_argument("--seed002", action="store_true", help="write seed 002's format (needs --seed-compatible)")
    b.add_argument("--count-states", action="store_true",
                   help="count the reachable states with the independent counter (slow: ~200k states/s)")
    a = ap.parse_args(argv)
    if a.game == "floodit":
        boards = floodit_boards(a.count, a.size, a.colours, a.seed)
        sys.stdout.write("".join(grid_text(x) for x in boards) if a.plain else hdu_text(boards))
        return 0
    bm = bloxorz_map(a.size, a.seed, switches=a.switches, teleports=a.teleports,
                     seed_compatible=a.seed_compatible, hole=a.hole)
    if a.count_states:
        print(bloxorz_count(bm))
        return 0
    sys.stdout.write(bm.seed002_text() if a.seed002 else bm.own_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
