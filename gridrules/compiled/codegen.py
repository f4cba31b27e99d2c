"""Lowering: one game instance's IR -> Python source for numba (`@njit`), the compiled backend's input.

The generated module works on packed states (uint64 arrays laid out by layout.py) and on a decoded working
copy: every layer as a row of `D` (dynamic) or `SL` (static) int64 arrays over the cells, every global as
slots of the int64 arrays `g` (dynamic) and `SG` (static) — a cell takes two slots (row, col; `none` has row
NONE), a body three (pose, row, col). Sets of cells are uint64 arrays (runtime.py). Expressions become
straight-line code with temporaries, so `and`, `or` and calls keep their order and laziness. The board's
dimensions and where each field of the packed state lies are read at run time from the head of SG, so the
source depends only on the game, the parameters and which actions a level can use — not on the board size
(unless the rule file sizes a domain or an array by it) nor on one level's contents — and such levels share
one compiled module.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import math
import re
from pathlib import Path

from .. import ir
from ..instance import Instance
from . import bounds
from .prune import prune_cached
from ..layout import bits_for
from ..reference.evaluator import MAX_FLIGHT, particle_gap, queue_room

NONE = -(1 << 40)
_OVERFLOW_TEST = {"+": "sum", "-": "difference", "*": "product"}  # (runtime's tests: rt.sum_overflows, ...)
# The work row `ab` (system._work): flags in ab[0:QUEUE] (ab[4]: the move ran `safe`; ab[5]: it ran `commutes`;
# ab[6]: a path search's `after`, -2 outside one; ab[7]: it ran `persists`; ab[8]: 1 while a path search that bans
# moves lists them; ab[9]: where the ban table lies while a deadlock test may read it (runtime.is_banned), else
# -1; the table itself, for a game with `persists`, ends the row; ab[10]: the move ran `chooses`, ab[11] its value,
# ab[12]: where the choices of the moves listed are kept, then their ranks, for a game with `chooses` or `ranks`;
# ab[13]: the rank the move ran `ranks` with; ab[14]: the move ran `redundant`; ab[15]: where the words of the
# state a search starts from lie, for a game with `redundant`, else -1); with particles, ab[QUEUE]
# counts the particles queued, ab[QUEUE + 1] is the queue's room, ab[QUEUE + 2] and ab[QUEUE + 3] where the rows of
# the particles in flight lie and how many there are room for (at the end of the row, where it grows:
# system.CompiledSystem.more_particle_room); kind, cell and direction of each particle queued follow from
# ab[QUEUE + 4], and after the queue lies the chain reaction's other scratch (chain_code).
QUEUE = 16
QUEUED = QUEUE + 4  # (where the queue's particles start)
IN_FLIGHT, LEAVING = 4, 3  # numbers a row of a particle in flight holds (kind, cell, dir, step due), of one leaving
# What runtime.take_emitted raises (a literal there) when the particles in flight outgrow their rows: not a fault of
# the rules but a call for more room (system.CompiledSystem.more_particle_room); then the move, or the search, runs
# again.
OUT_OF_ROOM = "gridrules:room"
_MASK_ROWS = "@rows:{}@"  # stands for where a function's value masks of a layer go, until prologue knows
SCRATCH = 3  # BM's rows: every cell, the cells not in the first column, not in the last; then sets' scratch rows
HEADER = 4  # SG[0:4]: ROWS, COLS, N (cells), K (words of a set of cells)
BOARD_NAMES = {"ROWS": "SG[0]", "COLS": "SG[1]", "N": "SG[2]", "K": "SG[3]",  # generated code's names for them
               "FULL": "BM[0]", "NOT_LEFT": "BM[1]", "NOT_RIGHT": "BM[2]"}  # (all cells; masks for shifts)


_RUNTIME = "from gridrules.compiled import runtime as rt"  # (generate's import of the helpers)
_ENTRIES = ("expand", "heuristic", "goal", "deadlock", "score")  # (the entry points _dispatch makes)


def for_board(source: str, rows: int, cols: int, layout: tuple = (), refcounts: bool = True) -> str:
    """A generated module's source made for one board shape: the dimensions it reads from SG at run time (so that
    one compiled module serves every board) become constants, and with them the lengths of its set loops and
    the shifts of its bitboard helpers (runtime.grow_into: inlined where called). With `layout`, the head of SG
    that says where the state's fields lie (header_values), those places become constants too: decoding and
    encoding a state then shift and mask by amounts known in advance.

    Without `refcounts`, as without_refcounts makes it (about half of Flood-It's heuristic is reference counting);
    numba refuses some modules so: they are then built with reference counting (extension._build)."""
    n = rows * cols
    shape = {"ROWS": rows, "COLS": cols, "N": n, "K": max(1, -(-n // 64))}  # (header_values' K)
    for name, value in shape.items():
        source = source.replace(f"    {name} = {BOARD_NAMES[name]}\n", f"    {name} = {value}\n")
    if layout:
        source = re.sub(r"\bSG\[(\d+)\]", lambda m: f"({layout[int(m[1])]})" if int(m[1]) < len(layout) else m[0],
                        source)
    if not refcounts:
        source = without_refcounts(source)
    source = inlined(source)
    return f"# Made for a {rows}x{cols} board{'' if refcounts else ', without reference counting'}.\n" + source


# The functions expand calls once a move or a state (a move's parts, the state's decoding and encoding), inlined
# where called in an extension module's code
_ONCE = re.compile(r"(head|once|cost|act)_\d+|_encode\w*|_decode\w*|_failed")
_COPIES = 400  # the most lines a `def` inlined where called may add to a module (compile time grows faster)


def inlined(source: str) -> str:
    """A generated module's source with the functions expand calls for each move or state compiled inline where
    called (numba's inline="always", on its IR): _ONCE's, and each `def` that calls no generated function, unless
    its copies would add more than _COPIES lines. A call passes every array as its whole struct, and a move's
    work is small: expand alone (bench/expand_ab.py, against the calls) 1.44x quicker for Bloxorz, 1.28x for
    Lianliankan, 1.26x for Splash Back, 1.20x for Drops, 1.18x for Flood-It, whose modules compile about as
    long as before all told (Bloxorz's 10 -> 23 s, Lianliankan's 53 -> 37 s). A `def` that calls another stays
    a call: copied into each place with all it calls, Bloxorz's `touch` and `press` made its module take 41 s to
    compile, and Lianliankan's 119 s."""
    names = set(re.findall(r"^def (\w+)\(", source, flags=re.M))
    out = []
    for block in re.split(r"(?m)^(?=@njit)", source):
        head = re.match(r"@njit\((.*)\)\ndef (\w+)\(", block)
        if head is not None and "inline=" not in head[1]:
            name = head[2]
            calls = set(re.findall(r"\b(\w+)\(", block[head.end():])) & names  # (itself too, if recursive)
            sites = len(re.findall(rf"\b{name}\(", source)) - 1  # (the header aside)
            if _ONCE.fullmatch(name) or (name.startswith("def_") and not calls
                                         and block.count("\n") * (sites - 1) <= _COPIES):
                block = f'@njit({head[1]}, inline="always")' + block[block.index("\ndef "):]
        out.append(block)
    return "".join(out)


def without_refcounts(source: str) -> str:
    """A generated module's source with every function compiled without numba's reference counting, but the
    `_at` entries (Python calls them: they make arrays of a descriptor's memory), and with the helpers of
    _runtime_unrefcounted. The arrays the code works on are all borrowed (runtime.borrow) or views of them, so
    counting their references is work for nothing (Bloxorz's `expand`: ~1.4x quicker without). numba refuses to
    compile such code where it allocates an array or returns one it was not given (Drops' chain reactions grow
    their particle table): the module is then used as generated (system.jit_source, extension._build)."""
    if _RUNTIME not in source:  # (else it would call runtime.py's own helpers: see _runtime_unrefcounted)
        raise ValueError("a generated module without generate's import of the helpers")
    entries = "|".join(_ENTRIES)
    source = re.sub(rf"^@njit\((.*)\)$(?!\ndef (?:{entries})_at\()", r"@njit(\1, _nrt=False)", source, flags=re.M)
    return source.replace(_RUNTIME, "from gridrules.compiled import _runtime_unrefcounted as rt")


_ALLOCATORS = frozenset({"empty", "zeros", "ones", "full", "array", "arange", "empty_like", "zeros_like",
                         "concatenate"})


def _makes_arrays(function: ast.AST, helpers: frozenset) -> bool:
    """Whether a function's body calls NumPy to make an array, copies one, or calls one of `helpers` (as rt.NAME
    or by its bare name)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute):
            on = f.value.id if isinstance(f.value, ast.Name) else None
            if (on == "np" and f.attr in _ALLOCATORS) or (on == "rt" and f.attr in helpers) or \
                    (f.attr == "copy" and not node.args):
                return True
        elif isinstance(f, ast.Name) and f.id in helpers:
            return True
    return False


@functools.cache
def _allocating_helpers() -> frozenset:
    """The runtime's functions that make arrays, themselves or through another of them."""
    from . import runtime

    functions = [f for f in ast.parse(Path(runtime.__file__).read_text()).body if isinstance(f, ast.FunctionDef)]
    found: frozenset = frozenset()
    while True:
        more = frozenset(f.name for f in functions if _makes_arrays(f, found))
        if more == found:
            return found
        found = more


def allocates(source: str) -> bool:
    """Whether a generated module's compiled code makes arrays, as its source shows (Lianliankan's move order
    sorts into new rows; chain reactions make none, see chain_code): numba then compiles it only with
    reference counting, and trying without_refcounts first would only cost a failed compile (~3..8 s of a first
    run). Only what numba compiles counts: the functions the entry points reach (not a heuristic left unchosen,
    nor what only `show` reads; the `_at` entries keep their reference counting anyway). A module that numba
    refuses for another reason is still tried once (system.refusal_note)."""
    helpers = _allocating_helpers()
    functions = {f.name: f for f in ast.parse(source).body if isinstance(f, ast.FunctionDef)}
    todo = [name for name in _ENTRIES if name in functions]
    reached = set(todo)
    while todo:
        function = functions[todo.pop()]
        if _makes_arrays(function, helpers):
            return True
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                    and node.func.id not in reached:
                reached.add(node.func.id)
                todo.append(node.func.id)
    return False


def _board_names(lines: list[str]) -> list[str]:
    """Bind the board's dimensions and masks that these lines of code read."""
    used = set(re.findall(r"\b(?:" + "|".join(BOARD_NAMES) + r")\b", "\n".join(lines)))
    return [f"    {name} = {BOARD_NAMES[name]}" for name in BOARD_NAMES if name in used]


def _word_tree(e) -> bool:
    """Whether a set expression is a set operation (|, &, -) or `S where COND` with a condition that is a mask
    (_mask_condition), which Lowering.words computes a word at a time."""
    if isinstance(e, ir.BinOp):
        return e.op in ("|", "&", "-") and e.ty == ir.SET
    return isinstance(e, ir.Where) and _mask_condition(e.pred)


def _mask_condition(pred, inner: bool = False) -> bool:
    """Whether a cell condition holds on a set of cells worked out once: `layer == v` (a value mask), `layer !=
    v` (its complement), `here in T`, `here.row == v` or `here.col == v` (a row or column of the board), or
    (`inner`: below an and, or, not) `and`, `or` and `not` of such
    conditions. The reference reads the operands of an `and` or `or` only where needed, so below them only
    operands that cannot fault are taken: values that are literals, parameters, locals or globals, and sets T
    that are locals."""
    if isinstance(pred, ir.BinOp) and pred.op in ("and", "or"):
        return _mask_condition(pred.left, True) and _mask_condition(pred.right, True)
    if isinstance(pred, ir.BinOp) and pred.op == "!=":  # (the complement of `==`'s mask)
        return _mask_condition(_equal(pred), inner)
    if isinstance(pred, ir.Unary) and pred.op == "not" and Lowering._layer_equality(pred) is None:
        return _mask_condition(pred.operand, True)
    fast = Lowering._layer_equality(pred)
    if fast is not None:
        return not inner or isinstance(fast[1], (ir.Const, ir.ParamRef, ir.BoardSize, ir.Local, ir.GlobalRef))
    if _line(pred) is not None:  # (its value cannot fault: _here_free)
        return True
    t = _membership(pred)
    return t is not None and (not inner or isinstance(t, ir.Local))


# A layer of more values than this, read from a packed state, gives the mask of one value at a time (its planes
# ANDed) rather than every value's at once: Lianliankan's tiles have 128 codes, of which its goal asks for one.
_ONE_MASK = 16


_NESTING = 50  # parentheses an expression's code may nest before it goes into a temporary (Lowering.ex)


def _nesting(code: str) -> int:
    """How deep the parentheses of a line of code nest."""
    depth = most = 0
    for ch in code:
        if ch == "(":
            depth += 1
            most = max(most, depth)
        elif ch == ")":
            depth -= 1
    return most


def _equal(pred: ir.BinOp) -> ir.BinOp:
    """`a == b` for a condition `a != b`."""
    return dataclasses.replace(pred, op="==")


def _binds(body, slot: int) -> bool:
    """Whether statements bind the local `slot` (a `let`, an assignment, a `for` over it)."""
    return ir.contains(body, lambda x: isinstance(x, (ir.SetLocal, ir.For)) and x.slot == slot)


def _indexes_only(slot: int, body) -> bool:
    """Whether a loop's cell local (`slot`) is read in its body only to index layers (`layer[c]`, `layer[c] = v`)
    and never bound again there: its cell's index from the set stands for it (a cell of a set is on the board)."""
    def local(x) -> bool:
        return isinstance(x, ir.Local) and x.slot == slot

    if _binds(body, slot):
        return False
    return ir.count(body, local) == ir.count(body, lambda x: isinstance(x, ir.LayerAt) and local(x.cell)
                                              or isinstance(x, ir.SetLayer) and local(x.where))


def once_prefix(body, params: int, game: ir.Game) -> int:
    """How many leading statements of an action's body `once` may work out a state instead of a move: `let`s of
    sets and `require`s that change nothing and read no local but those lets (not the parameters, locals 0..
    params-1), where each let's local is assigned nowhere else in the body (its row is then read, never
    written, by every move); 0 unless a let is among them (a require alone is as quick per move)."""
    lets: set[int] = set()
    k = 0
    for st in body:
        if not isinstance(st, (ir.SetLocal, ir.Require)) or _writes(st, game):
            break
        if ir.contains(st.value if isinstance(st, ir.SetLocal) else st.cond,
                       lambda x: isinstance(x, ir.Local) and x.slot not in lets):
            break
        if isinstance(st, ir.SetLocal):
            again = ir.count(tuple(body), lambda x: isinstance(x, (ir.SetLocal, ir.For)) and x.slot == st.slot)
            if st.value.ty != ir.SET or st.slot < params or again != 1:
                break
            lets.add(st.slot)
        k += 1
    while k and not isinstance(body[k - 1], ir.SetLocal):  # (requires after the last let stay with the move)
        k -= 1
    return k if lets else 0


def _writes(node, game: ir.Game) -> bool:
    """Whether an IR statement or expression may change the state: a store, or a call of a def that stores."""
    return ir.contains(node, lambda x: isinstance(x, (ir.SetLayer, ir.SetGlobal, ir.SetArray, ir.Emit))
                     or isinstance(x, ir.CallDef) and game.proc(x.name).writes_state)


def emitters(game: ir.Game) -> set[str]:
    """The defs that emit particles, themselves or through defs they call. Each gets a second version for use
    inside a chain reaction (`chain_def_NAME`), where `emit` queues the particles for the running chain instead
    of starting one: numba cannot compile the chain calling a def that calls the chain."""
    found: set[str] = set()
    while True:
        more = {d.name for d in game.defs if d.name not in found and ir.contains(
            d.body, lambda x: isinstance(x, ir.Emit) or isinstance(x, ir.CallDef) and x.name in found)}
        if not more:
            return found
        found |= more


def _conjuncts(e) -> list:
    """`x and y and z` as [x, y, z], in evaluation order."""
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _locals_in(e) -> set[int]:
    found = set()
    ir.contains(e, lambda x: isinstance(x, ir.Local) and found.add(x.slot))
    return found


def _grows_into(e) -> bool:
    """Whether a set expression is a flood that Lowering may make in a row it is given (b_group, b_region's bitboard
    path) rather than in a scratch row of its own."""
    if not isinstance(e, ir.Builtin):
        return False
    return e.name == "group" or (e.name == "region" and Lowering._layer_equality(e.args[1]) is not None)


def after_prefilter(body: tuple, steps: list) -> tuple:
    """An action's body less the conjuncts its prefilter steps check (one step a conjunct, in order)."""
    left, out = len(steps), []
    for n, stmt in enumerate(body):
        if not left:
            return tuple(out) + body[n:]
        rest = _conjuncts(stmt.cond)
        drop = min(left, len(rest))
        left -= drop
        if rest[drop:]:
            cond = rest[drop]
            for c in rest[drop + 1:]:
                cond = ir.BinOp(ir.BOOL, "and", cond, c)
            out.append(dataclasses.replace(stmt, cond=cond))
    return tuple(out)


def prefilter(action: ir.ActionInfo, game: ir.Game) -> list[tuple]:
    """The checks at the head of an action of several cell parameters that each read one parameter: a test of one
    cell (`tile[a] != 0`: ("test", a, expr)) or an equality of one cell's value with another's
    (`kind(tile[a]) == kind(tile[b])`: ("join", a, x, b, y)). Read for each cell once per state, they rule out
    most of a state's pairs by a look-up instead of a call of the action (18x8 Shisen-Sho: 10,296 pairs, about
    216 of which match). The checks run lazily in the rule's own order, so a move the rule would reject is
    rejected, and one that would fault faults, at the same move as without them."""
    params = action.proc.params
    cells = {i for i, (_, dom) in enumerate(params) if dom.ty == ir.CELL}
    if len(params) < 2 or not cells:
        return []
    steps = []
    for stmt in action.proc.body:
        if not isinstance(stmt, ir.Require) or stmt.message is not None or _writes(stmt, game):
            break
        for c in _conjuncts(stmt.cond):
            used = _locals_in(c)
            if len(used) == 1 and used <= cells:
                steps.append(("test", used.pop(), c))
                continue
            if (isinstance(c, ir.BinOp) and c.op == "==" and c.left.ty.kind in ("int", "bool", "enum", "dir")
                    and len(x := _locals_in(c.left)) == 1 and x <= cells
                    and len(y := _locals_in(c.right)) == 1 and y <= cells and x != y):
                steps.append(("join", x.pop(), c.left, y.pop(), c.right))
                continue
            return steps
    return steps


PARENT = ["D0", "g0", "SL", "SG", "BM", "ab"]  # the arrays of a function that reads a move's parent state


def _memo_sides(ai: int, steps: list):
    """Each side of action `ai`'s prefilter steps, in order, as (parameter, memo array, value array or None, probe
    function): a test has one side, whose memo over the cells says 0 not read yet, 1 holds, 2 fails; a join has
    two (x, y), each with the value its probe read."""
    for k, step in enumerate(steps):
        if step[0] == "test":
            yield step[1], f"S{ai}_{k}", None, f"pre_{ai}_{k}"
        else:
            for side, p in (("x", step[1]), ("y", step[3])):
                yield p, f"S{ai}_{k}{side}", f"V{ai}_{k}{side}", f"pre_{ai}_{k}{side}"


def _memo_arrays(ai: int, steps: list) -> list[str]:
    """The memo and value arrays of `_memo_sides`, in order (how expand hands them to pairs_{ai})."""
    return [a for _, memo, value, _ in _memo_sides(ai, steps) for a in (memo, value) if a is not None]


def pair_join(action: ir.ActionInfo, steps: list) -> int | None:
    """For an action of exactly two cells whose prefilter joins them (`kind(tile[a]) == kind(tile[b])`): the index
    of its first join step, by whose values expand can list the pairs that may match (a bucket per value)
    instead of trying every pair (see `_pairs_code`); else None."""
    params = action.proc.params
    if len(params) != 2 or any(dom.ty != ir.CELL for _, dom in params):
        return None
    return next((k for k, step in enumerate(steps) if step[0] == "join"), None)


class Unsupported(Exception):
    """A construct the compiled backend cannot lower yet (reported to the user, never a silent fallback)."""


# Cell locals that hold a cell of the board for sure while the lowering is in their scope: a move's cell
# parameters that its body never binds again, a loop's cell over a set (Lowering keeps this up to date). A layer
# may be read at them once for every cell (_here_free): at any other cell the read may fault, which the reference
# does only when it tests a cell, so not on an empty set.
_ON_BOARD: set[int] = set()


def _here_free(e) -> bool:
    """Whether an expression can be read once for all cells: literals, parameters, locals, globals, layers at
    cells on the board for sure (_ON_BOARD), and sums, differences, products and set operations of these (`5 -
    k`, `A | B`) — nothing that mentions `here`, calls a def or can fault (reading a layer off the board, dividing
    by zero: the reference would meet neither at no cell)."""
    if isinstance(e, (ir.Const, ir.ParamRef, ir.BoardSize, ir.Local, ir.GlobalRef)):
        return True
    if isinstance(e, ir.LayerAt):
        return isinstance(e.cell, ir.Local) and e.cell.slot in _ON_BOARD
    if isinstance(e, ir.FieldOf) and e.base.ty == ir.CELL:  # (`x.row`: only `none` has none)
        return isinstance(e.base, ir.Local) and e.base.slot in _ON_BOARD
    if isinstance(e, ir.BinOp) and (e.op in ("+", "-", "*") and e.ty == ir.INT or e.op in ("|", "&", "-")
                                    and e.ty == ir.SET):
        return _here_free(e.left) and _here_free(e.right)
    if isinstance(e, ir.Unary) and e.op == "neg":
        return _here_free(e.operand)
    return False


def _line(pred) -> tuple[str, ir.Expr] | None:
    """(`row` or `col`, value) when a cell condition reads `here.row == value` (or `.col`, either way round) with
    a value that does not depend on the cell: the cells of one row or column of the board."""
    if not (isinstance(pred, ir.BinOp) and pred.op == "=="):
        return None
    for a, b in ((pred.left, pred.right), (pred.right, pred.left)):
        if isinstance(a, ir.FieldOf) and isinstance(a.base, ir.Here) and _here_free(b):
            return a.field, b
    return None


def _membership(pred) -> ir.Expr | None:
    """T when a cell condition reads `here in T` with a set T that does not depend on the cell."""
    if (isinstance(pred, ir.BinOp) and pred.op == "in" and isinstance(pred.left, ir.Here) and pred.right.ty == ir.SET
            and _here_free(pred.right)):
        return pred.right
    return None


class Out:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1

    def __call__(self, line: str):
        self.lines.append("    " * self.depth + line)

    def indent(self):
        self.depth += 1

    def dedent(self):
        self.depth -= 1


class Lowering:
    def __init__(self, inst: Instance, heuristic: str | None, planes: frozenset = frozenset()):
        self.inst = inst
        self.game = inst.game
        # The code reads the board's dimensions at run time (ROWS, COLS, N cells, K words per set: the head of
        # SG, see `header`), so that one compiled module serves every board size; messages name this board.
        self.board = f"{inst.rows}x{inst.cols}"
        self.heuristic = heuristic
        # code -> (message, span, hint). A fault without a span belongs to the move being expanded: the system
        # locates it at that move's action, and fills `{move}` and `{value}` in from the scratch row `ab`.
        self.errors: list[tuple[str, object, str | None]] = []
        self.tmp = 0
        # Set values live in scratch rows of BM after its three masks, one row per place in the code that makes
        # a set (`row`): no allocation per set operation. A place's row is written only when that place runs
        # again, so a variable gets a copy in a row of its own when set (s_SetLocal), a loop over a variable's
        # set reads a copy (_open_set_loop), and a set a def returns is copied by its caller (x_CallDef). Defs
        # never recurse, so a function's rows are never in use twice at once.
        self.set_rows = 0
        self.lines = False  # whether code reads BM's rows of the board's rows and columns (_condition_word)
        self.memo: set[str] = set()  # layers whose value masks the function being lowered memoizes
        self.forgotten: set[str] = set()  # ... and those it forgets (prologue)
        # after an action's copy of its parent, the packed parent: a layer's masks come from its planes while the
        # layer's flag P_layer says no store has touched it since the copy (None: not in such code)
        self.parent: str | None = None
        # the packed state the function being lowered reads (a heuristic's `s`), whose bit planes give a dynamic
        # layer's value masks without a pass over its cells; None where the rows may differ from it
        self.packed: str | None = None
        self.cell_at: dict[int, str] = {}  # a cell local that only indexes layers -> its cell's index (s_For)
        self.same_rows: dict[str, tuple[str, str]] = {}  # ... and whose equal edges (`group`), in these rows
        # A static layer's value masks and equal edges are the level's: BM rows the system fills once a level
        # (system._static_rows), from these tables: layer -> its first row.
        self.static_masks: dict[str, int] = {}
        self.static_edges: dict[str, int] = {}
        self.pair_actions: dict[int, int] = {}  # actions whose moves expand lists by buckets -> their join step
        self.heads: set[int] = set()  # actions whose leading `require`s are a function of their own (`head`)
        self.once: set[int] = set()  # actions whose leading lets are worked out once a state (`once`)
        self.let_rows: dict[int, str] = {}  # a set local -> the row its last `let` lowered writes
        # where every layer and global lives
        self.dyn_layers = [l.name for l in self.game.layers if l.name in inst.dynamic]
        self.static_layers = [l.name for l in self.game.layers if l.name not in inst.dynamic]
        self.gslots: dict[str, tuple[str, int, int]] = {}  # name -> (array, offset, width per element)
        # A dynamic bool array of at most 64 elements is one slot of g, a bit an element (bit_arrays): a move
        # copies, decodes and encodes one word for it, not one a bool (Bloxorz's 26 bridges: its moves ~1.4x
        # quicker). Its elements are read and written with shifts (x_ArrayAt, s_SetArray).
        self.bit_arrays: set[str] = set()
        # SG: the dimensions, the state layout (`header`), then the static globals
        self.header = HEADER + 2 * len(self.dyn_layers) + 3 * len(inst.layout.slots)
        sizes = {"g": 0, "SG": self.header}
        for g in self.game.globals:
            kind = inst.doms[g.name].kind
            width = {"cell": 2, "body": 3}.get(kind, 1)
            arr = "g" if g.name in inst.dynamic else "SG"  # (`g`: renamed in code that reads a move's parent: _slots)
            count = 1
            for d in inst.dims.get(g.name, ()):
                count *= d
            if arr == "g" and kind == "bool" and g.name in inst.dims and count <= 64:
                self.bit_arrays.add(g.name)
                count = 1
            self.gslots[g.name] = (arr, sizes[arr], width)
            sizes[arr] += width * count
        self.ng, self.nsg = max(1, sizes["g"]), max(1, sizes["SG"])
        self.bodies = {b.name: i for i, b in enumerate(self.game.bodies)}
        self.emitters = emitters(self.game)
        self.state = ("D", "g")  # the dynamic rows and slots code reads: a move's copy, or its parent (D0, g0)
        # Layers kept in planes through a move (`planes`: generate decides, see plane_layers): expand decodes
        # them not, a move's copy holds their bit planes in BM rows (a plane a row) instead of a number a cell,
        # its stores and reads work on those, and its state is encoded from them (Flood-It: no 196 numbers a
        # state decoded, copied for each move and encoded back). `moving` is set while code on a move's path is
        # lowered, where those layers' rows hold nothing: `stale` collects the layers such code would read a
        # row of, and generate then keeps them as rows.
        self.in_planes: dict[str, tuple[int, int]] = {}  # layer -> (its first BM row, its planes)
        for name in sorted(planes):
            count = bits_for(inst.doms[name].count)
            self.in_planes[name] = (SCRATCH + self.set_rows, count)
            self.set_rows += count
        self.moving = False
        self.local_bounds: dict[int, tuple[int, int]] = {}  # (the procedure being lowered's: see bounds.locals_of)
        self.stale: set[str] = set()

    # ---- helpers
    def t(self, base="t") -> str:
        self.tmp += 1
        return f"{base}{self.tmp}"

    def row(self) -> str:
        """A new scratch row for a set (see set_rows)."""
        self.set_rows += 1
        return f"BM[{SCRATCH + self.set_rows - 1}]"

    def rows(self, count: int) -> str:
        """`count` new scratch rows, for a layer's value masks (see prologue)."""
        self.set_rows += count
        return f"BM[{SCRATCH + self.set_rows - count}:{SCRATCH + self.set_rows}]"

    def _static_rows(self, table: dict[str, int], layer: str, count: int) -> int:
        """The first of a static layer's `count` rows in `table` (static_masks or static_edges), set aside at
        its first use."""
        if layer not in table:
            self.set_rows += count
            table[layer] = SCRATCH + self.set_rows - count
        return table[layer]

    def fault(self, message: str, span, hint: str | None = None) -> str:
        self.errors.append((message, span, hint))
        return f'raise ValueError("gridrules:{len(self.errors) - 1}")'

    def on_board(self, r: str, c: str) -> str:
        """The condition that cell (r, c) lies on the board."""
        return f"0 <= {r} < ROWS and 0 <= {c} < COLS"

    def cell_index(self, o: Out, cell, what: str, span) -> str:
        r, c = cell
        i = self.t("i")
        o(f"if not ({self.on_board(r, c)}):")
        o.indent()
        o(self.fault(f"{what} outside the {self.board} board", span))
        o.dedent()
        o(f"{i} = {r} * COLS + {c}")
        return i

    def layer_ref(self, name: str) -> str:
        if name in self.dyn_layers:
            if self.moving and name in self.in_planes:
                self.stale.add(name)
            return f"{self.state[0]}[{self.dyn_layers.index(name)}]"
        return f"SL[{self.static_layers.index(name)}]"

    def kept_planes(self, name: str) -> str:
        """The BM rows a move's copy keeps a layer's planes in (in_planes), as one array laid out as in a packed
        state."""
        first, count = self.in_planes[name]
        if count == 1:  # (a row is that array already; numba reshapes a slice by a call into its C helpers)
            return f"BM[{first}]"
        return f"BM[{first}:{first + count}].reshape(-1)"

    def planes_of(self, name: str, packed: str | None) -> str:
        """The arguments (array, first word, planes) with which the runtime's plane_code, plane_masks and
        plane_store read and write a dynamic layer's bit planes: in the packed state `packed` (where SG's header
        says), or with `packed` None in the planes a move's copy keeps (kept_planes)."""
        if packed is None:
            return f"{self.kept_planes(name)}, 0, {self.in_planes[name][1]}"
        at = HEADER + 2 * self.dyn_layers.index(name)
        return f"{packed}, SG[{at}], SG[{at + 1}]"

    def layer_cell(self, where, o: Out, ctx, what: str, span) -> str:
        """The index of the cell a layer is read or written at (`what`: how a fault off the board says it)."""
        if isinstance(where, ir.Here):
            return ctx["here_index"][-1]
        if isinstance(where, ir.Local) and where.slot in self.cell_at:
            return self.cell_at[where.slot]
        return self.cell_index(o, self.ex(where, o, ctx), what, span)

    def kept_in_planes(self, name: str) -> bool:
        """Whether the code being lowered reads and stores `name` in a move's planes (after the move's copy)."""
        return self.parent is not None and self.packed is None and name in self.in_planes

    @staticmethod
    def cell_of(ref: str, i: str) -> str:
        """One cell of a layer row: `D[0, i]`, not `D[0][i]` (which makes a view of the row, with reference
        counting, at every read)."""
        return f"{ref[:-1]}, {i}]"

    # ---- expressions: each returns code for its value (a tuple of codes for cells, bodies, ranges)
    def ex(self, e: ir.Expr, o: Out, ctx):
        code = getattr(self, "x_" + type(e).__name__)(e, o, ctx)
        if isinstance(code, str) and code.count("(") > _NESTING and _nesting(code) > _NESTING:
            return self._snap(code, o)  # (a long sum or chain of `not`s: Python's parser takes 200 levels)
        return code

    def x_Const(self, e, o, ctx):
        v = e.value
        if e.ty == ir.CELL:
            return (str(NONE), "0") if v is None else (str(v[0]), str(v[1]))
        if isinstance(v, bool):
            return "True" if v else "False"
        return str(v)

    def x_ParamRef(self, e, o, ctx):
        v = self.inst.params[e.name]
        if e.ty == ir.CELL:
            return (str(v[0]), str(v[1]))
        if isinstance(v, bool):
            return "True" if v else "False"
        return str(v)

    def x_BoardSize(self, e, o, ctx):
        return "ROWS" if e.which == "rows" else "COLS"

    def x_AllCells(self, e, o, ctx):
        return "FULL"

    def x_Local(self, e, o, ctx):
        return self.local(e.slot, e.ty)

    def local(self, slot, ty):
        if ty == ir.CELL or ty == ir.RANGE:
            return (f"l{slot}a", f"l{slot}b")
        if ty.kind == "body":
            return (f"l{slot}p", f"l{slot}a", f"l{slot}b")
        return f"l{slot}"

    def x_Here(self, e, o, ctx):
        if not ctx["here_index"]:
            raise Unsupported("`here` outside a cell condition")
        i = ctx["here_index"][-1]  # (row and column worked out where used: most conditions only index layers)
        return self._snap((f"{i} // COLS", f"{i} % COLS"), o)

    def x_TokenValue(self, e, o, ctx):
        raise Unsupported("`value` outside a legend")

    def _slots(self, name, flat: str | None, o: Out, span):
        arr, off, width = self.gslots[name]
        if arr == "g":
            arr = self.state[1]
        if flat is None:
            base = str(off)
        else:
            base = self.t("j")
            o(f"{base} = {off} + {flat} * {width}")
        return arr, base, width

    def _read_slots(self, ty, arr, base):
        if ty == ir.CELL:
            return (f"{arr}[{base}]", f"{arr}[{base} + 1]")
        if ty.kind == "body":
            return (f"{arr}[{base}]", f"{arr}[{base} + 1]", f"{arr}[{base} + 2]")
        if ty == ir.BOOL:
            return f"({arr}[{base}] != 0)"
        return f"{arr}[{base}]"

    def x_GlobalRef(self, e, o, ctx):
        arr, base, _ = self._slots(e.name, None, o, e.span)
        return self._snap(self._read_slots(e.ty, arr, base), o)

    def _snap(self, value, o: Out):
        """Copy a value into temporaries (a later store must not change what was read)."""
        if isinstance(value, tuple):
            names = tuple(self.t() for _ in value)
            o(", ".join(names) + " = " + ", ".join(value))
            return names
        name = self.t()
        o(f"{name} = {value}")
        return name

    def flat_index(self, name, index, o: Out, ctx, span) -> str:
        dims = self.inst.dims[name]
        flat = self.t("f")
        o(f"{flat} = 0")
        stride = 1
        strides = []
        for d in reversed(dims):
            strides.append(stride)
            stride *= d
        strides.reverse()
        for x, d, s in zip(index, dims, strides):
            v = self.ex(x, o, ctx)
            o(f"if not 0 <= {v} < {d}:")
            o.indent()
            o(self.fault(f"an index is outside `{name}` (size {d})", span))
            o.dedent()
            o(f"{flat} += {v} * {s}")
        return flat

    def x_ArrayAt(self, e, o, ctx):
        flat = self.flat_index(e.name, e.index, o, ctx, e.span)
        if e.name in self.bit_arrays:
            arr, base, _ = self._slots(e.name, None, o, e.span)
            return self._snap(f"(({arr}[{base}] >> {flat}) & 1) != 0", o)
        arr, base, _ = self._slots(e.name, flat, o, e.span)
        return self._snap(self._read_slots(e.ty, arr, base), o)

    def x_LayerAt(self, e, o, ctx):
        i = self.layer_cell(e.cell, o, ctx, f"reading layer `{e.layer}`", e.span)
        v = self.t()
        if self.packed and e.layer in self.dyn_layers or self.kept_in_planes(e.layer):
            # (read from the planes: the caller need not decode)
            o(f"{v} = rt.plane_code({self.planes_of(e.layer, self.packed)}, K, {i}) + {self.codes(e.layer)[0]}"
              + (" != 0" if e.ty == ir.BOOL else ""))
        else:
            o(f"{v} = {self.cell_of(self.layer_ref(e.layer), i)}" + (" != 0" if e.ty == ir.BOOL else ""))
        if e.ty == ir.CELL:  # a cell layer holds codes: r * cols + c, or the cell count for none
            return self._snap((f"({v} // COLS if {v} != N else NONE)",
                               f"({v} % COLS if {v} != N else 0)"), o)
        return v

    def _cell_code(self, v, o, what, span) -> str:
        """The code of a cell value; a cell off the board cannot be stored."""
        r, c = v
        x = self.t("x")
        o(f"if {r} == NONE:")
        o.indent()
        o(f"{x} = N")
        o.dedent()
        o(f"elif {self.on_board(r, c)}:")
        o.indent()
        o(f"{x} = {r} * COLS + {c}")
        o.dedent()
        o("else:")
        o.indent()
        o(self.fault(f"{what} would be stored holding a cell outside the {self.board} board", span,
                     "add `require on_board(...)` before the end of the action"))
        o.dedent()
        return x

    def x_Unary(self, e, o, ctx):
        x = self.ex(e.operand, o, ctx)
        if e.op == "not":
            return f"(not {x})"
        return f"(-{self.checked(e, ('negation', x), o)})"

    def locals_of(self, proc: ir.Procedure, action: bool = False) -> dict[int, tuple[int, int]]:
        """bounds.locals_of for a procedure: an action's int parameters lie in their domains (a move is made
        only with values listed from them), a def's may be anything."""
        fixed = {}
        for slot, (_, dom) in enumerate(proc.params):
            fixed[slot] = self._def_arguments.get(proc.name, {}).get(slot, bounds.ANY)
            if action and dom.ty == ir.INT:
                fixed[slot] = bounds.clipped((bounds.int_bounds(dom.lo, self.inst)[0],
                                              bounds.int_bounds(dom.hi, self.inst)[1]))
        return bounds.locals_of(proc.body, self.inst, fixed)

    @functools.cached_property
    def _def_arguments(self) -> dict[str, dict[int, tuple[int, int]]]:
        """For each def, the bounds of its int parameters over every call of it in the rules (what the call
        passes, as bounded without its caller's locals: `splash(c, 1)`). The chain reaction calls a particle's
        `hit` and `leave` defs with values of its own: their parameters may be anything."""
        found: dict[str, dict[int, tuple[int, int]]] = {}
        for p in self.game.particles:
            for name in (p.hit, p.leave):
                if name is not None:
                    found[name] = {slot: bounds.ANY for slot in range(len(self.game.proc(name).params))}

        def note(x) -> bool:
            if isinstance(x, ir.CallDef):
                slots = found.setdefault(x.name, {})
                for slot, a in enumerate(x.args):
                    b = bounds.clipped(bounds.int_bounds(a, self.inst)) if a.ty == ir.INT else bounds.ANY
                    old = slots.get(slot, b)
                    slots[slot] = (min(old[0], b[0]), max(old[1], b[1]))
            return False

        ir.contains(self.game, note)
        return found

    def checked(self, e, test: tuple, o: Out):
        """Before an int operation whose value may pass 64 bits (bounds.py; test: the runtime's test for it and
        its operands), an error when it does (the reference backend's ints have no limit); its operands, read
        once. Where the bounds prove it fits, no test: Flood-It's and Drops' arithmetic needs none."""
        name, *xs = test
        value = self.int_bounds(e)
        if bounds.fits(value):
            return xs[0] if len(xs) == 1 else xs
        xs = [x if x.isidentifier() or x.lstrip("-").isdigit() else self._snap(x, o) for x in xs]
        o(f"if rt.{name}_overflows({', '.join(xs)}):")
        o.indent()
        o(self.overflow(e.span))
        o.dedent()
        if value[0] == value[1]:  # (literals whose value passes 64 bits: the test always fails, and numba would
            xs = ["0"] * len(xs)  # not type their operation; a test that numba cannot see through goes first)
        return xs[0] if len(xs) == 1 else xs

    def int_bounds(self, e) -> tuple[int, int]:
        return bounds.int_bounds(e, self.inst, self.local_bounds, _ON_BOARD)

    def overflow(self, span) -> str:
        return self.fault("this value passes the 64-bit integers native code computes with (-2^63 .. 2^63 - 1)",
                          span, "`--backend reference` computes with integers of any size")

    def x_BinOp(self, e, o, ctx):
        op = e.op
        if op in ("and", "or"):
            v = self.t()
            a = self.ex(e.left, o, ctx)
            o(f"{v} = {a}")
            o(f"if {'' if op == 'and' else 'not '}{v}:")
            o.indent()
            b = self.ex(e.right, o, ctx)
            o(f"{v} = {b}")
            o.dedent()
            return v
        if _word_tree(e):  # a set operation: with the ones below it, one pass over the words
            return self.words(e, o, ctx)
        a = self.ex(e.left, o, ctx)
        b = self.ex(e.right, o, ctx)
        lt, rt = e.left.ty, e.right.ty
        if op in ("==", "!="):
            if lt == ir.SET:
                code = f"rt.same({a}, {b})"
            elif isinstance(a, tuple):
                code = "(" + " and ".join(f"{x} == {y}" for x, y in zip(a, b)) + ")"
            else:
                code = f"({a} == {b})"
            return code if op == "==" else f"(not {code})"
        if op in ("<", "<=", ">", ">="):
            return f"({a} {op} {b})"
        if op == "in":
            if rt == ir.SET:
                v = self.t()
                o(f"{v} = {self.on_board(a[0], a[1])} and "
                  f"rt.has({b}, {a[0]} * COLS + {a[1]})")
                return v
            return f"({b[0]} <= {a} <= {b[1]})"
        if op in ("/", "%"):
            o(f"if {b} == 0:")
            o.indent()
            o(self.fault("division by zero", e.span))
            o.dedent()
            if op == "/":  # (a remainder never passes its divisor)
                a, b = self.checked(e, ("quotient", a, b), o)
            return f"({a} {'//' if op == '/' else '%'} {b})"
        if lt == ir.INT:
            a, b = self.checked(e, (_OVERFLOW_TEST[op], a, b), o)
            return f"({a} {op} {b})"
        if lt == ir.CELL and rt == ir.DIR:
            # (`none + d` is none, its column 0 as every none's: cells compare both parts)
            return self._snap((f"({a[0]} + DR[{b}] if {a[0]} != NONE else NONE)",
                               f"({a[1]} + DC[{b}] if {a[0]} != NONE else 0)"), o)
        if lt == ir.CELL and rt == ir.CELL and op in ("+", "-"):
            return self._snap((f"({a[0]} {op} {b[0]} if {a[0]} != NONE and {b[0]} != NONE else NONE)",
                               f"({a[1]} {op} {b[1]} if {a[0]} != NONE and {b[0]} != NONE else 0)"), o)
        raise AssertionError(f"no lowering for {lt} {op} {rt}")  # (set operations: _words, above)

    # ---- set expressions a word at a time: a tree of |, &, - and `S where layer == v` (or `here in T`) is one
    # loop over the words of its leaves (the other sets, computed first, in the order the tree reads them),
    # written into a row once or reduced (any, empty, count) without a row at all
    def words(self, e, o: Out, ctx, into: str | None = None) -> str:
        """The set of a word tree (_word_tree), in a row of its own (or `into`, which its leaves may read: each
        word is read before it is written)."""
        w = self.t("w")
        x = self._word(e, o, ctx, w)
        out = self.t("s")
        o(f"{out} = {into or self.row()}")
        o(f"for {w} in range(K):")
        o(f"    {out}[{w}] = {x}")
        return out

    def _word(self, e, o: Out, ctx, w: str) -> str:
        """Word `w` of set e: the tree's operations on its leaves' words."""
        if not _word_tree(e):
            return f"{self.as_set(self.ex(e, o, ctx), e.ty, o)}[{w}]"
        if isinstance(e, ir.BinOp):
            a, b = self._word(e.left, o, ctx, w), self._word(e.right, o, ctx, w)
            return {"|": f"({a} | {b})", "&": f"({a} & {b})", "-": f"({a} & ~{b})"}[e.op]
        return f"({self._word(e.cells, o, ctx, w)} & {self._condition_word(e.pred, o, ctx, w)})"

    def _condition_word(self, pred, o: Out, ctx, w: str) -> str:
        """Word `w` of the cells where a mask condition (_mask_condition) holds (bits off the board may be set:
        the set it filters has none)."""
        fast = self._layer_equality(pred)
        if fast is not None:
            layer, value = fast
            return f"{self.value_mask(layer, self.ex(value, o, ctx), o)}[{w}]"
        if isinstance(pred, ir.BinOp) and pred.op in ("and", "or"):
            a, b = self._condition_word(pred.left, o, ctx, w), self._condition_word(pred.right, o, ctx, w)
            return f"({a} {'&' if pred.op == 'and' else '|'} {b})"
        if isinstance(pred, ir.Unary):
            return f"~{self._condition_word(pred.operand, o, ctx, w)}"
        if isinstance(pred, ir.BinOp) and pred.op == "!=":
            return f"~{self._condition_word(_equal(pred), o, ctx, w)}"
        line = _line(pred)
        if line is not None:  # (BM ends with a row of each of the board's rows, then columns: system._work)
            self.lines = True
            axis, value = line
            j, out = self.t("j"), self.t("s")
            size, first = ("ROWS", "BM.shape[0] - ROWS - COLS") if axis == "row" else ("COLS", "BM.shape[0] - COLS")
            o(f"{j} = {self.ex(value, o, ctx)}")
            o(f"if 0 <= {j} < {size}:")
            o(f"    {out} = BM[{first} + {j}]")
            o("else:")
            o(f"    {out} = rt.empty_into({self.row()})")
            return f"{out}[{w}]"
        return self._word(_membership(pred), o, ctx, w)

    def _reduce(self, e, o: Out, ctx, kind: str) -> str | None:
        """any (kind `any`) or count of a word tree, word by word without building the set; None for other sets."""
        if not _word_tree(e):
            return None
        w = self.t("w")
        x = self._word(e, o, ctx, w)
        v = self.t()
        if kind == "any":
            # On a small board the words are OR-ed without a branch a word: whether a word is empty is the data's
            # to say, and a branch mispredicted costs more than the few words left (Flood-It's bound: ~1 in 9
            # of its time on one such branch). A large board stops at the first word that is not.
            a = self.t("a")
            o("if K <= 8:")
            o(f"    {a} = np.uint64(0)")
            o(f"    for {w} in range(K):")
            o(f"        {a} |= {x}")
            o(f"    {v} = {a} != 0")
            o("else:")
            o(f"    {v} = False")
            o(f"    for {w} in range(K):")
            o(f"        if {x} != 0:")
            o(f"            {v} = True")
            o("            break")
        else:
            o(f"{v} = 0")
            o(f"for {w} in range(K):")
            o(f"    {v} += rt.popcount({x})")
        return v

    def as_set(self, value, ty, o: Out) -> str:
        if ty == ir.SET:
            return value
        r, c = value
        s = self.t("s")
        row = self.row()
        o(f"if {self.on_board(r, c)}:")
        o.indent()
        o(f"{s} = rt.single_into({r} * COLS + {c}, {row})")
        o.dedent()
        o("else:")
        o.indent()
        o(f"{s} = rt.empty_into({row})")
        o.dedent()
        return s

    def _open_members(self, setcode: str, o: Out, copy: bool = False) -> str:
        """Open a loop over a set's cell indices, ascending, without building a list (two levels deep: close
        with _close_members). With `copy` the loop reads a copy of the set: a variable's, whose row a body
        that sets the variable writes (see set_rows); any other set's row is written only by code outside
        the loop."""
        it, w, x, low, i = self.t("it"), self.t("w"), self.t("x"), self.t("lo"), self.t("c")
        o(f"{it} = " + (f"rt.copy_into({setcode}, {self.row()})" if copy else setcode))
        o(f"for {w} in range(K):")
        o.indent()
        o(f"{x} = {it}[{w}]")
        o(f"while {x}:")
        o.indent()
        o(f"{low} = {x} & (~{x} + np.uint64(1))")
        o(f"{x} ^= {low}")
        o(f"{i} = {w} * 64 + rt.bit_index({low})")
        return i

    def _close_members(self, o: Out):
        o.dedent()
        o.dedent()

    def _open_set_loop(self, e, o: Out, ctx):
        """Open a loop over the cells of set expression `e` in reading order: the covered cells of `cells(b)`
        straight from the body's table (a body covers a few cells; its set would be K words to clear and
        scan), any other set through its words. Returns the cell index variable and the function closing the
        loop."""
        if isinstance(e, ir.Builtin) and e.name == "cells":
            (x,) = e.args
            b = self._snap(self.ex(x, o, ctx), o)  # (read once, as the set would be: the loop may set a local)
            i = self.t("c")
            o(f"if {b[1]} != NONE:")
            o.indent()
            r, c = self._covered(x.ty.name, b, o)
            o(f"if {self.on_board(r, c)}:")
            o.indent()
            o(f"{i} = {r} * COLS + {c}")

            def close():
                o.dedent()
                o.dedent()
                o.dedent()
            return i, close
        i = self._open_members(self.ex(e, o, ctx), o, copy=isinstance(e, ir.Local))
        return i, lambda: self._close_members(o)

    def _for_cells(self, setcode: str, o: Out, ctx):
        """Open a loop over the cells of a set, binding `here`; returns the index variable."""
        i = self._open_members(setcode, o)
        ctx["here_index"].append(i)
        return i

    def _end_cells(self, o: Out, ctx):
        ctx["here_index"].pop()
        self._close_members(o)

    def x_Where(self, e, o, ctx):
        if _word_tree(e):  # `S where layer == v` is S & the value's mask, `S where here in T` is S & T
            return self.words(e, o, ctx)
        out = self.t("s")
        o(f"{out} = rt.empty_into({self.row()})")
        self._each_meeting(e, o, ctx, lambda i: f"rt.add({out}, {i})")
        return out

    def _each_meeting(self, e: ir.Where, o: Out, ctx, then):
        """For each cell of `S where COND` (COND read at every cell of S, in reading order), the line then(i)."""
        i, close = self._open_set_loop(e.cells, o, ctx)
        ctx["here_index"].append(i)
        p = self.ex(e.pred, o, ctx)
        ctx["here_index"].pop()
        o(f"if {p}:")
        o.indent()
        o(then(i))
        o.dedent()
        close()

    def x_MakeCell(self, e, o, ctx):
        return self._snap((self.ex(e.row, o, ctx), self.ex(e.col, o, ctx)), o)

    def x_MakeBody(self, e, o, ctx):
        r, c = self.ex(e.anchor, o, ctx)
        return self._snap((str(e.pose), r, c), o)

    def x_FieldOf(self, e, o, ctx):
        b = self.ex(e.base, o, ctx)
        if e.base.ty == ir.CELL:
            o(f"if {b[0]} == NONE:")
            o.indent()
            o(self.fault(f"`none` has no {e.field}", e.span))
            o.dedent()
            return b[0] if e.field == "row" else b[1]
        if e.field == "pose":
            return b[0]
        return (b[1], b[2])  # (`.at` of a body at none is none: its `.row` faults, as the reference's)

    def x_RangeOf(self, e, o, ctx):
        return (self.ex(e.lo, o, ctx), self.ex(e.hi, o, ctx))

    def x_CallDef(self, e, o, ctx):
        proc = self.game.proc(e.name)
        args = []
        for a in e.args:
            v = self.ex(a, o, ctx)
            args.extend(v if isinstance(v, tuple) else (v,))
        call = f"{self.def_name(e.name, ctx)}({', '.join(args + [*self.state, 'SL', 'SG', 'BM', 'ab'])})"
        if proc.returns == ir.VOID:
            o(call)
            v = "0"
        elif proc.returns == ir.SET:  # (the def's own rows are written again by its next call)
            v = self._snap(f"rt.copy_into({call}, {self.row()})", o)
        else:
            v = self._call_value(call, proc.returns, o)
        if proc.writes_state:  # (a def that only reads leaves the state, and the masks read from it, as they were)
            self.forget_masks(o)
        if proc.can_reject:
            o("if ab[0] != 0:")
            o.indent()
            o(ctx["abort"])
            o.dedent()
        return v

    def def_name(self, name: str, ctx) -> str:
        return ("chain_def_" if ctx.get("chain") and name in self.emitters else "def_") + name

    def _call_value(self, call, ty, o):
        if ty == ir.CELL or ty == ir.RANGE:
            names = (self.t(), self.t())
        elif ty.kind == "body":
            names = (self.t(), self.t(), self.t())
        else:
            names = self.t()
        o((", ".join(names) if isinstance(names, tuple) else names) + f" = {call}")
        return names

    # ---- `layer == value` as a set, memoized per function call: one pass over the layer row (or its planes in a
    # packed state) gives the masks of every value; a store to the layer or a call of a def (which may store)
    # forgets them. A layer of many values read from a packed state gives one value's mask instead (_ONE_MASK).
    def value_mask(self, layer: str, v: str, o: Out) -> str:
        lo, count = self.codes(layer)
        one = count > _ONE_MASK and self.packed and layer in self.dyn_layers  # (see _ONE_MASK)
        if count > 256 and not one:
            return f"rt.equal_mask({self.layer_ref(layer)}, {v}, K)"
        m = None if one else self.masks(layer, o)
        j, out = self.t("j"), self.t("s")
        o(f"{j} = {v} - {lo}")
        o(f"if 0 <= {j} < {count}:")
        o.indent()
        if one:
            at = HEADER + 2 * self.dyn_layers.index(layer)  # (its first plane's word, its planes: header_values)
            o(f"{out} = rt.plane_mask({self.packed}, SG[{at}], SG[{at + 1}], K, {j}, FULL, {self.row()})")
        else:
            o(f"{out} = {m}[{j}]")
        o.dedent()
        o("else:")
        o.indent()
        o(f"{out} = rt.empty_into({self.row()})")
        o.dedent()
        return out

    def codes(self, layer: str) -> tuple[int, int]:
        """(the value of code 0, how many codes) of a layer's values."""
        dom = self.inst.doms[layer]
        return (dom.lo, dom.count) if dom.kind == "int" else (0, dom.count)

    def masks(self, layer: str, o: Out) -> str:
        """The memoized value masks of a layer (row j: the cells holding code j), computed here if not yet: from
        the packed state's bit planes where the function reads one (a few word operations per value), else in
        one pass over the layer's row."""
        lo, count = self.codes(layer)
        if layer in self.static_layers and count <= 64:  # (the system works them out once a level)
            a = self._static_rows(self.static_masks, layer, count)
            return f"BM[{a}:{a + count}]"
        self.memo.add(layer)
        m, ok = f"M_{layer}", f"V_{layer}"
        o(f"if not {ok}:")
        o.indent()
        rows = _MASK_ROWS.format(layer)  # (where they go: prologue decides)
        packed = self.packed or self.parent

        def cells():  # (called only where the code reads the row: a layer kept in planes has none after the copy)
            return f"rt.value_masks({self.layer_ref(layer)}, {lo}, {count}, K, {rows})"

        if self.kept_in_planes(layer):
            o(f"{m} = rt.plane_masks({self.planes_of(layer, None)}, K, {count}, FULL, {rows})")
        elif packed and layer in self.dyn_layers:
            planes = f"rt.plane_masks({self.planes_of(layer, packed)}, K, {count}, FULL, {rows})"
            # (after a move's copy, the copy's row is the parent's until a store)
            o(f"{m} = {planes}" if self.packed else f"{m} = {planes} if P_{layer} else {cells()}")
        else:
            o(f"{m} = {cells()}")
        o(f"{ok} = True")
        o.dedent()
        return m

    def forget_masks(self, o: Out, layer: str | None = None):
        for name in self.dyn_layers:
            if layer in (None, name):
                o(f"V_{name} = False")
                o(f"E_{name} = False")  # (also where no `group` reads them: a dead store costs nothing)
                if self.parent:
                    o(f"P_{name} = False")
                self.forgotten.add(name)

    def prologue(self, body: list[str]) -> list[str]:
        """Declarations for the memoized masks the function body used (then forget the set for the next), and
        the board's dimensions and masks it reads (only those: these functions run once per move).

        A layer's value masks go to scratch rows (no allocation): rows of the function's own where it works
        them out at most once a call; where a store or a def call forgets them, rows of each place that works
        them out again (a set read from masks worked out elsewhere may still be in use, as sets are: see
        set_rows)."""
        lines = []
        for layer in sorted(self.memo):
            count, marker = self.codes(layer)[1], _MASK_ROWS.format(layer)
            places = [i for i, line in enumerate(body) if marker in line]
            init = self.rows(count) if places and layer not in self.forgotten else "BM[0:0]"
            for i in places:
                body[i] = body[i].replace(marker, self.rows(count) if layer in self.forgotten else init)
            lines += [f"    M_{layer} = {init}", f"    V_{layer} = False"]
        lines += [f"    E_{layer} = False" for layer in sorted(self.same_rows)]
        self.memo, self.forgotten = set(), set()
        self.same_rows = {}
        return _board_names(lines + body) + lines

    def x_Builtin(self, e, o, ctx):
        return getattr(self, "b_" + e.name)(e, o, ctx)

    @staticmethod
    def _layer_equality(pred):
        """(layer, value expression) when the condition reads `layer == value` with a value that does not
        depend on the cell, and is safe to read once (so a bitboard flood gives the same result); a bool layer
        alone, `layer` or `not layer`, reads `layer == true` or `layer == false`."""
        def here(x) -> bool:
            return isinstance(x, ir.LayerAt) and isinstance(x.cell, ir.Here) and x.ty != ir.CELL

        if here(pred) and pred.ty == ir.BOOL:
            return pred.layer, ir.Const(ir.BOOL, True)
        if isinstance(pred, ir.Unary) and pred.op == "not" and here(pred.operand) and pred.operand.ty == ir.BOOL:
            return pred.operand.layer, ir.Const(ir.BOOL, False)
        if not (isinstance(pred, ir.BinOp) and pred.op == "=="):
            return None
        for a, b in ((pred.left, pred.right), (pred.right, pred.left)):
            if here(a) and _here_free(b):
                return a.layer, b
        return None

    def b_region(self, e, o, ctx, out: str | None = None):
        """(`out`: the row the flood is made in, when _grows_into says it may be given)"""
        seeds, pred = e.args
        s0 = self.as_set(self.ex(seeds, o, ctx), seeds.ty, o)
        fast = self._layer_equality(pred)
        if fast is not None:
            layer, value = fast
            v = self.ex(value, o, ctx)
            return self._snap(f"rt.flood_into({s0}, {self.value_mask(layer, v, o)}, {out or self.row()}, "
                              f"{self.row()}, COLS, K, NOT_LEFT, NOT_RIGHT, FULL)", o)
        assert out is None
        inside, frontier, rejected, grown, fresh = (self.t("s") for _ in range(5))
        o(f"{inside} = rt.copy_into({s0}, {self.row()})")
        o(f"{frontier} = rt.copy_into({s0}, {self.row()})")
        o(f"{rejected} = rt.empty_into({self.row()})")
        grown_row, fresh_row = self.row(), self.row()
        o(f"while rt.nonempty({frontier}):")
        o.indent()
        o(f"{grown} = rt.empty_into({grown_row})")
        o(f"{fresh} = rt.border_into({frontier}, {fresh_row}, COLS, K, NOT_LEFT, NOT_RIGHT, FULL)")
        o(f"rt.minus_into({fresh}, {inside}, {fresh})")
        o(f"rt.minus_into({fresh}, {rejected}, {fresh})")
        i = self._for_cells(fresh, o, ctx)
        p = self.ex(pred, o, ctx)
        o(f"if {p}:")
        o.indent()
        o(f"rt.add({grown}, {i})")
        o.dedent()
        o("else:")
        o.indent()
        o(f"rt.add({rejected}, {i})")
        o.dedent()
        self._end_cells(o, ctx)
        o(f"rt.union_into({inside}, {grown}, {inside})")
        o(f"rt.copy_into({grown}, {frontier})")
        o.dedent()
        return inside

    def b_group(self, e, o, ctx, out: str | None = None):
        """(`out`: the row the group is made in, when _grows_into says it may be given)"""
        seeds, value = e.args
        s0 = self.as_set(self.ex(seeds, o, ctx), seeds.ty, o)
        if isinstance(value, ir.LayerAt) and isinstance(value.cell, ir.Here):
            right, down = self.same_masks(value.layer, o)
        else:  # the value at every cell (as the reference reads it), then the same edges of that row
            vals = self.t("v")
            o(f"{vals} = np.empty(N, np.int64)")
            i = self._for_cells("FULL", o, ctx)
            o(f"{vals}[{i}] = np.int64({self.ex(value, o, ctx)})")
            self._end_cells(o, ctx)
            right, down = self.row(), self.row()
            o(f"rt.same_masks_into({vals}, {right}, {down}, N, COLS)")
        return self._snap(f"rt.group_into({s0}, {right}, {down}, {out or self.row()}, COLS, K, FULL)", o)

    def same_masks(self, layer: str, o: Out) -> tuple[str, str]:
        """The rows of a layer's equal edges (rt.same_masks_into), memoized per function call like the value
        masks: a store to the layer or a call of a def forgets them (forget_masks)."""
        if layer in self.static_layers:  # (the system works them out once a level)
            a = self._static_rows(self.static_edges, layer, 2)
            return f"BM[{a}]", f"BM[{a + 1}]"
        rows = self.same_rows.get(layer)
        if rows is None:
            rows = self.same_rows[layer] = (self.row(), self.row())
        o(f"if not E_{layer}:")
        o.indent()
        if self.codes(layer)[1] > 64:
            o(f"rt.same_masks_into({self.layer_ref(layer)}, {rows[0]}, {rows[1]}, N, COLS)")
        elif self.packed and layer in self.dyn_layers:  # (the value masks from the planes: a few word operations)
            o(f"rt.same_masks_from({self.masks(layer, o)}, {rows[0]}, {rows[1]}, COLS, K, NOT_RIGHT)")
        else:  # from the value masks when they are known already, else from the row
            self.memo.add(layer)
            o(f"if V_{layer}:")
            o(f"    rt.same_masks_from(M_{layer}, {rows[0]}, {rows[1]}, COLS, K, NOT_RIGHT)")
            o("else:")
            o(f"    rt.same_masks_into({self.layer_ref(layer)}, {rows[0]}, {rows[1]}, N, COLS)")
        o(f"E_{layer} = True")
        o.dedent()
        return rows

    def b_neighbours(self, e, o, ctx):
        (x,) = e.args
        s = self.as_set(self.ex(x, o, ctx), x.ty, o)
        return self._snap(f"rt.border_into({s}, {self.row()}, COLS, K, NOT_LEFT, NOT_RIGHT, FULL)", o)

    def b_count(self, e, o, ctx):
        return self._reduce(e.args[0], o, ctx, "count") or f"rt.count({self.ex(e.args[0], o, ctx)})"

    def b_any(self, e, o, ctx):
        found = self._found(e.args[0], o, ctx) or self._reduce(e.args[0], o, ctx, "any")
        return found if found is not None else f"rt.nonempty({self.ex(e.args[0], o, ctx)})"

    def b_empty(self, e, o, ctx):
        found = self._found(e.args[0], o, ctx) or self._reduce(e.args[0], o, ctx, "any")
        return f"(not {found if found is not None else f'rt.nonempty({self.ex(e.args[0], o, ctx)})'})"

    def _found(self, e, o, ctx) -> str | None:
        """For `S where COND` with a condition read cell by cell: whether some cell of S meets it, without
        building the set. The condition is still read at every cell, as the reference does (a def it calls
        may reject the move, a read may fault). None for other sets."""
        if not isinstance(e, ir.Where) or _mask_condition(e.pred):  # (x_Where makes it word operations)
            return None
        found = self.t()
        o(f"{found} = False")
        self._each_meeting(e, o, ctx, lambda i: f"{found} = True")
        return found

    def b_distinct(self, e, o, ctx):
        s = self.ex(e.args[0], o, ctx)
        x = e.args[1]
        if isinstance(x, ir.LayerAt) and isinstance(x.cell, ir.Here) and x.ty not in (ir.BOOL, ir.CELL):
            lo, count = self.codes(x.layer)
            if count <= 64 and (self.packed or x.layer in self.static_layers):  # (the masks met by the set)
                return f"rt.distinct_masks({self.masks(x.layer, o)}, {s})"
            if count <= 64:  # the values seen, as bits of one word (or the masks met, when they are known)
                self.memo.add(x.layer)
                return (f"(rt.distinct_masks(M_{x.layer}, {s}) if V_{x.layer} else "
                        f"rt.distinct_in({self.layer_ref(x.layer)}, {s}, {lo}, {count}))")
        vals, n = self.t("v"), self.t("n")
        o(f"{vals} = np.empty(rt.count({s}), np.int64)")
        o(f"{n} = 0")
        self._for_cells(s, o, ctx)
        v = self.ex(e.args[1], o, ctx)
        o(f"{vals}[{n}] = {v}")
        o(f"{n} += 1")
        self._end_cells(o, ctx)
        return f"rt.distinct_count({vals})"

    def _covered(self, body_name, b, o):
        """Loop header over a body's covered cells; yields (row, col) names."""
        bi = self.bodies[body_name]
        k, r, c = self.t("k"), self.t("r"), self.t("c")
        o(f"for {k} in range(BODY_N[{bi}, {b[0]}]):")
        o.indent()
        o(f"{r} = {b[1]} + BODY_OFF[{bi}, {b[0]}, {k}, 0]")
        o(f"{c} = {b[2]} + BODY_OFF[{bi}, {b[0]}, {k}, 1]")
        return r, c

    def b_on_board(self, e, o, ctx):
        (x,) = e.args
        v = self.ex(x, o, ctx)
        if x.ty == ir.CELL:
            return f"({self.on_board(v[0], v[1])})"
        ok = self.t()
        o(f"{ok} = {v[1]} != NONE")
        r, c = self._covered(x.ty.name, v, o)
        o(f"if not ({self.on_board(r, c)}):")
        o.indent()
        o(f"{ok} = False")
        o.dedent()
        o.dedent()
        return ok

    def b_cells(self, e, o, ctx):
        (x,) = e.args
        v = self.ex(x, o, ctx)
        s = self.t("s")
        o(f"{s} = rt.empty_into({self.row()})")
        o(f"if {v[1]} != NONE:")
        o.indent()
        r, c = self._covered(x.ty.name, v, o)
        o(f"if {self.on_board(r, c)}:")
        o.indent()
        o(f"rt.add({s}, {r} * COLS + {c})")
        o.dedent()
        o.dedent()
        o.dedent()
        return s

    def b_adjacent(self, e, o, ctx):
        a, b = (self.ex(x, o, ctx) for x in e.args)
        return (f"({a[0]} != NONE and {b[0]} != NONE and abs({a[0]} - {b[0]}) + abs({a[1]} - {b[1]}) == 1)")

    def b_abs(self, e, o, ctx):
        return f"abs({self.checked(e, ('negation', self.ex(e.args[0], o, ctx)), o)})"

    def b_min(self, e, o, ctx):
        return "min(" + ", ".join(self.ex(x, o, ctx) for x in e.args) + ")"

    def b_max(self, e, o, ctx):
        return "max(" + ", ".join(self.ex(x, o, ctx) for x in e.args) + ")"

    def b_first(self, e, o, ctx):
        s = self.ex(e.args[0], o, ctx)
        i = self.t("i")
        o(f"{i} = rt.first({s})")
        return self._snap((f"({i} // COLS if {i} >= 0 else NONE)", f"({i} % COLS if {i} >= 0 else 0)"), o)

    def b_path(self, e, o, ctx):
        a, b, pred, turns = e.args[:4]
        pa, pb = self.ex(a, o, ctx), self.ex(b, o, ctx)
        found = self.t()
        o(f"{found} = False")
        o(f"if {self.on_board(*pa)} and {self.on_board(*pb)}:")
        o.indent()
        fast = self._layer_equality(pred)
        if fast is not None:  # read the layer row directly, no set
            layer, value = fast
            call = f"rt.path_eq({self.layer_ref(layer)}, {self.ex(value, o, ctx)}, "
        else:
            call = f"rt.path_in({self.x_Where(ir.Where(ir.SET, ir.AllCells(ir.SET), pred), o, ctx)}, "
        k = self._snap(self.ex(turns, o, ctx), o)
        ring = self.ex(e.args[4], o, ctx) if len(e.args) == 5 else "False"
        o(f"{found} = {call}ROWS, COLS, {ring}, {pa[0]} * COLS + {pa[1]}, {pb[0]} * COLS + {pb[1]}, {k})")
        o.dedent()
        return found

    def b_banned(self, e, o, ctx):
        """Whether the move is in the ban table (runtime.is_banned): its argument columns as MARG holds them (an
        unordered action's values sorted first, as its instance lists them)."""
        ai = e.args[0].value
        columns = []
        for a in e.args[1:]:
            v = self.ex(a, o, ctx)
            columns += [f"np.int64({x})" for x in (v if isinstance(v, tuple) else (v,))]
        key = f"({', '.join(columns or ['np.int64(0)'])},)"
        if self.game.actions[ai].unordered:  # (an unordered action has two or more values of one type)
            return f"rt.is_banned_unordered(ab, ab[9], {ai}, {key}, {len(columns) // (len(e.args) - 1)})"
        return f"rt.is_banned(ab, ab[9], {ai}, {key})"

    def b_roll(self, e, o, ctx):
        x, d = e.args
        b = self.ex(x, o, ctx)
        dv = self.ex(d, o, ctx)
        bi = self.bodies[x.ty.name]
        p = self.t()
        o(f"{p} = {b[0]}")
        return self._snap((f"ROLL[{bi}, {p}, {dv}, 0]", f"({b[1]} + ROLL[{bi}, {p}, {dv}, 1] if {b[1]} != NONE else NONE)",
                           f"({b[2]} + ROLL[{bi}, {p}, {dv}, 2] if {b[1]} != NONE else 0)"), o)

    # ---- statements
    def block(self, stmts, o: Out, ctx):
        if not stmts:
            o("pass")
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(s, o, ctx)

    def s_SetLocal(self, s, o, ctx):
        if s.value.ty == ir.SET and _word_tree(s.value):  # (straight into the variable's own row)
            row = self.let_rows[s.slot] = self.row()
            o(f"{self.local(s.slot, ir.SET)} = {self.words(s.value, o, ctx, row)}")
            return
        if _grows_into(s.value) and s.slot not in _locals_in(s.value):
            # (a flood straight into the variable's own row, not a scratch row copied: its seeds never read
            # that row, which only this statement writes and only this variable holds)
            row = self.let_rows[s.slot] = self.row()
            o(f"{self.local(s.slot, ir.SET)} = {getattr(self, 'b_' + s.value.name)(s.value, o, ctx, row)}")
            return
        v = self.ex(s.value, o, ctx)
        names = self.local(s.slot, s.value.ty)
        if isinstance(names, tuple):
            o(", ".join(names) + " = " + ", ".join(v))
        elif s.value.ty == ir.SET:  # a copy of its own (see set_rows)
            row = self.let_rows[s.slot] = self.row()
            o(f"{names} = rt.copy_into({v}, {row})")
        else:
            o(f"{names} = {v}")

    def _check_int(self, name, v, o, span):
        dom = self.inst.doms[name]
        if dom.kind == "int" and (dom.lo > -(1 << 62) or dom.hi < (1 << 62)):
            o(f"if not {dom.lo} <= {v} <= {dom.hi}:")
            o.indent()
            o(self.fault(f"a value is outside `{name}`'s domain {dom.lo}..{dom.hi}", span))
            o.dedent()

    def _store(self, name, ty, arr, base, v, o):
        if isinstance(v, tuple):
            for j, part in enumerate(v):
                o(f"{arr}[{base} + {j}] = {part}")
        else:
            o(f"{arr}[{base}] = {v}")

    def s_SetGlobal(self, s, o, ctx):
        v = self.ex(s.value, o, ctx)
        if not isinstance(v, tuple):
            v = self._snap(v, o)
            self._check_int(s.name, v, o, s.span)
        arr, base, _ = self._slots(s.name, None, o, s.span)
        self._store(s.name, s.value.ty, arr, base, v, o)

    def s_SetArray(self, s, o, ctx):
        v = self.ex(s.value, o, ctx)
        if not isinstance(v, tuple):
            v = self._snap(v, o)
            self._check_int(s.name, v, o, s.span)
        flat = self.flat_index(s.name, s.index, o, ctx, s.span)
        if s.name in self.bit_arrays:
            arr, base, _ = self._slots(s.name, None, o, s.span)
            o(f"{arr}[{base}] = ({arr}[{base}] | (1 << {flat})) if {v} else ({arr}[{base}] & ~(1 << {flat}))")
            return
        arr, base, _ = self._slots(s.name, flat, o, s.span)
        self._store(s.name, s.value.ty, arr, base, v, o)

    def s_SetLayer(self, s, o, ctx):
        v = self._snap(self.ex(s.value, o, ctx), o)
        if s.value.ty == ir.CELL:
            v = self._cell_code(v, o, f"layer `{s.layer}`", s.span)
        self._check_int(s.layer, v, o, s.span)
        planes = self.planes_of(s.layer, None) if self.kept_in_planes(s.layer) else None  # (else its row)
        code = f"(np.int64({v}) - {self.codes(s.layer)[0]})"
        if s.where.ty == ir.SET:
            cells = self.ex(s.where, o, ctx)
            if planes:  # (each plane's bits of the set set or cleared)
                o(f"rt.plane_store({planes}, K, {cells}, {code}, FULL)")
            else:
                i = self._open_members(cells, o)
                o(f"{self.cell_of(self.layer_ref(s.layer), i)} = {v}")
                self._close_members(o)
        else:
            i = self.layer_cell(s.where, o, ctx, f"writing layer `{s.layer}`", s.span)
            o(f"rt.plane_store_cell({planes}, K, {i}, {code})" if planes
              else f"{self.cell_of(self.layer_ref(s.layer), i)} = {v}")
        self.forget_masks(o, s.layer)

    def s_Require(self, s, o, ctx):
        c = self.ex(s.cond, o, ctx)
        o(f"if not {c}:")
        o.indent()
        if ctx["kind"] == "def":
            o("ab[0] = 1")
        o(ctx["abort"])
        o.dedent()

    def s_Return(self, s, o, ctx):
        v = self.ex(s.value, o, ctx)
        o("return " + (", ".join(v) if isinstance(v, tuple) else str(v)))

    def s_Emit(self, s, o, ctx):
        """Queue the particles in `ab` (see QUEUE); outside a chain, run the chain on them (`_chain`, see
        `chain_code`)."""
        i = self.cell_index(o, self.ex(s.cell, o, ctx), "emitting particles", s.span)
        dirs = [self._snap(self.ex(s.dir, o, ctx), o)] if s.dir is not None else ["0", "1", "2", "3"]
        if not ctx.get("chain"):
            o(f"ab[{QUEUE}] = 0")
        o(f"if ab[{QUEUE}] + {len(dirs)} > ab[{QUEUE + 1}]:")
        o.indent()
        room = queue_room(self.inst.rows * self.inst.cols)
        o(self.fault(f"a def emitted more than {room:,} particles at once", s.span))
        o.dedent()
        for d in dirs:
            q = self.t("q")
            o(f"{q} = {QUEUED} + 3 * ab[{QUEUE}]")
            o(f"ab[{q}], ab[{q} + 1], ab[{q} + 2] = {s.particle}, {i}, {d}")
            o(f"ab[{QUEUE}] += 1")
        if not ctx.get("chain"):
            o(f"if not _chain({', '.join(self.state)}, SL, SG, BM, ab):")
            o.indent()
            o(self.fault(f"this chain reaction moved particles {MAX_FLIGHT:,} times; does it ever end?", s.span))
            o.dedent()
        self.forget_masks(o)

    def s_Safe(self, s, o, ctx):
        o("ab[4] = 1")

    def s_Redundant(self, s, o, ctx):
        o("ab[14] = 1")

    def s_Commutes(self, s, o, ctx):
        o("ab[5] = 1")

    def s_Persists(self, s, o, ctx):
        o("ab[7] = 1")

    def s_Chooses(self, s, o, ctx):
        o(f"ab[11] = {self.ex(s.value, o, ctx)}")
        o("ab[10] = 1")

    def s_Ranks(self, s, o, ctx):
        o(f"ab[13] = {self.ex(s.value, o, ctx)}")

    def s_Eval(self, s, o, ctx):
        self.ex(s.call, o, ctx)

    def s_If(self, s, o, ctx):
        # each condition's temporaries must run only when the earlier branches failed: nest the elifs
        depth = 0
        for n, (cond, body) in enumerate(s.branches):
            c = self.ex(cond, o, ctx)
            o(f"if {c}:")
            o.indent()
            self.block(body, o, ctx)
            o.dedent()
            if n + 1 < len(s.branches) or s.orelse:
                o("else:")
                o.indent()
                depth += 1
        if s.orelse:
            self.block(s.orelse, o, ctx)
        elif depth:
            o("pass")
        for _ in range(depth):
            o.dedent()

    def s_For(self, s, o, ctx):
        var = self.local(s.slot, ir.CELL if s.iter.ty == ir.SET else ir.INT)
        it = s.iter
        if isinstance(it, ir.Const) and it.value is None:
            count = 4 if it.ty == ir.DIR else len(self.game.enum_values(it.ty.name))
            o(f"for {var} in range({count}):")
        elif it.ty == ir.RANGE:
            lo, hi = self._snap(self.ex(it, o, ctx), o)
            # (hi - lo and hi + 1 may pass 64 bits; the tests below never do)
            o(f"if {lo} <= {bounds.MOST - 1000000} and {hi} >= {lo} + 1000000:")
            o.indent()
            o(self.fault("this loop would run more than 1,000,000 times", s.span))
            o.dedent()
            top = self.int_bounds(it.hi)[1] if isinstance(it, ir.RangeOf) else bounds.MOST
            if top >= bounds.MOST:
                o(f"if {hi} == {bounds.MOST}:")
                o.indent()
                o(self.overflow(s.span))
                o.dedent()
            o(f"for {var} in range({lo}, {hi} + 1):")
        else:
            i, close = self._open_set_loop(it, o, ctx)
            indexes = _indexes_only(s.slot, s.body)
            fresh = s.slot not in _ON_BOARD and not _binds(s.body, s.slot)
            if fresh:  # (a cell of a set is on the board)
                _ON_BOARD.add(s.slot)
            if indexes:  # (no row and column, two divisions, to index layers again)
                self.cell_at[s.slot] = i
                self.block(s.body, o, ctx)
                del self.cell_at[s.slot]
            else:
                o(f"{var[0]} = {i} // COLS")
                o(f"{var[1]} = {i} % COLS")
                self.block(s.body, o, ctx)
            if fresh:
                _ON_BOARD.discard(s.slot)
            close()
            return
        o.indent()
        self.block(s.body, o, ctx)
        o.dedent()

    def s_While(self, s, o, ctx):
        n = self.t("w")
        o(f"{n} = 0")
        o("while True:")
        o.indent()
        c = self.ex(s.cond, o, ctx)
        o(f"if not {c}:")
        o.indent()
        o("break")
        o.dedent()
        o(f"{n} += 1")
        o(f"if {n} > 1000000:")  # (a way out of the loop, raised after it: see below)
        o.indent()
        o("break")
        o.dedent()
        self.block(s.body, o, ctx)
        o.dedent()
        # (raised after the loop, not in it: a `while true` with no other way out then still has a way out for
        # Python's compiler and numba, so the code after it stays, and a function ending in it keeps its type)
        o(f"if {n} > 1000000:")
        o.indent()
        o(self.fault("this loop ran 1,000,000 times; does it ever end?", s.span))
        o.dedent()

    # ---- functions
    def params_code(self, proc: ir.Procedure) -> list[str]:
        out = []
        for slot, (_, dom) in enumerate(proc.params):
            v = self.local(slot, dom.ty)
            out.extend(v if isinstance(v, tuple) else (v,))
        return out

    def function(self, name: str, proc_params: list[str], body, kind: str, abort: str, tail: str | None,
                 state=("D", "g"), chain=False, packed: str | None = None) -> str:
        o = Out()
        ctx = {"kind": kind, "abort": abort, "here_index": [], "chain": chain}
        self.lower(body, o, ctx, state, packed)
        if tail:
            o(tail)
        _keep_a_return(o, abort)
        return self.define(name, proc_params + [*state], o)

    def lower(self, body, o: Out, ctx, state, packed: str | None = None):
        """Statements reading the dynamic rows and slots `state` (a move's copy D, g, or its parent D0, g0); with
        `packed`, the name of the packed state those rows were decoded from, which they only read (see packed)."""
        self.state, self.packed = state, packed
        self.block(body, o, ctx)
        self.state, self.packed = ("D", "g"), None

    def define(self, name: str, args: list[str], o: Out) -> str:
        """A generated function: the header, then what the body needs bound, then the body."""
        head = f"@njit(cache=True)\ndef {name}({', '.join(args + ['SL', 'SG', 'BM', 'ab'])}):\n"
        return head + "\n".join(self.prologue(o.lines) + o.lines) + "\n"

    def action(self, name: str, proc_params: list[str], body, bound: dict[int, str] | None = None) -> str:
        """A move: its leading checks (`let`s and `require`s that change nothing) read the parent D0, g0, and
        only a move that passes them copies the parent into D, g and goes on there: most moves a state offers
        fail a first `require` (a pair of cells that do not match), and copying the state is their main cost.
        bound: set locals that `once` worked out, in their rows."""
        n = 0
        while n < len(body) and isinstance(body[n], (ir.Require, ir.SetLocal)) and not _writes(body[n], self.game):
            n += 1
        o = Out()
        for slot, row in (bound or {}).items():
            o(f"{self.local(slot, ir.SET)} = {row}")
        ctx = {"kind": "action", "abort": "return False", "here_index": []}
        # (the parent's packed state: value masks from its planes, and kept after the copy)
        self.lower(body[:n], o, ctx, ("D0", "g0"), "s")
        if self.in_planes:  # (the other layers' rows and the slots copied; these layers' planes from the parent)
            for li, layer in enumerate(self.dyn_layers):
                if layer in self.in_planes:
                    o(f"rt.copy_into(s[SG[{HEADER + 2 * li}]:], {self.kept_planes(layer)})")
                else:
                    o(f"rt.copy_row(D0, D, {li})")
            o("rt.copy_into(g0, g)")
        elif not self.dyn_layers:  # (no rows to copy: nor D0, D to pass, prune.py drops them)
            o("rt.copy_into(g0, g)")
        else:
            o("rt.copy_state(D0, g0, D, g)")
        for layer in self.dyn_layers:  # (its rows are the parent's planes until a store: masks from those)
            if layer not in self.in_planes:
                o(f"P_{layer} = True")
        self.parent = "s"
        self.lower(body[n:], o, ctx, ("D", "g"))
        self.parent = None
        o("return True")
        return self.define(name, proc_params + ["s", "D0", "g0", "D", "g"], o)

    def once_function(self, name: str, body) -> tuple[str, dict[int, str]]:
        """An action's leading `let`s of sets that read neither its parameters nor anything else that differs
        from move to move (once_prefix), and the `require`s among them, read on the parent: True when they hold,
        the sets left in their rows. expand calls it at most once a state, before the first of the action's moves
        that gets that far (Flood-It's six moves each flooded the same region, ~1.5 of its ~3 us). With the rows
        the sets are in."""
        o = Out()
        self.lower(body, o, {"kind": "action", "abort": "return False", "here_index": []}, ("D0", "g0"), "s")
        o("return True")
        lets = {st.slot for st in body if isinstance(st, ir.SetLocal)}
        return self.define(name, ["s", "D0", "g0"], o), {slot: self.let_rows[slot] for slot in lets}

    def head(self, name: str, proc_params: list[str], body) -> str:
        """An action's leading `require`s, read on the parent: True when they hold. Most moves that pass the
        prefilter fail here (18x8 Shisen-Sho: ~216 pairs of one kind, ~12 of them joined by a path), and this
        function takes fewer arrays than the action (prune.py): each array passed costs a little per call."""
        o = Out()
        self.lower(body, o, {"kind": "action", "abort": "return False", "here_index": []}, ("D0", "g0"), "s")
        o("return True")
        return self.define(name, proc_params + ["s", "D0", "g0"], o)

    def probe(self, name: str, proc_params: list[str], expr, test: bool) -> str:
        """One side of a prefilter step, read on the parent: a test as 1 (holds) or 2 (fails or rejects), a
        join's value as itself (a rejection leaves ab[0] set)."""
        o = Out()
        ctx = {"kind": "probe", "abort": "return 2" if test else "return 0", "here_index": []}
        self.state = ("D0", "g0")
        v = self.ex(expr, o, ctx)
        self.state = ("D", "g")
        o(f"return 1 if {v} else 2" if test else f"return np.int64({v})")
        return self.define(name, proc_params + ["D0", "g0"], o)

    def dummy(self, ty) -> str:
        """A return of the right type, for a def that stops early (its caller checks `ab`)."""
        if ty == ir.CELL or ty == ir.RANGE:
            return "return NONE, 0"
        if ty.kind == "body":
            return "return 0, NONE, 0"
        if ty == ir.SET:
            return "return rt.empty_set(K)"
        if ty == ir.BOOL:
            return "return False"
        return "return 0"



# ---- the whole module ----------------------------------------------------------------------------------
def _state_code(low: Lowering) -> str:
    """_decode(s, D, g, SG) and _encode(D, g, SG, out): the layout of layout.py, in native code, on arrays the
    caller owns (a search allocates its working rows once, not once per state). Where each field lies depends
    on the board size, so it is read from SG's header (see `header_values`). With layers kept in planes through
    a move (Lowering.in_planes), also expand's _decode_moving, which leaves them out, and _encode_moving(D, g,
    SG, BM, out), which takes their planes from the move's BM rows."""
    dec, enc = _state_lines(low, ())
    code = ("@njit(cache=True)\ndef _decode(s, D, g, SG):\n" + "\n".join(_board_names(dec) + dec)
            + "\n\n\n@njit(cache=True)\ndef _encode(D, g, SG, out):\n" + "\n".join(_board_names(enc) + enc) + "\n")
    if low.in_planes:
        dec, enc = _state_lines(low, low.in_planes)
        code += ("\n\n@njit(cache=True)\ndef _decode_moving(s, D, g, SG):\n" + "\n".join(_board_names(dec) + dec)
                 + "\n\n\n@njit(cache=True)\ndef _encode_moving(D, g, SG, BM, out):\n"
                 + "\n".join(_board_names(enc) + enc) + "\n")
    return code


def _state_lines(low: Lowering, planes) -> tuple[list[str], list[str]]:
    """The bodies of _decode and _encode, with the layers in `planes` left out of the one and taken from the move's
    BM rows (Lowering.kept_planes) by the other."""
    inst = low.inst
    dec, enc = Out(), Out()
    enc("rt.clear(out)")
    for li, name in enumerate(low.dyn_layers):
        dom = inst.doms[name]
        lo = dom.lo if dom.kind == "int" else 0
        at = HEADER + 2 * li  # first plane's word, bits per cell
        if name in planes:
            enc(f"p, W = SG[{at}], {low.kept_planes(name)}")
            enc("for w in range(W.shape[0]):")
            enc("    out[p + w] |= W[w]")
            continue
        if dom.kind != "cell":  # bits per cell fixed by the domain
            _planes_code(li, lo, at, bits_for(dom.count), dec, enc)
            continue
        # a cell layer holds codes up to the cell count: its bits per cell are known at run time
        for o in (dec, enc):
            o(f"p, nb = SG[{at}], SG[{at + 1}]")
            o("for i in range(N):")
            o.indent()
            o("w, b = p + (i >> 6), np.uint64(i & 63)")
        enc(f"x = np.uint64(D[{li}, i])")
        dec("x = np.uint64(0)")
        dec("for q in range(nb):")
        dec("    x |= ((s[w + q * K] >> b) & np.uint64(1)) << np.uint64(q)")
        dec(f"D[{li}, i] = np.int64(x)")
        enc("for q in range(nb):")
        enc("    out[w + q * K] |= ((x >> np.uint64(q)) & np.uint64(1)) << b")
        for o in (dec, enc):
            o.dedent()
    slot_at = HEADER + 2 * len(low.dyn_layers)
    if not planes:
        low.field_decoders = []  # per field of the globals: (its slots in g, the lines that decode it)
    for j, slot in enumerate(inst.layout.slots):
        dom = inst.doms[slot.name]
        arr, off, width = low.gslots[slot.name]
        bits = slot.name in low.bit_arrays  # (its elements are the bits of one slot: Lowering.bit_arrays)
        base = off if bits else off + slot.index * width
        first = len(dec.lines)
        at = slot_at + 3 * j  # word, shift, mask
        code = f"((s[SG[{at}]] >> np.uint64(SG[{at + 1}])) & np.uint64(SG[{at + 2}]))"
        # (the fields are gathered in a local word `acc`, stored when the next field lies in another word: one
        # store a word, not a load and a store a field, each waiting for the one before)
        put = (f"acc |= np.uint64({{}}) << np.uint64(SG[{at + 1}])" if j else
               f"acc = np.uint64({{}}) << np.uint64(SG[{at + 1}])")
        if j:
            enc(f"if SG[{at}] != word:")
            enc("    out[word] |= acc")
            enc(f"    word, acc = SG[{at}], np.uint64(0)")
        else:
            enc(f"word = SG[{at}]")
        if bits:  # (an array's slots come in the order of its elements, the first one first: Layout.build)
            word = f"bits{base}"  # (gathered in a local, stored once)
            dec(f"{word} = np.int64({code})" if slot.index == 0 else f"{word} |= np.int64({code}) << {slot.index}")
            if slot.index == math.prod(inst.dims[slot.name]) - 1:
                dec(f"g[{base}] = {word}")
            enc(put.format(f"(g[{base}] >> {slot.index}) & 1"))
            if not planes:
                low.field_decoders.append(({base}, dec.lines[first:]))
            continue
        if dom.kind in ("int", "bool", "enum", "dir"):
            lo = dom.lo if dom.kind == "int" else 0
            dec(f"g[{base}] = np.int64({code}) + {lo}")
            enc(put.format(f"g[{base}] - {lo}"))
            if not planes:
                low.field_decoders.append(({base}, dec.lines[first:]))
            continue
        cell_at = base if dom.kind == "cell" else base + 1
        dec(f"x = np.int64({code})")
        if dom.kind == "body":
            dec(f"g[{base}] = x // (N + 1)")
            dec("x = x % (N + 1)")
        dec("if x == N:")
        dec.indent()
        dec(f"g[{cell_at}] = NONE")
        dec(f"g[{cell_at + 1}] = 0")
        dec.dedent()
        dec("else:")
        dec.indent()
        dec(f"g[{cell_at}] = x // COLS")
        dec(f"g[{cell_at + 1}] = x % COLS")
        dec.dedent()
        if not planes:
            low.field_decoders.append((set(range(base, cell_at + 2)), dec.lines[first:]))
        x = low._cell_code((f"g[{cell_at}]", f"g[{cell_at + 1}]"), enc, f"`{slot.name}`", None)
        if dom.kind == "body":
            enc(f"{x} += g[{base}] * (N + 1)")
        enc(put.format(x))
    if inst.layout.slots:
        enc("out[word] |= acc")
    dec("return")
    enc("return")
    return dec.lines, enc.lines


def _slots_read(functions: dict[str, ast.FunctionDef], names: list[str]) -> set[int] | None:
    """The slots of g that the generated functions `names` and what they call read, when every read is g[k] for
    a constant k and no layer's row (D) is read: an entry point then decodes only those (_decoder), not the whole
    state (Bloxorz's goal reads 5 of 8 slots). None where that cannot be told from the source: g indexed by a
    value worked out at run time (an element of an array global held a slot an element, not a bit_arrays word),
    g handed to a function of the runtime or under another name, D read."""
    slots: set[int] = set()
    todo, seen = list(names), set()
    while todo:
        f = functions.get(todo.pop())
        if f is None or f.name in seen:
            continue
        seen.add(f.name)
        passed = set()  # (g handed on whole to a generated function, as its parameter g)
        for node in ast.walk(f):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
                todo.append(node.func.id)
                params = [a.arg for a in functions[node.func.id].args.args]
                for a, p in zip(node.args, params):
                    if isinstance(a, ast.Name) and a.id == "g":
                        if p != "g":
                            return None
                        passed.add(id(a))
        for node in ast.walk(f):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "g":
                k = _constant(node.slice)
                if k is None or not isinstance(node.ctx, ast.Load):
                    return None
                slots.add(k)
                passed.add(id(node.value))
        for node in ast.walk(f):
            if isinstance(node, ast.Name) and (node.id == "D" or node.id == "g" and id(node) not in passed):
                return None
    return slots


def _constant(e: ast.expr):
    """The value of a sum of integer literals (codegen writes a field's slot so: `26 + 1`), else None."""
    if isinstance(e, ast.Constant) and isinstance(e.value, int):
        return e.value
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        a, b = _constant(e.left), _constant(e.right)
        return None if a is None or b is None else a + b
    return None


def _decoder(low: Lowering, name: str, slots: set[int]) -> str:
    """_decode for the fields of the globals that hold one of `slots` (_slots_read), the layers left out."""
    lines = [line for held, code in low.field_decoders if held & slots for line in code] + ["    return"]
    return (f"@njit(cache=True)\ndef {name}(s, D, g, SG):\n" + "\n".join(_board_names(lines) + lines) + "\n")


def _planes_code(li: int, lo: int, at: int, nbits: int, dec: Out, enc: Out):
    """Decode and encode a layer of `nbits` bits per cell a word of 64 cells at a time, each plane's word held in
    a local (one load or store per word and plane, not one per cell and plane)."""
    planes = range(nbits)
    for o in (dec, enc):
        o(f"p = SG[{at}]")
        o("for w in range(K):")
        o.indent()
        o("i0 = w * 64")
    for q in planes:
        dec(f"s{q} = s[p + w + {q} * K]")
        enc(f"s{q} = np.uint64(0)")
    for o in (dec, enc):
        o("cells = min(N - i0, 64)")
    # (a whole word's cells in a loop of known length, which the compiler unrolls and vectorizes whatever the
    # board's size; the last word's in a loop of its own)
    for head in ("if cells == 64:", "else:"):
        for o in (dec, enc):
            o(head)
            o.indent()
            o("for j in range(64):" if head.startswith("if") else "for j in range(cells):")
            o.indent()
            o("b = np.uint64(j)")
        dec(f"D[{li}, i0 + j] = np.int64("
            + " | ".join(f"(((s{q} >> b) & np.uint64(1)) << np.uint64({q}))" for q in planes) + f") + {lo}")
        enc(f"x = np.uint64(D[{li}, i0 + j] - {lo})")
        for q in planes:
            enc(f"s{q} |= ((x >> np.uint64({q})) & np.uint64(1)) << b")
        for o in (dec, enc):
            o.dedent()
            o.dedent()
    for q in planes:
        enc(f"out[p + w + {q} * K] |= s{q}")
    for o in (dec, enc):
        o.dedent()


def header_values(low: Lowering) -> list[int]:
    """The head of SG: ROWS, COLS, N, K; per dynamic layer its first plane's word and bits per cell; per packed
    field its word, shift and mask (as a signed 64-bit value)."""
    inst, layout = low.inst, low.inst.layout
    n = inst.rows * inst.cols
    out = [inst.rows, inst.cols, n, max(1, -(-n // 64))]
    for name in low.dyn_layers:
        planes = [p for p in layout.planes if p.layer == name]
        out += [planes[0].word, len(planes)]
    for slot in layout.slots:
        mask = (1 << slot.width) - 1
        out += [slot.word, slot.shift, mask - (1 << 64) if mask >= 1 << 63 else mask]
    assert len(out) == low.header
    return out


def generate(inst: Instance, heuristic: str | None, rules, moves=None) -> tuple[str, Lowering, list]:
    """The module's source, its lowering (error table) and the action instances (what each move index is:
    `moves`, or all of them); `rules` is the instance's reference interpreter (reference.system.interpreter),
    which numbers the moves. The layers plane_layers offers are kept in planes through a move unless code on a
    move's path reads their rows: those are found by lowering, and the module is lowered again without them."""
    planes = plane_layers(inst)
    while True:
        source, low, listed = _generate(inst, heuristic, rules, moves, planes)
        if not low.stale:
            return source, low, listed
        planes -= low.stale


def plane_layers(inst: Instance) -> frozenset:
    """The dynamic layers a move may keep in planes (Lowering.in_planes): those some action stores into as a set
    and nothing stores into a cell at a time, of a fixed number of bits a cell (not cells), in a game without
    particles (a chain reaction reads and stores cell by cell)."""
    game = inst.game
    if game.particles:
        return frozenset()
    as_sets, by_cell = set(), set()
    for proc in [a.proc for a in game.actions] + list(game.defs):
        ir.contains(proc.body, lambda x: isinstance(x, ir.SetLayer)
                    and (as_sets if x.where.ty == ir.SET else by_cell).add(x.layer))
    return frozenset(name for name in as_sets - by_cell
                     if name in inst.dynamic and inst.doms[name].kind != "cell")


def _move_defs(game: ir.Game) -> set[str]:
    """The defs that code on a move's path may call: the actions', the `fails` conditions', and those they call."""
    found: set[str] = set()
    roots = [a.proc.body for a in game.actions] + [a.cost for a in game.actions] + list(game.fails)
    while roots:
        called = set()
        for node in roots:
            ir.contains(node, lambda x: isinstance(x, ir.CallDef) and called.add(x.name))
        roots = [game.proc(name).body for name in called - found]
        found |= called
    return found


def _generate(inst: Instance, heuristic: str | None, rules, moves, planes: frozenset):
    low = Lowering(inst, heuristic, planes)
    game = inst.game
    on_moves = _move_defs(game)
    _ON_BOARD.clear()  # (defs first: their cell parameters may be any cell)
    parts = [
        f"# Generated by gridrules for the game `{game.name}`: do not edit.",  # (no path: a moved file stays cached)
        "import numpy as np",
        "from numba import njit",
        _RUNTIME,
        "from gridrules.compiled.loops import EXPAND, GOAL, HEURISTIC",
        "",
        f"NONE = {NONE}",
        "DR = np.array([0, 0, -1, 1], np.int64)",
        "DC = np.array([-1, 1, 0, 0], np.int64)",
    ]
    # bodies: covered cells and roll tables as constant arrays
    nb = max(1, len(game.bodies))
    npose = max([len(b.poses) for b in game.bodies] + [1])
    ncell = max([len(c) for b in game.bodies for c in b.cells] + [1])
    off = [[[[0, 0] for _ in range(ncell)] for _ in range(npose)] for _ in range(nb)]
    cnt = [[0] * npose for _ in range(nb)]
    roll = [[[[0, 0, 0] for _ in range(4)] for _ in range(npose)] for _ in range(nb)]
    for bi, b in enumerate(game.bodies):
        for pi, cells in enumerate(b.cells):
            cnt[bi][pi] = len(cells)
            for k, (dr, dc) in enumerate(sorted(cells)):  # (reading order: _open_set_loop walks them so)
                off[bi][pi][k] = [dr, dc]
            for di, (to, (dr, dc)) in enumerate(b.rolls[pi]):
                roll[bi][pi][di] = [to, dr, dc]
    parts += [f"BODY_OFF = np.array({off}, np.int64)", f"BODY_N = np.array({cnt}, np.int64)",
              f"ROLL = np.array({roll}, np.int64)"]
    parts += ["", ""]
    parts.append(_state_code(low))
    for d in game.defs:
        tail = low.dummy(d.returns)
        low.local_bounds = low.locals_of(d)
        low.moving = d.name in on_moves
        parts.append(low.function(f"def_{d.name}", low.params_code(d), d.body, "def", tail, tail))
        if d.name in low.emitters:
            parts.append(low.function(f"chain_def_{d.name}", low.params_code(d), d.body, "def", tail, tail,
                                      chain=True))
    low.moving = True  # (the chain reaction, and the actions: code on a move's path)
    if game.particles:
        parts.append(chain_code(low, rules))
    # actions: one function per action; the move list enumerates parameter values whose `when` holds
    from ..reference.system import action_instances

    if moves is None:
        moves = action_instances(inst, rules)  # (text, action index, args), numbered as the reference does
    used = {ai for _, ai, _ in moves}  # actions whose `when` holds for no parameter value are not compiled
    steps = {ai: prefilter(game.actions[ai], game) for ai in sorted(used)}  # (expand checks these, not the action)
    joins = {ai: pair_join(game.actions[ai], steps[ai]) for ai in sorted(used)}
    low.pair_actions = {ai: key for ai, key in joins.items() if key is not None}
    for ai, action in enumerate(game.actions):
        if ai not in used:
            continue
        body = after_prefilter(action.proc.body, steps[ai])
        low.local_bounds = low.locals_of(action.proc, action=True)  # (the whole body's: prefilter's and cost's too)
        _ON_BOARD.clear()  # (the move's cells, unless its body binds them again)
        _ON_BOARD.update(slot for slot, (_, dom) in enumerate(action.proc.params)
                         if dom.ty == ir.CELL and not _binds(action.proc.body, slot))
        n = 0  # leading `require`s, checked on the parent by a function of their own (see Lowering.head)
        while n < len(body) and isinstance(body[n], ir.Require) and not _writes(body[n], game):
            n += 1
        if n:
            low.heads.add(ai)
            parts.append(low.head(f"head_{ai}", low.params_code(action.proc), body[:n]))
        k = once_prefix(body[n:], len(action.proc.params), game)
        bound = None
        if k:
            low.once.add(ai)
            code, bound = low.once_function(f"once_{ai}", body[n:n + k])
            parts.append(code)
        parts.append(low.action(f"act_{ai}", low.params_code(action.proc), body[n + k:], bound))
        for k, step in enumerate(steps[ai]):
            sides = [("", step[2], True)] if step[0] == "test" else [("x", step[2], False), ("y", step[4], False)]
            for side, expr, test in sides:
                parts.append(low.probe(f"pre_{ai}_{k}{side}", low.params_code(action.proc), expr, test))
        cost_proc = ir.Procedure("cost", action.proc.params, (ir.Return(action.cost),), action.proc.nlocals)
        parts.append(low.function(f"cost_{ai}", low.params_code(action.proc), cost_proc.body, "heuristic",
                                  "return 0", None, state=("D0", "g0")))
    _ON_BOARD.clear()
    low.moving = False
    for hi, h in enumerate(game.heuristics):  # (a heuristic reads the state it is given, never changes it)
        low.local_bounds = low.locals_of(h.proc)
        parts.append(low.function(f"h_{hi}", ["s"], h.proc.body, "heuristic", "return 0", None, packed="s"))
    if game.score is not None:
        low.local_bounds = low.locals_of(game.score)
        parts.append(low.function("_score", [], game.score.body, "heuristic", "return 0", None))
    low.local_bounds = {}
    parts.append(_any_function(low, "_goal", game.goals, packed=True))
    low.moving = True  # (expand tests the move's copy)
    parts.append(_any_function(low, "_failed", game.fails))
    low.moving = False
    if game.deadlocks:
        parts.append(_any_function(low, "_deadlock", game.deadlocks, packed=True))
    for ai, key in low.pair_actions.items():
        parts.append(_pairs_code(ai, steps[ai], key))
    low.decoders = {}
    readers = {"goal": ["_goal"], "deadlock": ["_deadlock"] if game.deadlocks else [],
               "score": ["_score"] if game.score is not None else [],
               "heuristic": [f"h_{i}" for i in _entry_heuristics(low, game)]}
    functions = {f.name: f for f in ast.parse("\n".join(parts)).body if isinstance(f, ast.FunctionDef)}
    for entry, names in readers.items():
        slots = _slots_read(functions, names)
        if slots:  # (none read: the whole _decode is left out, prune._drop_unread_decode)
            low.decoders[entry] = f"_decode_{entry}"
            parts.append(_decoder(low, f"_decode_{entry}", slots))
    parts.append(_dispatch(low, game, steps))
    return prune_cached("\n".join(parts) + "\n"), low, moves


_NO_STEP = 1 << 62  # (a chain's next step before anything is due: above any step it reaches)


def chain_code(low: Lowering, rules) -> str:
    """_chain: the chain reaction of the particles queued in `ab`, run to its end (False: it would not end), as
    the reference backend's Compiler.chain says (its docstring is the specification). In flight: rows of P
    (kind, cell, direction, the step it next enters a cell); stops are counted per (cell, kind) in HK, the keys
    touched listed in T."""
    game = low.game
    nk = len(game.particles)
    gaps = [particle_gap(rules, p) for p in game.particles]
    leaves = any(p.leave for p in game.particles)
    parts = [f"GAP = np.array({gaps}, np.int64)"]
    for k, p in enumerate(game.particles):  # each kind's stop condition at cell i
        o = Out()
        ctx = {"kind": "pred", "abort": "return False", "here_index": ["i"]}
        o(f"return {low.ex(p.stop, o, ctx)}")
        parts.append(low.define(f"stop_{k}", ["i", "D", "g"], o))
    o = Out()
    # scratch in `ab` after the queue (system._work): stops per (cell, kind), zero between chains; the keys
    # touched in a step; at the row's end the particles in flight and those leaving in a step (as many: each
    # leaves from a row), where a chain that outgrows them stops (take_emitted) for Python to grow them. No
    # array is made here: the module then runs without reference counting (Drops' A* ~1.2x quicker).
    o(f"room = ab[{QUEUE + 1}]")
    o(f"hk = {QUEUED} + 3 * room")
    o(f"HK = ab[hk:hk + N * {nk}]")
    o(f"T = ab[hk + N * {nk}:hk + 2 * N * {nk}]")
    o(f"at, rows = ab[{QUEUE + 2}], ab[{QUEUE + 3}]")
    o(f"P = ab[at:at + {IN_FLIGHT} * rows].reshape((rows, {IN_FLIGHT}))")
    if leaves:
        o(f"G = ab[at + {IN_FLIGHT} * rows:at + {IN_FLIGHT + LEAVING} * rows].reshape((rows, {LEAVING}))")
    o(f"n = rt.take_emitted(ab, {QUEUE}, P, 0, 1)")
    o("moves = 0")
    # (the next step with something due, kept up as particles are kept, moved and emitted: no pass to find it)
    o("nxt = 1")
    o("while n > 0:")
    o.indent()
    o("step = nxt")
    o(f"nxt = {_NO_STEP}")
    o("m = 0")
    o("nt = 0")
    if leaves:
        o("ng = 0")
    o("for j in range(n):")
    o.indent()
    o("k, i, d, due = P[j, 0], P[j, 1], P[j, 2], P[j, 3]")
    o("if due != step:")
    o("    P[m, 0], P[m, 1], P[m, 2], P[m, 3] = k, i, d, due")
    o("    m += 1")
    o("    nxt = min(nxt, due)")
    o("    continue")
    o("moves += 1")
    o(f"if moves > {MAX_FLIGHT}:")
    o("    return False  # (the emit that started the chain reports it)")
    o("r, c = i // COLS + DR[d], i % COLS + DC[d]")
    o("if not (0 <= r < ROWS and 0 <= c < COLS):")
    o.indent()
    if leaves:
        o("G[ng, 0], G[ng, 1], G[ng, 2] = k, i, d")
        o("ng += 1")
    o("continue")
    o.dedent()
    o("to = r * COLS + c")
    for k in range(nk):
        o(f"{'if' if k == 0 else 'elif'} k == {k}:")
        o(f"    stop = stop_{k}(to, D, g, SL, SG, BM, ab)")
    o("else:")
    o("    stop = False")
    o("if stop:")
    o.indent()
    o(f"key = to * {nk} + k")
    o("if HK[key] == 0:")
    o("    T[nt] = key")
    o("    nt += 1")
    o("HK[key] += 1")
    o.dedent()
    o("else:")
    o.indent()
    o("P[m, 0], P[m, 1], P[m, 2], P[m, 3] = k, to, d, step + GAP[k]")
    o("m += 1")
    o("nxt = min(nxt, step + GAP[k])")
    o.dedent()
    o.dedent()
    o("n = m")
    ctx = {"chain": True}
    if leaves:
        o("for j in range(ng):")
        o.indent()
        o("k, i, d = G[j, 0], G[j, 1], G[j, 2]")
        for k, p in enumerate(game.particles):
            if p.leave:
                o(f"if k == {k}:")
                o(f"    {low.def_name(p.leave, ctx)}(i // COLS, i % COLS, d, D, g, SL, SG, BM, ab)")
        o(f"if ab[{QUEUE}] != 0:")
        o(f"    n = rt.take_emitted(ab, {QUEUE}, P, n, step + 1)")
        o("    nxt = step + 1")
        o.dedent()
    o("if nt > 1:")
    o("    rt.sort_in_place(T, nt)")
    o("for j in range(nt):")
    o.indent()
    o("key = T[j]")
    o("count = HK[key]")
    o("HK[key] = 0")
    o(f"i, k = key // {nk}, key % {nk}")
    for k, p in enumerate(game.particles):
        o(f"{'if' if k == 0 else 'elif'} k == {k}:")
        o(f"    {low.def_name(p.hit, ctx)}(i // COLS, i % COLS, count, D, g, SL, SG, BM, ab)")
    o(f"if ab[{QUEUE}] != 0:  # (only a hit that emitted: most only grow a drop)")
    o(f"    n = rt.take_emitted(ab, {QUEUE}, P, n, step + 1)")
    o("    nxt = step + 1")
    o.dedent()
    o.dedent()
    o("return True")
    parts.append(low.define("_chain", ["D", "g"], o))
    return "\n\n".join(parts)


def _keep_a_return(o: Out, abort: str) -> None:
    """A function whose rules fail on every path (`goal: none.row == 1`: a fault under a test of constants) has no
    return left once numba drops the branches its constants rule out, and would be typed as returning nothing,
    which its caller cannot convert: a function that may raise gets a return first that typing cannot drop
    (rt.never: LLVM drops it later, at no cost)."""
    if abort.startswith("return") and any(line.lstrip().startswith("raise ") for line in o.lines):
        o.lines[:0] = ["    if rt.never():", f"        {abort}"]


def _any_function(low: Lowering, name: str, exprs, packed: bool = False) -> str:
    """Whether any of the conditions holds. `packed`: on a state the caller decoded from the packed `s`, which
    it also passes (value masks then come from its planes: Lowering.packed); else on a move's copy."""
    o = Out()
    ctx = {"kind": "pred", "abort": "return False", "here_index": []}
    low.packed = "s" if packed else None
    for e in exprs:
        v = low.ex(e, o, ctx)
        o(f"if {v}:")
        o.indent()
        o("return True")
        o.dedent()
    o("return False")
    _keep_a_return(o, "return False")
    low.packed = None
    args = "s, D, g" if packed else "D, g"
    return f"@njit(cache=True)\ndef {name}({args}, SL, SG, BM, ab):\n" + "\n".join(low.prologue(o.lines) + o.lines) + "\n"


def _prefilter_code(ai: int, steps, cols: dict[int, int], args: list[str], o: Out):
    """A move's prefilter (see `prefilter`): each step read once per cell and state, in the rule's order; a move
    that fails one is skipped (`continue`). (Cell arguments lie on the board: system.py checks.)"""
    used = sorted({step[1] for step in steps} | {step[3] for step in steps if step[0] == "join"})
    for p in used:
        o(f"q{p} = MARG[m, {cols[p]}] * COLS + MARG[m, {cols[p] + 1}]")
    call = ", ".join(args + PARENT)
    for k, step in enumerate(steps):
        sides = [("", step[1])] if step[0] == "test" else [("x", step[1]), ("y", step[3])]
        for side, p in sides:
            memo, q = f"S{ai}_{k}{side}", f"q{p}"
            o(f"if {memo}[{q}] == 0:")
            o.indent()
            o("ab[0] = 0")
            o("ab[1] = m")
            if side:
                o(f"V{ai}_{k}{side}[{q}] = pre_{ai}_{k}{side}({call})")
                o(f"{memo}[{q}] = 2 if ab[0] != 0 else 1")
            else:
                o(f"{memo}[{q}] = pre_{ai}_{k}({call})")
            o.dedent()
            o(f"if {memo}[{q}] != 1:")
            o("    continue")
        if step[0] == "join":
            o(f"if V{ai}_{k}x[q{step[1]}] != V{ai}_{k}y[q{step[3]}]:")
            o("    continue")


def _pairs_code(ai: int, steps: list, key: int) -> str:
    """pairs_{ai}: the moves of action `ai` (two cells, see `pair_join`) that pass its prefilter, listed by
    buckets rather than tried one by one: each cell's steps in the role of each parameter read at once (in the
    rule's order, up to the first that fails), the cells that pass all of theirs sorted by the join `key`'s value,
    and only pairs of equal value looked up (SG[at + q0 * N + q1]: the move of cells q0, q1, or -1) and checked
    against the other joins. Their moves are put in CAND from nc on; the new count is returned, or -1 when a step
    faulted: a fault belongs to a move, so the caller then tries the moves one by one, which faults at the move
    the rule would (or not at all, where the rule never reads that step)."""
    sides = {0: [], 1: []}  # parameter -> its steps' (memo, value or None, probe), in order
    for p, memo, value, probe in _memo_sides(ai, steps):
        sides[p].append((memo, value, probe))
    o = Out()
    o("try:")
    o.indent()
    o("for q in range(N):")
    o.indent()
    o("r, c = q // COLS, q % COLS")
    for p in (0, 1):
        o("ok = True")
        for memo, value, probe in sides[p]:
            o("if ok:")
            o.indent()
            call = f"{probe}(r, c, r, c, D0, g0, SL, SG, BM, ab)"  # (a probe reads its own parameter only)
            if value is None:
                o(f"{memo}[q] = {call}")
            else:
                o("ab[0] = 0")
                o(f"{value}[q] = {call}")
                o(f"{memo}[q] = 2 if ab[0] != 0 else 1")
            o(f"ok = {memo}[q] == 1")
            o.dedent()
    o.dedent()
    o.dedent()
    o("except Exception:")
    o("    ab[0] = 0")
    o("    return -1")
    o("ab[0] = 0")
    px, py = steps[key][1], steps[key][3]
    for tag, p, side in (("X", px, "x"), ("Y", py, "y")):  # each role's cells that pass, and their key
        o(f"E{tag} = np.empty(N, np.int64)")
        o(f"K{tag} = np.empty(N, np.int64)")
        o(f"e{tag} = 0")
        o("for q in range(N):")
        o(f"    if {' and '.join(f'{memo}[q] == 1' for memo, _, _ in sides[p])}:")
        o(f"        E{tag}[e{tag}] = q")
        o(f"        K{tag}[e{tag}] = V{ai}_{key}{side}[q]")
        o(f"        e{tag} += 1")
        o(f"O{tag} = np.empty(e{tag}, np.int64)")
        o(f"rt.argsort_ints(K{tag}, e{tag}, O{tag})")
    o("i = 0")
    o("j = 0")
    o("while i < eX and j < eY:")
    o.indent()
    o("kx, ky = KX[OX[i]], KY[OY[j]]")
    o("if kx != ky:")
    o("    if kx < ky:")
    o("        i += 1")
    o("    else:")
    o("        j += 1")
    o("    continue")
    o("i2, j2 = i + 1, j + 1")
    o("while i2 < eX and KX[OX[i2]] == kx:")
    o("    i2 += 1")
    o("while j2 < eY and KY[OY[j2]] == kx:")
    o("    j2 += 1")
    o("for u in range(i, i2):")
    o.indent()
    o("for v in range(j, j2):")
    o.indent()
    o(f"q{px}, q{py} = EX[OX[u]], EY[OY[v]]")
    o("m = SG[at + q0 * N + q1]")
    o("if m < 0:")
    o("    continue")
    for k, step in enumerate(steps):
        if step[0] == "join" and k != key:
            o(f"if V{ai}_{k}x[q{step[1]}] != V{ai}_{k}y[q{step[3]}]:")
            o("    continue")
    o("CAND[nc] = m")
    o("nc += 1")
    o.dedent()
    o.dedent()
    o("i, j = i2, j2")
    o.dedent()
    o("return nc")
    args = _memo_arrays(ai, steps) + ["CAND", "nc", "at"] + PARENT
    return (f"@njit(cache=True)\ndef pairs_{ai}({', '.join(args)}):\n"
            + "\n".join(_board_names(o.lines) + o.lines) + "\n")


def _entry_heuristics(low: Lowering, game: ir.Game) -> list[int]:
    """The heuristics the entry point `heuristic` takes the greatest of: the one asked for, or the defaults."""
    return [i for i, h in enumerate(game.heuristics)
            if (low.heuristic is None and h.in_default) or h.name == low.heuristic]


def _dispatch(low: Lowering, game: ir.Game, steps: dict[int, list]) -> str:
    """expand / goal / heuristic over packed states: the entry points the system and native searches use, with
    the fixed signatures of loops.py. Each works on scratch rows its caller owns (system._work: D0, g0: the
    decoded parent; D, g: one move's copy)."""
    o = Out()
    o("_decode_moving(s, D0, g0, SG)" if low.in_planes else "_decode(s, D0, g0, SG)")
    used = steps.keys()  # (the actions the level's moves use, with their prefilter steps)
    for ai in steps:  # each prefilter step's memo over the cells (`_memo_sides`)
        for _, memo, value, _ in _memo_sides(ai, steps[ai]):
            o(f"{memo} = np.zeros(N, np.int8)")
            if value is not None:
                o(f"{value} = np.empty(N, np.int64)")
    # the moves to try: every one, or (when the system put pair tables in SG: system.pair_tables) the moves of
    # the other actions and the pairs that pass the prefilter of each pair action (`_pairs_code`), in order
    if low.pair_actions:
        o(f"CAND = np.empty(MA.shape[0] if SG.shape[0] > {low.nsg} else 0, np.int64)")
        o("nc = -1")
        o(f"if SG.shape[0] > {low.nsg}:")
        o.indent()
        o(f"nc = SG[{low.nsg}]")
        o("for mi in range(nc):")
        o(f"    CAND[mi] = SG[{low.nsg + 1} + mi]")
        o(f"at = {low.nsg + 1} + nc")
        for b, ai in enumerate(low.pair_actions):
            if b:
                o("at += N * N")
                o("if nc >= 0:")
            call = ", ".join(_memo_arrays(ai, steps[ai]) + ["CAND", "nc", "at"] + PARENT)
            o(f"{'    ' if b else ''}nc = pairs_{ai}({call})")
        o("if nc > 1:")
        o("    rt.sort_ints(CAND, nc)")
        o.dedent()
    o("n = 0")
    for ai in sorted(low.once):
        o(f"once{ai} = -1  # (not worked out yet for this state)")
    if low.pair_actions:
        o("for mi in range(MA.shape[0] if nc < 0 else nc):")
        o.indent()
        o("m = mi if nc < 0 else CAND[mi]")
    else:
        o("for m in range(MA.shape[0]):")
        o.indent()
    o("a = MA[m]")
    o("k = 0")
    first = True
    safe = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Safe)) for ai in used)
    redundant = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Redundant)) for ai in used)
    commutes = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Commutes)) for ai in used)
    persists = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Persists)) for ai in used)
    chooses = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Chooses)) for ai in used)
    ranks = any(ir.contains(game.actions[ai].proc.body, lambda x: isinstance(x, ir.Ranks)) for ai in used)
    for ai, action in enumerate(game.actions):
        if ai not in used:
            continue
        args = []
        col = 1  # (column 0: the move's text group)
        cols = {}  # cell parameter -> its row's column
        for p, (_, dom) in enumerate(action.proc.params):
            if dom.ty == ir.CELL:
                args += [f"MARG[m, {col}]", f"MARG[m, {col + 1}]"]
                cols[p] = col
                col += 2
            elif dom.ty == ir.BOOL:
                args.append(f"MARG[m, {col}] != 0")
                col += 1
            else:
                args.append(f"MARG[m, {col}]")
                col += 1
        o(f"{'if' if first else 'elif'} a == {ai}:")
        first = False
        o.indent()
        if steps[ai]:
            _prefilter_code(ai, steps[ai], cols, args, o)
        o("ab[0] = 0")
        o("ab[1] = m  # (the move a fault belongs to)")
        if safe:
            o("ab[4] = 0  # (set by `safe`)")
        if redundant:
            o("ab[14] = 0  # (set by `redundant`)")
        if commutes:
            o("ab[5] = 0  # (set by `commutes`)")
        if persists:
            o("ab[7] = 0  # (set by `persists`)")
        if chooses:
            o("ab[10] = 0  # (set by `chooses`)")
        if ranks:
            o("ab[13] = 0  # (set by `ranks`)")
        act = f"act_{ai}({', '.join(args + ['s', 'D0', 'g0', 'D', 'g', 'SL', 'SG', 'BM', 'ab'])})"
        if ai in low.once:  # (once_{ai}'s sets, worked out at the first of the action's moves to get this far)
            act = f"once{ai} == 1 and {act}"
        if ai in low.heads:
            o(f"ok = head_{ai}({', '.join(args + ['s'] + PARENT)})")
            if ai in low.once:
                o(f"if ok and once{ai} < 0:")
                o(f"    once{ai} = 1 if once_{ai}({', '.join(['s'] + PARENT)}) else 0")
            o("if ok:")
            o(f"    ok = {act}")
        else:
            if ai in low.once:
                o(f"if once{ai} < 0:")
                o(f"    once{ai} = 1 if once_{ai}({', '.join(['s'] + PARENT)}) else 0")
            o(f"ok = {act}")
        o("if ok:  # (a cost is read on the parent, and only for a legal move)")
        o(f"    k = cost_{ai}({', '.join(args + PARENT)})")
        o.dedent()
    if first:  # (no action has a move on this level: nothing above to follow)
        o("ok = False")
    else:
        o("else:")
        o.indent()
        o("ok = False")
        o.dedent()
    o("if ok:  # (packed first, as the reference does: a cell stored off the board is an error before `fail`)")
    o("    _encode_moving(D, g, SG, BM, OUT[n])" if low.in_planes else "    _encode(D, g, SG, OUT[n])")
    o("    ok = not _failed(D, g, SL, SG, BM, ab)")
    o("if ok:")
    o.indent()
    o("if k < 0:")
    o.indent()
    o("ab[2] = k")
    o(low.fault("move `{move}` has a negative cost ({value})", None))
    o.dedent()
    if redundant:
        o("if ab[14] != 0 and ab[3] != 0:  # a redundant move, and the caller searches: left out but at its start")
        o.indent()
        o("at_start = True")
        o("for w in range(s.shape[0]):")
        o("    if s[w] != np.uint64(ab[ab[15] + w]):")
        o("        at_start = False")
        o("        break")
        o("if not at_start:")
        o("    continue")
        o.dedent()
    o("if MARG[m, 0] >= 0:  # a move written like others: no other legal move may be written alike")
    o.indent()
    o("for j in range(n):")
    o.indent()
    o("if MARG[MOVE[j] if MOVE[j] >= 0 else -1 - MOVE[j], 0] == MARG[m, 0]:  # (-1 - m: move m, marked below)")
    o.indent()
    o(low.fault("two legal moves are both written `{move}`", None, "give the actions notations that tell them apart"))
    o.dedent()
    o.dedent()
    o.dedent()
    o("MOVE[n] = m")
    o("COST[n] = k")
    o("n += 1")
    if chooses or ranks:  # (the move's choice, then its rank: the search order's keys)
        o(f"ab[ab[12] + n - 1] = {'ab[11] if ab[10] != 0 else ' if chooses else ''}rt.CHOSE_NOTHING")
        o(f"ab[ab[12] + MA.shape[0] + n - 1] = {'ab[13]' if ranks else 0}")
    if safe:
        o("if ab[4] != 0 and ab[3] != 0:  # a safe move, and the caller searches: it is the only successor")
        o.indent()
        o("for w in range(OUT.shape[1]):")
        o("    OUT[0, w] = OUT[n - 1, w]")
        o("MOVE[0] = m")
        if persists:
            o("if ab[7] != 0 and ab[8] != 0:  # (marked as below)")
            o("    MOVE[0] = -1 - m")
        o("COST[0] = k")
        o("return 1")
        o.dedent()
    if commutes:
        o("if ab[5] != 0 and ab[6] > -2:  # a commuting move in a path search (system.path_successors)")
        o.indent()
        o("if m < ab[6]:")
        o("    n -= 1  # (the search tried this order of the two moves)")
        o("else:")
        o("    MOVE[n - 1] = -1 - m")
        o.dedent()
    if persists:
        o("if ab[7] != 0 and ab[8] != 0:  # a persisting move in a path search that bans moves")
        o("    MOVE[n - 1] = -1 - m")
    o.dedent()
    o.dedent()
    if chooses or ranks:
        o("if n > 1 and ab[3] != 0:  # (a search: the smallest choices first, then the lowest ranks)")
        o("    rt.search_order(OUT, MOVE, COST, ab[ab[12]:], ab[ab[12] + MA.shape[0]:], n)")
    o("return n")
    expand = _entry("expand", "EXPAND", _EXPAND_ARGS, _board_names(o.lines) + o.lines)
    hs = _entry_heuristics(low, game)
    decode = {entry: f"    {low.decoders.get(entry, '_decode')}(s, D, g, SG)"
              for entry in ("heuristic", "goal", "deadlock", "score")}
    h_lines = [decode["heuristic"], "    best = 0"]
    for k, i in enumerate(hs):  # the largest value, as the reference takes it (0 only without any)
        h_lines += [f"    v = h_{i}(s, D, g, SL, SG, BM, ab)"] + (["    best = v"] if k == 0 else
                                                              ["    if v > best:", "        best = v"])
    h_lines.append("    return best")
    goal = [decode["goal"], "    return _goal(s, D, g, SL, SG, BM, ab)"]
    entries = [expand, _entry("heuristic", "HEURISTIC", _STATE_ARGS, h_lines),
               _entry("goal", "GOAL", _STATE_ARGS, goal)]
    if game.deadlocks:  # (without: nothing to compile)
        entries.append(_entry("deadlock", "GOAL", _STATE_ARGS,
                              [decode["deadlock"], "    return _deadlock(s, D, g, SL, SG, BM, ab)"]))
    entries.append(_entry("score", "HEURISTIC", _STATE_ARGS, [
        decode["score"],
        "    return _score(D, g, SL, SG, BM, ab)" if game.score is not None else "    return 0"]))
    return "\n\n\n".join(entries) + "\n"


_EXPAND_ARGS = "s SL SG MA MARG OUT MOVE COST D0 g0 D g BM ab".split()  # (loops.EXPAND's order)
_STATE_ARGS = "s SL SG D g BM ab".split()  # (loops.HEURISTIC's and GOAL's)
_VIEWS = {"s": "u1", "OUT": "u2", "BM": "u2", "SL": "i2", "MARG": "i2", "D0": "i2", "D": "i2"}  # (the rest: i1)


def _entry(name: str, signature: str, args: list[str], body: list[str]) -> str:
    """An entry point, which borrows its arrays (runtime.borrow: the many calls below it then count no
    references), and `{name}_at`, the same called from Python with the arrays in one descriptor (runtime.u1 and
    its kin read it; system._descriptor makes it with a row of three slots per array of _EXPAND_ARGS, then
    expand_at's listing), compiled at its first use (system.CompiledSystem._entry_point)."""
    borrow = "    " + "; ".join(f"{a} = rt.borrow({a})" for a in args)
    view = {a: f"rt.{_VIEWS.get(a, 'i1')}(d, {3 * _EXPAND_ARGS.index(a)})" for a in _EXPAND_ARGS}
    at = [f"    return {name}({', '.join(view[a] for a in args)})"]
    if name == "expand":  # (for Python, also listed in one row: the descriptor's last array)
        at = [f"    n = {name}({', '.join(view[a] for a in args)})",
              f"    rt.list_successors(n, {view['MOVE']}, {view['OUT']}, {view['COST']}, "
              f"rt.i1(d, {3 * len(_EXPAND_ARGS)}))", "    return n"]
    return "\n".join([f"@njit({signature}, cache=True)", f"def {name}({', '.join(args)}):", borrow, *body, "",
                      "@njit(cache=True)", f"def {name}_at(d):", *at])
