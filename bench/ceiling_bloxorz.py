"""The speed ceiling of a Bloxorz breadth-first search on this machine: a hand-written numba program made for
Bloxorz alone (not gridrules: no rule file, one game's moves coded by hand), to say what the target "native BFS
>= 5 M states/s on a generated 60x60 map" asks of the hardware. It exhausts bench.run's `bloxorz-large` map
(2,703,816 states) as gridrules' `bfs` does, in four variants, and with --gridrules times `gridrules solve ...
--algorithm bfs` between its rounds (the same minutes, for a ratio):

    python -m bench.ceiling_bloxorz [MAP] [--runs 3] [--bits 23] [--variants A,B,Bi,C] [--delay 64] [--gridrules]

State = one uint64:  bits 0..25 bridge present bits, bit 26 split flag,
  not split: bits 27..28 pose (0 up, 1 row, 2 col), bits 32..43 anchor cell (padded grid index)
  split:     bits 32..43 active cube cell, bits 44..55 other cube cell
  bit 62 always set (so 0 marks an empty hash slot).
Variants:
  A   counting only: inline uint64 open-addressing table + uint64 FIFO queue
  B   solver: A's table, plus per state parent (uint32) and move (uint8) arrays (the queue array = key array)
  Bi  solver, indirect table: uint32 slot -> index into key/parent/move arrays (4 B/slot, key compared there)
  C   B with a software pipeline: each child's slot is prefetched when generated, probed DELAY children later
      (the children are inserted in the order they were made, so the search is the same BFS)
The level's tables become module globals that numba compiles in as constants: one level per process.
Measured 2026-11-27 (thirtieth session, both cores busy with other work): C 4.3..7.4 M states/s (median), B
2.2, A 2.0..2.4; gridrules' bfs 0.6..1.0 M in the same minutes. bench/README.md has the figures.
"""
import re
import subprocess
import sys
import time

import numpy as np
from numba import njit

from gridrules.compiled.runtime import prefetch

SWITCHES = "ABCDEFGHIJKLMNOPQRS"
SPLITS = "TUVWX"
BRIDGES = "abcdefghijklmnopqrstuvwxyz"
PAD = 2
VOID, FLOOR, FRAGILE, SWITCH, TELE, BRIDGE, HOLE = range(7)


def parse(path):
    lines = [ln.rstrip("\r") for ln in open(path).read().split("\n")]
    sep = max(i for i, ln in enumerate(lines) if ln.strip() == "---")
    first = next(i for i in range(sep) if lines[i].strip())
    last = max(i for i in range(sep) if lines[i].strip())
    rows = lines[first:last + 1]
    n, m = len(rows), max(len(r) for r in rows)
    W, H = m + 2 * PAD, n + 2 * PAD
    assert W * H <= 4096, "cell index must fit 12 bits"
    cell = lambda r, c: (r + PAD) * W + (c + PAD)
    tile = np.zeros(W * H, np.int8)
    need = np.full(W * H, np.uint64(1) << np.uint64(63), np.uint64)  # void: a bit no state has
    sw = np.full(W * H, -1, np.int8)
    tele = np.full(W * H, -1, np.int8)
    start = None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row.ljust(m)):
            p = cell(r, c)
            if ch == " ":
                continue
            need[p] = 0
            if ch in "+Y":
                tile[p] = FLOOR
                if ch == "Y":
                    start = p
            elif ch == "-":
                tile[p] = FRAGILE
            elif ch == "Z":
                tile[p] = HOLE
            elif ch in SWITCHES:
                tile[p] = SWITCH; sw[p] = SWITCHES.index(ch)
            elif ch in SPLITS:
                tile[p] = TELE; tele[p] = SPLITS.index(ch)
            elif ch in BRIDGES:
                tile[p] = BRIDGE; need[p] = np.uint64(1) << np.uint64(BRIDGES.index(ch))
            else:
                raise ValueError(ch)
    heavy = np.zeros(19, np.bool_)
    tog = np.zeros(19, np.uint64); opn = np.zeros(19, np.uint64); cls = np.zeros(19, np.uint64)
    sfirst = np.zeros(5, np.int64); ssecond = np.zeros(5, np.int64)
    present = 0
    for ln in lines[sep + 1:]:
        ln = ln.split("#")[0].strip()
        if not ln:
            continue
        mt = re.match(r"^(teleport|switch|bridge)\s+(\S+)\s*(soft|heavy)?\s*:\s*(.*)$", ln)
        kind, letter, weight, rest = mt.groups()
        if kind == "teleport":
            r1, c1, r2, c2 = map(int, re.findall(r"\d+", rest))
            t = SPLITS.index(letter)
            sfirst[t] = cell(r1 - 1, c1 - 1); ssecond[t] = cell(r2 - 1, c2 - 1)
        elif kind == "switch":
            s = SWITCHES.index(letter)
            heavy[s] = weight == "heavy"
            for part in (p.strip() for p in rest.split(",") if p.strip()):
                b, op = part.split()
                bit = np.uint64(1) << np.uint64(BRIDGES.index(b))
                {"toggle": tog, "open": opn, "close": cls}[op][s] |= bit
        else:
            if rest.strip() == "present":
                present |= 1 << BRIDGES.index(letter)
    return dict(n=n, m=m, W=W, tile=tile, need=need, sw=sw, tele=tele, heavy=heavy, tog=tog, opn=opn, cls=cls,
                sfirst=sfirst, ssecond=ssecond, start=start, present=present)


U64 = np.uint64
PMASK = U64((1 << 26) - 1)
SPLITBIT = U64(1 << 26)
MARK = U64(1 << 62)
C12 = U64(0xFFF)
S27 = U64(27); S32 = U64(32); S44 = U64(44)
M1 = U64(0xff51afd7ed558ccd); M2 = U64(0xc4ceb9fe1a85ec53); S33 = U64(33)


@njit(inline="always")
def mix(x):
    x ^= x >> S33
    x *= M1
    x ^= x >> S33
    x *= M2
    x ^= x >> S33
    return x


@njit(inline="always")
def touch(P, p, standing):
    s = SW[p]
    if s >= 0 and (standing or not HEAVY[s]):
        P = ((P ^ TOG[s]) | OPN[s]) & ~CLS[s]
    return P


@njit(inline="always")
def solid(P, p):
    q = NEED[p]
    return (P & q) == q


@njit(inline="always")
def expand(key, kids, moves):
    """Children of `key` into kids[0..n), their moves (0..3 = L R U D, 4 = swap) into moves; returns n."""
    W = W_; tile = TILE; need = NEED; tele = TELE; sfirst = SFIRST; ssecond = SSECOND
    P0 = key & PMASK
    n = 0
    if key & SPLITBIT:
        cube = np.int64((key >> S32) & C12)
        other = np.int64((key >> S44) & C12)
        for d in range(4):
            q = cube + (-1 if d == 0 else 1 if d == 1 else -W if d == 2 else W)
            if q == other:
                continue
            P = touch(P0, q, False)
            if not (solid(P, q) and solid(P, other)):
                continue
            diff = q - other
            if diff == 1 or diff == -1:
                k = P | (U64(1) << S27) | (U64(min(q, other)) << S32) | MARK
            elif diff == W or diff == -W:
                k = P | (U64(2) << S27) | (U64(min(q, other)) << S32) | MARK
            else:
                k = P | SPLITBIT | (U64(q) << S32) | (U64(other) << S44) | MARK
            kids[n] = k; moves[n] = d; n += 1
        kids[n] = P0 | SPLITBIT | (U64(other) << S32) | (U64(cube) << S44) | MARK
        moves[n] = 4; n += 1
        return n
    pose = np.int64((key >> S27) & U64(3))
    p = np.int64((key >> S32) & C12)
    for d in range(4):
        if pose == 0:
            if d == 0:
                np_, q = 1, p - 2
            elif d == 1:
                np_, q = 1, p + 1
            elif d == 2:
                np_, q = 2, p - 2 * W
            else:
                np_, q = 2, p + W
        elif pose == 1:
            if d == 0:
                np_, q = 0, p - 1
            elif d == 1:
                np_, q = 0, p + 2
            elif d == 2:
                np_, q = 1, p - W
            else:
                np_, q = 1, p + W
        else:
            if d == 0:
                np_, q = 2, p - 1
            elif d == 1:
                np_, q = 2, p + 1
            elif d == 2:
                np_, q = 0, p - W
            else:
                np_, q = 0, p + 2 * W
        standing = np_ == 0
        P = touch(P0, q, standing)
        if standing:
            if not solid(P, q) or tile[q] == 2:  # 2 = fragile
                continue
            t = tele[q]
            if t >= 0:
                a = sfirst[t]; b = ssecond[t]
                P = touch(P, a, False)
                P = touch(P, b, False)
                if not (solid(P, a) and solid(P, b)):
                    continue
                kids[n] = P | SPLITBIT | (U64(a) << S32) | (U64(b) << S44) | MARK
                moves[n] = d; n += 1
                continue
        else:
            q2 = q + 1 if np_ == 1 else q + W
            P = touch(P, q2, False)
            if not (solid(P, q) and solid(P, q2)):
                continue
        kids[n] = P | (U64(np_) << S27) | (U64(q) << S32) | MARK
        moves[n] = d; n += 1
    return n


@njit(inline="always")
def insert(table, mask, c, i, keys, parent, move, tail, p, m):
    """Probe for key c from slot i; a new key is stored in the table and appended (parent p, move m) at `tail`.
    Returns the new tail, or -1 when the arrays are full."""
    while True:
        t = table[i]
        if t == 0:
            if tail == keys.shape[0]:
                return -1
            table[i] = c
            keys[tail] = c; parent[tail] = p; move[tail] = m
            return tail + 1
        if t == c:
            return tail
        i = (i + U64(1)) & mask


@njit(inline="always")
def walk_back(parent, move, tail):
    """Use the arrays, so that nothing is optimised away: a sum over one path back from the last state."""
    x = tail - 1
    chk = U64(0)
    while x != 0:
        chk += U64(move[x]); x = parent[x]
    return chk


@njit(inline="always")
def solver_arrays(start, bits, cap):
    """What variants B, Bi and C share: the table's mask, each state's key, parent and move (the start in row 0),
    and one expansion's children and their moves."""
    keys = np.empty(cap, np.uint64)
    parent = np.empty(cap, np.uint32)
    move = np.empty(cap, np.uint8)
    keys[0] = start; parent[0] = 0xFFFFFFFF; move[0] = 255
    return U64((1 << bits) - 1), keys, parent, move, np.empty(8, np.uint64), np.empty(8, np.int64)


@njit
def bfs_A(start, lv, bits, cap):
    size = 1 << bits
    mask = U64(size - 1)
    table = np.zeros(size, np.uint64)
    queue = np.empty(cap, np.uint64)
    kids = np.empty(8, np.uint64); moves = np.empty(8, np.int64)
    table[mix(start) & mask] = start
    queue[0] = start
    head, tail, gen = 0, 1, 0
    while head < tail:
        key = queue[head]; head += 1
        nk = expand(key, kids, moves)
        gen += nk
        for j in range(nk):
            c = kids[j]
            i = mix(c) & mask
            while True:
                t = table[i]
                if t == 0:
                    table[i] = c
                    if tail == cap:
                        return -1, gen
                    queue[tail] = c; tail += 1
                    break
                if t == c:
                    break
                i = (i + U64(1)) & mask
    return tail, gen


@njit
def bfs_B(start, lv, bits, cap):
    mask, keys, parent, move, kids, moves = solver_arrays(start, bits, cap)
    table = np.zeros(1 << bits, np.uint64)
    table[mix(start) & mask] = start
    head, tail, gen = 0, 1, 0
    while head < tail:
        key = keys[head]
        nk = expand(key, kids, moves)
        gen += nk
        for j in range(nk):
            c = kids[j]
            tail = insert(table, mask, c, mix(c) & mask, keys, parent, move, tail, head, moves[j])
            if tail < 0:
                return -1, gen, keys[0]
        head += 1
    return tail, gen, walk_back(parent, move, tail)


@njit
def bfs_Bi(start, lv, bits, cap):
    mask, keys, parent, move, kids, moves = solver_arrays(start, bits, cap)
    table = np.full(1 << bits, 0xFFFFFFFF, np.uint32)  # slot -> state index
    table[mix(start) & mask] = 0
    head, tail, gen = 0, 1, 0
    while head < tail:
        key = keys[head]
        nk = expand(key, kids, moves)
        gen += nk
        for j in range(nk):
            c = kids[j]
            i = mix(c) & mask
            while True:
                t = table[i]
                if t == 0xFFFFFFFF:
                    if tail == cap:
                        return -1, gen, keys[0]
                    table[i] = tail
                    keys[tail] = c; parent[tail] = head; move[tail] = moves[j]; tail += 1
                    break
                if keys[t] == c:
                    break
                i = (i + U64(1)) & mask
        head += 1
    return tail, gen, walk_back(parent, move, tail)


DELAY = 64  # children in flight between prefetch and probe (power of two)

@njit
def bfs_C(start, lv, bits, cap, DELAY):
    mask, keys, parent, move, kids, moves = solver_arrays(start, bits, cap)
    table = np.zeros(1 << bits, np.uint64)
    # ring of pending children: key, slot, parent, move
    rk = np.empty(DELAY, np.uint64); rs = np.empty(DELAY, np.uint64)
    rp = np.empty(DELAY, np.uint32); rm = np.empty(DELAY, np.uint8)
    table[mix(start) & mask] = start
    head, tail, gen = 0, 1, 0
    rh, rt = 0, 0  # ring head/tail counters
    while True:
        if head < tail:
            key = keys[head]
            nk = expand(key, kids, moves)
            gen += nk
            for j in range(nk):
                c = kids[j]
                i = mix(c) & mask
                prefetch(table, i)
                if rt - rh == DELAY:  # ring full: probe the oldest
                    o = rh & (DELAY - 1); rh += 1
                    tail = insert(table, mask, rk[o], rs[o], keys, parent, move, tail, rp[o], rm[o])
                    if tail < 0:
                        return -1, gen, keys[0]
                w = rt & (DELAY - 1); rt += 1
                rk[w] = c; rs[w] = i; rp[w] = head; rm[w] = moves[j]
            head += 1
        elif rt > rh:  # queue drained: probe pending children (in order)
            o = rh & (DELAY - 1); rh += 1
            tail = insert(table, mask, rk[o], rs[o], keys, parent, move, tail, rp[o], rm[o])
            if tail < 0:
                return -1, gen, keys[0]
        else:
            break
    return tail, gen, walk_back(parent, move, tail)


def level(path):
    L = parse(path)
    # the level's tables become module globals, which numba freezes into the compiled code as constants
    # (no reference counting, constant addresses): so one level per process, set before the first call
    g = globals()
    g.update(W_=int(L["W"]), TILE=L["tile"], NEED=L["need"], SW=L["sw"], TELE=L["tele"], HEAVY=L["heavy"],
             TOG=L["tog"], OPN=L["opn"], CLS=L["cls"], SFIRST=L["sfirst"], SSECOND=L["ssecond"])
    lv = (np.int64(L["W"]), L["tile"], L["need"], L["sw"], L["tele"], L["heavy"], L["tog"], L["opn"], L["cls"],
          L["sfirst"], L["ssecond"])
    start = np.uint64(L["present"]) | (np.uint64(L["start"]) << np.uint64(32)) | MARK
    return start, lv


BYTES = {"A": lambda slots, n: (slots * 8 + n * 8) / n,
         "B": lambda slots, n: (slots * 8 + n * 13) / n,
         "Bi": lambda slots, n: (slots * 4 + n * 13) / n,
         "C": lambda slots, n: (slots * 8 + n * 13) / n}


def run(variant, start, lv, bits, cap):
    t = time.perf_counter()
    if variant == "C":
        r = bfs_C(start, lv, bits, cap, DELAY)
    else:
        r = {"A": bfs_A, "B": bfs_B, "Bi": bfs_Bi}[variant](start, lv, bits, cap)
    return time.perf_counter() - t, r[0], r[1]


def gridrules_run(path):
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gridrules", "solve", "bloxorz", str(path), "--algorithm", "bfs", "-v"],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    m = re.search(r"bfs: ([\d,]+) expanded.*?([\d.]+) s \(([\d,]+)/s\)", p.stderr + p.stdout)
    return wall, int(m.group(1).replace(",", "")), float(m.group(2)), int(m.group(3).replace(",", ""))


def main():
    args = sys.argv[1:]
    path = None
    runs, bits, variants, gr = 3, 23, ["A", "B", "Bi", "C"], False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--runs":
            runs = int(args[i + 1]); i += 1
        elif a == "--bits":
            bits = int(args[i + 1]); i += 1
        elif a == "--variants":
            variants = args[i + 1].split(","); i += 1
        elif a == "--delay":
            global DELAY
            DELAY = int(args[i + 1]); i += 1
        elif a == "--gridrules":
            gr = True
        elif a in ("-h", "--help"):
            print(__doc__.split("\nState = ")[0])
            return
        elif a.startswith("-"):
            sys.exit(f"unknown option {a}; see --help")
        else:
            path = a
        i += 1
    REF = None
    if path is None:  # bench.run's bloxorz-large map, with its count of reachable states
        from . import gen
        from .run import write_data

        path = write_data("bloxorz-60-seed1-unreachable.txt",
                          gen.bloxorz_map(60, 1, switches=6, hole="unreachable").own_text())
        REF = 2_703_816
    start, lv = level(path)
    cap = int((1 << bits) * 0.9)
    for v in variants:  # warm-up (compile) + check
        t, n, made = run(v, start, lv, bits, cap)
        REF = REF or n  # (another map: the first variant's count, which every other must match)
        print(f"warm-up {v}: {n:,} states, {made:,} generated, {'OK' if n == REF else f'MISMATCH (expected {REF:,})'}",
              flush=True)
    times = {v: [] for v in variants}
    grt = []
    for k in range(runs):
        for v in variants:
            t, n, made = run(v, start, lv, bits, cap)
            assert n == REF, (v, n)
            times[v].append(t)
            print(f"  run {k} {v}: {t:.3f} s  {n / t / 1e6:.2f} M/s", flush=True)
        if gr:
            w, n, t, rate = gridrules_run(path)
            grt.append(rate)
            print(f"  run {k} gridrules: {n:,} expanded, {t:.3f} s  {rate / 1e6:.2f} M/s (wall {w:.2f} s)", flush=True)
    print(f"table 2^{bits} slots, {REF:,} states, load {REF / (1 << bits):.2f}")
    for v in variants:
        ts = sorted(times[v])
        print(f"{v:3s}: best {REF / ts[0] / 1e6:.2f} M/s  median {REF / ts[len(ts) // 2] / 1e6:.2f} M/s  "
              f"({BYTES[v](1 << bits, REF):.1f} B/state)")
    if grt:
        grt.sort()
        print(f"gridrules bfs: best {grt[-1] / 1e6:.2f} M/s  median {grt[len(grt) // 2] / 1e6:.2f} M/s")


if __name__ == "__main__":
    main()
