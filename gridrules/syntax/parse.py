"""Text DSL -> AST. The grammar lives in grammar.lark; this module builds nodes and explains syntax errors."""
from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from .. import ast as A
from ..errors import RuleError, Source, Span


class _Blocks(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


@functools.lru_cache(maxsize=None)
def _parser(start: str) -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", postlex=_Blocks(), start=start,
                propagate_positions=True, maybe_placeholders=False)


# Friendly names for terminals in "expected ..." messages.
_TERMINALS = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','",
    "EQUAL": "'='", "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "INT": "a number", "SIGNED_INT": "a number", "STRING": "a quoted string",
    "DOT": "'.'", "__ANON_0": "'..'", "SEMICOLON": "';'", "CMPOP": "a comparison", "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'", "AUGOP": "'+=' or '-='", "STAR": "'*'", "MINUS": "'-'",
}

_KEYWORD_DECLS = ("game", "param", "enum", "layer", "global", "body", "def", "action", "init", "goal",
                  "fail", "heuristic", "level", "limit")


def _describe(term: str) -> str:
    if term in _TERMINALS:
        return _TERMINALS[term]
    if term.isupper() and term.isalpha():
        return f"'{term.lower()}'"
    return term


def _describe_token(tok: Token) -> str:
    if tok.type == "_NL":
        return "end of line"
    if tok.type == "_INDENT":
        return "an indented block"
    if tok.type == "_DEDENT":
        return "end of block"
    if tok.type == "$END":
        return "end of file"
    return f"`{tok.value}`"


Shift = tuple[int, int, bool] | None  # (lines, columns, first line only) for snippets embedded in YAML


def _span(src: Source, meta_or_tok, shift: Shift = None) -> Span:
    line = getattr(meta_or_tok, "line", None) or 1
    col = getattr(meta_or_tok, "column", None) or 1
    end_line = getattr(meta_or_tok, "end_line", None) or line
    end_col = getattr(meta_or_tok, "end_column", None) or col + 1
    span = Span(src, line, col, end_line, end_col)
    return span.shifted(src, *shift) if shift else span


class _Build(Transformer):
    """Parse tree -> AST nodes, each with its span."""

    def __init__(self, src: Source, text: str, shift: Shift = None):
        super().__init__()
        self.src, self.text, self.shift = src, text, shift

    def _s(self, meta):
        return _span(self.src, meta, self.shift)

    # -- declarations
    @v_args(meta=True)
    def start(self, meta, items):
        decls = []
        for item in items:  # `level a, b:` gives one LevelDecl per format, sharing the legend
            decls.extend(item if isinstance(item, tuple) else (item,))
        return A.RuleFile(tuple(decls), self._s(meta))

    @v_args(meta=True)
    def game(self, meta, items):
        title = _unquote(items[1]) if len(items) > 1 else None
        return A.Game(str(items[0]), title, self._s(meta))

    @v_args(meta=True)
    def param(self, meta, items):
        return A.Param(str(items[0]), items[1], items[2], self._s(meta))

    @v_args(meta=True)
    def enum(self, meta, items):
        return A.EnumDecl(str(items[0]), items[1], self._s(meta))

    def name_list(self, items):
        return tuple(str(t) for t in items)

    @v_args(meta=True)
    def layer(self, meta, items):
        static = len(items) > 2
        return A.LayerDecl(str(items[0]), items[1], static, self._s(meta))

    @v_args(meta=True)
    def global_(self, meta, items):
        name = str(items[0])
        rest = list(items[1:])
        dims = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        typ = rest.pop(0)
        static = bool(rest) and isinstance(rest[-1], Token) and rest[-1].type == "STATIC"
        if static:
            rest.pop()
        default = rest[0] if rest else None
        return A.GlobalDecl(name, dims, typ, default, static, self._s(meta))

    def dims(self, items):
        return tuple(items)

    @v_args(meta=True)
    def t_bool(self, meta, _):
        return A.TBool(self._s(meta))

    @v_args(meta=True)
    def t_int(self, meta, _):
        return A.TInt(self._s(meta))

    @v_args(meta=True)
    def t_cell(self, meta, _):
        return A.TCell(self._s(meta))

    @v_args(meta=True)
    def t_dir(self, meta, _):
        return A.TDir(self._s(meta))

    @v_args(meta=True)
    def t_named(self, meta, items):
        return A.TNamed(str(items[0]), self._s(meta))

    @v_args(meta=True)
    def t_range(self, meta, items):
        return A.TRange(items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def body(self, meta, items):
        name = str(items[0])
        poses = tuple(i for i in items[1:] if isinstance(i, A.Pose))
        rolls = tuple(r for i in items[1:] if isinstance(i, tuple) for r in i)
        return A.BodyDecl(name, poses, rolls, self._s(meta))

    @v_args(meta=True)
    def pose(self, meta, items):
        return A.Pose(str(items[0]), tuple(items[1:]), self._s(meta))

    def roll(self, items):
        frm = str(items[0])
        return tuple(A.Roll(frm, d, to, shift, span) for (d, to, shift, span) in items[1:])

    @v_args(meta=True)
    def roll_entry(self, meta, items):
        return (str(items[0]), str(items[1]), items[2], self._s(meta))

    def offset(self, items):
        return (items[0], items[1])

    def signed_int(self, items):
        return int(items[0])

    @v_args(meta=True)
    def def_(self, meta, items):
        params = items[1] if len(items) == 3 else ()
        return A.DefDecl(str(items[0]), params, items[-1], self._s(meta))

    @v_args(meta=True)
    def action(self, meta, items):
        name = str(items[0])
        rest = list(items[1:])
        params = rest.pop(0) if rest and isinstance(rest[0], tuple) and (not rest[0] or isinstance(rest[0][0], A.ParamDecl)) and len(rest) > 1 else ()
        notation = None
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            notation = _unquote(rest.pop(0))
        body = rest.pop()
        cost = when = None
        # what is left: the cost and/or when expressions, told apart by the keywords' positions
        kinds = _action_clauses(meta, self.text)
        for kind, expr in zip(kinds, rest):
            if kind == "cost":
                cost = expr
            else:
                when = expr
        return A.ActionDecl(name, params, notation, cost, when, body, self._s(meta))

    def params(self, items):
        return tuple(items)

    @v_args(meta=True)
    def param_decl(self, meta, items):
        return A.ParamDecl(str(items[0]), items[1], self._s(meta))

    @v_args(meta=True)
    def init(self, meta, items):
        return A.InitDecl(items[0], self._s(meta))

    @v_args(meta=True)
    def goal(self, meta, items):
        return A.GoalDecl(items[0], self._s(meta))

    @v_args(meta=True)
    def fail(self, meta, items):
        return A.FailDecl(items[0], self._s(meta))

    @v_args(meta=True)
    def limit(self, meta, items):
        return A.LimitDecl(items[0], items[1] if len(items) > 1 else None, self._s(meta))

    @v_args(meta=True)
    def heuristic(self, meta, items):
        name = str(items[0])
        admissible = any(isinstance(i, Token) and i.type == "ADMISSIBLE" for i in items)
        body = items[-1]
        if not isinstance(body, tuple):
            body = (A.Return(body, body.span),)
        return A.HeuristicDecl(name, admissible, body, self._s(meta))

    @v_args(meta=True)
    def level(self, meta, items):
        names = [str(i) for i in items if isinstance(i, Token)]
        legend = tuple(i for i in items if not isinstance(i, Token))
        return tuple(A.LevelDecl(name, legend, self._s(meta)) for name in names)

    @v_args(meta=True)
    def legend_entry(self, meta, items):
        kind, first, last = items[0]
        return A.LegendEntry(kind, first, last, tuple(items[1:]), self._s(meta))

    def tok_one(self, items):
        return ("one", _unquote(items[0]), None)

    def tok_range(self, items):
        return ("range", _unquote(items[0]), _unquote(items[1]))

    def tok_any(self, items):
        return ("any", None, None)

    # -- statements
    def suite(self, items):
        return tuple(items)

    @v_args(meta=True)
    def let_stmt(self, meta, items):
        return A.Let(str(items[0]), items[1], self._s(meta))

    @v_args(meta=True)
    def assign(self, meta, items):
        return A.Assign(items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def aug_assign(self, meta, items):
        return A.AugAssign(items[0], str(items[1])[0], items[2], self._s(meta))

    @v_args(meta=True)
    def target_name(self, meta, items):
        return A.Name(str(items[0]), self._s(meta))

    @v_args(meta=True)
    def target_index(self, meta, items):
        base = A.Name(str(items[0]), _span(self.src, items[0], self.shift))
        return A.Index(base, items[1], self._s(meta))

    @v_args(meta=True)
    def require(self, meta, items):
        return A.Require(items[0], _unquote(items[1]) if len(items) > 1 else None, self._s(meta))

    @v_args(meta=True)
    def return_(self, meta, items):
        return A.Return(items[0], self._s(meta))

    @v_args(meta=True)
    def call_stmt(self, meta, items):
        call = A.Call(str(items[0]), items[1] if len(items) > 1 else (), self._s(meta))
        return A.CallStmt(call, self._s(meta))

    @v_args(meta=True)
    def pass_(self, meta, items):
        return A.Pass(self._s(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, items):
        branches = [(items[0], items[1])]
        orelse = ()
        for extra in items[2:]:
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                orelse = extra[1]
        return A.If(tuple(branches), orelse, self._s(meta))

    def elif_clause(self, items):
        return ("elif", items[0], items[1])

    def else_clause(self, items):
        return ("else", items[0])

    @v_args(meta=True)
    def for_stmt(self, meta, items):
        return A.For(str(items[0]), items[1], items[2], self._s(meta))

    @v_args(meta=True)
    def while_stmt(self, meta, items):
        return A.While(items[0], items[1], self._s(meta))

    # -- expressions
    @v_args(meta=True)
    def where(self, meta, items):
        return A.Where(items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def or_(self, meta, items):
        return A.Binary("or", items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def and_(self, meta, items):
        return A.Binary("and", items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def not_(self, meta, items):
        return A.Not(items[0], self._s(meta))

    @v_args(meta=True)
    def compare(self, meta, items):
        return A.Binary(str(items[1]), items[0], items[2], self._s(meta))

    @v_args(meta=True)
    def member(self, meta, items):
        return A.Binary("in", items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def at(self, meta, items):
        return A.At(str(items[0]), items[1], self._s(meta))

    @v_args(meta=True)
    def range(self, meta, items):
        return A.Range(items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def binop(self, meta, items):
        return A.Binary(str(items[1]), items[0], items[2], self._s(meta))

    @v_args(meta=True)
    def union(self, meta, items):
        return A.Binary("|", items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def intersect(self, meta, items):
        return A.Binary("&", items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def neg(self, meta, items):
        return A.Neg(items[0], self._s(meta))

    @v_args(meta=True)
    def index(self, meta, items):
        return A.Index(items[0], items[1], self._s(meta))

    @v_args(meta=True)
    def field(self, meta, items):
        return A.Field(items[0], str(items[1]), self._s(meta))

    @v_args(meta=True)
    def call(self, meta, items):
        return A.Call(str(items[0]), items[1] if len(items) > 1 else (), self._s(meta))

    def args(self, items):
        return tuple(items)

    @v_args(meta=True)
    def int_lit(self, meta, items):
        return A.IntLit(int(items[0]), self._s(meta))

    @v_args(meta=True)
    def true_lit(self, meta, items):
        return A.BoolLit(True, self._s(meta))

    @v_args(meta=True)
    def false_lit(self, meta, items):
        return A.BoolLit(False, self._s(meta))

    @v_args(meta=True)
    def none_lit(self, meta, items):
        return A.NoneLit(self._s(meta))

    @v_args(meta=True)
    def name(self, meta, items):
        return A.Name(str(items[0]), self._s(meta))

    @v_args(meta=True)
    def cell_lit(self, meta, items):
        return A.CellLit(items[0], items[1], self._s(meta))


def _unquote(tok) -> str:
    return str(tok)[1:-1]


def _action_clauses(meta, text: str) -> list[str]:
    """Which of `cost` / `when` an action header has, in order (both are optional)."""
    header = text.splitlines()[meta.line - 1] if meta.line else ""
    # Only the header line matters; strings and comments cannot contain the keywords in a way that matters
    # here because the parser already accepted the header.
    kinds = []
    import re

    for m in re.finditer(r"\b(cost|when)\b", header.split("#")[0]):
        kinds.append(m.group(1))
    return kinds


def _syntax_error(err: UnexpectedInput, src: Source, text: str, shift: Shift) -> RuleError:
    line = getattr(err, "line", 1) or 1
    col = getattr(err, "column", 1) or 1
    if line == -1 or col == -1:  # end of input
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    span = Span(src, line, col, line, col + 1)
    if shift:
        span = span.shifted(src, *shift)
    if isinstance(err, UnexpectedCharacters):
        ch = text.splitlines()[line - 1][col - 1] if line <= len(text.splitlines()) else "?"
        return RuleError(f"unexpected character `{ch}`", span)
    if isinstance(err, UnexpectedEOF):
        return RuleError("unexpected end of file", span)
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    if tok.type not in ("_NL", "_INDENT", "_DEDENT", "$END") and tok.end_column:
        span = Span(span.source, span.line, span.col, span.line, span.col + len(str(tok.value)))
    try:
        expected = sorted(err.interactive_parser.accepts())
    except Exception:  # pragma: no cover - lark internals
        expected = sorted(err.expected)
    expected = [e for e in expected if e != "$END"]
    shown = sorted({_describe(e) for e in expected})
    if tok.type == "_INDENT":
        return RuleError("unexpected indent", span, "indent only the lines of a block (after a line ending in ':')")
    if tok.type == "$END" or tok.type == "_DEDENT" and not expected:
        return RuleError("unexpected end of file", span)
    if len(shown) > 8:
        msg = f"unexpected {_describe_token(tok)}"
    elif shown:
        msg = f"unexpected {_describe_token(tok)}, expected " + ", ".join(shown[:-1]) + \
              (" or " if len(shown) > 1 else "") + shown[-1]
    else:
        msg = f"unexpected {_describe_token(tok)}"
    hint = None
    if tok.type == "_NL" and "COLON" in expected:
        hint = "a block header ends with ':'"
    elif tok.type == "NAME" and str(tok.value) not in _KEYWORD_DECLS and line == 1 and col == 1:
        hint = "a rule file is a list of declarations: game, param, layer, global, action, goal, ..."
    elif tok.type == "EQUAL" and "__ANON" in "".join(expected):
        hint = None
    return RuleError(msg, span, hint)


def _parse(text: str, src: Source, shift: Shift = None):
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parser("start").parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, src, text, shift) from None
    except DedentError:
        lineno = _dedent_line(text)
        span = Span(src, lineno, 1, lineno, 2)
        raise RuleError("this line's indentation matches no enclosing block",
                        span.shifted(src, *shift) if shift else span) from None
    return _Build(src, text, shift).transform(tree)


def _dedent_line(text: str) -> int:
    """The first line that dedents to a column no open block started at."""
    stack = [0]
    for i, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        ind = len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip())
        if ind > stack[-1]:
            stack.append(ind)
            continue
        while ind < stack[-1]:
            stack.pop()
        if ind != stack[-1]:
            return i
    return 1


def parse_dsl(text: str, path: str = "<rules>") -> A.RuleFile:
    """Parse a whole rule file written in the text DSL."""
    return _parse(text, Source(path, text))


def parse_snippet(text: str, src: Source, kind: str, line: int, col: int, block: bool = False):
    """Parse an expression (`kind="expr"`) or statements (`kind="stmts"`) embedded in a YAML rule file.

    (line, col) is where the snippet's text starts in `src`; `block` says it is a YAML block scalar whose
    every line starts at column `col`. Spans come out at their true places in the YAML file.
    """
    if kind == "expr":
        prefix = "goal: "
        code = prefix + " ".join(text.strip().splitlines()) + "\n"
        rf = _parse(code, src, (line - 1, col - 1 - len(prefix), True))
        return rf.decls[0].cond
    code = "init:\n" + "".join("    " + ln + "\n" for ln in text.splitlines())
    shift = (line - 2, col - 5, False) if block else (line - 2, col - 5, False)
    rf = _parse(code, src, shift)
    return rf.decls[0].body
