"""Golden tests: the exact text gridrules prints for every distinct error message a user can get.

Each case is a small, realistic input with exactly one mistake, next to a `.out` file holding the expected
rendering (`file:line:col: message`, the source line, a caret line, an optional `hint:` line):

  tests/golden/rules/NAME.grl      a rule file; NAME.out is what `compile_rules` reports (or its warnings)
  tests/golden/levels/NAME.txt     a level file, read with the rule file, parameters and format that
                                   LEVEL_CASES below names; NAME.out is what loading it reports
  tests/golden/runtime/NAME.grl    a rule file and its level NAME.txt that load fine; NAME.out is the
                                   RuleRuntimeError that exploring the first moves raises
  tests/golden/native/NAME.grl     likewise, for the errors of the compiled backend alone (a value that passes
                                   its 64-bit integers, where the reference's integers have no limit)

Paths are relative to the repository root (the tests run from there), so the outputs are stable.

To regenerate every .out after an intended change of wording or location, run

    GOLDEN_UPDATE=1 python -m pytest tests/test_golden_errors.py

and review `git diff tests/golden` before committing.
"""
from __future__ import annotations

import os
import re
from collections import deque
from pathlib import Path

import pytest

from gridrules.api import compile_rules, load, read_text, system
from gridrules.errors import Diagnostic, ErrorList, GridrulesError, RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"

FLOODIT = "rulesets/floodit/floodit.grl"
BLOXORZ = "rulesets/bloxorz/bloxorz.grl"
LIANLIANKAN = "rulesets/lianliankan/lianliankan.grl"
DROPS = "rulesets/drops/drops.grl"
SPLASHBACK = "rulesets/splashback/splashback.grl"
OWN = "tests/golden/levels/rules/"

# level case -> (rule file, --param values, forced level format or None)
LEVEL_CASES: dict[str, tuple[str, list[str], str | None]] = {
    "grid_ragged": (FLOODIT, [], None),
    "grid_blank_line": (FLOODIT, [], None),
    "grid_unknown_character": (FLOODIT, [], None),
    "grid_invisible_character": (FLOODIT, [], None),  # (a no-break space: quoted as `\xa0`, not as itself)
    "grid_value_outside_domain": (FLOODIT, [], None),
    "empty_file": (FLOODIT, [], None),
    "hdu4127_ends_early": (FLOODIT, [], None),
    "hdu4127_not_a_number": (FLOODIT, [], None),
    "hdu4127_data_after_end": (FLOODIT, [], None),
    "hdu4127_negative_size": (FLOODIT, [], "hdu4127"),
    "hdu4127_signed_size_detected": (FLOODIT, [], None),  # (read as a ragged grid once)
    "hdu4127_huge_size": (FLOODIT, [], None),
    "hdu4127_no_board": (FLOODIT, [], None),
    "hdu4127_value_outside_domain": (FLOODIT, [], None),
    "floodit_no_colours": (FLOODIT, ["colours=0"], None),
    "huge_domain": ("tests/golden/levels/rules/huge_domain.grl", ["top=4611686018427387904"], None),
    "bloxorz_two_starts": (BLOXORZ, [], None),
    "bloxorz_no_start": (BLOXORZ, [], None),
    "bloxorz_no_hole": (BLOXORZ, [], None),
    "bloxorz_unknown_character": (BLOXORZ, [], None),
    "bloxorz_bad_header": (BLOXORZ, [], "bloxorz_seed002"),
    "bloxorz_size_line_not_numbers": (BLOXORZ, [], None),  # (the own format's "expected `---`" at the end once)
    "bloxorz_negative_size": (BLOXORZ, [], None),
    "bloxorz_zero_size": (BLOXORZ, [], None),
    "bloxorz_too_few_rows": (BLOXORZ, [], None),
    "bloxorz_header_counts_a_split_line": (BLOXORZ, [], None),
    "bloxorz_header_counts_a_switch_line": (BLOXORZ, [], None),  # (once "switch `A` ... no line describing it")
    "bloxorz_header_counts_a_long_switch_line": (BLOXORZ, [], None),  # (once "this map row is longer ...")
    "bloxorz_row_too_long": (BLOXORZ, [], None),
    "bloxorz_described_twice": (BLOXORZ, [], None),
    "bloxorz_split_line": (BLOXORZ, [], None),
    "bloxorz_split_outside": (BLOXORZ, [], None),
    "bloxorz_switch_line": (BLOXORZ, [], None),
    "bloxorz_switch_names_undescribed": (BLOXORZ, [], None),
    "bloxorz_not_a_bridge": (BLOXORZ, [], None),
    "bloxorz_bridge_line": (BLOXORZ, [], None),
    "bloxorz_unexpected_line": (BLOXORZ, [], None),
    "bloxorz_undescribed": (BLOXORZ, [], None),
    "bloxorz_own_no_separator": (BLOXORZ, [], None),
    "bloxorz_own_empty_map": (BLOXORZ, [], None),
    "bloxorz_own_bad_line": (BLOXORZ, [], None),
    "bloxorz_own_second_separator": (BLOXORZ, [], None),  # (once "switch `A` ... has no `switch A: ...` line")
    "bloxorz_own_separator_after_facts": (BLOXORZ, [], None),  # (not "a second line `---`": it is the only one)
    "bloxorz_own_teleport_letter": (BLOXORZ, [], None),
    "bloxorz_own_teleport_line": (BLOXORZ, [], None),
    "bloxorz_own_teleport_outside": (BLOXORZ, [], None),
    "bloxorz_own_switch_letter": (BLOXORZ, [], None),
    "bloxorz_own_switch_names_undescribed": (BLOXORZ, [], None),
    "bloxorz_own_switch_weight": (BLOXORZ, [], None),
    "bloxorz_own_switch_effect": (BLOXORZ, [], None),
    "bloxorz_own_bridge_letter": (BLOXORZ, [], None),
    "bloxorz_own_bridge_state": (BLOXORZ, [], None),
    "bloxorz_own_undescribed": (BLOXORZ, [], None),
    "bloxorz_undeclared_global": (OWN + "bloxorz_undeclared_global.grl", [], None),
    "bloxorz_enum_lacks_value": (OWN + "bloxorz_enum_lacks_value.grl", [], None),
    "bloxorz_array_shape": (OWN + "bloxorz_array_shape.grl", [], None),
    "bloxorz_teleport_table_type": (OWN + "bloxorz_plain.grl", [], None),
    "numbers_ragged": (OWN + "heights.grl", [], None),
    "numbers_blank_line": (OWN + "heights.grl", [], None),
    "numbers_legend_characters": (OWN + "heights_characters.grl", [], None),
    "array_size_zero": (OWN + "tally.grl", ["kinds=0"], None),
    "array_too_large": (OWN + "tally.grl", ["kinds=100000000"], None),
    "bloxorz_huge_map": (BLOXORZ, [], None),
    "hdu4127_wrong_size": (FLOODIT, [], None),
    "hdu4127_row_of_wrong_length": (FLOODIT, [], None),  # (once the grid's `ragged grid`)
    "hdu4127_later_row_of_wrong_length": (FLOODIT, [], None),  # (once `data after the closing 0`, four lines on)
    "hdu1175_query_of_wrong_length": (LIANLIANKAN, [], None),  # (once a size of 0 at the closing `0 0`)
    "hdu1175_row_of_wrong_length": (LIANLIANKAN, [], None),  # (once read as rows of numbers: `ragged grid`)
    "hdu4127_size_not_alone": (FLOODIT, [], None),
    "hdu1175_size_line_of_wrong_length": (LIANLIANKAN, [], None),
    "hdu1175_query_count_of_wrong_length": (LIANLIANKAN, [], None),
    "init_loops_run_long": (OWN + "endless_init.grl", [], None),
    "legend_loops_run_long": (OWN + "busy_legend.grl", [], None),
    "array_too_large_2d": (OWN + "table.grl", ["size=5000"], None),
    "roller_no_start": (OWN + "roller.grl", [], None),
    "roller_two_starts": (OWN + "roller.grl", [], None),
    "roller_no_exit": (OWN + "roller.grl", [], None),
    "roller_start_at_edge": (OWN + "roller_beside.grl", [], None),
    "hdu1175_ends_early": (LIANLIANKAN, [], "hdu1175"),
    "hdu1175_query_count_too_large": (LIANLIANKAN, [], None),  # (once at the last query's `4`: "needs 4 numbers")
    "hdu1175_data_after_end": (LIANLIANKAN, [], None),
    "hdu1175_zero_size": (LIANLIANKAN, [], "hdu1175"),
    "hdu1175_negative_query_count": (LIANLIANKAN, [], "hdu1175"),
    "hdu1175_query_outside": (LIANLIANKAN, [], None),
    "hdu1175_no_board": (LIANLIANKAN, [], "hdu1175"),
    "lianliankan_odd_count": (LIANLIANKAN, [], None),
    "unordered_ranges_differ": (OWN + "unordered_ranges.grl", [], None),
    "drops_size_outside": (DROPS, [], None),
    "parameter_cell_outside_level": (FLOODIT, ["pivot=3,3"], None),
    "parameter_default_cell_outside_level": (OWN + "corner_target.grl", [], None),
    "drops_not_a_size": (DROPS, [], None),
    "drops_other_digits": (DROPS, [], None),
    "drops_digit_separator": (DROPS, [], None),
    "drops_too_many_digits": (DROPS, [], None),
    "drops_ragged": (DROPS, [], None),
    "drops_grid_unknown": (DROPS, [], "grid"),
    "splashback_supply_over_hand": (SPLASHBACK, ["supply=120"], None),
}

LOCATED = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): ")


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _names(folder: str, suffix: str) -> list[str]:
    return sorted(p.name[: -len(suffix)] for p in (GOLDEN / folder).glob("*" + suffix))


def _diagnostics(err: GridrulesError) -> list[Diagnostic]:
    return list(err.errors) if isinstance(err, ErrorList) else [err]


def _compare(out: Path, rendered: str, paths: tuple[str, ...]) -> None:
    """The rendering is located and traceback-free, and equals the golden text (or rewrites it)."""
    assert "Traceback" not in rendered
    first = rendered.splitlines()[0]
    m = LOCATED.match(first)
    assert m, f"not `path:line:col: message`: {first!r}"
    assert m["path"] in paths, f"{m['path']} is none of {paths}"
    text = rendered + "\n"
    if UPDATE:
        out.write_text(text)
        return
    assert out.exists(), f"{out} is missing: run with GOLDEN_UPDATE=1 to create it"
    assert text == out.read_text(), f"{out.name} differs (GOLDEN_UPDATE=1 rewrites it)"


def _located(err: GridrulesError) -> None:
    for d in _diagnostics(err):
        assert d.span is not None, f"unlocated diagnostic: {d.message}"


# ---- rule files ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", _names("rules", ".grl"))
def test_rule_file(name):
    path = f"tests/golden/rules/{name}.grl"
    text = read_text(ROOT / path, "rule file")  # (as the CLI reads it: a lone CR stays a CR)
    try:
        _, warnings = compile_rules(text, path)
    except GridrulesError as err:
        _located(err)
        rendered = err.render()
    else:
        assert warnings, f"{path} compiled without any error or warning"
        rendered = "\n".join(w.render() for w in warnings)
    _compare(GOLDEN / "rules" / f"{name}.out", rendered, (path,))


# ---- level files --------------------------------------------------------------------------------
def test_level_cases_match_files():
    assert sorted(LEVEL_CASES) == _names("levels", ".txt")


@pytest.mark.parametrize("name", sorted(LEVEL_CASES))
def test_level_file(name):
    rules, params, fmt = LEVEL_CASES[name]
    level = f"tests/golden/levels/{name}.txt"
    with pytest.raises(GridrulesError) as info:
        for inst in load(rules, level, params, level_format=fmt):
            if inst.raw.query_error is not None:  # (a level whose queries alone are wrong: `query` raises it)
                raise inst.raw.query_error
    err = info.value
    _located(err)
    _compare(GOLDEN / "levels" / f"{name}.out", err.render(), (level, rules))


# ---- errors while the rules run -----------------------------------------------------------------
def _explore(inst, sys_=None, limit: int = 200) -> None:
    """Breadth-first over the first `limit` states: enough to reach each runtime golden's mistake."""
    sys_ = sys_ or system(inst, "reference")
    seen = {inst.initial}
    todo = deque([inst.initial])
    while todo and len(seen) < limit:
        state = todo.popleft()
        for _, nxt, _ in sys_.successors(state):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)


@pytest.mark.parametrize("name", _names("runtime", ".grl"))
def test_runtime_error(name):
    rules, level = f"tests/golden/runtime/{name}.grl", f"tests/golden/runtime/{name}.txt"
    (inst,) = load(rules, level)
    with pytest.raises(RuleRuntimeError) as info:
        _explore(inst)
    _located(info.value)
    _compare(GOLDEN / "runtime" / f"{name}.out", info.value.render(), (rules,))


@pytest.mark.parametrize("name", _names("native", ".grl"))
def test_native_runtime_error(name):
    """Errors of the compiled backend alone (a value past its 64-bit integers), met along the first moves: a
    rule file and its level NAME.txt, as for runtime errors."""
    pytest.importorskip("numba")
    from gridrules.compiled.system import CompiledSystem

    rules, level = f"tests/golden/native/{name}.grl", f"tests/golden/native/{name}.txt"
    (inst,) = load(rules, level)
    native = CompiledSystem(inst)
    with pytest.raises(RuleRuntimeError) as info:
        state = inst.initial
        while True:  # (the first moves, each after another, with every heuristic)
            for h in inst.game.heuristics:
                system(inst, "compiled", h.name).heuristic(state)
            state = native.successors(state)[0][1]
    _located(info.value)
    _compare(GOLDEN / "native" / f"{name}.out", info.value.render(), (rules,))


def test_every_golden_has_its_input():
    """No stale .out files: each belongs to a case that runs."""
    for folder, suffix in (("rules", ".grl"), ("levels", ".txt"), ("runtime", ".grl"), ("native", ".grl")):
        inputs = set(_names(folder, suffix))
        assert set(_names(folder, ".out")) <= inputs, folder


# The compiled backend stops on the same mistakes, located; these it words exactly as the reference does (the
# others lack the value involved: native code raises constant messages).
COMPILED_VERBATIM = {"ambiguous_notation", "negative_cost", "store_cell_off_board", "chain_never_ends",
                     "emit_too_many"}


@pytest.mark.parametrize("name", _names("runtime", ".grl"))
def test_runtime_error_compiled(name):
    pytest.importorskip("numba")
    from gridrules.compiled.system import CompiledSystem

    rules, level = f"tests/golden/runtime/{name}.grl", f"tests/golden/runtime/{name}.txt"
    (inst,) = load(rules, level)
    with pytest.raises(RuleRuntimeError) as info:
        _explore(inst, CompiledSystem(inst))
    _located(info.value)
    if name in COMPILED_VERBATIM:
        assert info.value.render() == (GOLDEN / "runtime" / f"{name}.out").read_text().rstrip("\n")


@pytest.mark.parametrize("algorithm", ["bfs", "astar", "idastar", "iddfs"])
@pytest.mark.parametrize("name", ["ambiguous_notation", "negative_cost"])
def test_runtime_error_native_search(name, algorithm):
    """The native searches stop at the rule errors the reference reports, with the same message (they once
    ignored a repeated move text and grew without bound on a negative cost)."""
    pytest.importorskip("numba")
    from gridrules.compiled.system import CompiledSystem

    (inst,) = load(f"tests/golden/runtime/{name}.grl", f"tests/golden/runtime/{name}.txt")
    with pytest.raises(RuleRuntimeError) as info:
        CompiledSystem(inst).search(algorithm)
    assert info.value.render() == (GOLDEN / "runtime" / f"{name}.out").read_text().rstrip("\n")


def test_a_level_with_too_many_cells(monkeypatch, tmp_path):
    """The limit on a level's cells (16,777,216: a file that large is 16 MB, so not a golden file): here 4."""
    import gridrules.levels

    monkeypatch.setattr(gridrules.levels, "MAX_CELLS", 4)
    level = tmp_path / "big.txt"
    level.write_text("012\n345\n012\n")
    with pytest.raises(GridrulesError) as err:
        load(FLOODIT, str(level))
    assert err.value.render() == f"{level}:1:1: the level would have 3 x 3 cells: more than the 4 a level may have\n  012\n  ^"
