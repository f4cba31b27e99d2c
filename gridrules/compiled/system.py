"""A game instance as a TransitionSystem run by generated native code (numba)."""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
import struct
import sys
from pathlib import Path

import numpy as np

from . import about_to_compile, cache_dir, codegen, extension, numba_index
from ..cache import store, write_atomic
from .. import ir
from .codegen import (IN_FLIGHT, LEAVING, OUT_OF_ROOM, QUEUE, QUEUED, SCRATCH, Unsupported, generate,
                      header_values, queue_room, without_refcounts)
from ..errors import RuleRuntimeError, UsageError
from ..instance import Instance, PerRules

# (numba, and with it loops.py, runtime.py and the generated modules, is imported only where native code is
# loaded: a search run by an extension module (extension.py) never imports it)


@functools.cache
def _versions() -> str:
    """What else a generated module's machine code depends on: numba's cache checks only the module's own file,
    so a changed runtime.py (whose functions the module's code inlines) must give the module a new name; so
    must another numba (named by its version file, read rather than imported: see import_numba)."""
    from .. import __version__

    here = Path(__file__).parent
    digest = hashlib.sha256((here / "runtime.py").read_bytes()).hexdigest()[:12]
    return f"gridrules {__version__} numba {extension.numba_version()} runtime {digest}"


def _module_name(source: str) -> str:
    return "gridrules_gen_" + hashlib.sha256((source + _versions()).encode()).hexdigest()[:20]


def needs_compiling(source: str) -> bool:
    """Whether importing this generated module will compile native code. (The search loops say so for
    themselves: loops._Native; the entry points called from Python, compiled at their first use, in
    CompiledSystem._entry_point.)"""
    return _module_name(source) not in sys.modules and not _cached(source, "expand")


def _cached(source: str, function: str) -> bool:
    """Whether numba's cache holds this generated module's `function`: numba keeps an index file per compiled
    function."""
    lines = source.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith(f"def {function}(")) + 1
    while first > 1 and lines[first - 2].startswith("@"):  # (a decorated function starts at its decorator)
        first -= 1
    return numba_index(cache_dir() / "modules" / f"{_module_name(source)}.py", function, first).exists()


def module_file(source: str) -> Path:
    """The generated module's file in the cache (written now, atomically, if it is new)."""
    path = cache_dir() / "modules" / f"{_module_name(source)}.py"
    if not path.exists() or path.read_text() != source:
        write_atomic(path, source.encode())
    return path


_LEAN: dict[str, str] = {}  # generated source -> jit_source's answer


def jit_source(source: str) -> str:
    """The source of the module that numba's JIT runs for a generated one: without reference counting
    (codegen.without_refcounts), unless numba compiles it only with counting (counted_only), and then the
    generated source itself."""
    lean = _LEAN.get(source)
    if lean is None:
        counted = counted_only(source, cache_dir() / "modules" / f"{_module_name(source)}.py")
        lean = _LEAN[source] = source if counted else without_refcounts(source)
    return lean


def counted_only(source: str, module_path: Path) -> bool:
    """Whether numba compiles a generated module only with reference counting: numba has refused it without
    counting before, or its code makes arrays (codegen.allocates; noted the same way, so that later processes
    only look for the note)."""
    if refusal_note(module_path).exists():
        return True
    if codegen.allocates(source):
        store(refusal_note(module_path), b"numba compiles it only with reference counting: its code makes arrays "
                                         b"(codegen.allocates)\n")
        return True
    return False


def refusal_note(module_path: Path) -> Path:
    """The note beside a generated module that numba compiles it only with reference counting: written by the
    first to meet the refusal (the JIT, or an extension module's build: the module allocates whatever the board)
    and read by both, so that neither tries again."""
    return module_path.with_suffix(".counts")


def note_refusal(module_path: Path, err: Exception) -> None:
    store(refusal_note(module_path), f"numba compiles it only with reference counting:\n{err}\n".encode())


def load_module(source: str):
    """Import generated source from the cache."""
    name = _module_name(source)
    if name in sys.modules:
        return sys.modules[name]
    path = module_file(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache needs the module registered before it runs
    try:
        spec.loader.exec_module(module)
    except BaseException:  # (numba refused it: a later load must try again, not find half a module)
        del sys.modules[name]
        raise
    return module


def _warm_up_loop(system: "CompiledSystem", notice) -> None:
    """While this process compiles a game's module, have the native search loop it will most likely run
    (api.default_algorithm and api.level_algorithm: a best-first search, or a path search for a game whose moves
    persist; a game without an admissible heuristic gets `bfs`, search.breadth_first_runs says which loop)
    compiled into the cache by another process, if it is not there yet: on a first run the two compiles then
    share the machine's cores instead of following each other."""
    from ..api import default_algorithm
    from . import loops
    from .search import breadth_first_runs

    game = system.inst.game
    algorithm = default_algorithm(game)
    if algorithm == "anytime":  # (a Python search over the native successors)
        return
    if game.persisting:
        loop = loops.deepening
    elif algorithm == "bfs" and breadth_first_runs(system):
        loop = loops.breadth_first
    else:
        loop = loops.best_first
    loop.warm_up(notice)


_GENERATED = PerRules()  # (see _generated)


def _generated(inst: Instance, heuristic: str | None, rules, moves):
    """codegen.generate's answer, reused for the levels that differ from one seen before only in their contents
    (what the state and the static layers hold, which the code reads at run time): a file of 1000 boards then
    generates its module once, not ~1 ms per board. Besides the rules (PerRules), generate reads the layout,
    the heuristic and the moves."""
    return _GENERATED.get(inst, (inst.layout, heuristic, None if moves is None else tuple(moves)),
                          lambda: generate(inst, heuristic, rules, moves))


def _per_rules(inst: Instance) -> tuple:
    """What a system works out from the rules alone (PerRules: once for a file's levels of one shape): the
    reference interpreter, which numbers the moves as the reference does and evaluates constant costs; the
    cheapest move's cost (reference.system.min_move_cost); whether every move costs 0 or 1; whether a
    `deadlock` condition can hold."""
    from ..reference.system import constant_costs, interpreter, live_deadlocks, min_move_cost

    def make():
        rules = interpreter(inst)
        costs = constant_costs(inst.game, rules)
        return (rules, min_move_cost(inst.game, rules), bool(costs) and set(costs) <= {0, 1},
                bool(live_deadlocks(inst.game, rules)))

    return _PER_RULES.get(inst, None, make)


_PER_RULES = PerRules()  # (see _per_rules)


def _too_deep(game: ir.Game, err: Exception) -> Exception:
    """The error for generated source that Python refuses to compile: rules nested past CPython's static limits
    (20 nested loops, 100 levels of indentation; parentheses, 200 levels, no longer: Lowering.ex) are the user's
    to change, or to run on the reference backend; any other SyntaxError is a bug of codegen."""
    text = getattr(err, "msg", None) or str(err)
    if isinstance(err, RecursionError) or text.startswith("too many"):
        return UsageError(f"the compiled backend cannot run `{game.name}`: its rules nest deeper than Python "
                          f"compiles ({text}); split the long expression or loop nest, or use --backend reference")
    return err


class OutOfRoom(Exception):
    """A chain reaction outgrew the room for particles in flight (codegen.OUT_OF_ROOM): not a fault of the rules;
    CompiledSystem.more_particle_room makes more, and what was running runs again."""


class CompiledSystem:
    """successors / is_goal / heuristic through native code; states are the same tuples of words as the
    reference backend's, so the two can be compared state by state."""

    backend = "compiled"

    def __init__(self, inst: Instance, heuristic: str | None = None, notice=None, moves=None):
        """notice(text), when given, hears that native code is about to be compiled (a first use); moves: the
        move instances to offer, as reference.system.action_instances gives them (default: all)."""
        self.inst = inst
        given = moves
        rules, least_cost, zero_one_costs, deadlocks = _per_rules(inst)
        try:
            source, low, moves = _generated(inst, heuristic, rules, moves)
        except Unsupported as err:
            raise UsageError(f"the compiled backend cannot run `{inst.game.name}` yet: {err}; "
                             "use --backend reference") from None
        except (SyntaxError, RecursionError) as err:  # (prune.py parses the generated source)
            raise _too_deep(inst.game, err) from None
        self.source = source
        self.faults = low.errors
        self.notice = notice
        self._mod = None  # (see mod)
        self.jit_source = None  # the source of `mod`, once loaded: jit_source's
        self.moves = [text for text, _, _ in moves]
        # MARG row m: column 0 the group of moves written like move m (-1 when its text is unique: two legal
        # moves of one group are a rule error, which expand checks), then move m's arguments.
        groups: dict[str, list[int]] = {}
        for m, text in enumerate(self.moves):
            groups.setdefault(text, []).append(m)
        width = 1 + max([sum(2 if isinstance(a, tuple) else 1 for a in args) for _, _, args in moves] + [0])
        self.MA = np.array([ai for _, ai, _ in moves] or [0], np.int64)[: len(moves)]
        marg = np.zeros((max(1, len(moves)), width), np.int64)
        for m, (text, _, args) in enumerate(moves):
            marg[m, 0] = groups[text][0] if len(groups[text]) > 1 else -1
            col = 1
            for a in args:
                for part in (a if isinstance(a, tuple) else (a,)):
                    marg[m, col] = int(part)
                    col += 1
        self.MARG = marg
        # expand reads cell arguments per cell without checking (codegen.prefilter): every cell a level's own
        # moves name lies on its board; a list given from outside is checked
        for text, ai, args in given or ():
            for (_, dom), a in zip(inst.game.actions[ai].proc.params, args):
                assert dom.ty != ir.CELL or 0 <= a[0] < inst.rows and 0 <= a[1] < inst.cols, (text, a)
        self.SL, self.SG = self._statics(low)
        # what an extension module is made for (extension.py): the board's shape and where the state's fields lie
        self.board = (inst.rows, inst.cols, tuple(int(x) for x in self.SG[: low.header]))
        self.SG = np.concatenate([self.SG, pair_tables(inst, low.pair_actions, moves)])
        self.persisting = inst.game.persisting  # (a PersistingSystem: path searches call ban_successors)
        ban_width = self.MARG.shape[1] if self.persisting else 0
        self.work = _work(len(low.dyn_layers), inst.rows, inst.cols, low.ng, len(inst.game.particles), low.set_rows,
                          ban_width, max(1, len(moves)) if inst.game.choosing or inst.game.ranking else 0,
                          inst.initial if inst.game.redundant else None, low.lines)
        _static_rows(low, self.SL, self.work[4], inst.cols)
        # where the ban table starts in ab (-1: none)
        ab = self.work[5]
        end = int(ab[QUEUE + 2]) if inst.game.particles else len(ab)  # (the particles in flight follow the ban table)
        self.ban_at = end - len(_ban_table(ban_width)) if ban_width else -1
        words = inst.layout.words
        self.S = np.zeros(words, np.uint64)  # the state handed to native code, filled in place
        self._entry, self._expand = {}, None  # (see _entry_point)
        self.OUT = np.zeros((max(1, len(moves)), words), np.uint64)
        self.MOVE = np.zeros(max(1, len(moves)), np.int64)
        self.COST = np.zeros(max(1, len(moves)), np.int64)
        # expand_at lists the successors here too, a row each (runtime.list_successors), so that Python reads
        # them all with one struct call (_unpacker)
        self.LIST = np.zeros(max(1, len(moves)) * (words + 2), np.int64)
        self._list_bytes = memoryview(self.LIST).cast("B")
        self._unpack = [None] * (len(self.MOVE) + 1)  # [n]: struct's unpack_from for n rows (_unpacker)
        self._text = self.moves.__getitem__
        self._words = words
        self._one_word = memoryview(self.S) if words == 1 else None  # (see _put)
        self._pack = functools.partial(struct.Struct(f"={words}Q").pack_into, memoryview(self.S).cast("B"), 0)
        self._expand_args = (self.S, self.SL, self.SG, self.MA, self.MARG, self.OUT, self.MOVE, self.COST, *self.work)
        self._described = None  # (see _desc)
        game = inst.game
        self.heuristic_name = heuristic
        self.admissible = heuristic is None or next(h.admissible for h in game.heuristics if h.name == heuristic)
        self.min_move_cost = least_cost
        self.zero_one_costs = zero_one_costs  # (a breadth-first search may run loops.breadth_first)
        self.scored = game.score is not None
        self.commuting = game.commuting  # (a CommutingSystem: path searches call path_successors)
        # (a DeadlockSystem: searches skip states where is_dead holds; the generated test holds every condition,
        # and is called only when one of them can hold in this instance)
        self.deadlocks = deadlocks

    @property
    def mod(self):
        """The generated module (numba's JIT), imported at its first use: a search run by an extension module
        never needs it."""
        if self._mod is None:
            source = self.jit_source = jit_source(self.source)
            if needs_compiling(source):
                module_file(source)  # (first: a cache folder that cannot be used is an error before the notice)
                about_to_compile(self.notice, _compiling(self.inst.game))
                _warm_up_loop(self, self.notice)
            if source is not self.source:
                from numba.core.errors import NumbaError

                try:
                    self._mod = self._load(source)
                except NumbaError as err:  # (the module allocates an array, or returns one it was not given)
                    note_refusal(module_file(self.source), err)
                    _LEAN[self.source] = self.jit_source = source = self.source
            if self._mod is None:
                self._mod = self._load(source)
        return self._mod

    def _load(self, source: str):
        try:
            return load_module(source)
        except (SyntaxError, RecursionError) as err:  # (Python compiles the generated source)
            raise _too_deep(self.inst.game, err) from None

    def native_loop(self, name: str):
        """The native search loop `name` (loops.best_first, loops.breadth_first or loops.deepening) with this
        game's entry points in it, taking the loop's other arguments, and the `rehash` that goes with it: from the
        game's extension module when one has been built (else extension.want notes that one is wanted), else
        numba's, loaded (or compiled) now."""
        dead = self.deadlocks
        ext = extension.load(self.source, name, dead, self.board)
        if ext is not None:
            loop = getattr(ext, name)
            return (lambda *args: loop(*args[:-1], *args[-1])), ext.rehash  # (the work tuple: six arguments)
        extension.want(self.source, name, dead, self.board)
        from . import loops

        mod, native = self.mod, getattr(loops, name)
        for each in (loops.rehash, native):  # (before the clock; rehash first: native may be compiling elsewhere)
            each.load(self.notice)
        entries = (mod.expand, mod.heuristic, mod.goal, mod.deadlock if dead else mod.goal)
        return (lambda *args: native(*entries, *args)), loops.rehash

    def _statics(self, low):
        inst = self.inst
        n = inst.rows * inst.cols
        sl = np.zeros((max(1, len(low.static_layers)), n), np.int64)
        for li, name in enumerate(low.static_layers):
            if inst.doms[name].kind in ("int", "bool", "enum", "dir"):  # (the value itself: no call per cell)
                sl[li] = inst.statics[name]
            else:
                sl[li] = [inst.code(name, x) for x in inst.statics[name]]
        sg = np.zeros(low.nsg, np.int64)
        sg[: low.header] = header_values(low)
        for name, (arr, off, width) in low.gslots.items():
            if arr != "SG":
                continue
            value = inst.statics[name]
            items = value if name in inst.dims else (value,)
            for j, x in enumerate(items):
                parts = _slots(inst.doms[name].kind, x)
                for k, p in enumerate(parts):
                    sg[off + j * width + k] = p
        return sl, sg

    def _entry_point(self, name):
        """The generated module's function `name`_at (the entry point `name` taking the descriptor of its
        arrays), called straight rather than through numba's dispatcher, which would type its argument again on
        each call. Compiled, or loaded from numba's cache, at its first use: the native searches never need it,
        and loading each costs every start a few milliseconds."""
        fn = self._entry.get(name)
        if fn is None:
            fn = getattr(self.mod, name + "_at")
            if not fn.signatures:
                if not _cached(self.jit_source, name + "_at"):
                    about_to_compile(self.notice, _compiling(self.inst.game))
                fn.compile(_at_signature(name))
            fn = self._entry[name] = fn.overloads[fn.signatures[0]].entry_point
            if name == "expand":
                self._expand = fn
        return fn

    def load(self) -> None:
        """Load (or compile) now the entry points that the Python searches call, before their clocks start."""
        for name in ("expand", "goal", "heuristic") + (("deadlock",) if self.deadlocks else ()) + (
                ("score",) if self.scored else ()):
            self._entry_point(name)

    def _run(self, fn, *args):
        try:
            return fn(*args)
        except ValueError as err:
            raise self._rule_error(err) from None

    def _rule_error(self, err: ValueError) -> Exception:
        """What a ValueError raised in native code means: a fault of the rules (the generated code raises
        `gridrules:N`, N indexing the faults table) as the reference backend reports it, OutOfRoom for a chain
        reaction that outgrew the room for particles in flight (codegen.OUT_OF_ROOM), else itself."""
        text = str(err)
        if not text.startswith("gridrules:"):
            return err
        self._clear_chain()  # (whatever stopped it, a chain reaction left its scratch as it was)
        if text == OUT_OF_ROOM:
            return OutOfRoom()
        message, span, hint = self.faults[int(text.split(":")[1])]
        if span is None:  # a fault of the move being expanded: at its action, as the reference says
            ab = self.work[5]
            span = self.inst.game.actions[int(self.MA[ab[1]])].span
            message = message.replace("{move}", self.moves[ab[1]]).replace("{value}", str(int(ab[2])))
        return RuleRuntimeError(message, span, hint)

    def more_particle_room(self) -> None:
        """Twice the room for particles in flight, after OutOfRoom (which _rule_error made, emptying the scratch
        the stopped chain left): `ab` grows in place at its end, where they lie (whoever holds it still does). The
        move that outgrew it, or the search, then runs again."""
        ab = self.work[5]
        rows = int(ab[QUEUE + 3])
        ab.resize(int(ab[QUEUE + 2]) + _flight(2 * rows), refcheck=False)  # (zero-filled; no view of ab is kept)
        ab[QUEUE + 3] = 2 * rows
        self._described = None  # (ab's address moved: _desc describes it afresh)

    @property
    def _desc(self) -> np.ndarray:
        """What the entry points called from Python read (_descriptor), made at the first such call: a native
        search never needs it."""
        if self._described is None:
            self._described = _descriptor(self._expand_args + (self.LIST,))
        return self._described

    def _expanded(self) -> int:
        """expand_at on the state in S (the successors listed in LIST): their count. A chain reaction that outgrows
        the room for particles in flight gets more and the state is expanded again; a fault of the rules is raised
        as the reference backend reports it."""
        try:
            return (self._expand or self._entry_point("expand"))(self._desc)
        except ValueError as err:
            return self._after(err)

    def _after(self, err: ValueError) -> int:
        """_expanded after expand_at raised `err`: a fault of the rules is raised at once (expanding the state
        again would run on what the failed move left behind: a chain reaction stopped at its limit left its
        scratch full, and ran short the second time, as if it had ended); a chain reaction that outgrew the
        room for particles gets more, and the state is expanded again."""
        fault = self._rule_error(err)
        if not isinstance(fault, OutOfRoom):
            raise fault from None
        self.more_particle_room()
        return self._expanded()

    def _clear_chain(self) -> None:
        """Empty what a chain reaction stopped in native code left in `ab` (its queue, its stop counts): the next
        chain reads them as empty (left, they lost its hits: it ended short, as if the stopped one had ended)."""
        if self.inst.game.particles:
            ab = self.work[5]
            made = _chain_scratch(self.inst.rows * self.inst.cols, len(self.inst.game.particles))
            ab[QUEUE] = 0
            ab[QUEUED: QUEUE + len(made)] = 0

    def _put(self, state) -> None:
        """The state into S, where the entry points read it (one word through a memoryview: ~7x faster than
        numpy's assignment; more through struct: ~1.3x)."""
        if self._one_word is not None:
            self._one_word[0] = state[0]
        else:
            self._pack(*state)

    # ---- TransitionSystem
    def initial(self):
        return self.inst.initial

    def successors(self, state, every=False):
        """The moves a search follows: every legal move, or only the first safe one when there is one (with
        `every`, every legal move regardless)."""
        # (the hot path of the Python searches: no _run, no try/finally, no loop in Python; ~1 us a call in all)
        if every:
            return self._every(state)
        one = self._one_word
        if one is not None:
            one[0] = state[0]
        else:
            self._pack(*state)
        try:
            n = (self._expand or self._entry_point("expand"))(self._desc)
        except ValueError as err:
            n = self._after(err)  # (a fault of the rules, or a chain reaction that needs more room)
        # (zip takes each row's parts in turn: the move's number, the state's words, the cost)
        listed = iter((self._unpack[n] or self._unpacker(n))(self._list_bytes))
        words = self._words
        return list(zip(map(self._text, listed), zip(*[listed] * words) if words else _NO_WORDS, listed))

    def _every(self, state):
        """successors(state, every=True): expand told to list every legal move (ab[3] = 0), not only a safe one."""
        ab = self.work[5]
        ab[3] = 0
        try:
            return self.successors(state)
        finally:
            ab[3] = 1

    def _unpacker(self, n):
        """What reads the first n successors expand_at listed (LIST), in one flat tuple: per successor its move's
        number, its state's words, its cost."""
        unpack = self._unpack[n] = struct.Struct("=" + f"q{self._words}Qq" * n).unpack_from
        return unpack

    def _rows(self, n):
        """The first n successors expand_at listed, as (move's number, state, cost)."""
        listed = iter((self._unpack[n] or self._unpacker(n))(self._list_bytes))
        return zip(listed, self._states(listed), listed)

    def _states(self, listed):
        """Each listed successor's state, its words read from `listed` in turn (a game whose moves store nothing
        has states of no words: zip of nothing would end the listing at once)."""
        return zip(*[listed] * self._words) if self._words else _NO_WORDS

    def path_successors(self, state, after: int):
        """successors() for a path search after the commuting move numbered `after` (-1: none), with each move's
        number when it ran `commutes`, else -1 (see ReferenceSystem.path_successors). expand leaves the
        commuting moves numbered below `after` out and marks the others by numbering them -1 - m."""
        self._put(state)
        ab = self.work[5]
        ab[6] = after
        try:
            n = self._expanded()
        finally:
            ab[6] = -2
        texts = self.moves
        return [(texts[m], row, k, -1) if m >= 0 else (texts[-1 - m], row, k, -1 - m) for m, row, k in self._rows(n)]

    def ban_successors(self, state):
        """successors() for a path search that bans moves, with each move's number and whether it ran `persists`
        (see ReferenceSystem.ban_successors). expand marks the persisting moves by numbering them -1 - m."""
        self._put(state)
        ab = self.work[5]
        ab[8] = 1
        try:
            n = self._expanded()
        finally:
            ab[8] = 0
        texts = self.moves
        return [(texts[m], row, k, m, False) if m >= 0 else (texts[-1 - m], row, k, -1 - m, True)
                for m, row, k in self._rows(n)]

    def legal_moves(self, state) -> list[str]:
        return [text for text, _, _ in self.successors(state, every=True)]

    def step(self, state, move: str):
        """(next state, cost) after `move`, or None when it is not legal here."""
        return next(((nxt, k) for text, nxt, k in self.successors(state, every=True) if text == move), None)

    def is_goal(self, state) -> bool:
        self._put(state)
        return bool(self._run(self._entry_point("goal"), self._desc))

    def is_dead(self, state, banned=()) -> bool:
        """Whether a `deadlock` condition holds: the rules promise no goal can be reached from here (without the
        moves `banned`, instance numbers, which the rules may read with `banned(...)`)."""
        if not self.deadlocks:
            return False
        self._put(state)
        if not banned or self.ban_at < 0:
            return bool(self._run(self._entry_point("deadlock"), self._desc))
        ab, at = self.work[5], self.ban_at
        from . import runtime as rt

        for m in banned:  # (a move the table has no room for is not banned: a weaker test, still sound)
            rt.ban(ab, at, self.MA[m], self.MARG[m, 1:])
        ab[9] = at
        try:
            return bool(self._run(self._entry_point("deadlock"), self._desc))
        finally:
            ab[9] = -1
            rt.clear_bans(ab, at)

    def heuristic(self, state) -> int:
        self._put(state)
        return int(self._run(self._entry_point("heuristic"), self._desc))

    def score(self, state) -> int:
        """What a solution ending in `state` is worth under the rules' `score` (higher is better); 0 without."""
        self._put(state)
        return int(self._run(self._entry_point("score"), self._desc))

    def search(self, algorithm: str, budget=None):
        """Run `algorithm` entirely in native code when there is a native version (else None)."""
        from .search import NATIVE, native_search

        if algorithm not in NATIVE:
            self.load()  # (the Python search that runs instead calls them)
            return None
        return native_search(self, algorithm, budget)

    def apply(self, state, move: str):
        """The state after `move`, or None when the move is not legal here."""
        step = self.step(state, move)
        return None if step is None else step[0]


_NO_WORDS = itertools.repeat(())  # (each successor's state where states have no words: see _states)


def _at_signature(name: str):
    from .loops import EXPAND_AT, GOAL_AT, HEURISTIC_AT

    return {"expand": EXPAND_AT, "heuristic": HEURISTIC_AT, "score": HEURISTIC_AT, "goal": GOAL_AT,
            "deadlock": GOAL_AT}[name]


def _compiling(game: ir.Game) -> str:
    return f"compiling native code for `{game.name}` (once: later runs load it from {cache_dir()})"

PAIR_TABLE_LIMIT = 1 << 22  # entries (8 bytes each): room for every level within reference.MAX_MOVES


def pair_tables(inst: Instance, actions, moves) -> np.ndarray:
    """What expand needs to list the moves of pair actions (codegen._pairs_code) by buckets, put after the static
    globals in SG: the count of the other actions' moves, their indices, then per pair action (`actions`, in
    order) a table of N x N entries, the move of cells (q0, q1) or -1. Nothing (expand then tries every move)
    when there is no pair action, when the tables would be large, when the pairs are few (trying each is then as
    quick), or when two moves name the same pair."""
    cells = inst.rows * inst.cols
    which = {ai: b for b, ai in enumerate(actions)}
    pairs = sum(1 for _, ai, _ in moves if ai in which)
    if not actions or len(actions) * cells * cells > PAIR_TABLE_LIMIT or pairs < 2 * cells:
        return np.zeros(0, np.int64)
    tables = np.full((len(actions), cells * cells), -1, np.int64)
    other = []
    for m, (_, ai, args) in enumerate(moves):
        if ai not in which:
            other.append(m)
            continue
        (r0, c0), (r1, c1) = args
        at = (r0 * inst.cols + c0) * cells + r1 * inst.cols + c1
        if tables[which[ai], at] >= 0:
            return np.zeros(0, np.int64)
        tables[which[ai], at] = m
    return np.concatenate([np.array([len(other)] + other, np.int64), tables.ravel()])


def _descriptor(arrays) -> np.ndarray:
    """Where the arrays lie, for the generated `_at` entry points (codegen._entry): per array its address and
    shape in three slots. They must stay alive, unmoved and C-contiguous while it is used: the system holds them."""
    d = []
    for k, a in enumerate(arrays):
        assert a.flags.c_contiguous and a.ndim <= 2 and a.dtype in (np.int64, np.uint64), (k, a.dtype, a.shape)
        d += [a.ctypes.data, *a.shape, *(0,) * (2 - a.ndim)]
    return np.array(d, np.int64)


BAN_SLOTS = 1 << 12  # the ban table's capacity (runtime.ban): up to half of it banned at once, more not recorded


def _work(layers: int, rows: int, cols: int, globals_: int, particles: int = 0, set_rows: int = 0,
          ban_width: int = 0, choices: int = 0, start: tuple | None = None, lines: bool = False):
    """Scratch rows for the generated entry points (their signatures: loops.WORK): the decoded parent (D0, g0),
    one move's copy (D, g), the board masks BM (every cell; not in the first column; not in the last; then
    `set_rows` rows the code keeps set values in: codegen.Lowering.row; with `lines`, then the cells of each
    row of the board and of each column: codegen.Lowering._condition_word), and `ab`:
    the abort flag, the move being expanded, a value for fault messages, whether a safe move is taken alone (1
    while searching; 0 to list every legal move), whether the move being made ran `safe`, whether it ran
    `commutes`, and a path search's `after` (path_successors; -2 when no path search orders commuting moves,
    which expand then neither leaves out nor marks), whether the move ran `persists`, whether a path search
    that bans moves lists them (expand then marks the persisting ones), and where the ban table lies while a
    deadlock test may read it (-1: not now), whether the move ran `chooses`, its value, where the choices and
    then the ranks of the moves listed are kept (-1: neither `chooses` nor `ranks`), the move's rank, whether
    it ran `redundant`, and where the words of `start` lie (-1: none given). With particles (of `particles`
    kinds) then the queue of particles emitted and not yet flying (codegen.QUEUE) and the chain reaction's
    scratch (codegen.chain_code). Then room for `choices` choices and as many ranks (a game with `chooses` or
    `ranks`: one per move), the words of `start` (a game with `redundant`: the packed state its searches start
    from, where expand keeps redundant moves), with `ban_width` (a game with `persists`: MARG's width) the ban
    table (runtime.ban), and with particles the rows of those in flight end the row (it grows there:
    CompiledSystem.more_particle_room)."""
    cells = rows * cols
    masks = _board_masks(rows, cols, lines)
    words = masks.shape[1]
    bm = np.zeros((SCRATCH + set_rows + len(masks) - SCRATCH, words), np.uint64)
    bm[:SCRATCH] = masks[:SCRATCH]
    bm[SCRATCH + set_rows:] = masks[SCRATCH:]
    return (np.zeros((layers, cells), np.int64), np.zeros(globals_, np.int64),
            np.zeros((layers, cells), np.int64), np.zeros(globals_, np.int64), bm,
            _flags_row(_chain_scratch(cells, particles) if particles else [], choices, ban_width, start))


@functools.lru_cache(maxsize=16)
def _board_masks(rows: int, cols: int, lines: bool) -> np.ndarray:
    """_work's masks of a board's shape (the same for each of a file's levels): every cell, not in the first
    column, not in the last; with `lines`, each row's cells and each column's. Read only."""
    cells = rows * cols
    words = max(1, -(-cells // 64))
    col = np.arange(words * 64) % cols
    inside = np.arange(words * 64) < cells
    bits = np.stack([inside, inside & (col != 0), inside & (col != cols - 1)])
    if lines:  # (code that asks for a row or a column of the board reads each row's cells, then each column's)
        row = np.arange(words * 64) // cols
        bits = np.concatenate([bits, inside & (row == np.arange(rows)[:, None]),
                               inside & (col == np.arange(cols)[:, None])])
    masks = np.packbits(bits.reshape(-1, words, 64), axis=2, bitorder="little").view("<u8").reshape(-1, words)
    masks.flags.writeable = False
    return masks


def _static_rows(low, SL: np.ndarray, bm: np.ndarray, cols: int) -> None:
    """Fills BM's rows that hold the static layers' value masks and equal edges (codegen.Lowering.static_masks,
    static_edges) from the level's rows SL: what runtime.value_masks and runtime.same_masks_into would give."""
    n = SL.shape[1]
    words = bm.shape[1]

    def bits(cells: np.ndarray) -> np.ndarray:
        """Rows of cells (bool, k x n) as rows of bit words (k x words)."""
        padded = np.zeros((len(cells), words * 64), bool)
        padded[:, :n] = cells
        return np.packbits(padded.reshape(-1, 64), axis=1, bitorder="little").view("<u8").reshape(len(cells), words)

    for layer, first in low.static_masks.items():
        row = SL[low.static_layers.index(layer)]
        lo, count = low.codes(layer)
        bm[first: first + count] = bits(row == np.arange(lo, lo + count)[:, None])
    last = np.arange(n) % cols == cols - 1
    for layer, first in low.static_edges.items():
        row = SL[low.static_layers.index(layer)]
        edges = np.zeros((2, n), bool)  # (equal to the right neighbour, equal to the lower one)
        edges[0, :-1] = (row[:-1] == row[1:]) & ~last[:-1]
        edges[1, : n - cols] = row[: n - cols] == row[cols:]
        bm[first: first + 2] = bits(edges)


def _flags_row(chain: list, choices: int, ban_width: int, start: tuple | None = None) -> np.ndarray:
    """`ab`: the flags, the particles' scratch, room for the choices and ranks (its place in ab[12]), the start
    state's words (its place in ab[15]; as int64, bit for bit), the ban table, then the rows of the particles in
    flight (where in ab[QUEUE + 2], for how many in ab[QUEUE + 3])."""
    row = _FLAGS + chain
    if choices:
        row[12] = len(row)
        row += [0] * (2 * choices)
    if start is not None:
        row[15] = len(row)
        row += [int(w) - (1 << 64) if w >= 1 << 63 else int(w) for w in start]
    if ban_width:
        row += _ban_table(ban_width)
    if chain:  # (the particles in flight last: their room grows at the end, CompiledSystem.more_particle_room)
        row[QUEUE + 2], row[QUEUE + 3] = len(row), chain[1]
        row += [0] * _flight(chain[1])
    return np.array(row, np.int64)


def _ban_table(width: int) -> list[int]:
    """An empty ban table (runtime.ban): its header (runtime.BAN_HEADER words), then its slots."""
    return [width, BAN_SLOTS, 0] + [-1] * (BAN_SLOTS * width)


_FLAGS = [0, 0, 0, 1, 0, 0, -2, 0, 0, -1, 0, 0, -1, 0, 0, -1]  # ab[0:QUEUE], as the docstring above says
assert len(_FLAGS) == QUEUE


def _chain_scratch(cells: int, kinds: int) -> list[int]:
    """The particle queue (codegen.QUEUE) and the chain's scratch (codegen.chain_code): stop counts and touched
    keys per cell and kind. (The rows of the particles in flight end the row: _flags_row.)"""
    room = queue_room(cells)
    return [0, room, 0, 0] + [0] * (3 * room + 2 * cells * kinds)


def _flight(room: int) -> int:
    """The numbers that rows for `room` particles in flight take, and as many leaving in one step."""
    return (IN_FLIGHT + LEAVING) * room


def _slots(kind, x):
    from .codegen import NONE

    if kind == "cell":
        return (NONE, 0) if x is None else x
    if kind == "body":
        pose, cell = x
        return (pose, NONE, 0) if cell is None else (pose, cell[0], cell[1])
    return (int(x),)
