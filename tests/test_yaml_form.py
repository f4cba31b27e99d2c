"""The YAML form of rule files: twins of the DSL files compile to the same game, spans are true, every error
is located, and no input gives a traceback."""
from __future__ import annotations

import dataclasses
import textwrap

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from helpers import ROOT
from gridrules import ast as A
from gridrules.api import compile_rules, parse_rules
from gridrules.errors import GridrulesError, RuleError, Source, Span
from gridrules.syntax import parse_dsl, parse_snippet, parse_yaml
from gridrules.syntax.yaml_form import canonical

TWINS = sorted(p.parent.name for p in (ROOT / "rulesets").glob("*/*.yaml") if p.with_suffix(".grl").exists())


def twin_texts(name):
    folder = ROOT / "rulesets" / name
    return (folder / f"{name}.grl").read_text(), (folder / f"{name}.yaml").read_text()


def without_positions(x):
    """An IR value with every source position blanked: equality then means the same game, wherever it was written."""
    if isinstance(x, Span):
        return None
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.replace(x, **{f.name: without_positions(getattr(x, f.name))
                                         for f in dataclasses.fields(x) if f.init})
    if isinstance(x, (tuple, list)):
        return type(x)(without_positions(v) for v in x)
    if isinstance(x, dict):
        return {k: without_positions(v) for k, v in x.items()}
    return x


def game_ir(text, path):
    game, _ = compile_rules(text, path)
    return without_positions(dataclasses.replace(game, path=""))


# ---- twins ---------------------------------------------------------------------------------------
def test_the_bundled_twins_are_found():
    assert "floodit" in TWINS
    if (ROOT / "rulesets/bloxorz/bloxorz.grl").exists():
        assert "bloxorz" in TWINS


@pytest.mark.parametrize("name", TWINS)
def test_twins_give_the_same_syntax_tree(name):
    dsl, yml = twin_texts(name)
    a, b = parse_dsl(dsl, f"{name}.grl"), parse_yaml(yml, f"{name}.yaml")
    assert a == b  # written in the same order, so equal without reordering
    assert canonical(a) == canonical(b)


@pytest.mark.parametrize("name", TWINS)
def test_twins_compile_to_the_same_game(name):
    dsl, yml = twin_texts(name)
    assert game_ir(dsl, f"{name}.grl") == game_ir(yml, f"{name}.yaml")


@pytest.mark.parametrize("name", TWINS)
def test_both_yaml_loaders_read_the_same(name, monkeypatch):
    """libyaml when installed, pyyaml's own loader otherwise: the same trees and spans either way."""
    from gridrules.syntax import yaml_form

    _, yml = twin_texts(name)
    fast = parse_yaml(yml, "f.yaml")
    monkeypatch.setattr(yaml_form, "_FAST_LOADER", yaml.SafeLoader)
    slow = parse_yaml(yml, "f.yaml")
    assert fast == slow
    assert [x.span for x, _ in pairs(fast, fast)] == [y.span for y, _ in pairs(slow, slow)]


def test_parse_rules_dispatches_on_the_suffix():
    dsl, yml = twin_texts("floodit")
    assert parse_rules(yml, "x.yaml") == parse_rules(yml, "x.yml") == parse_rules(dsl, "x.grl")


def test_canonical_orders_sections_by_kind():
    dsl, yml = twin_texts("floodit")
    head, rest = yml.split("\nparams:", 1)
    params, rest = rest.split("\nlayers:", 1)
    moved = head + "\nlayers:" + rest + "\nparams:" + params  # params last
    assert parse_yaml(moved, "f.yaml") != parse_dsl(dsl, "f.grl")
    assert canonical(parse_yaml(moved, "f.yaml")) == canonical(parse_dsl(dsl, "f.grl"))
    assert game_ir(moved, "f.yaml") == game_ir(dsl, "f.grl")  # only kinds moved, not their order


# ---- spans ---------------------------------------------------------------------------------------
SNIPPET_NODES = tuple(t for t in vars(A).values() if isinstance(t, type) and issubclass(t, A.Node) and t not in (
    A.Node, A.RuleFile, A.Game, A.Param, A.EnumDecl, A.LayerDecl, A.GlobalDecl, A.BodyDecl, A.Pose, A.DefDecl,
    A.ActionDecl, A.InitDecl, A.GoalDecl, A.FailDecl, A.DeadlockDecl, A.LimitDecl, A.HeuristicDecl, A.ScoreDecl,
    A.LevelDecl, A.LegendEntry,
    A.ParamDecl, A.ParticleDecl, A.ParticleProp))


def pairs(a, b):
    """Corresponding nodes of two equal trees."""
    if isinstance(a, A.Node):
        yield a, b
        for f in dataclasses.fields(a):
            if f.name != "span":
                yield from pairs(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, tuple):
        for x, y in zip(a, b):
            yield from pairs(x, y)


def span_text(span):
    assert span is not None
    return span.source.line_text(span.line)[span.col - 1:span.end_col - 1]


@pytest.mark.parametrize("name", TWINS)
def test_every_expression_and_statement_points_at_the_same_text_in_both_forms(name):
    dsl, yml = twin_texts(name)
    a, b = parse_dsl(dsl, f"{name}.grl"), parse_yaml(yml, f"{name}.yaml")
    compared = 0
    for x, y in pairs(a, b):
        assert y.span is not None and y.span.source.path == f"{name}.yaml", x
        if isinstance(x, SNIPPET_NODES) and x.span.line == x.span.end_line:
            assert y.span.line == y.span.end_line
            assert span_text(x.span) == span_text(y.span), (x, x.span, y.span)
            compared += 1
    assert compared > 50  # (the smallest twin, drops, has about 90)


def spans(text):
    return [(n.span.line, n.span.col, n.span.end_line, n.span.end_col) for n in text]


YAML_SPANS = textwrap.dedent("""\
    goal: a +
      b_long
    init: |
      let x = 1
      if x:
          y = 2
    fail: 'p or
      q'
    """)


def test_snippet_spans_on_one_line():
    e = parse_snippet("x == 3", Source("g.yaml", "goal:    x == 3\n"), "expr", 1, 10)
    assert spans([e, e.left, e.right]) == [(1, 10, 1, 16), (1, 10, 1, 11), (1, 15, 1, 16)]


def test_snippet_spans_of_an_expression_over_several_lines():
    # a plain YAML value that runs over two lines: the second line starts at column 1 of the file
    src = Source("f.yaml", YAML_SPANS)
    e = parse_snippet("a +\n  b_long", src, "expr", 1, 7)
    assert spans([e.left, e.right]) == [(1, 7, 1, 8), (2, 3, 2, 9)]  # (the old code put b_long at 1:11)
    e = parse_snippet("p or\n  q", src, "expr", 7, 8)
    assert spans([e.left, e.right]) == [(7, 8, 7, 9), (8, 3, 8, 4)]


def test_snippet_spans_in_a_block():
    src = Source("f.yaml", YAML_SPANS)
    body = parse_snippet("let x = 1\nif x:\n    y = 2\n", src, "stmts", 4, 3, block=True)
    assert spans(body)[0] == (4, 3, 4, 12)
    assert (body[1].span.line, body[1].span.col) == (5, 3)
    inner = body[1].branches[0][1][0]
    assert spans([inner, inner.value]) == [(6, 7, 6, 12), (6, 11, 6, 12)]


def test_snippet_legend_lines_and_semicolons():
    text = "x:\n  a = 1; bb = 2\n  c = 3\n"
    body = parse_snippet("a = 1; bb = 2\nc = 3", Source("f.yaml", text), "legend", 2, 3, block=True)
    assert spans(body) == [(2, 3, 2, 8), (2, 10, 2, 16), (3, 3, 3, 8)]


def test_yaml_spans_follow_the_yaml_text():
    text = textwrap.dedent("""\
        game: g
        actions:
          a:
            cost: "2 + k"
            when: >
              k > 0 and
                k < 9
            body: |
              require k > 1
        """)
    act = parse_yaml(text, "f.yaml").decls[1]
    assert span_text(act.span) == "a"
    assert span_text(act.cost.span) == "2 + k"
    assert span_text(act.cost.right.span) == "k"
    assert (act.when.right.span.line, span_text(act.when.right.span)) == (7, "k < 9")
    assert (act.body[0].span.line, span_text(act.body[0].span)) == (9, "require k > 1")


# ---- every form the YAML allows, against the DSL --------------------------------------------------
def same(dsl, yml):
    assert parse_yaml(textwrap.dedent(yml), "t.yaml") == parse_dsl(textwrap.dedent(dsl), "t.grl")


def test_short_and_long_spellings():
    same("""\
        game g
        layer a: 0..9
        layer b: bool static
        global n: 0..3
        global m[2, k + 1]: int = 5 static
        global q[4]: cell
        """, """\
        game: g
        layers:
          a: 0..9
          b: {type: bool, static: true}
        globals:
          n: 0..3
          m: {type: int, dims: [2, k + 1], default: 5, static: true}
          q: {type: cell, dims: 4}
        """)


def test_bodies_in_all_spellings():
    dsl = """\
        game g
        body blk:
            pose up: (0, 0)
            pose row: (0, 0) (0, 1)
            roll up: L -> row (0, -2), R -> row (0, 1)
            roll row: L -> up (0, -1)
        """
    same(dsl, """\
        game: g
        bodies:
          blk:
            poses: {up: "(0, 0)", row: [[0, 0], [0, 1]]}
            rolls:
              up: L -> row (0, -2), R -> row (0, 1)
              row: {L: [up, [0, -1]]}
        """)
    same(dsl, """\
        game: g
        globals:
          blk:
            poses:
              up: ["(0,0)"]
              row: (0, 0) (0, 1)
            rolls:
              up:
                L: row (0, -2)
                R: row (0, 1)
              row: "L -> up (0, -1)"
        """)


def test_defs_actions_and_conditions():
    same("""\
        game g "A game"
        def f(p: cell, k: 0..3):
            return k
        def tick():
            pass
        action go(d: dir) "{d}" cost 2 when on:
            x += 1
        action stop():
            pass
        init:
            x = 0
        goal: x == 3
        goal: y
        fail: z
        limit 10
        heuristic h: x + 1
        heuristic h2 admissible:
            return 0
        """, """\
        game: g
        title: "A game"
        defs:
          f: {params: {p: cell, k: 0..3}, body: return k}
          tick: pass
        actions:
          go:
            params: {d: dir}
            notation: "{d}"
            cost: 2
            when: "on"
            body: x += 1
          stop: pass
        init: x = 0
        goal: [x == 3, y]
        fail: z
        limit: 10
        heuristics:
          h: {expr: x + 1}
          h2: {admissible: true, body: return 0}
        """)


def test_legends():
    same("""\
        game g
        level grid, other:
            '#' : w = 1
            '*' : w = 2
            * : w = 3; v = 4
            'a'..'c' : w = value
            '.' : require w == 0 else "no: never"
        """, """\
        game: g
        levels:
          grid, other:
            "#": w = 1
            "'*'": w = 2
            "*": |
              w = 3
              v = 4
            a..c: w = value
            .: |
              require w == 0 else "no: never"
        """)


def test_a_multi_line_expression_is_one_expression():
    same("game g\ngoal: a and (b or c) and d\n", """\
        game: g
        goal: |
          a and (b
            or c)
          and d
        """)
    same("game g\ngoal: a and b\n", "game: g\ngoal: a\n  and b\n")


# ---- located errors -----------------------------------------------------------------------------
def rendered(text):
    with pytest.raises(RuleError) as info:
        parse_yaml(textwrap.dedent(text), "r.yaml")
    return info.value.render()


ERRORS = {
    "yaml syntax": ("""\
        game: g
        actions:
          a: b: c
        """, """\
        r.yaml:3:7: invalid YAML: mapping values are not allowed here
            a: b: c
                ^
          hint: a value that holds `: ` needs quotes, or a block: `|` and the text on the lines below"""),
    "unclosed quote": ("""\
        game: g
        goal: "abc
        """, """\
        r.yaml:2:7: invalid YAML: found unexpected end of stream
          goal: "abc
                ^
          hint: while scanning a quoted scalar that starts here"""),
    "unknown section": ("""\
        game: g
        action:
          a: pass
        """, """\
        r.yaml:2:1: unknown key `action` in the rule file
          action:
          ^^^^^^
          hint: did you mean `actions`?"""),
    "unknown key": ("""\
        game: g
        actions:
          a:
            bdy: pass
        """, """\
        r.yaml:4:5: unknown key `bdy` in action `a`
              bdy: pass
              ^^^
          hint: did you mean `body`?"""),
    "missing body": ("""\
        game: g
        actions:
          flood:
            cost: 1
        """, """\
        r.yaml:3:3: action `flood` has no `body`
            flood:
            ^^^^^
          hint: add `body: |` and write the statements on the lines below it, indented"""),
    "list for a mapping": ("""\
        game: g
        params:
          - colours
        """, """\
        r.yaml:3:3: `params` must be a mapping, not a list
            - colours
            ^
          hint: for example: colours: {type: int, default: 6}"""),
    "action parameters not a mapping": ("""\
        game: g
        actions:
          flood:
            params: 5
            body: pass
        """, """\
        r.yaml:4:13: the parameters of action `flood` must be a mapping, not a single value
              params: 5
                      ^
          hint: for example: {c: 0..colours-1, p: cell}"""),
    "key twice": ("""\
        game: g
        layers:
          a: bool
          a: int
        """, """\
        r.yaml:4:3: `a` is given twice in `layers` (first at line 3)
            a: int
            ^"""),
    "no game": ("""\
        title: T
        goal: x
        """, """\
        r.yaml:1:1: the rule file has no `game`
          title: T
          ^
          hint: add a line like `game: mygame`"""),
    "expression on one line": ("""\
        game: g
        goal: a +* b
        """, """\
        r.yaml:2:10: unexpected `*`, expected '(', '-', 'false', 'none', 'true', a name or a number
          goal: a +* b
                   ^"""),
    "expression over lines": ("""\
        game: g
        goal: a and
          b or * c
        """, """\
        r.yaml:3:8: unexpected `*`, expected '(', '-', 'false', 'none', 'not', 'true', a name or a number
            b or * c
                 ^"""),
    "expression ends early": ("""\
        game: g
        fail: |
          a and
        """, """\
        r.yaml:3:8: unexpected end of expression, expected '(', '-', 'false', 'none', 'not', 'true', a name or a number
            a and
                 ^"""),
    "inside a block": ("""\
        game: g
        init: |
          let x = 1
          if x > 0:
              x = = 2
        """, """\
        r.yaml:5:11: unexpected `=`, expected '(', '-', 'false', 'none', 'not', 'true', a name or a number
                x = = 2
                    ^"""),
    "block indentation": ("""\
        game: g
        init: |
          let x = 1
            x = 2
        """, """\
        r.yaml:4:5: unexpected indent
              x = 2
              ^
          hint: indent only the lines of a block (after a line ending in ':')"""),
    "inside quotes": ("""\
        game: g
        goal: 'a and ) b'
        """, """\
        r.yaml:2:14: unexpected `)`, expected '(', '-', 'false', 'none', 'not', 'true', a name or a number
          goal: 'a and ) b'
                       ^"""),
    "not a bool": ("""\
        game: g
        layers:
          a: {type: 0..3, static: maybe}
        """, """\
        r.yaml:3:27: `static` of layer `a` must be true or false, not `maybe`
            a: {type: 0..3, static: maybe}
                                    ^^^^^"""),
    "empty body": ("""\
        game: g
        actions:
          a:
            body:
        """, """\
        r.yaml:4:5: the body of action `a` is empty: expected statements
              body:
              ^^^^
          hint: write `|` after the key and the statements on the lines below, indented"""),
    "bad roll": ("""\
        game: g
        bodies:
          b:
            poses: {up: "(0, 0)"}
            rolls:
              up: L -> up (0, 0), R => up (0, 0)
        """, """\
        r.yaml:6:26: the rolls of pose `up`: expected `DIR -> POSE (drow, dcol)`, such as `L -> row (0, -2)`
                up: L -> up (0, 0), R => up (0, 0)
                                   ^"""),
    "statements over lines": ("""\
        game: g
        init: let x = 1
          x = 2
        """, """\
        r.yaml:2:7: `init` runs over several lines: write them in a block (`|`)
          init: let x = 1
                ^
          hint: put `|` after the key and the statements on the lines below, indented"""),
    "statements over lines, escaped": ("""\
        game: g
        init: "let x = 1\\nx = 2"
        """, """\
        r.yaml:2:7: `init` runs over several lines: write them in a block (`|`)
          init: "let x = 1\\nx = 2"
                ^^^^^^^^^^^^^^^^^^
          hint: put `|` after the key and the statements on the lines below, indented"""),
    "a type with more": ("""\
        game: g
        layers:
          a: int static
        """, """\
        r.yaml:3:10: unexpected `static`
            a: int static
                   ^^^^^^"""),
    "a comma in an expression": ("""\
        game: g
        params:
          p:
            type: cell
            default: 1, 2
        """, """\
        r.yaml:5:15: unexpected `,`, expected end of line
              default: 1, 2
                        ^
          hint: a cell is written `(row, col)`"""),
    "dominates a list in a list": ("""\
        game: g
        heuristics:
          a: {admissible: true, dominates: [[b]], expr: '0'}
        """, """\
        r.yaml:3:37: each name `dominates` of heuristic `a` lists must be a single value, not a list
            a: {admissible: true, dominates: [[b]], expr: '0'}
                                              ^^^
          hint: for example: other_heuristic"""),
    "a name not in ASCII": ("""\
        game: g
        layers:
          cölour: 0..3
        """, """\
        r.yaml:3:3: `cölour` is not a valid name
            cölour: 0..3
            ^^^^^^
          hint: a name is ASCII letters, digits and `_`, not starting with a digit"""),
    "a default that is no text": ("""\
        game: g
        params:
          colours: {type: int, default: {a: 1}}
        """, """\
        r.yaml:3:33: the default of parameter `colours` must be an expression written as text, not a mapping
            colours: {type: int, default: {a: 1}}
                                          ^^^^^^
          hint: for example: colours - 1 (a value) or colour[pivot] == 0 (a condition)"""),
    "nothing": ("""\
        # no rules yet
        """, """\
        r.yaml:1:1: the rule file is empty
          # no rules yet
          ^
          hint: start it with a line like `game: mygame`"""),
}


@pytest.mark.parametrize("case", ERRORS)
def test_located_errors(case):
    text, expected = ERRORS[case]
    assert rendered(text) == textwrap.dedent(expected)


def test_errors_of_the_checker_point_into_the_yaml_file():
    _, yml = twin_texts("floodit")
    bad = yml.replace("now = colour[pivot]", "now = colour[pivto]")
    with pytest.raises(GridrulesError) as info:
        compile_rules(bad, "floodit.yaml")
    assert info.value.render().startswith(
        "floodit.yaml:112:20: unknown name `pivto`\n        now = colour[pivto]\n"
        "                     ^^^^^\n  hint: did you mean `pivot`?")


def test_an_offset_too_long_to_read_is_the_checkers_too_large_offset():
    """int() reads no more than 4,300 digits: a longer offset stands for a huge one, which the checker refuses
    (as in the text form: golden rules/pose_offset_too_large)."""
    text = ('game: g\nbodies:\n  b:\n    poses: {up: "(0, 0)", row: "(0, 0) (0, ' + "9" * 5000 + ')"}\n'
            'goal: b.pose == row\nlevels:\n  grid: {".": pass}\n')
    with pytest.raises(GridrulesError) as info:
        compile_rules(text, "r.yaml")
    assert "r.yaml:4:27: an offset of pose `row` is too large (the limit is 2^62)\n" in info.value.render()


# ---- no input gives a traceback ---------------------------------------------------------------------
def survives(text, path="fuzz.yaml"):
    """Parse a YAML rule file; only the project's own errors may escape, and they render."""
    try:
        parse_yaml(text, path)
    except GridrulesError as err:
        assert err.render()


@given(st.text(max_size=300))
def test_fuzz_random_text(text):
    survives(text)


@given(st.text(alphabet="game: x\n -[]{},'\"|>#*&!?%@`.()=+", max_size=200))
def test_fuzz_yaml_punctuation(text):
    survives("game: g\n" + text)


WORDS = st.sampled_from(list(("game title params enums layers globals bodies defs actions init goal fail limit "
                              "heuristics levels type default static dims poses rolls params body notation cost "
                              "when admissible expr x up row L R 0..3 * # a..z grid cell int bool dir").split()))
CODE = st.sampled_from(["x", "1", "a + ", "(0, 0)", "pass", "x = 1", "let y = 2\nreturn y", "if x:\n  pass",
                        "L -> up (0, 0)", "(0, 0) (0, 1)", "0..3", "", "not", "true", "{x}", "x; y = 1",
                        "\tz", "a..b", "[[0, 0]]"])
SCALARS = st.one_of(CODE, WORDS, st.integers(-3, 30), st.booleans(), st.none(), st.text(max_size=8))
DOCS = st.recursive(SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.one_of(WORDS, st.text(max_size=4)), kids, max_size=5)),
    max_leaves=25)


@given(st.dictionaries(WORDS, DOCS, max_size=8), st.sampled_from([None, False, True]))
def test_fuzz_random_yaml_documents(doc, flow):
    doc.setdefault("game", "g")
    survives(yaml.safe_dump(doc, default_flow_style=flow, sort_keys=False))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TWINS), st.data())
def test_fuzz_mutated_twins(name, data):
    _, yml = twin_texts(name)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(yml)))
        j = data.draw(st.integers(i, min(len(yml), i + 12)))
        yml = yml[:i] + data.draw(st.sampled_from(["", " ", "\n", ":", "-", "  ", "|", "#", "(", ")", ",", "x",
                                                   "'", '"', "\t", "[", "{", "*"])) + yml[j:]
    survives(yml)


def test_a_sum_too_deep_to_read_is_located_in_the_yaml_file():
    """DSL text in a YAML rule file too deep to read: the message the text form gives, at the true line of the
    deep sum inside its block."""
    total = " + ".join(["1"] * 600)
    text = ("game: deep\nlayers:\n  a: 0..1\nactions:\n  go:\n    notation: go\n    body: |\n"
            "      a[(0, 0)] = 1\ngoal: a[(0, 0)] == 1\nheuristics:\n  far:\n    body: |\n"
            f"      let x = 1\n      return {total}\nlevels:\n  grid:\n    '.': a = 0\n")
    with pytest.raises(RuleError) as caught:
        compile_rules(text, "deep.yaml")
    err = caught.value
    assert err.message.startswith("the rules nest too deeply to read")
    assert (err.span.source.path, err.span.line, err.span.col) == ("deep.yaml", 14, 7)
    assert err.hint == "split it with `let`s or defs"
