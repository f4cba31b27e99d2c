"""The pass that leaves each generated function only the arrays it reads (gridrules/compiled/prune.py)."""
from __future__ import annotations

import ast

from gridrules.compiled.prune import prune_arrays

SOURCE = '''
def leaf(x, D, g, SL, SG, BM, ab):
    return D[0, x] + SG[1]

def middle(x, D, g, SL, SG, BM, ab):
    return leaf(x, D, g, SL, SG, BM, ab) + x

def outer(x, D0, g0, D, g, SL, SG, BM, ab):
    ab[0] = 1
    return middle(x, D0, g0, SL, SG, BM, ab)

def none_at_all(x, D, g, SL, SG, BM, ab):
    return x

def handed_on(D, g):
    return 0

def kept(D, g):
    return 0

def expand(s, SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D, g, BM, ab):
    run(handed_on)
    table = (kept,)
    return outer(1, D0, g0, D, g, SL, SG, BM, ab) + none_at_all(2, D, g, SL, SG, BM, ab)
'''


def signatures(source: str) -> dict[str, list[str]]:
    return {f.name: [a.arg for a in f.args.args] for f in ast.parse(source).body if isinstance(f, ast.FunctionDef)}


def calls(source: str) -> dict[str, list[str]]:
    return {n.func.id: [ast.unparse(a) for a in n.args] for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def test_each_function_keeps_the_arrays_it_or_its_callees_read():
    out = prune_arrays(SOURCE)
    sig = signatures(out)
    assert sig["leaf"] == ["x", "D", "SG"]
    assert sig["middle"] == ["x", "D", "SG"]  # (only what leaf reads)
    assert sig["outer"] == ["x", "D0", "SG", "ab"]  # its own ab, and D0 handed on as middle's D
    assert sig["none_at_all"] == ["x"]
    assert calls(out)["middle"] == ["x", "D0", "SG"]
    assert calls(out)["outer"] == ["1", "D0", "SG", "ab"]
    assert calls(out)["none_at_all"] == ["2"]


def test_entry_points_and_functions_passed_as_values_keep_their_signatures():
    sig = signatures(prune_arrays(SOURCE))
    assert sig["expand"] == ["s", "SL", "SG", "MA", "MARG", "OUT", "MOVE", "COST", "D0", "g0", "D", "g", "BM", "ab"]
    assert sig["handed_on"] == sig["kept"] == ["D", "g"]


def test_the_pruned_module_computes_what_the_whole_one_does():
    import numpy as np

    def run_module(source):
        space = {"run": lambda f: None}
        exec(compile(source, "<generated>", "exec"), space)
        D0 = np.arange(12).reshape(2, 6)
        args = (None, None, np.array([0, 7]), None, None, None, None, None, D0, None, D0 + 100, None, None,
                np.zeros(2, np.int64))
        return space["expand"](*args), args[-1].tolist()

    assert run_module(prune_arrays(SOURCE)) == run_module(SOURCE) == ((1 + 7 + 1) + 2, [1, 0])


def test_an_array_handed_on_as_a_plain_value_counts_as_read():
    source = '''
def size(n, SG):
    return n

def caller(D, SG):
    return size(D, SG)
'''
    assert signatures(prune_arrays(source)) == {"size": ["n"], "caller": ["D"]}


def test_the_pass_is_remembered_in_the_cache_directory(tmp_path, monkeypatch):
    from gridrules.compiled.prune import prune_cached

    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path))
    prune_cached.cache_clear()
    assert prune_cached(SOURCE) == prune_arrays(SOURCE)
    (kept,) = (tmp_path / "pruned").glob("*.py")
    kept.write_text("# what the cache holds\n")
    prune_cached.cache_clear()
    assert prune_cached(SOURCE) == "# what the cache holds\n"  # read back, not computed again
    prune_cached.cache_clear()
    assert prune_cached(SOURCE + "\n") == prune_arrays(SOURCE)  # another source: its own entry
    prune_cached.cache_clear()
