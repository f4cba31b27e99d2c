"""A dynamic bool array of at most 64 elements is held by the compiled backend as one word, a bit an element
(codegen.Lowering.bit_arrays), not a slot a bool. Both backends must still agree move for move: reads and stores
at indices worked out at run time, a move's leading `require` on its parent's array (`head`), a def that stores
into it, a goal and a heuristic that read it, arrays of one and two dimensions, 64 elements (the sign bit) and
65 (held as before), laid out after fields that leave it in the middle of a word or spill it into the next."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from helpers import instance_from_rules, native_agrees, system, walk_and_compare

pytest.importorskip("numba")

RULES = """\
game bits "Bits"
param pad_top: int = 0
global pad: 0..pad_top          # a field laid out before the array: it moves the array's bits in the word
global lit[{dims}]: bool
global cursor: 0..{last}

def light(i: int):
    lit[{at_i}] = true

action flip(i: 0..{last}) "f{{i}}":
    lit[{at_i}] = not lit[{at_i}]

action on(i: 0..{last}) "o{{i}}":
    require not lit[{at_i}]
    light(i)

action walk() "w":
    require lit[{at_cursor}]
    cursor = (cursor + 1) % {count}

action copy(i: 0..{last}) "c{{i}}":
    require lit[{at_cursor}] != lit[{at_i}]
    lit[{at_i}] = lit[{at_cursor}]

action grow() "p":
    require pad < pad_top
    pad += 1

goal: lit[{at_first}] and lit[{at_last}] and not lit[{at_middle}]

heuristic lit_left admissible:
    let need = 0
    if not lit[{at_first}]:
        need += 1
    if not lit[{at_last}]:
        need += 1
    if lit[{at_middle}]:
        need += 1
    return need

init:
    lit[{at_middle}] = true

level grid:
    '.' : pass
"""


def rules(dims: tuple[int, ...]) -> str:
    count = 1
    for d in dims:
        count *= d

    def at(flat: str) -> str:  # an element of the flat index `flat`, in the array's dimensions
        if len(dims) == 1:
            return flat
        return f"({flat}) / {dims[1]}, ({flat}) % {dims[1]}"

    return RULES.format(dims=", ".join(map(str, dims)), last=count - 1, count=count, at_i=at("i"),
                        at_cursor=at("cursor"), at_first=at("0"), at_last=at(str(count - 1)),
                        at_middle=at(str(count // 2)))


# (shape, pad_top): the array after 1 bit; after 10 bits; spilling into a second word after 40; the sign bit,
# spilling after 62; two dimensions, the 64th element the sign bit; 65 elements, held a slot each as before
CASES = [((26,), 0), ((26,), 1000), ((26,), (1 << 40) - 1), ((64,), (1 << 62) - 1), ((8, 8), 0), ((65,), 0)]


def bits_instance(shape, pad_top):
    return instance_from_rules(rules(shape), "..\n", {"pad_top": pad_top})


def test_small_bool_arrays_are_one_word_of_the_globals_row():
    from gridrules.compiled.codegen import Lowering

    for shape, pad_top in CASES:
        low = Lowering(bits_instance(shape, pad_top), None)
        held = shape != (65,)
        assert ("lit" in low.bit_arrays) == held, shape
        assert low.ng == (3 if held else 2 + 65), shape  # pad, cursor, the array


@pytest.mark.parametrize("shape, pad_top", CASES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_bool_arrays_walk_alike_in_both_backends(shape, pad_top, seed):
    walk_and_compare(bits_instance(shape, pad_top), seed, steps=40)


@pytest.mark.parametrize("shape, pad_top", CASES)
def test_native_searches_over_bool_arrays_find_the_optimum(shape, pad_top):
    """The middle element turned off, the first and last on: three moves (the heuristic counts them)."""
    inst = bits_instance(shape, pad_top)
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    native_agrees(inst, nat, ref, algorithms=("astar", "bfs") if shape == (26,) and pad_top == 0 else ("astar",))
    assert nat.search("astar").cost == 3
