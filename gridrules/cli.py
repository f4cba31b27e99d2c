"""The `gridrules` command line: solve, show, list moves, answer queries, validate and list rulesets.

Results go to stdout (plain text, or JSON Lines with `--format json`); everything else — progress,
statistics, warnings, errors — goes to stderr (through rich where it is a terminal).

Exit codes (the contract scripts rely on):

    0    solved / valid
    1    proved unsolvable, or a check failed (e.g. `show --solution` moves that do not reach the goal)
    2    usage or input error: bad arguments, a missing, binary or empty file, a malformed level, an error
         in the rules (printed as file:line:col with the source line and a caret, never a traceback); also
         output that cannot be written (a full disk, stdout closed)
    3    a budget (--time-limit, --max-states, the machine's memory) ran out before the search finished
    4    internal error: a bug in gridrules (set GRIDRULES_DEBUG=1 to see the traceback)
    130  interrupted (Ctrl-C); the best solution found so far is printed

With several levels in one file every level gets its result and the exit code is the worst of them,
in the order 0 < 1 < 2 < 3 < 130 < 4.
"""
from __future__ import annotations

import errno
import functools
import gc
import json
import re
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

# numpy's OpenBLAS starts a thread per core that spins for a while after start-up, taking a core from the
# search on a small machine; gridrules does no linear algebra (set before numpy is first imported)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .errors import (Diagnostic, ErrorList, GridrulesError, LevelError, OutOfMemory, RuleError, RuleRuntimeError,
                     UsageError, counted)

if TYPE_CHECKING:
    from . import ir

EXIT_OK = 0
EXIT_UNSOLVABLE = 1
EXIT_USAGE = 2
EXIT_BUDGET = 3
EXIT_INTERNAL = 4
EXIT_INTERRUPTED = 130
_SEVERITY = {EXIT_OK: 0, EXIT_UNSOLVABLE: 1, EXIT_USAGE: 2, EXIT_BUDGET: 3, EXIT_INTERRUPTED: 4, EXIT_INTERNAL: 5}

EXIT_CODES_HELP = """\b
Exit codes:
  0    solved / valid
  1    proved unsolvable, or a check failed
  2    usage or input error (bad arguments, unreadable or malformed
       files, rule errors reported as file:line:col; output that
       cannot be written)
  3    budget exhausted (--time-limit / --max-states / memory)
  4    internal error (GRIDRULES_DEBUG=1 shows the traceback)
  130  interrupted (Ctrl-C); the best solution so far is printed
With several levels the exit code is the worst of their results."""

PROGRESS_AFTER = 1.0  # seconds a search runs before progress is shown


def worst(codes) -> int:
    """The most severe of several exit codes (0 < 1 < 2 < 3 < 130 < 4)."""
    out = EXIT_OK
    for c in codes:
        if _SEVERITY.get(c, 5) > _SEVERITY.get(out, 5):
            out = c
    return out


class InternalError(Exception):
    """Something gridrules itself got wrong (e.g. a solution that does not replay)."""


# ---- output helpers --------------------------------------------------------------------------------
def _stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _error(text: str, prefix: str = "error: ") -> None:
    """A message on stderr; `error:` in red where stderr is a colour terminal."""
    if prefix:
        prefix = click.style(prefix, fg="red", bold=True) if _stderr_colour() else prefix
    _say(prefix + text)


def _say(text: str) -> None:
    """A line on stderr, if stderr takes it: where it cannot be written (a full disk) the message is lost, but the
    exit code still says what happened."""
    try:
        click.echo(text, err=True)
    except OSError:
        pass


def _stderr_colour() -> bool:
    return sys.stderr.isatty() and "NO_COLOR" not in os.environ


def _report(err: GridrulesError) -> None:
    if _located(err):  # located diagnostics already say where: `file:line:col: message`, the line, a caret
        _say(err.render())
    else:
        _error(err.render())


def _located(err: GridrulesError) -> bool:
    if isinstance(err, _Relayed):
        return err.located
    return isinstance(err, Diagnostic) and err.span is not None or isinstance(err, ErrorList)


class GridrulesGroup(click.Group):
    """Turns every error into a message and an exit code: never a traceback for the user's mistakes."""

    def invoke(self, ctx):
        swallowed: list = []  # (a Ctrl-C that a callback could not raise: _interrupt_hook)
        previous = sys.unraisablehook
        sys.unraisablehook = functools.partial(_interrupt_hook, previous, swallowed)
        try:
            result = self._invoke(ctx, swallowed)
        except click.exceptions.Exit as stop:
            if not swallowed or stop.exit_code == EXIT_INTERRUPTED:
                raise
        else:
            if not swallowed:
                return result
        finally:
            sys.unraisablehook = previous
        # (the command ran on after the Ctrl-C: what it printed stands, and it was interrupted all the same)
        _error("interrupted", prefix="")
        raise click.exceptions.Exit(EXIT_INTERRUPTED)

    def _invoke(self, ctx, swallowed: list):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except GridrulesError as err:
            _report(err)
            raise click.exceptions.Exit(err.exit_code) from None
        except MemoryError:
            err = OutOfMemory()
            _report(err)
            raise click.exceptions.Exit(err.exit_code) from None
        except KeyboardInterrupt:
            _error("interrupted", prefix="")
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:  # `gridrules ... | head`: the reader left; not an error
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            raise click.exceptions.Exit(EXIT_OK) from None
        except OSError as err:
            from .cache import not_usable

            why = not_usable(err)
            if why is None and err.errno in _OUTPUT_ERRORS and not err.filename and _in_echo(err):
                why = f"cannot write the output: {err.strerror}"  # (stdout on a full disk, say; no bug)
            if why is None:
                _internal(err)
                raise click.exceptions.Exit(EXIT_INTERNAL) from None
            _error(why)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except Exception as err:  # noqa: BLE001 - the last line of defence
            if swallowed:  # (what the interrupted callback's caller then met is no bug)
                _error("interrupted", prefix="")
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
            _internal(err)
            raise click.exceptions.Exit(EXIT_INTERNAL) from None


_OUTPUT_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}  # (what writing stdout may meet)


def _in_echo(err: BaseException) -> bool:
    """Whether `err` came from writing the output (click.echo, which every answer goes through), not from a file
    of the cache, say (a full disk names no file)."""
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is click.echo.__code__:
            return True
        tb = tb.tb_next
    return False


def _interrupt_hook(previous, swallowed: list, unraisable) -> None:
    """sys.unraisablehook while a command runs. Ctrl-C can land in a callback from C that cannot raise it (numba's
    object-cache callback while it compiles): Python printed `Exception ignored ... KeyboardInterrupt`, and numba
    then failed with an internal error. The interrupt is noted instead (raised here, or asked for again from
    here, it would only be ignored in turn), and the command ends as interrupted: at the error that follows, or
    when it is done. Anything else goes to the hook as before."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        swallowed.append(True)
        return
    previous(unraisable)


def _internal(err: BaseException) -> None:
    name, msg, trace = (err.args if isinstance(err, _RelayedInternal) else
                        (type(err).__name__, str(err), "".join(traceback.format_exception(err))))
    _error(f"internal error: {name}: {msg or name}", prefix="gridrules: ")
    _say("This is a bug in gridrules; please report it with the command you ran and its files.")
    _say(trace if os.environ.get("GRIDRULES_DEBUG") == "1" else "(set GRIDRULES_DEBUG=1 to see the traceback)")


# ---- shared options --------------------------------------------------------------------------------
def _algorithms():
    from solvers import ALGORITHMS

    return ALGORITHMS


RULESET_EMPTY = ("the empty string names no ruleset; give a bundled ruleset's name (see `gridrules list`) or a rule "
                 "file's path")
LEVEL_EMPTY = ("the empty string names no level file; give a level file's path or the name of one of the ruleset's "
               "sample levels")


def _not_empty(message: str):
    """A click callback: an empty RULESET, LEVEL or FILE is a usage error (Path("") is the current folder)."""
    def check(ctx, param, value):
        if any(v == "" for v in (value if isinstance(value, tuple) else (value,))):
            raise click.BadParameter(message, ctx, param)
        return value

    return check


ruleset_argument = click.argument("ruleset", callback=_not_empty(RULESET_EMPTY))
level_argument = click.argument("level", callback=_not_empty(LEVEL_EMPTY))

param_option = click.option(
    "--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
    help="Set a ruleset parameter (repeatable): ints, true/false, enum names, cells as `row,col` (from 1, as in moves) "
         "or `centre`. `gridrules list` shows each ruleset's parameters.")


BACKENDS = ("compiled", "reference")


def backend_option(help_text: str):
    """--backend, as each command that builds a transition system takes it (also GRIDRULES_BACKEND)."""
    return click.option("--backend", type=click.Choice(BACKENDS), default=None, callback=_backend_setting,
                        help=help_text + "  [default: compiled]")  # (as click shows a default: it has none here)


def _backend_setting(ctx, param, value: str | None) -> str:
    """--backend, else GRIDRULES_BACKEND, else compiled. The variable is read here rather than by click, whose
    message for a mistyped one named `--backend`, which the user had not given; and only where no --backend
    was given and a backend is used at all (not for `list`, say)."""
    if value is not None:
        return value
    setting = os.environ.get("GRIDRULES_BACKEND")
    if not setting:
        return "compiled"
    if setting not in BACKENDS:
        raise UsageError(f"GRIDRULES_BACKEND is `{setting}`: set it to compiled (native code: the default) or "
                         "reference (the plain-Python interpreter)")
    return setting


level_format_option = click.option(
    "--level-format", metavar="NAME", default=None,
    help="Read the level file in this format (default: recognised from its content among the rule file's "
         "`level` formats).")


def _algorithm_option(f):
    names = list(_algorithms())
    return click.option(
        "--algorithm", "-a", type=click.Choice(names), default=None,
        help="Search algorithm. Default: `anytime` when the rules declare a `score` (the only one that ranks by "
             "it), else `astar` when they declare an admissible heuristic (or --heuristic is given) — `idastar` "
             "when the level's moves persist (`persists`: a path search bans failed ones) or the rules order "
             "them (`ranks`, `chooses`: a depth-first search follows the order) —, else `bfs`; all "
             "prove their solutions optimal (astar and idastar only while the heuristic is admissible). "
             + "; ".join(f"{a.name}: {a.description}" for a in _algorithms().values()) + ".")(f)


ANYTIME_SECONDS = 10.0  # the anytime search's time limit when --time-limit does not say
MAX_SECONDS = 10**9  # the longest --time-limit (about 31 years): the search's timer (setitimer) takes no more
MAX_STATES = 10**15  # the largest --max-states: the native searches count states in 64-bit integers


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds, more than 0 and at most MAX_SECONDS (not `inf` nor `nan`, which
    float() reads and the search's timer cannot take)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        import math

        if isinstance(value, float):
            seconds = value
        else:
            try:
                seconds = float(value)
            except (TypeError, ValueError):
                seconds = math.nan
        if math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS:
            return seconds
        self.fail(f"`{value}` is not a number of seconds greater than 0 and at most {MAX_SECONDS:,} "
                  "(about 31 years)", param, ctx)


class _Count(click.ParamType):
    """A whole number from `least` (to `most`, when given), written as Python writes ints (`100000`, `100_000`) or
    in exponent form (`1e5`: people write large budgets so; click's IntRange called it "not a valid integer
    range")."""

    name = "count"

    def __init__(self, least: int, most: int | None = None):
        self.least, self.most = least, most

    def convert(self, value, param, ctx):
        import math

        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            try:
                n = int(value)
            except (TypeError, ValueError):
                try:
                    x = float(value)
                except (TypeError, ValueError):
                    x = math.nan
                n = int(x) if math.isfinite(x) and x == int(x) and abs(x) <= 2**53 else None
        if n is not None and n >= self.least and (self.most is None or n <= self.most):
            return n
        span = f"from {self.least:,} to {self.most:,}" if self.most is not None else f"of at least {self.least:,}"
        self.fail(f"`{value}` is not a whole number {span}", param, ctx)


def _budget_options(f):
    f = click.option("--max-states", type=_Count(1, MAX_STATES), default=None, metavar="N",
                     help="Stop after holding (bfs, astar) or visiting (idastar, iddfs) N states (exit 3); "
                          "anytime keeps at most N states waiting, shedding the worse half beyond (default 100000).")(f)
    f = click.option("--time-limit", type=_Seconds(), default=None, metavar="SECONDS",
                     help="Stop each level's search after this many seconds (exit 3): a number greater than 0 and at "
                          f"most {MAX_SECONDS:,} (about 31 years). The anytime search stops after "
                          f"{ANYTIME_SECONDS:g} s unless told, and answers with the best solution found (exit 0).")(f)
    f = click.option("--heuristic", metavar="NAME", default=None,
                     help="Use only this heuristic of the rules. One not declared `admissible` may be faster but "
                          "its solutions are not claimed optimal. Default: every admissible heuristic "
                          "(their maximum); for anytime, the first heuristic the rules declare.")(f)
    return _algorithm_option(f)


@click.group(cls=GridrulesGroup, epilog=EXIT_CODES_HELP,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="gridrules", prog_name="gridrules")
def cli():
    """Write the rules of a grid puzzle in a text file; solve its levels optimally.

    RULESET is a bundled ruleset's name (see `gridrules list`) or the path of a rule file (.grl, .yaml).
    LEVEL is a level file; for a bundled ruleset it may also name one of its sample levels
    (e.g. `gridrules solve floodit hdu4127-sample.txt`).
    """
    _check_environment()


def _check_environment() -> None:
    """The settings read from the environment that are no option's (GRIDRULES_BACKEND is --backend's:
    _backend_setting), checked before any command runs: a mistyped value is an error, not a setting silently
    ignored."""
    if os.environ.get("GRIDRULES_EXTENSIONS"):  # (imported only then: most runs never set it)
        from .compiled.extension import setting_problem

        problem = setting_problem()
        if problem is not None:
            raise UsageError(problem)


_COLLECTOR_HELD = False  # (main holds Python's cycle collector off until a search starts: _collect_from_now)


def main(argv: list[str] | None = None) -> None:
    """The console entry point (`gridrules`, `python -m gridrules`)."""
    global _COLLECTOR_HELD
    if sys.stdout is None:  # (started with stdout closed, `>&-`: every answer would be lost without a word)
        _error("standard output is closed: gridrules prints its answers there")
        sys.exit(EXIT_USAGE)
    if gc.isenabled():
        gc.disable()
        _COLLECTOR_HELD = True
    try:
        cli.main(args=argv, prog_name="gridrules")
    except KeyboardInterrupt:  # outside a command (e.g. while starting up)
        _error("interrupted", prefix="")
        sys.exit(EXIT_INTERRUPTED)
    finally:
        if _COLLECTOR_HELD:  # (no search ran: a caller of main gets its collector back as it was)
            _COLLECTOR_HELD = False
            gc.enable()


# ---- loading ---------------------------------------------------------------------------------------
@dataclass
class Loaded:
    game: object  # ir.Game
    rule_path: Path
    level_path: str
    fmt: object  # ir.LevelFormat
    instances: list  # per level of the file, its Instance, or a Failed one that could not be set up


@dataclass(frozen=True)
class Failed:
    """A level of a file with several that failed for a reason of its own: its text breaks the rules' legend or
    `init` (found by _load), or a rule did something impossible while it was solved. The file's other levels
    are still solved; this one is reported in its place. Plain values: a forked process sends it back."""

    level: str  # its name (`case 2`)
    index: int  # 1-based, in the file
    text: str  # the error, rendered as the user sees it
    where: str | None  # `file:line:col`, when the error has a place
    exit_code: int

    @classmethod
    def of(cls, level: str, index: int, err: GridrulesError) -> "Failed":
        span = getattr(err, "span", None)
        return cls(level, index, err.render(), None if span is None else str(span), err.exit_code)

    def report(self) -> None:
        if self.where is not None:
            click.echo(self.text, err=True)
        else:
            _error(f"{self.level}: {self.text}")

    def summary(self) -> str:
        return (f"error at {self.where}" if self.where else "error") + " (on stderr)"

    def skip(self, line: str) -> int:
        """Say in its place, on stdout, that this level failed (`line`), and why on stderr; its exit code."""
        sys.stdout.flush()
        self.report()
        click.echo(line)
        sys.stdout.flush()
        return self.exit_code


def _ready(inst):
    """A level about to be shown or asked about: a Failed one stops the command with its error."""
    if isinstance(inst, Failed):
        raise _Relayed(inst.text, inst.exit_code, inst.where is not None)
    return inst


def _resolve_level(level: str, rule_path: Path) -> str:
    """A level path as given; failing that, a sample level of the ruleset (`levels/NAME[.txt]`)."""
    from . import api

    if api.exists(Path(level), refused=True) or os.sep in level or "/" in level:
        return level
    folder = rule_path.parent / "levels"
    for cand in (folder / level, folder / f"{level}.txt"):
        if cand.is_file():
            return str(cand)
    return level


def _load(ruleset: str, level: str, params, level_format: str | None, every_move: bool = True) -> Loaded:
    """The rules and the file's levels set up (instance.instantiate: `every_move` False for a command that builds
    only some moves, so that a board too large to list them all is still read)."""
    from . import api
    from .instance import instantiate

    rule_path = api.resolve_ruleset(ruleset)
    game = api.load_rules(ruleset)
    overrides = api.parse_params(game, list(params))
    level_path = _resolve_level(level, rule_path)
    fmt, raws = api.read_levels(game, level_path, level_format)
    instances = []
    for k, raw in enumerate(raws, 1):
        try:
            instances.append(instantiate(game, raw, fmt, overrides, every_move))
        except LevelError as err:  # (one wrong level of many: the others are still worth solving)
            if len(raws) == 1:
                raise
            instances.append(Failed.of(raw.name, k, err))
    return Loaded(game, rule_path, level_path, fmt, instances)


def _heuristic_label(system, algorithm: str, heuristic: str | None) -> str | None:
    if not _algorithms()[algorithm].uses_heuristic:
        return None
    if heuristic is not None:
        return heuristic
    names = [h.name for h in system.inst.game.heuristics if h.in_default]
    if not names:
        return None
    return names[0] if len(names) == 1 else f"max({', '.join(names)})"


# ---- solving ---------------------------------------------------------------------------------------
class _Progress:
    """Budget.progress: a transient rich status line on stderr, only on a terminal, after PROGRESS_AFTER s."""

    def __init__(self, label: str, algorithm: str, enabled: bool):
        self.label = label
        self.algorithm = algorithm
        self.enabled = enabled
        self.live = None
        self.spinner = None
        self.shown = False
        self.bound_word = "bound" if algorithm in ("astar", "idastar") else "depth"

    def text(self, stats) -> str:
        rate = stats.expanded / stats.seconds if stats.seconds > 0 else 0.0
        return (f"{self.label}{self.algorithm}: {_states(stats.expanded)} expanded, {self.bound_word} "
                f"{stats.depth}, {rate:,.0f} states/s, {stats.seconds:.1f} s")

    def __call__(self, stats) -> None:
        if not self.enabled or stats.seconds < PROGRESS_AFTER:
            return
        if self.live is None:
            from rich.live import Live
            from rich.spinner import Spinner

            self.spinner = Spinner("dots", text=self.text(stats))
            self.live = Live(self.spinner, console=_stderr_console(), transient=True, refresh_per_second=8)
            self.live.start()
            self.shown = True
        else:
            self.spinner.update(text=self.text(stats))

    def close(self) -> None:
        if self.live is not None:
            try:
                self.live.stop()
            finally:
                self.live = None


@dataclass
class Outcome:
    inst: object
    index: int
    solution: object
    verified: bool
    problem: str | None  # why verification failed
    algorithm: str
    heuristic: str | None
    exit_code: int
    backend: str


def verify(system, sol) -> tuple[bool, str | None]:
    """Replay a solution through the reference backend: every move legal, ends in a goal, same total cost."""
    from . import api
    if sol.moves is None:
        return False, None
    ref = system if getattr(system, "backend", None) == "reference" else api.system(system.inst, "reference")
    state = ref.initial()
    total = 0
    for k, move in enumerate(sol.moves, 1):
        step = ref.step(state, move)
        if step is None:
            return False, f"move {k} `{move}` is not legal there"
        state, cost = step
        total += cost
    if not ref.is_goal(state):
        return False, f"its {len(sol.moves)} moves do not end in a goal"
    if total != sol.cost:
        return False, f"its moves cost {total}, the solver said {sol.cost}"
    if sol.score is not None and ref.score(state) != sol.score:
        return False, f"it ends with a score of {ref.score(state)}, the solver said {sol.score}"
    limit = ref.inst.limit
    if limit is not None and total > limit:
        return False, f"its cost {total} is over the rules' limit {limit}"
    return True, None


_noticed = []


def _compile_notice(text: str) -> None:
    """Say once per run that native code is being compiled (the only slow start-up there is)."""
    if not _noticed:
        _noticed.append(text)
        _stderr_console().print(f"[dim]{text}[/dim]", soft_wrap=True)


def _collect_from_now() -> None:
    """Starting up (numpy, rich, lark, the rules, the native code; numba when it compiles) makes objects by the
    hundred thousand, tens of thousands of which live to the end (~37,000 for the sample), and Python's cycle
    collector ran again and again while they came: ~12..15 % of a warm `gridrules solve`. So main holds it off
    until the first search, and then freezes what is alive out of its way (gc.freeze) and lets it run as usual: a
    search in Python (the reference backend) makes garbage of its own."""
    global _COLLECTOR_HELD
    if _COLLECTOR_HELD:
        _COLLECTOR_HELD = False
        gc.freeze()
        gc.enable()


def solve_instance(inst, index: int, count: int, algorithm: str | None, heuristic: str | None,
                   time_limit, max_states, backend: str, progress: bool) -> Outcome:
    from . import api
    from solvers import BUDGET_EXHAUSTED, INTERRUPTED, SOLVED, UNSOLVABLE, Budget

    algo, heuristic = api.search_plan(inst.game, algorithm, heuristic)
    if algo == "anytime" and time_limit is None:
        time_limit = ANYTIME_SECONDS  # (an anytime search is meant to be stopped)
    system = api.system(inst, backend, heuristic, notice=_compile_notice)
    if algorithm is None:
        algo = api.level_algorithm(system, algo)
    label = f"{inst.level}: " if count > 1 else ""
    reporter = _Progress(label, algo, progress)

    def improved(sol) -> None:  # an anytime search found a better solution
        _stderr_console().print(f"[dim]{label}better after {sol.stats.seconds:.2f} s: {_summary(sol, False)}[/dim]",
                                highlight=False)

    budget = Budget(time_limit=time_limit, max_states=max_states, max_cost=inst.limit,
                    progress=reporter if progress else None, admissible=system.admissible,
                    improved=improved if algo == "anytime" else None)
    _collect_from_now()
    try:
        sol = api.solve(system, algo, budget)
    finally:
        reporter.close()
    if reporter.shown:
        s = sol.stats
        rate = s.expanded / s.seconds if s.seconds > 0 else 0.0
        _stderr_console().print(f"[dim]{label}{algo}: {_states(s.expanded)} expanded in {s.seconds:.1f} s "
                                f"({rate:,.0f}/s)[/dim]")
    ok, problem = verify(system, sol) if sol.moves is not None else (False, None)
    code = {SOLVED: EXIT_OK, UNSOLVABLE: EXIT_UNSOLVABLE, BUDGET_EXHAUSTED: EXIT_BUDGET,
            INTERRUPTED: EXIT_INTERRUPTED}.get(sol.status, EXIT_INTERNAL)
    if sol.moves is not None and not ok:
        code = EXIT_INTERNAL
    if sol.status == SOLVED and sol.moves is None:
        code, problem = EXIT_INTERNAL, "the solver said solved but gave no moves"
    return Outcome(inst, index, sol, ok, problem, algo, _heuristic_label(system, algo, heuristic), code,
                   system.backend)


def _summary(sol, verdict: bool = True) -> str:
    """`28 moves (optimal)`, `30 moves, cost 28 (not proven optimal)`, `7 moves, score 12 (not proven best)`."""
    text = counted(len(sol.moves), "move")
    if sol.cost != len(sol.moves):
        text += f", cost {sol.cost}"
    if sol.score is not None:
        text += f", score {sol.score}"
    if not verdict:
        return text
    if sol.score is not None:
        return text + (" (proven best)" if sol.optimal else " (not proven best)")
    return text + (" (optimal)" if sol.optimal else " (not proven optimal)")


def describe(out: Outcome) -> str:
    """One level's result as text: a summary and, when there is one, the moves."""
    from solvers import BUDGET_EXHAUSTED, INTERRUPTED, SOLVED, UNSOLVABLE

    sol = out.solution
    st = sol.stats
    if sol.status == SOLVED:
        return _summary(sol)
    if sol.status == UNSOLVABLE:
        limit = out.inst.limit
        return "unsolvable (proven: no solution" + (f" within the limit of {limit})" if limit is not None else
                                                    " exists)")
    what = {BUDGET_EXHAUSTED: "budget exhausted", INTERRUPTED: "interrupted"}.get(sol.status, sol.status)
    where = f"{what} after {_states(st.expanded)} expanded in {st.seconds:.2f} s"
    # what the search proved before it stopped (an admissible search: see Solution.bound)
    proved = f"; proven: every solution costs at least {sol.bound}" if sol.bound else ""
    if sol.moves is not None:
        return f"{where}; best found: {_summary(sol)}" + (proved if sol.bound and sol.bound < sol.cost else "")
    return f"{where}; no solution found{proved}"


def _failed_record(out: Failed, ruleset: str, level_path: str) -> dict:
    """A Failed level's JSON object: _json_record's keys (null where there is no answer), status `error`, and
    the error's first line."""
    return {"ruleset": ruleset, "file": level_path, "level": out.level, "index": out.index, "status": "error",
            "cost": None, "score": None, "length": None, "moves": None, "optimal": False, "bound": None,
            "verified": False, "algorithm": None, "heuristic": None, "backend": None, "limit": None, "stats": None,
            "error": out.text.splitlines()[0]}


def _json_record(out: Outcome, ruleset: str, level_path: str) -> dict:
    sol = out.solution
    return {
        "ruleset": ruleset,
        "file": level_path,
        "level": out.inst.level,
        "index": out.index,
        "status": sol.status,
        "cost": sol.cost,
        "score": sol.score,
        "length": None if sol.moves is None else len(sol.moves),
        "moves": None if sol.moves is None else list(sol.moves),
        "optimal": bool(sol.optimal),
        "bound": sol.bound,  # (a search stopped early: a proven lower bound on the optimal cost, or null)
        "verified": bool(out.verified),
        "algorithm": out.algorithm,
        "heuristic": out.heuristic,
        "backend": out.backend,
        "limit": out.inst.limit,
        "stats": sol.stats.as_dict(),
    }


def _print_outcome(out: Outcome | Failed, count: int, fmt: str, ruleset: str, level_path: str) -> None:
    if isinstance(out, Failed):
        out.skip(json.dumps(_failed_record(out, ruleset, level_path)) if fmt == "json" else
                 f"{out.level}: {out.summary()}")
        return
    if fmt == "json":
        click.echo(json.dumps(_json_record(out, ruleset, level_path)))
    else:
        line = describe(out)
        moves = out.solution.moves
        if out.problem is not None:  # (only a solution that replays is printed: the error below says why not)
            line, moves = "no answer (the solution found did not replay: an internal error)", None
        if count > 1:
            click.echo(f"{out.inst.level}: {line}" + (f": {' '.join(moves)}" if moves else ""))
        else:
            click.echo(line)
            if moves:
                click.echo(" ".join(moves))
    sys.stdout.flush()
    if out.problem is not None:
        _internal_problem(out)


def _internal_problem(out: Outcome) -> None:
    _error(f"internal error: the {out.algorithm} solution of {out.inst.level} failed verification: {out.problem}",
           prefix="gridrules: ")
    click.echo("This is a bug in gridrules; please report it with the command you ran and its files.", err=True)


def _states(n: int) -> str:
    """`1 state`, `2,048 states`."""
    return f"{n:,} state" + ("" if n == 1 else "s")


def _verbose_stats(out: Outcome, count: int) -> None:
    s = out.solution.stats
    rate = s.expanded / s.seconds if s.seconds > 0 else 0.0
    label = f"{out.inst.level}: " if count > 1 else ""
    h = f", heuristic {out.heuristic}" if out.heuristic else ""
    dead = f", {s.dead:,} deadlocked" if s.dead else ""
    click.echo(f"{label}{out.algorithm}{h}: {s.expanded:,} expanded, {s.generated:,} generated, "
               f"{s.duplicates:,} duplicates{dead}, peak {_states(s.peak_states)}, {s.seconds:.3f} s "
               f"({rate:,.0f}/s)", err=True)


@cli.command(epilog=EXIT_CODES_HELP)
@ruleset_argument
@level_argument
@_budget_options
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a summary line and the moves per level; json: one JSON object per level per line.")
@param_option
@level_format_option
@backend_option("The transition system's backend: `compiled` (rules lowered to native code with numba; the first "
                "use of a rule file compiles it, later runs load it from the cache) or `reference` (plain Python, "
                "the oracle; no compile). Also set by GRIDRULES_BACKEND.")
@click.option("--verbose", "-v", is_flag=True, help="Print search statistics on stderr.")
@click.option("--jobs", "-j", type=_Count(0), default=1, show_default=True, metavar="N",
              help="Solve a file's levels N at a time, each in a process of its own (0: one per core; Linux). "
                   "Results still come in the file's order; each level keeps its own budget, and memory is "
                   "spent N times over. Ctrl-C then stops the levels being solved without their best so far.")
@click.pass_context
def solve(ctx, ruleset, level, algorithm, heuristic, time_limit, max_states, out_format, params, level_format,
          backend, verbose, jobs):
    """Solve every level of a level file.

    Each solution is replayed through the reference rules before it is printed (`verified`); a solution that
    does not replay is an internal error (exit 4). Text output: for a file with one level, a line such as
    `28 moves (optimal)` then the moves; for a file with several levels (e.g. HDU 4127 input), one line per
    level such as `case 2: 3 moves (optimal): 1 2 1`. JSON output (--format json): one object per level per
    line with level, status (solved, unsolvable, budget_exhausted, interrupted, error), cost, length, moves,
    optimal, verified, algorithm, heuristic, backend and stats.

    A level of several that is wrong (its text, or a rule failing on it) is reported in its place
    (`case 2: error at FILE:LINE:COL`, the error on stderr; status `error` and its first line as `error` in
    JSON) and the others are still solved; the exit code is then 2, or 3 or 130 where another level's search
    was stopped (the worst of the levels' results: 0 < 1 < 2 < 3 < 130 < 4).
    """
    loaded = _load(ruleset, level, params, level_format)
    if heuristic is not None and algorithm is not None and not _algorithms()[algorithm].uses_heuristic:
        _error(f"{algorithm} uses no heuristic; --heuristic {heuristic} is ignored", prefix="warning: ")
    count = len(loaded.instances)
    processes = _processes(jobs, count)
    codes = []

    def one(k: int, inst, progress: bool) -> Outcome | Failed:
        if isinstance(inst, Failed):
            return inst
        try:
            return solve_instance(inst, k, count, algorithm, heuristic, time_limit, max_states, backend, progress)
        except RuleRuntimeError as err:  # (a rule that fails on this level only: the others are still solved)
            if count == 1:
                raise
            return Failed.of(inst.level, k, err)

    def done(k: int) -> None:  # (after each level here: an extension started now serves the later levels too)
        if backend == "compiled" and k < count:
            _build_extensions()

    try:
        for k, out in enumerate(_solved(loaded.instances, one, processes, done), 1):
            _print_outcome(out, count, out_format, loaded.game.name, loaded.level_path)
            if verbose and not isinstance(out, Failed):
                _verbose_stats(out, count)
            codes.append(out.exit_code)
            if out.exit_code == EXIT_INTERRUPTED:
                if k < count:
                    _error(f"interrupted; {counted(count - k, 'level')} not solved", prefix="")
                break
    except _Interrupted as stop:
        _error(f"interrupted; {counted(count - stop.solved, 'level')} not solved", prefix="")
        codes.append(EXIT_INTERRUPTED)
    if backend == "compiled":
        _build_extensions()
    ctx.exit(worst(codes))


def _processes(jobs: int, count: int) -> int:
    """How many processes solve a file's levels: --jobs (0: one per core the process may run on), at most
    one per level; one where processes cannot be forked (everywhere but Linux: see _solved)."""
    if jobs == 0:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    jobs = max(1, min(jobs, count))
    if jobs > 1 and not sys.platform.startswith("linux"):
        _error("--jobs solves levels in parallel on Linux only; here they are solved one after another",
               prefix="warning: ")
        return 1
    return jobs


class _Interrupted(Exception):
    """Ctrl-C while other processes solved levels: `solved` levels were printed."""

    def __init__(self, solved: int):
        super().__init__(solved)
        self.solved = solved


def _solved(instances: list, one, processes: int, done):
    """Each level's Outcome, in the file's order: one(k, inst, progress) for level k, then done(k), one level
    after another; with several processes, the first level here (it compiles or loads the native code, which
    the other processes then share) and the rest in `processes` forked processes, which take the next level as
    they finish one. Only this process shows progress; the others ignore Ctrl-C, and this one stops them (and
    they end with it: _forked_start)."""
    progress = sys.stderr.isatty()
    for k, inst in enumerate(instances[:1] if processes > 1 else instances, 1):
        yield one(k, inst, progress)
        done(k)
    if processes == 1 or len(instances) == 1:
        return
    import multiprocessing
    import signal
    import threading

    _FORKED.update(instances=instances, one=one)
    sys.stdout.flush()  # (nothing written before the fork is written again by a forked process)
    sys.stderr.flush()
    # (a Ctrl-C while the processes start is noted, and acted on once they can be stopped: one arriving in the
    # middle of Pool() left the processes forked so far waiting for work, holding the output, after this one had
    # ended. Noted by a handler of Python's, which runs in this thread whichever thread the signal reaches.)
    held: list = []
    previous = signal.getsignal(signal.SIGINT)
    noting = previous is not None and threading.current_thread() is threading.main_thread()
    if noting:
        signal.signal(signal.SIGINT, lambda *_: held.append(True))
    try:
        pool = multiprocessing.get_context("fork").Pool(processes, _forked_start, (os.getpid(),))
    finally:
        if noting:
            signal.signal(signal.SIGINT, previous)
    solved = 1
    try:
        if held:
            raise KeyboardInterrupt
        for k, result in enumerate(pool.imap(_solve_forked, range(2, len(instances) + 1)), 2):
            if isinstance(result, Failed):
                yield result
            else:
                yield Outcome(instances[k - 1], *result) if result[0] == k else _raise(result)
            solved += 1
    except KeyboardInterrupt:
        raise _Interrupted(solved) from None
    finally:
        pool.terminate()
        _FORKED.clear()


_FORKED: dict = {}  # what the forked processes of _solved read: the levels, and how to solve one


def _forked_start(parent: int) -> None:
    """In each forked process of _solved as it starts: Ctrl-C is the parent's to act on (ignored here), and the
    process ends when its parent does (Linux's PR_SET_PDEATHSIG): a parent killed (`kill PID`) left it searching,
    holding the output open, until its level was done."""
    import ctypes
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # (PR_SET_PDEATHSIG)
    except (OSError, AttributeError):  # (no prctl: the process ends after its level, as before)
        return
    if os.getppid() != parent:  # (the parent ended before the request was made)
        os._exit(1)


def _solve_forked(k: int) -> tuple:
    """In a forked process: level k's Outcome without its instance (the parent has it), or what went wrong, as
    plain values (an exception may not survive being sent back whole)."""
    try:
        out = _FORKED["one"](k, _FORKED["instances"][k - 1], False)
        if isinstance(out, Failed):
            return out
    except GridrulesError as err:
        return ("error", err.render(), err.exit_code, _located(err))
    except MemoryError:
        return ("error", OutOfMemory().render(), OutOfMemory.exit_code, False)
    except Exception as err:  # noqa: BLE001 - (reported by this process's parent as its own: _internal)
        return ("internal", type(err).__name__, str(err), "".join(traceback.format_exception(err)))
    return (out.index, out.solution, out.verified, out.problem, out.algorithm, out.heuristic, out.exit_code,
            out.backend)


class _Relayed(GridrulesError):
    """An error a forked process met, as it rendered it."""

    def __init__(self, text: str, exit_code: int, located: bool):
        super().__init__(text)
        self.exit_code, self.located = exit_code, located


class _RelayedInternal(Exception):
    """An unexpected exception in a forked process: (its type's name, its message, its traceback)."""


def _raise(result: tuple):
    """Raise what a forked process met (_solve_forked), as though it had happened here."""
    raise _Relayed(*result[1:]) if result[0] == "error" else _RelayedInternal(*result[1:])


def _build_extensions() -> None:
    """Have the native searches this run made on numba's JIT built into extension modules, in the background:
    later runs start without numba (compiled/extension.py), and the searches of this run's later levels pick up
    each one built before they start."""
    from .compiled import extension

    if extension.enabled() and extension.build_wanted() and not _building_said:
        _building_said.append(True)  # (said once a run, however many board shapes the file's levels have)
        _stderr_console().print("[dim]building native extension modules in the background, for faster starts "
                                "(once; GRIDRULES_EXTENSIONS=0 turns this off)[/dim]", soft_wrap=True)


_building_said: list = []


# ---- show ------------------------------------------------------------------------------------------
def _colour_stdout(choice: bool | None) -> bool:
    if choice is not None:
        return choice
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


class _Spelling:
    """The moves a user types (--solution, --after, query's MOVEs) as the rules write them: a move of an `unordered`
    action may be typed with its arguments in any order (`3,4-1,1` is Lianliankan's `1,1-3,4`), those of any other
    action only in the order of its notation."""

    def __init__(self, inst):
        self.inst = inst
        self._aliases: dict[str, str] | None = None
        self._shapes: list[tuple] | None = None  # (notations of several words, longest first: `run`)

    @property
    def aliases(self) -> dict[str, str]:
        """Each move of an unordered action with its arguments in another order, as text -> the move's own text;
        made when first needed (it lists every move of the level). A text that is some move's own, or that two
        moves reordered both give, is left out: it names no other move for sure."""
        if self._aliases is None:
            import itertools

            from .reference.system import action_instances, interpreter, move_text

            inst = self.inst
            out: dict[str, str] = {}
            texts, clashes = set(), set()
            if any(action.unordered for action in inst.game.actions):
                for text, ai, args in action_instances(inst, interpreter(inst)):
                    texts.add(text)
                    action = inst.game.actions[ai]
                    if not action.unordered:
                        continue
                    for other in itertools.permutations(args):
                        alias = move_text(action, other, inst)
                        if alias != text and out.setdefault(alias, text) != text:
                            clashes.add(alias)
            self._aliases = {a: t for a, t in out.items() if a not in texts and a not in clashes}
        return self._aliases

    def canonical(self, move: str) -> str:
        """The move's own text: `move` itself unless it is a move of an unordered action reordered."""
        return self.aliases.get(move, move)

    def suggestion(self, move: str, legal: list[str]) -> str | None:
        """`did you mean `M`?` for the legal move M closest to `move`, as written or (an unordered action's)
        reordered: `3,4-1,2` is nearest `1,1-3,4` typed as `3,4-1,1`."""
        from .errors import closest

        legal_set = set(legal)
        names = {m: m for m in legal}
        for alias, text in self.aliases.items():
            if text in legal_set:
                names.setdefault(alias, text)
        close = closest(move, names)
        return f"did you mean `{names[close]}`?" if close else None

    def read(self, system, state, words: list[str]):
        """The moves typed in `words` (split at blanks), read from `state` on: (the move's own text, its step,
        the words it took) for each, the last one's step None where a move is not legal (its text then the words
        that look like a move), and nothing after it. A notation with blanks (`"dim {c}"`) is read as the longest
        run of words that makes a legal move."""
        i = 0
        while i < len(words):
            for n in range(self.run(words, i), 0, -1):
                move, step = self.step(system, state, " ".join(words[i:i + n]))
                if step is not None:
                    break
            if step is None:
                n = self.run(words, i)
                yield " ".join(words[i:i + n]), None, n
                return
            yield move, step, n
            state = step[0]
            i += n

    def run(self, words: list[str], i: int) -> int:
        """How many words from words[i] on the longest notation that fits them takes (a literal word of it
        equal, a `{param}` any word), at least one: the words one move takes, legal or not."""
        if self._shapes is None:
            shapes = set()
            for action in self.inst.game.actions:
                if action.notation and len(action.notation.split()) > 1:
                    shapes.add(tuple(re.compile(re.sub(r"\\\{[^{}]*\\\}", ".+", re.escape(w)) + r"\Z")
                                     for w in action.notation.split()))
            self._shapes = sorted(shapes, key=len, reverse=True)
        for shape in self._shapes:
            if len(words) - i >= len(shape) and all(p.match(w) for p, w in zip(shape, words[i:])):
                return len(shape)
        return 1

    def step(self, system, state, move: str) -> tuple[str, object]:
        """(the move's own text, system.step(state, move)) for a legal move, as typed or reordered; else
        (move as typed, None)."""
        step = system.step(state, move)
        if step is None:
            own = self.canonical(move)
            if own != move and (step := system.step(state, own)) is not None:
                return own, step
        return move, step


def _replay(system, renderer, inst, words: list[str], trace: bool = False, typed: bool = True) -> int:
    """Print the board after every move (with `trace`, each step of the chain reactions it sets off first); an
    illegal move is a UsageError naming it and the legal moves. `words`: the moves as typed, split at blanks (a
    move of an unordered action may be given with its arguments in any order: it is printed in the rules' own);
    or, not `typed`, a search's moves, one a move."""
    state = system.initial()
    total = 0
    spelling = _Spelling(inst)
    if typed:
        read = list(spelling.read(system, state, words))
        rest, at = [], sum(n for _, _, n in read)  # (the moves after an illegal one, for the count)
        while at < len(words):
            n = spelling.run(words, at)
            rest.append(" ".join(words[at:at + n]))
            at += n
        moves = [move for move, _, _ in read] + rest
    else:
        read, moves, at = [], list(words), state
        for move in moves:
            step = system.step(at, move)
            read.append((move, step, 1))
            if step is None:
                break
            at = step[0]
    for k, (move, step, _) in enumerate(read, 1):
        if step is None:
            legal = system.legal_moves(state)
            shown = ", ".join(legal) if legal else "none (no move is legal here)"
            hint = spelling.suggestion(move, legal) if legal else None
            when = "at the start" if k == 1 else f"after move {k - 1}"
            raise UsageError(f"{inst.level}: move {k} `{move}` is not legal {when}; the legal moves are: {shown}"
                             + (f"; {hint}" if hint else ""))
        steps = system.trace(state, move) if trace else []
        ways = system.paths(state, move) if hasattr(system, "paths") else []
        before = state
        state, cost = step
        total += cost
        click.echo("")
        cost_text = f" (cost {cost})" if cost != 1 else ""
        click.echo(f"move {k}/{len(moves)}: {move}{cost_text}")
        for way in ways:  # the paths the rules found for the move (`path(...)`), drawn on the board before it
            click.echo(f"  path {_cells_text(way)}:")
            click.echo(renderer.path_of(system.inst.values(before), way), color=renderer.color)
        drawn = None
        for n, (time, flying, values) in enumerate(steps, 1):  # (the steps where particles arrive: their times)
            click.echo(f"  chain step {n}/{len(steps)} (time {time}): {counted(len(flying), 'particle')} flying")
            drawn = renderer.board_of(values, flying)
            click.echo(drawn, color=renderer.color)
        after = renderer.board(state)
        if drawn != after:  # (the move may go on after its last chain reaction)
            if steps or ways:
                click.echo("  after the move:")
            click.echo(after, color=renderer.color)
    click.echo("")
    if system.is_goal(state):
        extra = f", cost {total}" if total != len(moves) else ""
        if getattr(system, "scored", False):
            extra += f", score {system.score(state)}"
        click.echo(f"goal reached after {counted(len(moves), 'move')}{extra}")
        return EXIT_OK
    _error(f"{inst.level}: the goal is not reached after {counted(len(moves), 'move')}", prefix="")
    return EXIT_UNSOLVABLE


@cli.command(epilog=EXIT_CODES_HELP)
@ruleset_argument
@level_argument
@click.option("--case", "case", type=_Count(1), default=None, metavar="N",
              help="Show only the N-th level of the file (1-based).")
@click.option("--solution", "-s", default=None, metavar="MOVES",
              help="Moves to replay, separated by blanks (e.g. \"R R U\"); the board is printed after each. "
                   "In a file of several levels, pick one with --case.")
@click.option("--solve", "do_solve", is_flag=True, help="Solve the level(s), then replay the solution.")
@click.option("--trace", is_flag=True,
              help="With --solution or --solve: before the board after each move, the board after each step of "
                   "the chain reactions it sets off (rules with particles), particles drawn as < > ^ v by their direction, "
                   "`+` where several share a cell.")
@_budget_options
@param_option
@level_format_option
@backend_option("The backend used by --solve (as in `solve`).")
@click.option("--color/--no-color", "color", default=None,
              help="Highlight covered cells with colour (default: when stdout is a terminal).")
@click.pass_context
def show(ctx, ruleset, level, case, solution, do_solve, trace, algorithm, heuristic, time_limit, max_states, params,
         level_format, backend, color):
    """Print the board of each level; with --solution or --solve, replay moves and print every step.

    Boards are drawn in the level's own notation (the rule file's legend, run backwards); cells covered by a
    piece (a cell or body global, e.g. a block) are marked with `@`, `&`, ... or highlighted in colour, and
    the dynamic globals are listed under the board. Moves that do not reach the goal exit with 1; an
    illegal move is an error (exit 2) naming it and the legal moves.
    """
    from . import api
    from .render import Renderer

    if solution is not None and do_solve:
        raise click.UsageError("give either --solution or --solve, not both")
    if trace and solution is None and not do_solve:
        raise click.UsageError("--trace shows the moves of --solution or --solve: give one of them")
    loaded = _load(ruleset, level, params, level_format)
    insts = loaded.instances
    if case is not None:
        if case > len(insts):
            raise UsageError(f"--case {case}: `{loaded.level_path}` holds {counted(len(insts), 'level')}")
        chosen = [(case, insts[case - 1])]
    else:
        chosen = list(enumerate(insts, 1))
    if solution is not None and len(chosen) > 1:
        raise UsageError(f"`{loaded.level_path}` holds {len(chosen)} levels; pick the one --solution is for "
                         f"with --case N")
    if len(chosen) == 1:
        _ready(chosen[0][1])
    colour = _colour_stdout(color)
    codes = []
    for n, (k, inst) in enumerate(chosen):
        if n:
            click.echo("")
        if isinstance(inst, Failed):  # (one wrong level of the file: the others are still shown)
            codes.append(inst.skip(f"{inst.level}: {inst.summary()}"))
            continue
        renderer = Renderer(inst, loaded.fmt, color=colour)
        click.echo(f"{inst.level} ({inst.rows}x{inst.cols}, {loaded.game.name})")
        click.echo(renderer.board(inst.initial), color=renderer.color)
        if solution is not None:
            system = api.system(inst, "reference")
            codes.append(_replay(system, renderer, inst, solution.split(), trace))
        elif do_solve:
            out = solve_instance(inst, k, len(insts), algorithm, heuristic, time_limit, max_states, backend,
                                 sys.stderr.isatty())
            click.echo("")
            click.echo(f"solution: {describe(out)}" + (f": {' '.join(out.solution.moves)}"
                                                       if out.solution.moves else ""))
            if out.problem is not None:
                _internal_problem(out)
            codes.append(out.exit_code)
            if out.solution.moves and out.exit_code != EXIT_INTERNAL:
                _replay(api.system(inst, "reference"), renderer, inst, list(out.solution.moves), trace, typed=False)
            if out.exit_code == EXIT_INTERRUPTED:
                break
    ctx.exit(worst(codes))


# ---- moves and query ---------------------------------------------------------------------------------
def _chosen(loaded, case):
    insts = loaded.instances
    if case is None:
        return list(enumerate(insts, 1))
    if case > len(insts):
        raise UsageError(f"--case {case}: `{loaded.level_path}` holds {counted(len(insts), 'level')}")
    return [(case, insts[case - 1])]


def _cells_text(path) -> str:
    return " ".join(f"{r + 1},{c + 1}" for r, c in path)


@cli.command(epilog=EXIT_CODES_HELP)
@ruleset_argument
@level_argument
@click.option("--case", "case", type=_Count(1), default=None, metavar="N",
              help="Only the N-th level of the file (1-based).")
@click.option("--after", default=None, metavar="MOVES",
              help="Play these moves first (separated by blanks), then list the moves of the state reached. In a "
                   "file of several levels, pick one with --case.")
@click.option("--hint", is_flag=True, help="Only the first legal move.")
@click.option("--count", "count_only", is_flag=True, help="Only how many legal moves there are.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: one JSON object per level.")
@param_option
@level_format_option
@backend_option("Which backend lists the legal moves: compiled (fast on large boards; a rule file or parameter "
                "value used for the first time is compiled first) or reference (Python, nothing to compile). "
                "--after and the paths are always replayed through the reference rules.")
@click.pass_context
def moves(ctx, ruleset, level, case, after, hint, count_only, out_format, params, level_format, backend):
    """List the legal moves of each level (or of the state after --after), each with the path that joins its
    cells where the rules ask for one (`path(...)`; corners 1-based, row or column 0 and rows+1/cols+1 being the
    ring outside the board). No legal move left on a board that is not solved is a dead board: exit 1; so is a
    state where the rules' `deadlock` holds (its moves are still listed: they are legal, but lead to no goal).
    """
    from . import api

    if hint and count_only:
        raise click.UsageError("give either --hint or --count, not both")
    loaded = _load(ruleset, level, params, level_format)
    chosen = _chosen(loaded, case)
    if after and len(chosen) > 1:  # (moves are a level's own: as show --solution)
        raise UsageError(f"`{loaded.level_path}` holds {len(chosen)} levels; pick the one --after is for with "
                         "--case N")
    if len(chosen) == 1:
        _ready(chosen[0][1])
    codes = []
    for k, inst in chosen:
        if isinstance(inst, Failed):  # (one wrong level of the file: the others' moves are still listed)
            codes.append(inst.skip(json.dumps({"level": inst.level, "error": inst.text.splitlines()[0]})
                                   if out_format == "json" else f"{inst.level}: {inst.summary()}"))
            continue
        ref = api.system(inst, "reference")
        state = ref.initial()
        spelling = _Spelling(inst)
        for n, (move, step, _) in enumerate(spelling.read(ref, state, (after or "").split()), 1):
            if step is None:
                moves_here = ref.legal_moves(state)
                near = spelling.suggestion(move, moves_here) if moves_here else None
                raise UsageError(f"{inst.level}: --after move {n} `{move}` is not legal there; the legal moves are: "
                                 f"{', '.join(moves_here) or 'none'}" + (f"; {near}" if near else ""))
            state = step[0]
        legal = (ref if backend == "reference" else api.system(inst, notice=_compile_notice)).legal_moves(state)
        shown = legal[:1] if hint else ([] if count_only else legal)
        listed = [(m, ref.paths(state, m)) for m in shown]
        goal = ref.is_goal(state)
        dead = not goal and ref.is_dead(state)
        codes.append(EXIT_OK if (legal or goal) and not dead else EXIT_UNSOLVABLE)
        if out_format == "json":
            click.echo(json.dumps({"level": inst.level, "count": len(legal), "goal": goal, "deadlock": dead,
                                   "moves": [{"move": m, "paths": [[[r + 1, c + 1] for r, c in p] for p in ps]}
                                             for m, ps in listed]}))
            continue
        label = f"{inst.level}: " if len(loaded.instances) > 1 else ""
        if not legal:
            click.echo(f"{label}no legal move" + (" (the goal is reached)" if goal else " (a dead board)"))
            continue
        if not hint:
            click.echo(f"{label}{counted(len(legal), 'legal move')}"
                       + (" (a deadlock: the rules say no goal can be reached from here)" if dead else ""))
        elif dead:
            click.echo(f"{label}a deadlock: the rules say no goal can be reached from here")
        for m, ps in listed:
            ways = "; ".join(f"path {_cells_text(p)}" for p in ps)
            click.echo(f"{'hint: ' + label if hint else '  '}{m}" + (f"  {ways}" if ways else ""))
    ctx.exit(worst(codes))


@cli.command(epilog=EXIT_CODES_HELP)
@ruleset_argument
@level_argument
@click.argument("move_texts", nargs=-1, metavar="[MOVE]...")
@param_option
@level_format_option
@backend_option("compiled: native code (fast on large boards; a rule file or parameter value used for the first "
                "time is compiled first); reference: Python.")
@click.pass_context
def query(ctx, ruleset, level, move_texts, params, level_format, backend):
    """Answer YES or NO, one per line: is each move legal at the start of its level? The moves are the queries
    a level file asks (HDU 1175's `x1 y1 x2 y2` lines: `gridrules query lianliankan FILE` answers exactly as
    that judge expects), or MOVEs given after the level, in the rules' notation.
    """
    from . import api

    loaded = _load(ruleset, level, params, level_format, every_move=False)  # (api.query builds the asked moves)
    asked_in_file = any(not isinstance(inst, Failed) and inst.raw.queries for inst in loaded.instances)
    if move_texts and asked_in_file:
        raise UsageError(f"`{loaded.level_path}` asks its own queries; give no MOVEs with it")
    if not move_texts and not asked_in_file:
        for inst in loaded.instances:  # (a level that failed may have asked some: its error first, as it comes)
            _ready(inst)
        raise UsageError(f"`{loaded.level_path}` asks no queries; give the MOVEs to check after it")
    for inst in loaded.instances:
        _ready(inst)  # (a judge reads the answers in order: a wrong level stops them, its error said)
        if not move_texts and inst.raw.query_error is not None:
            raise inst.raw.query_error
        if move_texts:
            if len(loaded.instances) > 1:
                raise UsageError(f"`{loaded.level_path}` holds {len(loaded.instances)} levels; MOVEs need a file "
                                 "with one level")
            legal = set(api.system(inst, backend, notice=_compile_notice).legal_moves(inst.initial))
            spelling = _Spelling(inst)
            answers = [m in legal or spelling.canonical(m) in legal for m in move_texts]
            _note_unknown_moves(inst, spelling, [m for m, yes in zip(move_texts, answers) if not yes])
        else:
            answers = api.query(inst, [q for q, _ in inst.raw.queries], backend, notice=_compile_notice)
        for yes in answers:
            click.echo("YES" if yes else "NO")
    ctx.exit(EXIT_OK)


def _note_unknown_moves(inst, spelling: _Spelling, moves: list[str]) -> None:
    """A note on stderr for each MOVE answered NO that no move of the level is written as, legal or not (a typo,
    or another notation): the answer stays NO, as a judge expects, but the user learns why."""
    if not moves:
        return
    from .errors import closest
    from .reference.system import action_instances, interpreter

    texts = [text for text, _, _ in action_instances(inst, interpreter(inst))]
    known = set(texts)
    for move in dict.fromkeys(moves):
        if move in known or spelling.canonical(move) in known:
            continue
        close = closest(move, texts) if len(known) <= 10_000 else None  # (difflib over a million texts: slow)
        like = (f"did you mean `{close}`?" if close else
                f"its moves are written like `{texts[0]}`" if texts else "it has no moves")
        _error(f"`{move}` is no move of this level, so the answer is NO; {like}", prefix="note: ")


# ---- validate --------------------------------------------------------------------------------------
@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("files", nargs=-1, required=True, metavar="FILE...", callback=_not_empty(RULESET_EMPTY))
@click.option("--level", "levels", multiple=True, metavar="LEVELFILE", callback=_not_empty(LEVEL_EMPTY),
              help="Also check that these level files load with each rule file (repeatable).")
@param_option
@level_format_option
@click.pass_context
def validate(ctx, files, levels, params, level_format):
    """Check rule files (and optionally level files): `FILE: ok`, or the errors as file:line:col.

    FILE may also be a bundled ruleset's name. Exit 0 when everything is valid, 2 when any file has errors.
    --param values are checked against each rule file as `solve` checks them: without --level, as far as the
    parameters alone decide (a domain that uses the board's size needs a level).
    """
    from . import api
    from .instance import instantiate

    codes = []
    for name in files:
        try:
            path = api.resolve_ruleset(name)
            text = api.read_text(path, "rule file")
            game, warnings = api.compile_rules(text, str(path))
        except GridrulesError as err:
            _report(err)
            codes.append(err.exit_code)
            if (isinstance(err, (RuleError, ErrorList)) and Path(name).suffix not in api.RULE_SUFFIXES
                    and levels == () and len(files) > 1):  # (`validate RULES LEVEL`: the level read as rules)
                _say(f"  hint: `{name}` was read as a rule file; a level file is checked with --level: "
                     f"`gridrules validate {files[0]} --level {name}`")
            continue
        for w in warnings:
            click.echo(w.render(), err=True)
        try:  # (the --params and --level-format, checked against each rule file as `solve` checks them)
            overrides = api.parse_params(game, list(params))
            if level_format is not None:
                api.detect_format(game, "", level_format)
            if overrides and not levels:  # (with a level, its set-up checks them: once)
                from .instance import parameters_break

                problem = parameters_break(game, overrides)
                if problem is not None:
                    raise problem
        except GridrulesError as err:
            if _located(err):  # (a domain of the rules that the values empty: where it is written)
                _report(err)
            else:
                _error(f"{name}: {err.render()}")
            codes.append(err.exit_code)
            continue
        click.echo(f"{name}: ok" + (f" ({counted(len(warnings), 'warning')})" if warnings else ""))
        for lv in levels:
            try:
                level_path = _resolve_level(lv, path)
                fmt, raws = api.read_levels(game, level_path, level_format)
            except GridrulesError as err:
                _report(err)
                codes.append(err.exit_code)
                continue
            wrong = 0
            for raw in raws:  # (every wrong level of the file is reported, not only the first)
                try:
                    inst = instantiate(game, raw, fmt, overrides)
                    if raw.query_error is not None:
                        raise raw.query_error
                    system = api.system(inst, "reference")
                    system.legal_moves(system.initial())  # the actions run on the first state
                except (LevelError, RuleRuntimeError) as err:
                    _report(err)
                    codes.append(err.exit_code)
                    wrong += 1
                except GridrulesError as err:  # (the rules' fault, the same for every level)
                    _report(err)
                    codes.append(err.exit_code)
                    wrong = len(raws)
                    break
            if not wrong:
                click.echo(f"{lv}: ok ({counted(len(raws), 'level')}, format {fmt.format})")
            elif len(raws) > 1 and wrong < len(raws):
                click.echo(f"{lv}: {wrong} of {counted(len(raws), 'level')} wrong (format {fmt.format})")
    ctx.exit(worst(codes))


# ---- list ------------------------------------------------------------------------------------------
def _param_default_text(p) -> str:
    """A parameter's default as --param would take it: constant cells count from 1, like moves."""
    from . import ir
    d = p.default
    if isinstance(d, ir.MakeCell) and isinstance(d.row, ir.Const) and isinstance(d.col, ir.Const):
        return f"{d.row.value + 1},{d.col.value + 1}"
    return _expr_text(d)


def _expr_text(e) -> str:
    """An expression as written in its rule file (from its span), else a plain rendering of simple ones."""
    from . import ir
    span = getattr(e, "span", None)
    if span is not None and span.end_line == span.line and span.end_col > span.col:
        text = span.source.line_text(span.line)[span.col - 1: span.end_col - 1].strip()
        if text:
            return text
    if isinstance(e, ir.Const):
        v = e.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return "none"
        return str(v)
    if isinstance(e, ir.ParamRef):
        return e.name
    if isinstance(e, ir.BoardSize):
        return e.which
    if isinstance(e, ir.BinOp):
        return f"{_expr_text(e.left)} {e.op} {_expr_text(e.right)}"
    if isinstance(e, ir.MakeCell):
        return f"({_expr_text(e.row)}, {_expr_text(e.col)})"
    return "…"


def _domain_text(d: ir.Domain) -> str:
    from . import ir
    if d.ty == ir.INT and d.lo is not None:
        return f"{_expr_text(d.lo)}..{_expr_text(d.hi)}"
    return str(d.ty)


def _ruleset_info(name: str, path: Path) -> dict:
    from . import api
    game = api.load_rules(str(path))
    levels = path.parent / "levels"
    return {
        "name": name,
        "title": game.title,
        "rules": str(path),
        "params": [{"name": p.name, "type": _domain_text(p.domain), "default": _param_default_text(p)}
                   for p in game.params],
        "level_formats": [f.format for f in game.formats],
        "heuristics": [{"name": h.name, "admissible": h.admissible, "dominates": list(h.dominates)}
                       for h in game.heuristics],
        "sample_levels": sorted(p.name for p in levels.iterdir() if p.is_file()) if levels.is_dir() else [],
    }


@cli.command("list", epilog=EXIT_CODES_HELP)
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_context
def list_(ctx, out_format):
    """The bundled rulesets: title, parameters (with defaults), level formats, heuristics, sample levels."""
    from rulesets import bundled

    codes = []
    first = True
    for name, path in bundled().items():
        try:
            info = _ruleset_info(name, path)
        except GridrulesError as err:
            _error(f"ruleset `{name}` does not load:", prefix="")
            _report(err)
            codes.append(err.exit_code)
            continue
        if out_format == "json":
            click.echo(json.dumps(info))
            continue
        if not first:
            click.echo("")
        first = False
        click.echo(f"{name}" + (f" — {info['title']}" if info["title"] else ""))
        for p in info["params"]:
            click.echo(f"    param {p['name']}: {p['type']} = {p['default']}")
        click.echo(f"    level formats: {', '.join(info['level_formats']) or 'none'}")
        if info["heuristics"]:
            hs = ", ".join(h["name"] + (" (admissible" + "".join(f", dominates {d}" for d in h["dominates"]) + ")"
                                        if h["admissible"] else "") for h in info["heuristics"])
            click.echo(f"    heuristics: {hs}")
        if info["sample_levels"]:
            click.echo(f"    sample levels: {', '.join(info['sample_levels'])}")
    ctx.exit(worst(codes))


def _numba_elsewhere(folder: Path, own: bool) -> None:
    if not own:
        click.echo(f"numba's machine code is kept in {folder} (NUMBA_CACHE_DIR), outside this cache: not counted "
                   "nor deleted here")


def _size(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000


@cli.command(epilog=EXIT_CODES_HELP)
@click.option("--prune", is_flag=True,
              help="Delete what this gridrules will not read again: generated modules and their machine code made "
                   "by another version of gridrules, numba or the runtime, and numba's caches of other copies of "
                   "gridrules (another checkout or install, or one since removed).")
@click.option("--clear", is_flag=True, help="Delete the whole cache (the folders gridrules makes in it, and the cache "
                                           "folder itself once nothing else is left there): later runs compile "
                                           "again what they need.")
@click.pass_context
def cache(ctx, prune, clear):
    """Where the cache is, what it holds and how much of it is stale; --prune or --clear frees the space.

    The cache keeps the native code compiled for each game (so that a second run compiles nothing), extension
    modules, checked rule files and the parser's tables. Anything in it may be deleted at any time. GRIDRULES_CACHE
    moves it."""
    from .cache import PARTS, TAG, cache_dir, remove, size_of, tagged, unusable

    if prune and clear:
        raise click.UsageError("give either --prune or --clear, not both")
    root = cache_dir()
    # (the folder, or the first of its parents that is there: a file there makes the folder impossible)
    there = next((p for p in (root, *root.parents) if p.exists()), None)
    if there is not None and not there.is_dir():
        why = "it is not a folder" if there == root else f"`{there}` is a file, not a folder"
        raise UsageError(unusable(why) + ": point GRIDRULES_CACHE at a folder (or unset it)")
    numba_folder = Path(os.environ.get("NUMBA_CACHE_DIR") or root / "numba")
    own_numba = numba_folder.resolve() == (root / "numba").resolve()
    if not root.exists():  # (a report makes no folder: the first run that caches something does)
        click.echo(f"nothing to delete: {root} is not there" if prune or clear else
                   f"{root}: nothing cached yet (the folder is made by the first run that needs it)")
        _numba_elsewhere(numba_folder, own_numba)
        ctx.exit(EXIT_OK)
    if (prune or clear) and not tagged(root):
        raise UsageError(f"`{root}` (GRIDRULES_CACHE) holds no {TAG}: gridrules did not make this folder, so "
                         "`cache --prune` and `--clear` delete nothing in it (is GRIDRULES_CACHE set to a folder of "
                         "yours? gridrules makes and tags its own when the folder is not there yet)")
    from .compiled import import_numba
    problems: list[str] = []
    if clear:  # (only the folders gridrules makes: GRIDRULES_CACHE may name a folder that holds other things too)
        freed, files, problems = remove([root / name for name in PARTS if (root / name).exists()])
        if root.exists() and [p.name for p in root.iterdir()] == [TAG]:  # (nothing else left: the folder goes)
            remove([root / TAG])
            try:
                root.rmdir()
            except OSError:
                pass
        where = f"{root}" if not root.exists() else f"the cache in {root} (files not gridrules' are left there)"
        click.echo(f"deleted {where}: {_size(freed)} in {files:,} files")
    else:
        import_numba()  # (stale_files asks numba how it names its cache folders)
        from .compiled.stale import stale_files

        stale = stale_files(root / "numba" if own_numba else None)
        if prune:
            freed, files, problems = remove(stale)
            click.echo(f"deleted {files:,} stale files in {root}: {_size(freed)}")
        else:
            parts = {name: size_of(root / name) for name in PARTS if (root / name).exists()}  # (nothing else there)
            total, count = sum(b for b, _ in parts.values()), sum(f for _, f in parts.values())
            click.echo(f"{root}: {_size(total)} in {count:,} files")
            for name, (size, _) in parts.items():
                click.echo(f"  {name + '/':<12} {PARTS[name]:<36} {_size(size):>10}")
            sizes = [size_of(p) for p in stale]
            click.echo(f"stale: {_size(sum(b for b, _ in sizes))} in {sum(f for _, f in sizes):,} files that this "
                       "gridrules will not read again (`gridrules cache --prune` deletes them)")
    _numba_elsewhere(numba_folder, own_numba)
    for problem in problems:
        _error(f"could not delete {problem}")
    ctx.exit(EXIT_USAGE if problems else EXIT_OK)
