"""Text DSL -> AST. The grammar lives in grammar.lark; this module builds nodes and explains syntax errors."""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from .. import ast as A
from ..cache import ensure_root
from ..errors import RuleError, Source, Span, shown_char


class _Blocks(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def process(self, stream):
        # The contextual lexer reads a keyword as a NAME where no keyword fits (`global in: ...`); such a name
        # could never be used in an expression, so it is refused where it is declared.
        prev = None
        for tok in super().process(stream):
            if tok.type == "NAME" and tok.value in RESERVED and not (prev is not None and prev.type == "DOT"):
                raise _ReservedWord(tok)  # (a field after `.` may be a keyword: `block.at`)
            prev = tok
            yield tok


# Words of statements and expressions; they cannot name anything.
RESERVED = frozenset("and or not in at where let if elif else for while require return true false none pass safe "
                     "redundant commutes persists chooses ranks emit cost when static admissible dominates".split())


class _ReservedWord(Exception):
    def __init__(self, tok):
        super().__init__(tok.value)
        self.tok = tok


@functools.lru_cache(maxsize=None)
def _parser(start: str) -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", postlex=_Blocks(), start=start,
                propagate_positions=True, maybe_placeholders=False, cache=_table_file(grammar, start))


def _table_file(grammar: str, start: str) -> str | bool:
    """Where lark keeps this grammar's LALR tables (building them takes ~0.3 s of every run). lark checks a
    hash of the grammar, its options and its version before it uses the file, and rebuilds the tables when
    the file is missing, stale, unreadable or unwritable."""
    folder = ensure_root() / "parser"  # (the cache folder made and tagged first, as for any cached file)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    digest = hashlib.sha256(grammar.encode()).hexdigest()[:16]
    return str(folder / f"{start}-{digest}.lark")


# Friendly names for terminals in "expected ..." messages.
_TERMINALS = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','",
    "EQUAL": "'='", "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "INT": "a number", "SIGNED_INT": "a number", "STRING": "a quoted string",
    "DOT": "'.'", "SEMICOLON": "';'", "CMPOP": "a comparison", "ADDOP": "'+' or '-'",
    "MULOP": "'*', '/' or '%'", "AUGOP": "'+=' or '-='", "STAR": "'*'", "MINUS": "'-'",
}

_KEYWORD_DECLS = ("game", "param", "enum", "layer", "global", "body", "particle", "def", "action", "init",
                  "goal", "fail", "deadlock", "heuristic", "score", "show", "level", "limit")


@functools.lru_cache(maxsize=None)
def _literals() -> dict[str, str]:
    """Terminal name -> its fixed text, for the grammar's keywords and symbols (lark names `..` `__ANON_1`)."""
    return {t.name: t.pattern.value for t in _parser("start").terminals if t.pattern.type == "str"}


def _describe(term: str) -> str:
    if term in _TERMINALS:
        return _TERMINALS[term]
    if term in _literals():
        return f"'{_literals()[term]}'"
    if term.isupper() and term.isalpha():
        return f"'{term.lower()}'"
    return term


def _unclosed_bracket(text: str, line: int, col: int) -> tuple[str, int, int] | None:
    """The innermost `(` or `[` before (line, col) that is never closed in the whole text, skipping strings and
    comments: after one, the following lines all read as one expression and the error shows up later."""
    import re

    stack = []
    for i, raw in enumerate(text.split("\n"), 1):
        for m in re.finditer(r""""[^"\n]*"|'[^'\n]*'|#.*|[\[\]()]""", raw):
            ch = m.group(0)
            if ch in "([":
                stack.append((ch, i, m.start() + 1))
            elif ch in ")]" and stack:
                stack.pop()
    before = [b for b in stack if (b[1], b[2]) < (line, col)]
    return before[-1] if before else None


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


def number(text: str) -> int:
    """A number's value as written (digits, an optional `-`); one of more than 40 digits stands for 10^40, which
    the checker refuses as too large: int() reads no more than 4,300 digits, and no rule needs 40."""
    digits = text.lstrip("-").lstrip("0") or "0"
    value = int(digits) if len(digits) <= 40 else 10 ** 40
    return -value if text.startswith("-") else value


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
        return number(str(items[0]))

    @v_args(meta=True)
    def particle(self, meta, items):
        return A.ParticleDecl(str(items[0]), tuple(items[1:]), self._s(meta))

    @v_args(meta=True)
    def particle_item(self, meta, items):
        return A.ParticleProp(str(items[0]), items[1], self._s(meta))

    @v_args(meta=True)
    def def_(self, meta, items):
        params = items[1] if len(items) == 3 else ()
        return A.DefDecl(str(items[0]), params, items[-1], self._s(meta))

    @v_args(meta=True)
    def action(self, meta, items):
        name = str(items[0])
        rest = list(items[1:])
        params = rest.pop(0) if rest and isinstance(rest[0], tuple) and (not rest[0] or isinstance(rest[0][0], A.ParamDecl)) and len(rest) > 1 else ()
        unordered = bool(rest) and isinstance(rest[0], Token) and rest[0].type == "UNORDERED"
        if unordered:
            rest.pop(0)
        notation = None
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            notation = _unquote(rest.pop(0))
        body = rest.pop()
        clauses = dict(rest)  # what is left: ("cost", expr) and/or ("when", expr)
        return A.ActionDecl(name, params, notation, clauses.get("cost"), clauses.get("when"), body, self._s(meta),
                            unordered=unordered)

    def action_cost(self, items):
        return ("cost", items[0])

    def action_when(self, items):
        return ("when", items[0])

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
    def show(self, meta, items):
        return A.ShowDecl(str(items[0]), items[1], self._s(meta))

    @v_args(meta=True)
    def fail(self, meta, items):
        return A.FailDecl(items[0], self._s(meta))

    @v_args(meta=True)
    def deadlock(self, meta, items):
        return A.DeadlockDecl(items[0], self._s(meta))

    @v_args(meta=True)
    def limit(self, meta, items):
        return A.LimitDecl(items[0], items[1] if len(items) > 1 else None, self._s(meta))

    @v_args(meta=True)
    def heuristic(self, meta, items):
        name = str(items[0])
        admissible = any(isinstance(i, Token) and i.type == "ADMISSIBLE" for i in items)
        dominates = next((i for i in items[1:-1] if isinstance(i, list)), [])
        body = items[-1]
        if not isinstance(body, tuple):
            body = (A.Return(body, body.span),)
        return A.HeuristicDecl(name, admissible, body, self._s(meta), tuple(dominates))

    def dominates(self, items):
        return [A.Name(str(t), _span(self.src, t, self.shift)) for t in items]

    @v_args(meta=True)
    def score(self, meta, items):
        body = items[-1]
        if not isinstance(body, tuple):
            body = (A.Return(body, body.span),)
        return A.ScoreDecl(body, self._s(meta))

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
    def safe_(self, meta, items):
        return A.Safe(self._s(meta))

    @v_args(meta=True)
    def redundant_(self, meta, items):
        return A.Redundant(self._s(meta))

    @v_args(meta=True)
    def commutes_(self, meta, items):
        return A.Commutes(self._s(meta))

    @v_args(meta=True)
    def persists_(self, meta, items):
        return A.Persists(self._s(meta))

    @v_args(meta=True)
    def chooses(self, meta, items):
        return A.Chooses(items[0], self._s(meta))

    @v_args(meta=True)
    def ranks(self, meta, items):
        return A.Ranks(items[0], self._s(meta))

    @v_args(meta=True)
    def emit(self, meta, items):
        return A.Emit(str(items[0]), items[1], self._s(meta))

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
        return A.IntLit(number(str(items[0])), self._s(meta))

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
        lines = text.split("\n")
        ch = lines[line - 1][col - 1] if line <= len(lines) and col <= len(lines[line - 1]) else "?"
        hint = "a string ends on the line it starts, with the quote it starts with" if ch in "\"'" else None
        return RuleError(f"unexpected character `{shown_char(ch)}`", span, hint)
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
    unclosed = _unclosed_bracket(text, line, col)
    if unclosed and tok.type not in ("RPAR", "RSQB"):
        closer = ")" if unclosed[0] == "(" else "]"
        unclosed_hint = f"the `{unclosed[0]}` on line {unclosed[1]}, column {unclosed[2]} is never closed with `{closer}`"
        if shift:
            unclosed_hint = None  # positions inside an embedded snippet would not match the file
    else:
        unclosed_hint = None
    if tok.type == "_INDENT":
        # lark puts the indent where the previous line ends; the indented text starts where that token ends
        if tok.end_line and tok.end_column:
            span = Span(src, tok.end_line, tok.end_column, tok.end_line, tok.end_column + 1)
            if shift:
                span = span.shifted(src, *shift)
        return RuleError("unexpected indent", span, "indent only the lines of a block (after a line ending in ':')")
    if tok.type == "$END" or tok.type == "_DEDENT" and not expected:
        hint = unclosed_hint
        if "_INDENT" in expected:
            hint = "a line ending in ':' must be followed by an indented block"
        return RuleError("unexpected end of file", span, hint)
    if len(shown) > 8:
        msg = f"unexpected {_describe_token(tok)}"
    elif shown:
        msg = f"unexpected {_describe_token(tok)}, expected " + ", ".join(shown[:-1]) + \
              (" or " if len(shown) > 1 else "") + shown[-1]
    else:
        msg = f"unexpected {_describe_token(tok)}"
    hint = None
    before = text.split("\n")[line - 1][:col - 1] if line <= len(text.split("\n")) else ""
    if tok.type == "_NL" and "COLON" in expected:
        hint = "a block header ends with ':'"
    elif tok.type == "NAME" and str(tok.value) not in _KEYWORD_DECLS and col == 1 and not shift:
        from ..errors import did_you_mean

        hint = did_you_mean(str(tok.value), _KEYWORD_DECLS) or \
            "a rule file is a list of declarations: game, param, layer, global, action, goal, ..."
    elif tok.type == "EQUAL" and "CMPOP" in expected:
        hint = "to compare two values, write `==`; `=` only assigns"
    elif tok.type == "IF" and before.rstrip().endswith("else"):
        hint = "write `elif` for another condition"
    return RuleError(msg, span, unclosed_hint or hint)


def _parse(text: str, src: Source, shift: Shift = None):
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parser("start").parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, src, text, shift) from None
    except _ReservedWord as err:
        tok = err.tok
        span = Span(src, tok.line, tok.column, tok.line, tok.column + len(tok.value))
        raise RuleError(f"`{tok.value}` is a reserved word and cannot be used as a name",
                        span.shifted(src, *shift) if shift else span) from None
    except DedentError:
        lineno = _dedent_line(text)
        raw = text.split("\n")[lineno - 1] if lineno <= len(text.split("\n")) else ""
        col = len(raw) - len(raw.lstrip(" \t")) + 1
        span = Span(src, lineno, col, lineno, col + 1)
        raise RuleError("this line's indentation matches no enclosing block",
                        span.shifted(src, *shift) if shift else span,
                        "indent it exactly as far as the lines of the block it belongs to") from None
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
    src = Source(path, text)
    # (a line ended by a lone CR, old Mac's, with text after it: a comment runs to the next \n and would swallow
    # the lines after it; CRs before a line end, or inside a comment, are left to the grammar as before)
    lone = re.search(r"\r+(?![\r\n])", text)
    if lone:
        at = lone.start()
        line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
        raise RuleError("unexpected character `\\r`", Span(src, line, col, line, col + 1),
                        "a line that ends in a lone CR (old Mac line ends): save the file with LF or CRLF line ends")
    return _parse(text, src)


def parse_snippet(text: str, src: Source, kind: str, line: int, col: int, block: bool = False):
    """Parse DSL text embedded in a YAML rule file; every span comes out at its true place in `src`.

    kind: "expr" (an expression, which may run over several lines), "type", "stmts" (a block of statements)
    or "legend" (the simple statements of one legend entry, separated by `;` or put on lines of their own).
    The text's first character is at (line, col) of `src`, both 1-based. With `block` (a YAML block scalar with
    its indentation removed) every line starts at column `col`; otherwise the lines after the first are whole
    lines of `src` (they start at column 1).
    """
    noun = {"expr": "expression", "type": "type", "stmts": "statements", "legend": "statements"}[kind]
    raw = text.splitlines() or [""]  # the line breaks Source.line_text counts; lark then sees only "\n"
    lead = " " * (col - 1)
    placed = [(line + i, (lead if i == 0 or block else "") + ln) for i, ln in enumerate(raw)]
    body = [(n, ln) for n, ln in placed if ln.strip()]
    if not body:
        raise RuleError(f"expected {'an' if noun[0] in 'aeiou' else 'a'} {noun}" if kind in ("expr", "type")
                        else f"expected {noun}", Span(src, line, col, line, col + 1))
    last_line, last_text = body[-1]
    end = Span(src, last_line, len(last_text.rstrip()) + 1, last_line, len(last_text.rstrip()) + 2)

    def ends_early(err: RuleError) -> RuleError:
        """An error past the text (at our own line ends and brackets) is about the text's end."""
        for what in ("end of line", "end of block", "end of file", "`)`"):
            if err.message.startswith(f"unexpected {what}") and (
                    err.span is None or (err.span.line, err.span.col) >= (end.line, end.col)):
                rest = err.message[len(f"unexpected {what}"):] if what != "`)`" else ""
                return RuleError(f"unexpected end of {noun}{rest}", end, err.hint)
        if err.message.startswith("unexpected `,`") and kind in ("expr", "type") and err.hint is None:
            return RuleError(err.message, err.span, "a cell is written `(row, col)`")
        return err

    if kind in ("expr", "type") and len(body) == 1:  # one line: `goal: TEXT` / `layer _: TEXT`
        n, ln = body[0]
        content = ln.lstrip()
        at = len(ln) - len(content) + 1  # the true column of content's first character
        prefix = "goal: " if kind == "expr" else "layer _: "
        try:
            decl = _parse(prefix + content, src, (n - 1, at - 1 - len(prefix), True)).decls[0]
        except RuleError as err:
            raise ends_early(err) from None
        if kind == "expr":
            return decl.cond
        if decl.static:  # `layer _: TYPE static` parses; a type alone has no `static`
            pos = at + len(content.split("#")[0].rstrip()) - len("static")
            raise RuleError("unexpected `static`", Span(src, n, pos, n, pos + 6))
        return decl.type
    if kind == "type":
        n, _ = body[1]
        raise RuleError("a type fits on one line", Span(src, n, 1, n, 2))
    if kind == "expr":  # several lines: inside parentheses line breaks do not count
        bad = _unbalanced(body, src)
        if bad is not None:
            raise bad
        code = "goal: (\n" + "\n".join(ln for _, ln in placed) + "\n)\n"
        try:
            cond = _parse(code, src, (line - 2, 0, False)).decls[0].cond
        except RuleError as err:
            raise ends_early(err) from None
        if isinstance(cond, A.CellLit) and cond.span is not None and cond.span.line < line:
            # `a, b` came out as a cell only because of our parentheses
            r = cond.row.span
            at = r.end_col if r is not None else col
            n = r.end_line if r is not None else line
            raise RuleError("unexpected `,`", Span(src, n, at, n, at + 1), "a cell is written `(row, col)`")
        return cond
    if kind == "stmts":
        code = "init:\n" + "\n".join("    " + ln for _, ln in placed) + "\n"
        try:
            return _parse(code, src, (line - 2, -4, False)).decls[0].body
        except RuleError as err:
            raise ends_early(err) from None
    if kind != "legend":
        raise ValueError(f"unknown snippet kind {kind!r}")
    stmts: list = []
    for n, ln in body:  # one legend entry per line, parsed as `* : TEXT`
        content = ln.lstrip()
        if content.startswith("#"):
            continue
        at = len(ln) - len(content) + 1
        prefix = "    * : "
        try:
            rf = _parse("level _:\n" + prefix + content + "\n", src, (n - 2, at - 1 - len(prefix), False))
        except RuleError as err:
            raise ends_early(err) from None
        stmts.extend(rf.decls[0].legend[0].body)
    if not stmts:
        raise RuleError(f"expected {noun}", Span(src, line, col, line, col + 1))
    return tuple(stmts)


def _unbalanced(lines: list[tuple[int, str]], src: Source) -> RuleError | None:
    """The first bracket that is never closed or closes nothing, in lines at their true columns."""
    pairs = {")": "(", "]": "["}
    stack: list[tuple[str, int, int]] = []
    for n, ln in lines:
        quote = None
        for i, ch in enumerate(ln):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#":
                break
            elif ch in "([":
                stack.append((ch, n, i + 1))
            elif ch in ")]":
                if not stack or stack[-1][0] != pairs[ch]:
                    return RuleError(f"`{ch}` closes nothing", Span(src, n, i + 1, n, i + 2))
                stack.pop()
    if stack:
        ch, n, c = stack[-1]
        return RuleError(f"`{ch}` is never closed", Span(src, n, c, n, c + 1))
    return None
