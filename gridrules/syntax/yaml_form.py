"""The YAML form of a rule file -> the same AST as the text DSL.

Structure is YAML; expressions, types and statement blocks are strings in the DSL's own syntax, parsed by
`parse_snippet` with spans at their true places in the YAML file. The shape (every key optional unless said):

    game: floodit                       # required
    title: Flood-It
    params:   {NAME: {type: TYPE, default: EXPR}}
    enums:    {NAME: [VALUE, ...]}
    layers:   {NAME: TYPE  |  {type: TYPE, static: BOOL}}
    globals:  {NAME: TYPE  |  {type: TYPE, dims: [EXPR, ...], default: EXPR, static: BOOL}  |  BODY}
    bodies:   {NAME: BODY}
              # BODY = {poses: {POSE: "(r, c) (r, c)" | [[r, c], ...]},
              #         rolls: {POSE: "L -> POSE (dr, dc), R -> ..." | {L: "POSE (dr, dc)", ...}}}
    particles: {NAME: {timing: EXPR, stop: EXPR, hit: DEF, leave: DEF}}
    defs:     {NAME: STMTS  |  {params: {NAME: TYPE}, body: STMTS}}
    actions:  {NAME: STMTS  |  {params: {NAME: TYPE}, notation: TEXT, cost: EXPR, when: EXPR, body: STMTS}}
    init:     STMTS
    goal:     EXPR  |  [EXPR, ...]
    fail:     EXPR  |  [EXPR, ...]
    deadlock: EXPR  |  [EXPR, ...]
    limit:    EXPR  |  {cost: EXPR, when: EXPR}
    heuristics: {NAME: {admissible: BOOL, dominates: NAME | [NAME, ...], expr: EXPR  |  body: STMTS}}
    score:    EXPR  |  {body: STMTS}
    show:     {LAYER: EXPR}
    levels:   {FORMAT[, FORMAT...]: {TOKENS: LEGEND_STMTS}}
              # TOKENS: a character (`"#"`, `x`), a range (`a..z`), `"*"` (any token) or the DSL's quoted
              # spelling ("'*'" for a literal star); LEGEND_STMTS: simple statements, `;`- or line-separated

Declarations come out in document order (sections as written, entries in mapping order), so a YAML file
written in its DSL twin's order gives an equal AST. `canonical` orders declarations by kind for comparing
files whose sections are ordered differently. Every error is a located RuleError; nothing else escapes.
"""
from __future__ import annotations

import re
from dataclasses import replace

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import ast as A
from ..errors import RuleError, Source, Span, did_you_mean
from .parse import number, parse_snippet

_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")
_OFFSET = re.compile(r"\(\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*\)")
_ROLL_TARGET = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*(\(\s*-?[0-9]+\s*,\s*-?[0-9]+\s*\))\s*\Z")
_ROLL_ENTRY = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*->\s*([A-Za-z_][A-Za-z_0-9]*)\s*"
                         r"\(\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*\)\s*")
_DSL_TOKEN = re.compile(r"""("[^"\n]*"|'[^'\n]*')(?:\s*\.\.\s*("[^"\n]*"|'[^'\n]*'))?\Z""")

SECTIONS = ("game", "title", "params", "enums", "layers", "globals", "bodies", "particles", "defs", "actions",
            "init", "goal", "fail", "deadlock", "limit", "heuristics", "score", "show", "levels")

# `canonical` order; bodies are globals in the IR (their relative order matters), so they share a rank
_RANK = {A.Game: 0, A.Param: 1, A.EnumDecl: 2, A.LayerDecl: 3, A.GlobalDecl: 4, A.BodyDecl: 4,
         A.ParticleDecl: 5, A.DefDecl: 6, A.ActionDecl: 7, A.InitDecl: 8, A.GoalDecl: 9, A.FailDecl: 10,
         A.DeadlockDecl: 11, A.LimitDecl: 12, A.HeuristicDecl: 13, A.ScoreDecl: 14, A.ShowDecl: 15, A.LevelDecl: 16}


def canonical(rf: A.RuleFile) -> A.RuleFile:
    """The same rule file with its declarations ordered by kind (stable: each kind keeps its own order)."""
    return replace(rf, decls=tuple(sorted(rf.decls, key=lambda d: _RANK[type(d)])))


def parse_yaml(text: str, path: str = "<rules>") -> A.RuleFile:
    """Parse a whole rule file written in YAML."""
    return _Reader(Source(path, text)).read()  # (too deep to read: api.compile_rules says where)


def _compose(src: Source) -> Node | None:
    try:
        return yaml.compose(src.text, Loader=_FAST_LOADER)
    except (yaml.YAMLError, ValueError) as fast_err:
        err = fast_err
    if _FAST_LOADER is not yaml.SafeLoader:  # libyaml's messages vary by version: explain with pyyaml's own
        try:
            return yaml.compose(src.text, Loader=yaml.SafeLoader)
        except (yaml.YAMLError, ValueError) as slow_err:
            err = slow_err
    raise _yaml_error(err, src) from None


def _yaml_error(err: Exception, src: Source) -> RuleError:
    if isinstance(err, yaml.MarkedYAMLError) and (err.problem_mark or err.context_mark):
        mark = err.problem_mark or err.context_mark
        message = err.problem or err.context or "invalid YAML"
        hint = _YAML_HINTS.get(message)
        if err.context and err.problem and not err.context.startswith("while"):
            message = f"{err.context}, {err.problem}"  # "expected a single document ..., but found another ..."
        elif err.context and err.problem and err.context_mark is not None and hint is None:
            hint = f"{err.context} that starts at line {err.context_mark.line + 1}"
        if err.context_mark is not None and err.context and not src.line_text(mark.line + 1).strip():
            # the problem is at the end (an unclosed quote or bracket): show where the unfinished thing starts
            mark, hint = err.context_mark, f"{err.context} that starts here"
        return RuleError(f"invalid YAML: {message}", _mark_span(src, mark), hint)
    if isinstance(err, yaml.reader.ReaderError):
        before = src.text[:err.position]
        line = len(before.splitlines(True)) if before else 1
        if before.endswith(("\n", "\r")):
            line += 1
        last = before.splitlines(True)[-1] if before and not before.endswith(("\n", "\r")) else ""
        col = len(last) + 1
        ch = err.character if isinstance(err.character, str) else chr(err.character)
        return RuleError(f"invalid YAML: unacceptable character #x{ord(ch):04x} ({err.reason})",
                         Span(src, line, col, line, col + 1))
    return RuleError(f"invalid YAML: {err}", Span(src, 1, 1, 1, 2))


def _mark_span(src: Source, mark) -> Span:
    return Span(src, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2)


def _kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag.endswith(":null") and node.value in ("", "~", "null", "Null", "NULL"):
        return "empty"
    return "a single value"


class _Reader:
    def __init__(self, src: Source):
        self.src = src
        self.lines = src.text.splitlines()
        self.decls: list[A.Node] = []

    # ---- locations and errors
    def span(self, node: Node) -> Span:
        """Where a node is: all of it when it is on one line, else its first character (a block: its `|`)."""
        s, e = node.start_mark, node.end_mark
        block = isinstance(node, ScalarNode) and node.style in ("|", ">")
        if block or e.line != s.line or e.column <= s.column:
            return Span(self.src, s.line + 1, s.column + 1, s.line + 1, s.column + 2)
        return Span(self.src, s.line + 1, s.column + 1, e.line + 1, e.column + 1)

    def err(self, message: str, node: Node, hint: str | None = None) -> RuleError:
        return RuleError(message, self.span(node), hint)

    def wrong_kind(self, node: Node, what: str, want: str, example: str | None = None) -> RuleError:
        got = _kind(node)
        msg = f"{what} is empty: expected {want}" if got == "empty" else f"{what} must be {want}, not {got}"
        return self.err(msg, node, f"for example: {example}" if example else None)

    # ---- shapes
    def mapping(self, node: Node, what: str, example: str | None = None) -> list[tuple[ScalarNode, Node]]:
        """A mapping's pairs in order, with scalar keys and no key twice."""
        if not isinstance(node, MappingNode):
            raise self.wrong_kind(node, what, "a mapping", example)
        seen: dict[str, ScalarNode] = {}
        for k, _ in node.value:
            if not isinstance(k, ScalarNode):
                raise self.err(f"a key in {what} must be a single value, not {_kind(k)}", k)
            if k.value in seen:
                raise self.err(f"`{k.value}` is given twice in {what} (first at line "
                               f"{seen[k.value].start_mark.line + 1})", k)
            seen[k.value] = k
        return list(node.value)

    def fields(self, node: Node, what: str, allowed: tuple[str, ...], required: tuple[str, ...], at: Node,
               example: str | None = None) -> dict[str, tuple[ScalarNode, Node]]:
        """A declaration's keys, checked against `allowed`; a missing required key is reported at `at`."""
        out = {}
        for k, v in self.mapping(node, what, example):
            if k.value not in allowed:
                raise self.err(f"unknown key `{k.value}` in {what}", k,
                               did_you_mean(k.value, allowed) or "allowed here: " + ", ".join(allowed))
            out[k.value] = (k, v)
        for key in required:
            if key not in out:
                raise self.err(f"{what} has no `{key}`", at, _REQUIRED_HINT.get(key))
        return out

    def name(self, node: ScalarNode, what: str) -> str:
        if not _NAME.match(node.value):
            raise self.err(f"`{node.value}` is not a valid {what}", node,
                           "a name is ASCII letters, digits and `_`, not starting with a digit")
        return node.value

    def scalar(self, node: Node, what: str, example: str | None = None) -> ScalarNode:
        if not isinstance(node, ScalarNode) or _kind(node) == "empty":
            raise self.wrong_kind(node, what, "a single value", example)
        return node

    def boolean(self, node: Node, what: str) -> bool:
        v = self.scalar(node, what, "true").value
        if v.lower() not in ("true", "false"):
            raise self.err(f"{what} must be true or false, not `{v}`", node)
        return v.lower() == "true"

    def text(self, node: Node, what: str) -> str:
        if not isinstance(node, ScalarNode):
            raise self.wrong_kind(node, what, "text", '"Flood-It"')
        return node.value

    def code(self, node: Node, kind: str, what: str, at: Node):
        """DSL text in a scalar, parsed as `kind` (see parse_snippet), with true spans."""
        noun = {"expr": "an expression", "type": "a type", "stmts": "statements", "legend": "statements"}[kind]
        hint = {"expr": "for example: colours - 1 (a value) or colour[pivot] == 0 (a condition)", "type": "for example: 0..9",
                "stmts": "write `|` after the key and the statements on the lines below, indented",
                "legend": "for example: tile = wall"}[kind]
        if not isinstance(node, ScalarNode):
            raise self.err(f"{what} must be {noun} written as text, not {_kind(node)}", node, hint)
        if not node.value.strip():
            raise self.err(f"{what} is empty: expected {noun}", at, hint)
        s, e = node.start_mark, node.end_mark
        several = kind in ("stmts", "legend")
        if node.style in ("|", ">"):
            if node.style == ">" and several:
                raise self.err(f"{what}: write statements in a literal block (`|`), not a folded one (`>`)", node)
            first = s.line + 1
            last = e.line if e.column == 0 else e.line + 1
            return parse_snippet("\n".join(self.lines[first:last]), self.src, kind, first + 1, 1)
        if s.line == e.line:
            raw = self.line(s.line)[s.column:e.column]
        else:
            raw = "\n".join([self.line(s.line)[s.column:]] + self.lines[s.line + 1:e.line] +
                            [self.line(e.line)[:e.column]])
        line, col = s.line + 1, s.column + 1
        if node.style not in (None, ""):  # quoted: inside the quotes, unless escapes make it differ
            raw, col = raw[1:-1], col + 1
            escaped = "\\" in raw if node.style == '"' else "''" in raw
            if escaped:
                if several and "\n" in node.value.strip():  # (`\n` in a quoted value: lines, as a block has)
                    raise self.err(f"{what} runs over several lines: write them in a block (`|`)", node,
                                   "put `|` after the key and the statements on the lines below, indented")
                raw = " ".join(node.value.splitlines())
        if several and "\n" in raw.strip():
            raise self.err(f"{what} runs over several lines: write them in a block (`|`)", node,
                           "put `|` after the key and the statements on the lines below, indented")
        return parse_snippet(raw, self.src, kind, line, col)

    def line(self, i: int) -> str:
        return self.lines[i] if 0 <= i < len(self.lines) else ""

    # ---- the file
    def read(self) -> A.RuleFile:
        root = _compose(self.src)
        if root is None:
            raise RuleError("the rule file is empty", Span(self.src, 1, 1, 1, 2),
                            "start it with a line like `game: mygame`")
        top = self.fields(root, "the rule file", SECTIONS, (), root, "game: mygame")
        if "game" not in top:
            raise RuleError("the rule file has no `game`", self.span(root), "add a line like `game: mygame`")
        for key, (k, v) in top.items():
            if key == "title":
                continue
            getattr(self, "s_" + key)(k, v, top)
        return A.RuleFile(tuple(self.decls), self.span(root))

    # ---- sections
    def s_game(self, k, v, top):
        name = self.name(self.scalar(v, "`game`", "game: mygame"), "game name")
        title = self.text(top["title"][1], "`title`") if "title" in top else None
        self.decls.append(A.Game(name, title, self.span(v)))

    def entries(self, v, section: str, example: str):
        """(name, key node, value node) of each entry of a section; an empty section has none."""
        if _kind(v) == "empty":
            return
        label = f"`{section}`" if section.isidentifier() else section  # (a key, or words that quote their names)
        for k, val in self.mapping(v, label, example):
            yield self.name(k, "name"), k, val

    def s_params(self, k, v, top):
        for name, key, val in self.entries(v, "params", "colours: {type: int, default: 6}"):
            what = f"parameter `{name}`"
            f = self.fields(val, what, ("type", "default"), ("type", "default"), key, "{type: int, default: 6}")
            typ = self.code(f["type"][1], "type", f"the type of {what}", f["type"][0])
            default = self.code(f["default"][1], "expr", f"the default of {what}", f["default"][0])
            self.decls.append(A.Param(name, typ, default, self.span(key)))

    def s_enums(self, k, v, top):
        for name, key, val in self.entries(v, "enums", "tile: [void, floor, goal]"):
            what = f"enum `{name}`"
            if not isinstance(val, SequenceNode):
                raise self.wrong_kind(val, what, "a list of names", "[void, floor, goal]")
            if not val.value:
                raise self.err(f"{what} has no values", key)
            values = tuple(self.name(self.scalar(x, f"a value of {what}"), "enum value") for x in val.value)
            self.decls.append(A.EnumDecl(name, values, self.span(key)))

    def s_layers(self, k, v, top):
        for name, key, val in self.entries(v, "layers", "colour: 0..9"):
            what = f"layer `{name}`"
            if isinstance(val, ScalarNode):
                typ, static = self.code(val, "type", f"the type of {what}", key), False
            else:
                f = self.fields(val, what, ("type", "static"), ("type",), key, "{type: tile, static: true}")
                typ = self.code(f["type"][1], "type", f"the type of {what}", f["type"][0])
                static = self.boolean(f["static"][1], f"`static` of {what}") if "static" in f else False
            self.decls.append(A.LayerDecl(name, typ, static, self.span(key)))

    def s_globals(self, k, v, top):
        for name, key, val in self.entries(v, "globals", "moves: {type: 0..99, default: 0}"):
            what = f"global `{name}`"
            if isinstance(val, ScalarNode):
                typ = self.code(val, "type", f"the type of {what}", key)
                self.decls.append(A.GlobalDecl(name, (), typ, None, False, self.span(key)))
                continue
            if isinstance(val, MappingNode) and any(
                    isinstance(x, ScalarNode) and x.value in ("poses", "rolls") for x, _ in val.value):
                self.decls.append(self.body(name, key, val))
                continue
            f = self.fields(val, what, ("type", "dims", "default", "static"), ("type",), key,
                            "{type: bool, dims: [26], default: false, static: false}")
            typ = self.code(f["type"][1], "type", f"the type of {what}", f["type"][0])
            dims: tuple = ()
            if "dims" in f:
                dk, dv = f["dims"]
                items = dv.value if isinstance(dv, SequenceNode) else [dv]
                if isinstance(dv, SequenceNode) and not items:
                    raise self.err(f"`dims` of {what} is an empty list", dv, "leave `dims` out for a single value")
                dims = tuple(self.code(x, "expr", f"an array size of {what}", dk) for x in items)
            default = self.code(f["default"][1], "expr", f"the default of {what}", f["default"][0]) \
                if "default" in f else None
            static = self.boolean(f["static"][1], f"`static` of {what}") if "static" in f else False
            self.decls.append(A.GlobalDecl(name, dims, typ, default, static, self.span(key)))

    def s_bodies(self, k, v, top):
        for name, key, val in self.entries(v, "bodies", "block: {poses: ..., rolls: ...}"):
            self.decls.append(self.body(name, key, val))

    def body(self, name, key, val) -> A.BodyDecl:
        what = f"body `{name}`"
        f = self.fields(val, what, ("poses", "rolls"), ("poses",), key)
        poses = []
        for pname, pk, pv in self.entries(f["poses"][1], f"poses of {what}", "row: (0, 0) (0, 1)"):
            poses.append(A.Pose(pname, self.offsets(pv, f"pose `{pname}`", pk), self.span(pk)))
        if not poses:
            raise self.err(f"{what} has no poses", f["poses"][0], _REQUIRED_HINT["poses"])
        rolls = []
        if "rolls" in f:
            for pname, pk, pv in self.entries(f["rolls"][1], f"rolls of {what}",
                                              "up: L -> row (0, -2), R -> row (0, 1), ..."):
                rolls.extend(self.rolls(pname, pk, pv))
        return A.BodyDecl(name, tuple(poses), tuple(rolls), self.span(key))

    def offsets(self, node: Node, what: str, at: Node) -> tuple[tuple[int, int], ...]:
        example = "(0, 0) (0, 1)  or  [[0, 0], [0, 1]]"
        if isinstance(node, ScalarNode) and _kind(node) != "empty":
            s = node.value.strip()
            found = list(_OFFSET.finditer(s))
            if not found or _OFFSET.sub("", s).strip():
                raise self.err(f"{what}: expected offsets such as `(0, 0) (0, 1)`, not `{node.value}`", node,
                               "inside `{...}` or `[...]` a comma ends a value: put quotes around it"
                               if s.count("(") != s.count(")") else None)
            return tuple((number(m.group(1)), number(m.group(2))) for m in found)
        if not isinstance(node, SequenceNode) or not node.value:
            raise self.wrong_kind(node, f"{what}", "a list of (row, col) offsets", example)
        return tuple(self.offset(x, what) for x in node.value)

    def offset(self, node: Node, what: str) -> tuple[int, int]:
        if isinstance(node, ScalarNode):
            m = _OFFSET.fullmatch(node.value.strip())
            if m:
                return number(m.group(1)), number(m.group(2))
        elif isinstance(node, SequenceNode) and len(node.value) == 2 and all(
                isinstance(x, ScalarNode) and re.fullmatch(r"-?[0-9]+", x.value) for x in node.value):
            return number(node.value[0].value), number(node.value[1].value)
        raise self.err(f"{what}: an offset is `[row, col]` or \"(row, col)\", two whole numbers", node)

    def rolls(self, pose: str, key: ScalarNode, node: Node) -> list[A.Roll]:
        what = f"the rolls of pose `{pose}`"
        if isinstance(node, MappingNode):
            out = []
            for d, dk, dv in self.entries(node, what, "{L: row (0, -2), R: row (0, 1)}"):
                if isinstance(dv, SequenceNode) and len(dv.value) == 2 and isinstance(dv.value[0], ScalarNode):
                    to = self.name(dv.value[0], "pose name")
                    shift = self.offset(dv.value[1], f"the roll of pose `{pose}` to {d}")
                else:
                    m = _ROLL_TARGET.match(self.scalar(dv, f"the roll of pose `{pose}` to {d}", "row (0, -2)").value)
                    if not m:
                        raise self.err(f"the roll of pose `{pose}` to {d}: expected `POSE (drow, dcol)`, "
                                       f"such as `row (0, -2)`", dv)
                    r, c = _OFFSET.match(m.group(2)).groups()
                    to, shift = m.group(1), (number(r), number(c))
                out.append(A.Roll(pose, d, to, shift, Span(self.src, *self._pos(dk), *self._end(dv))))
            return out
        s = self.scalar(node, what, "L -> row (0, -2), R -> row (0, 1), U -> col (-2, 0), D -> col (1, 0)")
        text = s.value
        exact = s.style in (None, "") and s.start_mark.line == s.end_mark.line  # columns are known
        line, col0 = s.start_mark.line + 1, s.start_mark.column + 1
        out, pos = [], 0
        while True:
            m = _ROLL_ENTRY.match(text, pos)
            if not m:
                at = col0 + pos if exact else col0
                raise RuleError(f"{what}: expected `DIR -> POSE (drow, dcol)`, such as `L -> row (0, -2)`",
                                Span(self.src, line, at, line, at + 1))
            stop = col0 + len(text[:m.end()].rstrip())
            span = Span(self.src, line, col0 + m.start(1), line, stop) if exact else self.span(s)
            out.append(A.Roll(pose, m.group(1), m.group(2), (number(m.group(3)), number(m.group(4))), span))
            pos = m.end()
            if pos == len(text):
                return out
            if text[pos] != ",":
                at = col0 + pos if exact else col0
                raise RuleError(f"{what}: expected `,` between rolls", Span(self.src, line, at, line, at + 1))
            pos += 1

    def _pos(self, node):
        return node.start_mark.line + 1, node.start_mark.column + 1

    def _end(self, node):
        return node.end_mark.line + 1, node.end_mark.column + 1

    def params(self, f, what) -> tuple[A.ParamDecl, ...]:
        if "params" not in f:
            return ()
        pk, pv = f["params"]
        if _kind(pv) == "empty":
            return ()
        out = []
        for name, key, val in self.entries(pv, f"the parameters of {what}", "{c: 0..colours-1, p: cell}"):
            out.append(A.ParamDecl(name, self.code(val, "type", f"the type of parameter `{name}`", key),
                                   self.span(key)))
        return tuple(out)

    def s_particles(self, k, v, top):
        for name, key, val in self.entries(v, "particles", "droplet: {stop: drop != 0, hit: splash}"):
            what = f"particle `{name}`"
            props = []
            for pk, pv in self.mapping(val, what, "{timing: half, stop: drop != 0, hit: splash}"):
                props.append(A.ParticleProp(pk.value, self.code(pv, "expr", f"`{pk.value}` of {what}", pk),
                                            self.span(pk)))
            self.decls.append(A.ParticleDecl(name, tuple(props), self.span(key)))

    def s_defs(self, k, v, top):
        for name, key, val in self.entries(v, "defs", "solid: {params: {p: cell}, body: ...}"):
            what = f"def `{name}`"
            if isinstance(val, ScalarNode):
                self.decls.append(A.DefDecl(name, (), self.code(val, "stmts", f"the body of {what}", key),
                                            self.span(key)))
                continue
            f = self.fields(val, what, ("params", "body"), ("body",), key)
            params = self.params(f, what)
            body = self.code(f["body"][1], "stmts", f"the body of {what}", f["body"][0])
            self.decls.append(A.DefDecl(name, params, body, self.span(key)))

    def s_actions(self, k, v, top):
        for name, key, val in self.entries(v, "actions", "flood: {params: {c: 0..9}, body: ...}"):
            what = f"action `{name}`"
            if isinstance(val, ScalarNode):
                body = self.code(val, "stmts", f"the body of {what}", key)
                self.decls.append(A.ActionDecl(name, (), None, None, None, body, self.span(key)))
                continue
            f = self.fields(val, what, ("params", "unordered", "notation", "cost", "when", "body"), ("body",), key)
            params = self.params(f, what)
            notation = self.text(f["notation"][1], f"`notation` of {what}") if "notation" in f else None
            cost = self.code(f["cost"][1], "expr", f"`cost` of {what}", f["cost"][0]) if "cost" in f else None
            when = self.code(f["when"][1], "expr", f"`when` of {what}", f["when"][0]) if "when" in f else None
            body = self.code(f["body"][1], "stmts", f"the body of {what}", f["body"][0])
            unordered = self.boolean(f["unordered"][1], f"`unordered` of {what}") if "unordered" in f else False
            self.decls.append(A.ActionDecl(name, params, notation, cost, when, body, self.span(key),
                                           unordered=unordered))

    def s_init(self, k, v, top):
        self.decls.append(A.InitDecl(self.code(v, "stmts", "`init`", k), self.span(k)))

    def conditions(self, k, v, word, cls):
        items = v.value if isinstance(v, SequenceNode) else [v]
        if not items:
            raise self.err(f"`{word}` is an empty list", v)
        for item in items:
            self.decls.append(cls(self.code(item, "expr", f"`{word}`", k),
                                  self.span(k) if item is v else self.span(item)))

    def s_goal(self, k, v, top):
        self.conditions(k, v, "goal", A.GoalDecl)

    def s_fail(self, k, v, top):
        self.conditions(k, v, "fail", A.FailDecl)

    def s_deadlock(self, k, v, top):
        self.conditions(k, v, "deadlock", A.DeadlockDecl)

    def s_limit(self, k, v, top):
        if isinstance(v, MappingNode):
            f = self.fields(v, "`limit`", ("cost", "when"), ("cost",), k, "{cost: move_limit, when: move_limit > 0}")
            cost = self.code(f["cost"][1], "expr", "`cost` of `limit`", f["cost"][0])
            when = self.code(f["when"][1], "expr", "`when` of `limit`", f["when"][0]) if "when" in f else None
        else:
            cost, when = self.code(v, "expr", "`limit`", k), None
        self.decls.append(A.LimitDecl(cost, when, self.span(k)))

    def s_heuristics(self, k, v, top):
        for name, key, val in self.entries(v, "heuristics", "left: {admissible: true, expr: count(cells where ...)}"):
            what = f"heuristic `{name}`"
            f = self.fields(val, what, ("admissible", "dominates", "expr", "body"), (), key,
                            "{admissible: true, expr: count(cells where ...)}")
            if ("expr" in f) == ("body" in f):
                raise self.err(f"{what} needs either `expr` (a value) or `body` (statements that `return` one)"
                               + (", not both" if "expr" in f else ""), f["body"][0] if "body" in f else key)
            admissible = self.boolean(f["admissible"][1], f"`admissible` of {what}") if "admissible" in f else False
            dominates = ()
            if "dominates" in f:
                dv = f["dominates"][1]  # (a name, or a list of them: `[]` for none)
                items = dv.value if isinstance(dv, SequenceNode) else [dv]
                dominates = tuple(A.Name(self.name(self.scalar(x, f"each name `dominates` of {what} lists",
                                                               "other_heuristic"),
                                                   "heuristic name"), self.span(x)) for x in items)
            if "expr" in f:
                e = self.code(f["expr"][1], "expr", f"`expr` of {what}", f["expr"][0])
                body = (A.Return(e, e.span),)
            else:
                body = self.code(f["body"][1], "stmts", f"the body of {what}", f["body"][0])
            self.decls.append(A.HeuristicDecl(name, admissible, body, self.span(key), dominates))

    def s_score(self, k, v, top):
        if isinstance(v, MappingNode):
            f = self.fields(v, "`score`", ("body",), ("body",), k, "{body: return supply}")
            body = self.code(f["body"][1], "stmts", "the body of `score`", f["body"][0])
        else:
            e = self.code(v, "expr", "`score`", k)
            body = (A.Return(e, e.span),)
        self.decls.append(A.ScoreDecl(body, self.span(k)))

    def s_show(self, k, v, top):
        for name, key, val in self.entries(v, "show", "colour: seen(here)"):
            self.decls.append(A.ShowDecl(name, self.code(val, "expr", f"`show {name}`", key), self.span(key)))

    def s_levels(self, k, v, top):
        for key, val in [] if _kind(v) == "empty" else self.mapping(v, "`levels`", "grid: {'#': tile = wall}"):
            formats = [x.strip() for x in key.value.split(",")]
            for fmt in formats:
                if not _NAME.match(fmt):
                    raise self.err(f"`{fmt}` is not a level format name" if fmt else
                                   f"`{key.value}` leaves a level format name out", key,
                                   "name one format, or several separated by commas: `grid, bloxorz`")
            what = f"the legend of level `{key.value}`"
            legend = []
            for tk, tv in self.mapping(val, what, "{'#': tile = wall, a..z: id = value}"):
                kind, first, last = self.token_spec(tk)
                body = self.code(tv, "legend", f"the legend entry `{tk.value}`", tk)
                legend.append(A.LegendEntry(kind, first, last, body, self.span(tk)))
            if not legend:
                raise self.err(f"{what} is empty", key)
            for fmt in formats:
                self.decls.append(A.LevelDecl(fmt, tuple(legend), self.span(key)))

    def token_spec(self, key: ScalarNode) -> tuple[str, str | None, str | None]:
        t = key.value
        if t == "*":
            return "any", None, None
        m = _DSL_TOKEN.match(t)
        if m:  # the DSL's spelling: 'x', 'a'..'z'
            first = m.group(1)[1:-1]
            return ("range", first, m.group(2)[1:-1]) if m.group(2) else ("one", first, None)
        if len(t) == 4 and t[1:3] == "..":
            return "range", t[0], t[3]
        return "one", t, None


_YAML_HINTS = {
    "mapping values are not allowed here": "a value that holds `: ` needs quotes, or a block: `|` and the text on "
                                           "the lines below",
    "found character '\\t' that cannot start any token": "YAML indents with spaces, not tabs",
}

_REQUIRED_HINT = {
    "body": "add `body: |` and write the statements on the lines below it, indented",
    "type": "add a type such as `type: int`, `type: 0..9` or `type: cell`",
    "default": "a parameter needs a default value, such as `default: 0`",
    "poses": "add `poses:` naming each pose and its cells, such as `up: (0, 0)`",
    "cost": "add the most a solution may cost, such as `cost: move_limit`",
}
