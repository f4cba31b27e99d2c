"""A game instance as a TransitionSystem, run by the reference interpreter."""
from __future__ import annotations

import itertools
import math
import re

from .. import ir
from ..errors import RuleRuntimeError, UsageError
from ..instance import Instance, PerRules
from .evaluator import BANNED, CHOOSES, COMMUTES, PERSISTS, RANKS, REDUNDANT, SAFE, Abort, Board, Compiler, Frame

MAX_MOVES = 1_000_000  # action instances per level


def move_text(action: ir.ActionInfo, args: tuple, inst: Instance) -> str:
    """A move in the ruleset's notation; cells print 1-based as `row,col`."""
    shown = {}
    for (name, dom), value in zip(action.proc.params, args):
        ty = dom.ty
        if ty == ir.CELL:
            shown[name] = f"{value[0] + 1},{value[1] + 1}"
        elif ty == ir.DIR:
            shown[name] = ir.DIRS[value]
        elif ty.kind == "enum":
            shown[name] = inst.game.enum_values(ty.name)[value]
        elif ty == ir.BOOL:
            shown[name] = "true" if value else "false"
        else:
            shown[name] = str(value)
    if action.notation is not None:
        return re.sub(r"\{([^{}]*)\}", lambda m: shown[m.group(1)], action.notation)
    if not shown:
        return action.name
    return f"{action.name}({','.join(shown.values())})"


def constant_costs(game: ir.Game, compiler: Compiler) -> tuple | None:
    """Every action's cost, when each is one number per level (else None: a cost that reads the state)."""
    costs = []
    for action in game.actions:
        if not ir.params_only(action.cost):
            return None
        costs.append(compiler.expr(action.cost)(Frame({}, 0)))
    return tuple(costs)


def min_move_cost(game: ir.Game, compiler: Compiler) -> int:
    """The cheapest a move can cost, when every cost is one number per level (else 0: nothing is known).
    Breadth-first search may stop at its first goal only when no move is free."""
    costs = constant_costs(game, compiler)
    return max(0, min(costs)) if costs else 0


def live_deadlocks(game: ir.Game, compiler: Compiler) -> tuple:
    """The `deadlock` conditions that can hold in this instance: one with a part (of its top-level `and`s) that
    reads only parameters and is false here never holds, and the searches need not test it in every state
    (Lianliankan's relaxation, `gravity == off and ...`, under gravity)."""
    def parts(e):
        if isinstance(e, ir.BinOp) and e.op == "and":
            return parts(e.left) + parts(e.right)
        return [e]

    return tuple(d for d in game.deadlocks
                 if not any(ir.params_only(p) and not compiler.expr(p)(Frame({}, 0)) for p in parts(d)))


def search_order(moves: list, choices: list, ranks: list) -> list:
    """The order a search tries the moves in: the choices with the fewest moves first (`chooses`: fail first; a
    move that chose nothing is a choice of its own), then the lower ranks (`ranks`; 0 without one), then listing
    order."""
    size: dict = {}
    for c in choices:
        size[c] = size.get(c, 0) + 1
    order = sorted(range(len(moves)), key=lambda j: (1 if choices[j] is None else size[choices[j]], ranks[j], j))
    return [moves[j] for j in order]


def interpreter(inst: Instance) -> Compiler:
    """The reference interpreter set up for one instance (board, parameters, array shapes, defs)."""
    c = Compiler(inst.game, Board(inst.rows, inst.cols), dict(inst.params), dict(inst.doms))
    for name, shape in inst.dims.items():
        c.set_strides(name, shape)
    c.compile_defs()
    return c


def parameter_values(dom: ir.Domain, inst: Instance, c: Compiler):
    """Every value an action parameter of this domain takes, in order."""
    ty = dom.ty
    if ty == ir.INT:
        f = Frame({}, 0)
        return range(c.expr(dom.lo)(f), c.expr(dom.hi)(f) + 1)
    if ty == ir.BOOL:
        return (False, True)
    if ty == ir.DIR:
        return range(4)
    if ty == ir.CELL:
        return [(r, k) for r in range(inst.rows) for k in range(inst.cols)]
    if ty.kind == "enum":
        return range(len(inst.game.enum_values(ty.name)))
    raise AssertionError(ty)


def instance_count(action: ir.ActionInfo, sizes: list[int]) -> int:
    """How many parameter combinations an action has for a level whose parameters take `sizes` values each; a
    UsageError past MAX_MOVES (instantiate asks before the level's legend and `init` run, which take long on a
    board that large)."""
    if action.unordered:  # (instantiate checked that the parameters range over the same values)
        count = math.comb(sizes[0], len(sizes))
    else:
        count = math.prod(sizes)
    if count > MAX_MOVES:
        names = [_shown_param(name, dom) for name, dom in action.proc.params]
        if len(names) == 1:
            values = f"its parameter {names[0]} takes {sizes[0]:,} values"
        elif len(set(sizes)) == 1:
            values = f"its parameters {', '.join(names)} take {sizes[0]:,} values each"
        else:
            values = "its parameters take " + ", ".join(f"{n} {k:,}" for n, k in zip(names, sizes)) + " values"
        if action.unordered:
            values += ", unordered"
        raise UsageError(f"action `{action.name}` has {count:,} parameter combinations on this level ({values}), "
                         f"more than the {MAX_MOVES:,} moves a level may list; `gridrules query` asks about single "
                         "moves without listing them all")
    return count


def _shown_param(name: str, dom: ir.Domain) -> str:
    """`c`, with its range as the rules write it where it is one (`c` in `0..colours-1`): a message about its
    values then shows which parameter of the level sets them."""
    lo, hi = getattr(dom.lo, "span", None), getattr(dom.hi, "span", None)
    if lo is None or hi is None or lo.line != hi.line or hi.end_line != hi.line:
        return f"`{name}`"
    text = lo.source.line_text(lo.line)[lo.col - 1: hi.end_col - 1]
    return f"`{name}` in `{text}`" if ".." in text else f"`{name}`"


def action_instances(inst: Instance, c: Compiler) -> list[tuple[str, int, tuple]]:
    """Every move of the level: (text, index of its action, arguments) for each parameter combination whose
    `when` holds, in declaration order. Both backends number moves this way."""
    out = []
    for ai, action in enumerate(inst.game.actions):
        # (ranges, not lists: a domain of 2^62 values is counted, and refused below, without being listed)
        when = c.expr(action.when)
        if action.when_fixed:  # (`when free`: one answer)
            if not when(Frame({}, action.proc.nlocals)):
                continue  # (switched off for this level: its parameters are not counted either)
            when = None
        domains = [parameter_values(dom, inst, c) for _, dom in action.proc.params]
        instance_count(action, [len(d) for d in domains])
        combinations = (itertools.combinations(domains[0], len(domains)) if action.unordered
                        else itertools.product(*domains))  # (product lists its ranges: only after the count)
        for args in combinations:
            if when is not None:
                f = Frame({}, action.proc.nlocals)
                f.loc[: len(args)] = args
                if not when(f):
                    continue
            out.append((move_text(action, args, inst), ai, args))
    return out


def move_instance(inst: Instance, c: Compiler, ai: int, args: tuple):
    """The move instance of action `ai` with these arguments, (text, ai, args) as action_instances numbers
    them, or None when there is none (its `when` fails; an unordered action given a value twice). The
    arguments of an unordered action may come in any order."""
    action = inst.game.actions[ai]
    if action.unordered:  # (values enumerate in their natural order: cells by row then column, ints upward)
        if len(set(args)) < len(args):
            return None
        args = tuple(sorted(args))
    f = Frame({}, action.proc.nlocals)
    f.loc[: len(args)] = args
    if not c.expr(action.when)(f):
        return None
    return move_text(action, args, inst), ai, args


class _Rules:
    """A game's rules compiled by the reference interpreter for one board size and parameters (and with
    `instances`, its move instances): the same for every level that differs only in its contents (PerRules)."""

    def __init__(self, inst: Instance, instances: bool):
        game = inst.game
        self.compiler = c = interpreter(inst)
        self.procs = tuple(c.procedure(a.proc) for a in game.actions)
        # (listing and replaying moves run them without what only the searches read: ir.without_hints)
        plain = tuple(ir.without_hints(a.proc) for a in game.actions)
        self.plain_procs = tuple(p if q is a.proc else c.procedure(q)
                                 for p, q, a in zip(self.procs, plain, game.actions))
        self.costs = tuple(c.expr(a.cost) for a in game.actions)
        self.instances = tuple(action_instances(inst, c)) if instances else None
        self.goals = tuple(c.expr(g) for g in game.goals)
        self.fails = tuple(c.expr(x) for x in game.fails)
        self.deadlocks = tuple(c.expr(x) for x in live_deadlocks(game, c))
        self.heuristics = {h.name: (c.procedure(h.proc), h.admissible) for h in game.heuristics}
        self.min_move_cost = min_move_cost(game, c)
        self.score = c.procedure(game.score) if game.score is not None else None


_RULES = PerRules()


class ReferenceSystem:
    """successors / is_goal / heuristic over packed states (tuples of 64-bit words)."""

    backend = "reference"

    def __init__(self, inst: Instance, heuristic: str | None = None, moves=None):
        """moves: the move instances to offer, (text, action index, args) as action_instances gives them
        (default: all of them)."""
        self.inst = inst
        game = inst.game
        rules = _RULES.get(inst, moves is None, lambda: _Rules(inst, moves is None))
        self.compiler = rules.compiler
        self.moves = []  # (text, action proc, args, cost fn, locals, span)
        self._actions = []  # each move's action index
        self._plain = []  # each move's action proc as listing runs it (without hints)
        for text, ai, args in (rules.instances if moves is None else moves):
            action = game.actions[ai]
            self._actions.append(ai)
            self._plain.append(rules.plain_procs[ai])
            self.moves.append((text, rules.procs[ai], args, rules.costs[ai], action.proc.nlocals, action.span))
        self.goals, self.fails, self._deadlocks = rules.goals, rules.fails, rules.deadlocks
        self.deadlocks = bool(self._deadlocks)  # (a DeadlockSystem: searches skip states where is_dead holds)
        self.heuristics = rules.heuristics
        self.heuristic_name = heuristic
        if heuristic is None:
            default = {h.name for h in game.heuristics if h.in_default}
            self._h = [p for name, (p, _) in self.heuristics.items() if name in default]
            self.admissible = True
        else:
            proc, adm = self.heuristics[heuristic]
            self._h = [proc]
            self.admissible = adm
        self.min_move_cost = rules.min_move_cost
        self._score = rules.score
        self.scored = self._score is not None
        self.commuting = game.commuting  # (a CommutingSystem: path searches call path_successors)
        self.persisting = game.persisting  # (a PersistingSystem: path searches call ban_successors)
        by_text: dict[str, set[int]] = {}
        for i, (text, *_) in enumerate(self.moves):
            by_text.setdefault(text, set()).add(i)
        # move text -> its instance; None when texts may collide (a replay then runs every move, so that two
        # legal moves written alike are still a rule error)
        self._by_text = by_text if all(len(v) == 1 for v in by_text.values()) else None

    # ---- TransitionSystem
    def initial(self):
        return self.inst.initial

    def successors(self, state, only=None, every=False):
        """The moves a search follows: every legal move (or only those of the move instances numbered in
        `only`), or only the first safe move (one that ran `safe`) when there is one, and no move that ran
        `redundant` but in the initial state (where a search starts) — unless `every`."""
        return self._successors(state, only, every, None)

    def path_successors(self, state, after: int):
        """What a path search follows after a move that ran `commutes` and has instance number `after` (-1: after
        any other move): successors() less the moves that run `commutes` with a smaller instance number (the
        search tried them before that move), each with a fourth item, its instance number if it ran `commutes`,
        else -1 (the `after` for its own successors). A safe move taken alone gets -1."""
        return self._successors(state, None, False, after)

    def ban_successors(self, state):
        """What a path search that bans moves follows: successors() with each move's instance number and whether
        it ran `persists` as a fourth and fifth item."""
        return self._successors(state, None, False, None, numbered=True)

    def _successors(self, state, only, every, after, numbered=False):
        base = self.inst.values(state)
        dynamic = self.inst.dynamic
        seen = set()  # a move's text must name one move: replays depend on it
        out = []
        choices, ranks = [], []  # per move listed, the value it ran `chooses` with (else None), its rank
        plain = self._plain
        for i, (text, proc, args, cost, nlocals, span) in enumerate(self.moves):
            if only is not None and i not in only:
                continue
            if every:
                proc = plain[i]
            v = dict(base)
            for name in dynamic:
                x = v[name]
                if isinstance(x, list):
                    v[name] = list(x)
            try:
                proc(v, args)
            except Abort:
                continue
            f = Frame(base, nlocals)  # (a cost is read on the parent, and only for a legal move)
            f.loc[: len(args)] = args
            k = cost(f)
            nxt = self.inst.pack(v, span)
            if self.fails and self._any(self.fails, v):
                continue
            if k < 0:
                raise RuleRuntimeError(f"move `{text}` has a negative cost ({k})", span)
            if v.get(REDUNDANT) and not every and state != self.inst.initial:
                continue  # (the rules promise a cheapest solution does without it, but at the search's start)
            if text in seen:
                raise RuleRuntimeError(f"two legal moves are both written `{text}`", span,
                                       "give the actions notations that tell them apart")
            seen.add(text)
            if numbered:
                out.append((text, nxt, k, i, bool(v.get(PERSISTS))))
                if v.get(SAFE) and not every:
                    return out[-1:]
            elif v.get(SAFE) and not every:
                return [(text, nxt, k) if after is None else (text, nxt, k, -1)]
            elif after is None:
                out.append((text, nxt, k))
            elif not v.get(COMMUTES):
                out.append((text, nxt, k, -1))
            elif i >= after:
                out.append((text, nxt, k, i))
            else:
                continue
            choices.append(v.get(CHOOSES))
            ranks.append(v.get(RANKS, 0))
        if not every and (self.inst.game.choosing or self.inst.game.ranking):
            out = search_order(out, choices, ranks)
        return out

    def _any(self, preds, v) -> bool:
        f = Frame(v, self.inst.game.predicates_nlocals)
        return any(p(f) for p in preds)

    def is_goal(self, state) -> bool:
        return self._any(self.goals, self.inst.values(state))

    def is_dead(self, state, banned=()) -> bool:
        """Whether a `deadlock` condition holds: the rules promise no goal can be reached from here (without the
        moves `banned`, instance numbers, which the rules may read with `banned(...)`)."""
        if not self.deadlocks:
            return False
        v = self.inst.values(state)
        if banned:
            v[BANNED] = {(self._actions[i], self.moves[i][2]) for i in banned}
        return self._any(self._deadlocks, v)

    def heuristic(self, state) -> int:
        if not self._h:
            return 0
        v = self.inst.values(state)
        return max(h(v) for h in self._h)

    def score(self, state) -> int:
        """What a solution ending in `state` is worth under the rules' `score` (higher is better); 0 without."""
        return 0 if self._score is None else self._score(self.inst.values(state))

    def heuristic_values(self, state) -> dict[str, int]:
        v = self.inst.values(state)
        return {name: proc(v) for name, (proc, _) in self.heuristics.items()}

    # ---- replay
    def step(self, state, move: str):
        """(next state, cost) after `move`, or None when it is not legal here. Only the move instance written
        `move` runs, when texts cannot collide."""
        only = None
        if self._by_text is not None:
            only = self._by_text.get(move)
            if only is None:
                return None
        for text, nxt, cost in self.successors(state, only, every=True):
            if text == move:
                return nxt, cost
        return None

    def apply(self, state, move: str):
        """The state after `move`, or None when the move is not legal here."""
        step = self.step(state, move)
        return None if step is None else step[0]

    def legal_moves(self, state) -> list[str]:
        return [text for text, _, _ in self.successors(state, every=True)]

    def _recorded(self, hook: str, state, move: str) -> list:
        """What the interpreter appends to its list `hook` (`paths`, `trace`) while `move` alone is made; empty
        when the move is not legal here."""
        only = {i for i, (text, *_) in enumerate(self.moves) if text == move}
        found: list = []
        setattr(self.compiler, hook, found)
        try:
            if not any(text == move for text, _, _ in self.successors(state, only, every=True)):
                return []
        finally:
            setattr(self.compiler, hook, None)
        return found

    def trace(self, state, move: str) -> list[tuple]:
        """Every step of the chain reactions `move` sets off: (step, [(cell, dir) of each particle flying on],
        the values of the state when the step is done). Empty when the move is not legal here."""
        return self._recorded("trace", state, move)

    def paths(self, state, move: str) -> list[list]:
        """The paths (corner cells, from the first end to the other) that `path(...)` found between two of the
        move's own cells while `move` was made — what a player is shown for a Lianliankan pair, say."""
        found = self._recorded("paths", state, move)
        cells = {a for text, _, args, *_ in self.moves if text == move for a in args if isinstance(a, tuple)}
        return [p for p in found if p[0] in cells and p[-1] in cells]
