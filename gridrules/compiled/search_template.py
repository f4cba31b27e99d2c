"""The native search loop, appended to every generated module (it calls that module's expand/goal/heuristic).

Best-first search over packed states: A* when `use_h`, uniform-cost (breadth-first by cost, correct with
zero-cost moves) otherwise. Every array the search needs is passed in, so a call can stop after `chunk`
expansions and a later call resumes where it stopped: Python shows progress and checks budgets in between.
States live in K (one row per state), found through an open-addressing table T of row numbers; duplicate
detection compares every word (exact, never a lossy hash).
"""

SEARCH = '''

@njit(cache=True)
def _hash(K, i, words):
    h = np.uint64(1469598103934665603)
    for w in range(words):
        x = K[i, w] ^ (h >> np.uint64(29))
        x = (x * np.uint64(0xbf58476d1ce4e5b9))
        x ^= x >> np.uint64(32)
        h = (h ^ x) * np.uint64(0x94d049bb133111eb)
    return h


@njit(cache=True)
def _find(K, T, i, words):
    """The table slot holding a row equal to row i, or the empty slot where it belongs."""
    mask = np.uint64(T.shape[0] - 1)
    slot = _hash(K, i, words) & mask
    while True:
        j = T[slot]
        if j < 0:
            return slot
        same = True
        for w in range(words):
            if K[j, w] != K[i, w]:
                same = False
                break
        if same:
            return slot
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True)
def _push(HF, HG, HI, meta, f, g, i):
    n = meta[1]
    HF[n] = f
    HG[n] = g
    HI[n] = i
    meta[1] = n + 1
    while n > 0:
        p = (n - 1) >> 1
        if HF[p] < HF[n] or (HF[p] == HF[n] and HG[p] >= HG[n]):
            break
        HF[p], HF[n] = HF[n], HF[p]
        HG[p], HG[n] = HG[n], HG[p]
        HI[p], HI[n] = HI[n], HI[p]
        n = p


@njit(cache=True)
def _pop(HF, HG, HI, meta):
    n = meta[1] - 1
    top_g, top_i = HG[0], HI[0]
    HF[0], HG[0], HI[0] = HF[n], HG[n], HI[n]
    meta[1] = n
    k = 0
    while True:
        a = 2 * k + 1
        if a >= n:
            break
        b = a + 1
        c = a
        if b < n and (HF[b] < HF[a] or (HF[b] == HF[a] and HG[b] > HG[a])):
            c = b
        if HF[k] < HF[c] or (HF[k] == HF[c] and HG[k] >= HG[c]):
            break
        HF[k], HF[c] = HF[c], HF[k]
        HG[k], HG[c] = HG[c], HG[k]
        HI[k], HI[c] = HI[c], HI[k]
        k = c
    return top_g, top_i


@njit(cache=True)
def best_first(SL, SG, MA, MARG, K, G, PARENT, MOVE_OF, T, HF, HG, HI, meta, use_h, max_cost, chunk):
    """meta: [states, heap size, expanded, generated, duplicates, found row, status]. status: -1 fresh (row 0
    holds the start), 0 running, 1 found (meta[5]), 2 exhausted, 3 out of room (grow the arrays and call again)."""
    words = K.shape[1]
    OUT = np.zeros((MA.shape[0], words), np.uint64)
    MOVE = np.zeros(MA.shape[0], np.int64)
    COST = np.zeros(MA.shape[0], np.int64)
    D0, g0, D1, g1, FULL, ab = _work()  # (the scratch rows; g is the path cost below)
    if meta[6] == -1:
        meta[6] = 0
        T[_find(K, T, 0, words)] = 0
        meta[0] = 1
        G[0] = 0
        _push(HF, HG, HI, meta, heuristic(K[0], SL, SG, D1, g1, FULL, ab) if use_h else 0, 0, 0)
    done = 0
    while meta[1] > 0:
        if done >= chunk:
            return
        f0 = HF[0]
        g, i = _pop(HF, HG, HI, meta)
        if g != G[i]:
            continue  # a stale entry: the state was reached more cheaply since
        if goal(K[i], SL, SG, D1, g1, FULL, ab):
            meta[5] = i
            meta[6] = 1
            # put it back, so that a resumed search (for another solution) sees a consistent heap
            _push(HF, HG, HI, meta, f0, g, i)
            return
        meta[2] += 1
        done += 1
        n = expand(K[i], SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D1, g1, FULL, ab)
        for m in range(n):
            ng = g + COST[m]
            if max_cost >= 0 and ng > max_cost:
                continue
            meta[3] += 1
            new = meta[0]
            if new >= K.shape[0] or meta[1] + 1 >= HF.shape[0]:
                meta[6] = 3
                # undo this expansion: it will be redone after the arrays grow
                _push(HF, HG, HI, meta, f0, g, i)
                meta[2] -= 1
                return
            for w in range(words):
                K[new, w] = OUT[m, w]
            slot = _find(K, T, new, words)
            j = T[slot]
            if j >= 0:
                meta[4] += 1
                if ng >= G[j]:
                    continue
                target = j  # reached more cheaply: reopen
            else:
                T[slot] = new
                meta[0] = new + 1
                target = new
            G[target] = ng
            PARENT[target] = i
            MOVE_OF[target] = MOVE[m]
            h = heuristic(K[target], SL, SG, D1, g1, FULL, ab) if use_h else 0
            if max_cost >= 0 and use_h and ng + h > max_cost:
                continue
            _push(HF, HG, HI, meta, ng + h, ng, target)
        if 4 * meta[0] > 3 * T.shape[0]:
            meta[6] = 3
            return
    meta[6] = 2


@njit(cache=True)
def rehash(K, n, T):
    words = K.shape[1]
    for s in range(T.shape[0]):
        T[s] = -1
    for i in range(n):
        T[_find(K, T, i, words)] = i
'''
