"""A pass over a generated module: each function takes only the arrays it (or what it calls) reads.

The code generator gives every function the same arrays (the state rows D, g / D0, g0 and the level's SL, SG,
BM, ab) so that any function can call any other. Each array passed costs a reference-count increment and
decrement in numba's calling convention, which dominated small functions called per cell (a prefilter probe:
~40 ns a call, ~10 of them its own work). This pass removes the array parameters a function never reads, from
its definition and from every call of it, working out through the call graph what each callee needs.
"""
from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

from ..cache import cache_dir, store

ARRAYS = frozenset({"s", "D", "g", "D0", "g0", "SL", "SG", "BM", "ab"})  # (s: the packed state a heuristic reads)
# entry points: their signatures are fixed by loops.py
FIXED = frozenset({"expand", "heuristic", "goal", "deadlock", "score"})


@functools.lru_cache(maxsize=64)
def prune_cached(source: str) -> str:
    """prune_arrays, remembered in the cache directory by a hash of the source and of this pass: the pass (ast
    parse and unparse) takes ~20 ms a module, which every run that finds its native code cached would spend."""
    key = hashlib.sha256(source.encode() + Path(__file__).read_bytes()).hexdigest()[:24]
    path = cache_dir() / "pruned" / f"{key}.py"
    try:
        return path.read_text()
    except OSError:
        pass
    pruned = prune_arrays(source)
    store(path, pruned.encode())
    return pruned


def prune_arrays(source: str) -> str:
    tree = ast.parse(source)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name not in FIXED}
    params = {name: [a.arg for a in f.args.args] for name, f in functions.items()}
    # a function named other than as a callee (a value passed around) keeps its signature
    callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in functions and id(node) not in callees:
            del functions[node.id]
    calls: dict[str, list[ast.Call]] = {}  # caller -> its calls of prunable functions
    direct: dict[str, set[str]] = {}  # function -> the array parameters it reads itself
    for f in [f for f in tree.body if isinstance(f, ast.FunctionDef)]:
        mine = [a.arg for a in f.args.args if a.arg in ARRAYS]
        passed = set()  # (ids of Name nodes that are only handed on as a callee's array)
        calls[f.name] = []
        for node in ast.walk(f):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
                calls[f.name].append(node)
                passed |= {id(a) for a, p in zip(node.args, params[node.func.id])
                           if isinstance(a, ast.Name) and p in ARRAYS}
        direct[f.name] = {n.id for n in ast.walk(f) if isinstance(n, ast.Name) and n.id in mine
                          and (id(n) not in passed or not isinstance(n.ctx, ast.Load))}
    needed = {name: set(direct[name]) for name in direct}
    changed = True
    while changed:  # what a callee needs, its caller must have to pass on
        changed = False
        for caller, found in calls.items():
            for call in found:
                callee = call.func.id
                for k, arg in enumerate(call.args):
                    if (k < len(params[callee]) and params[callee][k] in ARRAYS
                            and params[callee][k] in needed[callee] and isinstance(arg, ast.Name)
                            and arg.id not in needed[caller]):
                        needed[caller].add(arg.id)
                        changed = True
    keep = {name: [p not in ARRAYS or p in needed[name] for p in params[name]] for name in functions}
    for name, f in functions.items():
        f.args.args = [a for a, k in zip(f.args.args, keep[name]) if k]
    for found in calls.values():
        for call in found:
            call.args = [a for a, k in zip(call.args, keep[call.func.id]) if k]
    for f in tree.body:
        if isinstance(f, ast.FunctionDef) and f.name in FIXED:
            _drop_unread_decode(f)
    return ast.unparse(tree) + "\n"


def _drop_unread_decode(entry: ast.FunctionDef) -> None:
    """An entry point whose code reads the state only from its packed words (value masks from its planes, cells
    from their bits: codegen's Lowering.packed) leaves out its `_decode(s, D, g, SG)`: the rows it would fill
    are read by nothing after it (their `X = rt.borrow(X)` aside)."""
    def borrowing(st) -> bool:
        return (isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and isinstance(st.value.func,
                ast.Attribute) and st.value.func.attr == "borrow")

    decodes = [st for st in entry.body if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
               and isinstance(st.value.func, ast.Name) and st.value.func.id == "_decode"]
    if len(decodes) != 1:
        return
    filled = {a.id for a in decodes[0].value.args[1:] if isinstance(a, ast.Name)} - {"SG"}
    rest = [st for st in entry.body if st is not decodes[0] and not borrowing(st)]
    read = {n.id for st in rest for n in ast.walk(st) if isinstance(n, ast.Name)}
    if not filled & read:
        entry.body.remove(decodes[0])
