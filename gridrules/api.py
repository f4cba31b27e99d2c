"""The front door: load a rule file (DSL or YAML), read levels, build instances and transition systems."""
from __future__ import annotations

import functools
import hashlib
import pickle
import sys
from pathlib import Path

from . import __version__, ir
from .cache import cache_dir, store
from .errors import LevelError, RuleError, Source, Span, UsageError
from .instance import Instance, instantiate, parse_param_value
from .levels import READERS, RawLevel

RULE_SUFFIXES = (".grl", ".yaml", ".yml")


def read_text(path: str | Path, what: str) -> str:
    """A user's file as text; a clear UsageError for missing, unreadable or binary files."""
    p = Path(path)
    try:
        found, is_dir = p.exists(), p.is_dir()
    except OSError as err:  # (Path.exists raises for ENAMETOOLONG, EACCES, ...: only a missing file is False)
        raise UsageError(f"cannot read {what} `{path}`: {err.strerror or err}") from None
    if not found:
        if p.is_symlink():  # (a link to nothing, or to itself: `exists` follows it)
            raise UsageError(f"{what} `{path}` is a symbolic link to nothing that can be read (a file not there, "
                             "or a loop of links)")
        raise UsageError(f"{what} `{path}` does not exist")
    if is_dir:
        raise UsageError(f"{what} `{path}` is a directory, not a file")
    if p.is_char_device() or p.is_block_device():  # (/dev/zero would be read until memory runs out)
        raise UsageError(f"{what} `{path}` is a device, not a file")
    try:
        data = p.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {what} `{path}`: {err.strerror}") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # (a byte-order mark of UTF-16 or -32: not "binary", its NULs)
        raise UsageError(f"{what} `{path}` is UTF-16 or UTF-32 text (it starts with their byte-order mark); "
                         "gridrules reads UTF-8 (an editor can save the file as UTF-8)")
    if b"\0" in data:
        if not _stray_nul(data):
            raise UsageError(f"{what} `{path}` is a binary file, not text")
        line, col = _place(data, data.index(b"\0"))  # (an editor may not show it: say where it is)
        raise UsageError(f"{what} `{path}` holds a NUL byte at line {line}, column {col}: text has none")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:  # (the text before the bad byte decodes: say where it is, as for a NUL)
        start = _first_bad_byte(data)
        line, col = _place(data, start)
        raise UsageError(f"{what} `{path}` is not UTF-8 text: byte 0x{data[start]:02X} at line {line}, column "
                         f"{col} is not UTF-8 (an editor can save the file as UTF-8)") from None


def _place(data: bytes, at: int) -> tuple[int, int]:
    """The line and column (in characters, from 1) of byte `at`, whose text before it decodes."""
    head = data[:at].decode("utf-8-sig")
    return head.count("\n") + 1, len(head) - head.rfind("\n")


def _first_bad_byte(data: bytes) -> int:
    """Where UTF-8 decoding fails, counted in the whole file (utf-8-sig counts after a byte-order mark)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return err.start
    raise AssertionError("decodes")


def _stray_nul(data: bytes) -> bool:
    """Whether bytes with a NUL in them are text all the same: UTF-8 without it, and no other control
    characters than tabs and line ends (a binary file has them by the dozen)."""
    try:
        text = data.replace(b"\0", b"").decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return data.count(b"\0") <= 3 and not any(ord(ch) < 32 and ch not in "\t\n\r\f" for ch in text)


def parse_rules(text: str, path: str):
    """Text -> AST, by the file's form: YAML when the name ends in .yaml/.yml, the DSL otherwise."""
    from .syntax import parse_dsl, parse_yaml

    if path.endswith((".yaml", ".yml")):
        return parse_yaml(text, path)
    return parse_dsl(text, path)


def compile_rules(text: str, path: str = "<rules>") -> tuple[ir.Game, list]:
    """Parse and check a rule file: (game, warnings). Raises RuleError / ErrorList with file:line:col."""
    from .check import check  # (with its AST classes: a cached game needs neither, see checked_game)

    from lark.exceptions import VisitError

    try:
        return check(parse_rules(text, path), path)
    except RecursionError as err:  # (in either form, reading or checking)
        raise _too_deep(err, text, path) from None
    except VisitError as err:  # (lark wraps what its tree transformer's callbacks raise)
        if not isinstance(err.orig_exc, RecursionError):
            raise
        raise _too_deep(err.orig_exc, text, path) from None


def _too_deep(err: RecursionError, text: str, path: str) -> RuleError:
    return RuleError("the rules nest too deeply to read (a very long expression, blocks nested very deep, or a "
                     "long chain of defs calling each other)",
                     _deep_span(err, text, path) or Span(Source(path, text), 1, 1, 1, 2), "split it with `let`s or defs")


def _deep_span(err: BaseException, text: str, path: str) -> Span | None:
    """Where the reading was when it recursed too deeply: the line on which the last-starting node of this file
    in the innermost frame that holds one starts (the deep part's: which of its nodes the stack holds depends on
    where it failed; frames further out may hold other parts of the file, e.g. a loop's last declaration), from
    its first character to its last."""
    starts = []  # (line, column) of the nodes in the innermost frame with any: our AST's, and parse trees
    shift = 0  # (lines: the parse trees of DSL text in a YAML file count from its snippet, see parse._Build)
    tb = err.__traceback__
    while tb is not None:
        here = []
        for value in list(tb.tb_frame.f_locals.values()):
            span = getattr(value, "span", None)
            if isinstance(span, Span) and span.source.path == path:
                here.append((span.line, span.col))
            meta = getattr(value, "meta", None)  # (a lark Tree: its nodes are not built yet)
            if getattr(value, "data", None) is not None and getattr(meta, "line", None) is not None:
                here.append((meta.line + shift, meta.column))
            if isinstance(getattr(value, "shift", None), tuple) and getattr(value, "src", None) is not None:
                shift = value.shift[0]  # (the transformer building a snippet: its trees are in frames below)
        starts = here or starts
        tb = tb.tb_next
    if not starts:
        return None
    lines = text.splitlines()
    line = top = max(starts)[0]
    # (blocks nested deep: where the stack ran out depends on how deep it was to begin with, so the error names
    # the outermost of the nested statements, the top of the staircase of indentation that leads down to it; a
    # long expression a few blocks deep keeps its own line)
    steps = 0
    while True:
        above = next((k for k in range(top - 1, 0, -1) if lines[k - 1].strip()
                      and not lines[k - 1].lstrip().startswith("#")), None)
        if (above is None or not 0 < _indent(lines[above - 1]) < _indent(lines[top - 1])
                or lines[above - 1].rstrip().endswith(("|", "|-", ">", ">-"))):  # (a YAML block of DSL text)
            break
        top, steps = above, steps + 1
    if steps >= 16:
        line = top
    words = lines[line - 1]
    return Span(Source(path, text), line, len(words) - len(words.lstrip()) + 1, line, len(words.rstrip()) + 1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def load_rules(name_or_path: str) -> ir.Game:
    """A bundled ruleset by name (`floodit`) or a rule file by path."""
    path = resolve_ruleset(name_or_path)
    return checked_game(read_text(path, "rule file"), str(path))


def checked_game(text: str, path: str) -> ir.Game:
    """compile_rules' game, kept in the cache directory under a digest of the text, the path (its spans name it)
    and gridrules' own code: a later run unpickles it (~1 ms) instead of parsing and checking (~0.2 s, and the
    parser's and the AST's imports). Only games that check cleanly are kept, so errors are always reported."""
    key = hashlib.sha256("\0".join((path, text, _code_stamp())).encode()).hexdigest()[:32]
    file = cache_dir() / "rules" / f"{key}.pickle"
    try:
        game = pickle.loads(file.read_bytes())
    except Exception:  # (missing, or damaged: a cache entry is rebuilt whatever went wrong with it)
        game = None
    if isinstance(game, ir.Game):
        return game
    game = compile_rules(text, path)[0]
    try:
        data = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
    except RecursionError:  # (rules that nest deeper than pickle goes: checked again next time, not kept)
        return game
    store(file, data)
    return game


@functools.cache
def _code_stamp() -> str:
    """What a checked game depends on besides its text: the size and time of every source file of gridrules
    (any edit of the front end makes a new entry; cheaper than reading them) and the versions."""
    package = Path(__file__).parent
    files = sorted(f for pattern in ("*.py", "*.lark") for f in package.rglob(pattern))
    stats = ((str(f.relative_to(package)), f.stat()) for f in files)
    return ";".join([f"gridrules {__version__}", sys.version, *(f"{n} {s.st_size} {s.st_mtime_ns}" for n, s in stats)])


def exists(p: Path, refused: bool = False) -> bool:
    """Path.exists, or `refused` where the system refuses to look the name up (a name too long, say: read_text
    then says why)."""
    try:
        return p.exists() or p.is_symlink()  # (a link to nothing is there too: read_text says what is wrong)
    except OSError:
        return refused


def resolve_ruleset(name_or_path: str) -> Path:
    from rulesets import bundled

    p = Path(name_or_path)
    if p.suffix in RULE_SUFFIXES or "/" in name_or_path or exists(p):
        return p
    found = bundled()
    if name_or_path in found:
        return found[name_or_path]
    from .errors import did_you_mean

    hint = did_you_mean(name_or_path, found)
    raise UsageError(f"no ruleset named `{name_or_path}` (bundled: {', '.join(sorted(found))})"
                     + (f"; {hint}" if hint else ""))


def detect_format(game: ir.Game, text: str, forced: str | None = None) -> ir.LevelFormat:
    """The level format: forced by the user, else the first of the rule file's formats whose reader accepts the
    text (formats with a specific shape are tried before the catch-all `grid`)."""
    if not game.formats:
        raise UsageError(f"the rules of `{game.name}` declare no level format (add a `level grid:` legend)")
    if forced is not None:
        fmt = game.format(forced)
        if fmt is None:
            raise UsageError(f"`{game.name}` does not read `{forced}` levels; it reads: "
                             + ", ".join(f.format for f in game.formats))
        return fmt
    order = sorted(game.formats, key=lambda f: list(READERS).index(f.format))
    for fmt in order:
        if READERS[fmt.format].sniff(text):
            return fmt
    return order[-1]


def read_levels(game: ir.Game, path: str, forced_format: str | None = None) -> tuple[ir.LevelFormat, list[RawLevel]]:
    text = read_text(path, "level file")
    src = Source(str(path), text)
    if not text.strip():
        raise LevelError("the level file is empty", Span(src, 1, 1, 1, 2))
    fmt = detect_format(game, text, forced_format)
    try:
        return fmt, READERS[fmt.format].read(src)
    except LevelError:
        # (`numbers` recognises any text whose first line holds numbers: an HDU 1175 file gone wrong, too)
        recognised = fmt.format not in ("grid", "numbers") and READERS[fmt.format].sniff(text)
        if forced_format is not None or recognised:
            raise
        # No format recognised the text and the last one tried could not read it: if it starts as another
        # format's files do, that format's reader says what is wrong (an HDU 4127 case that ends early, not a
        # ragged grid). Its error only: the file is not read as that format (it failed that format's sniff).
        for other in sorted(game.formats, key=lambda f: list(READERS).index(f.format)):
            reader = READERS[other.format]
            if other is not fmt and reader.looks is not None and reader.looks(text):
                try:
                    reader.read(src)
                except LevelError as err:
                    raise err from None
                # (its reader takes the numbers as a stream and read them: where its lines went wrong, then)
                wrong = reader.layout(src) if reader.layout is not None else None
                if wrong is not None:
                    raise wrong from None
        raise


def parse_params(game: ir.Game, pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--param takes NAME=VALUE, not `{pair}`")
        name, value = pair.split("=", 1)
        out[name.strip()] = parse_param_value(game, name.strip(), value)
    return out


def load(ruleset: str, level_path: str, params: list[str] | dict | None = None,
         level_format: str | None = None, every_move: bool = True) -> list[Instance]:
    """Everything at once: the instances of every level in a file. `every_move=False` sets up a level with more
    moves than a system can list, for `query`, which builds only the moves asked about."""
    game = load_rules(ruleset)
    overrides = parse_params(game, params) if isinstance(params, list) else dict(params or {})
    fmt, raws = read_levels(game, level_path, level_format)
    return [instantiate(game, raw, fmt, overrides, every_move) for raw in raws]


BACKENDS = ("compiled", "reference")


def default_algorithm(game: ir.Game, heuristic: str | None = None) -> str:
    """The search a game is solved with unless told: `anytime` for a game with a `score` (the only one that
    ranks by it), else `astar` with an admissible heuristic (or a named one), else `bfs`."""
    if game.score is not None:
        return "anytime"
    if heuristic is not None or any(h.admissible for h in game.heuristics):
        return "astar"
    return "bfs"


def level_algorithm(system, algorithm: str) -> str:
    """The game's default search (`default_algorithm`) refined for one level: `idastar` rather than `astar` when
    the level's first moves run `persists` — a path search bans the failed ones, and the rules' `deadlock` may
    read the bans; A* can do neither (Lianliankan without gravity: 199 deals of 200 decided in 1 s, A* 189) —
    or when the rules order the moves (`ranks`, `chooses`): a depth-first search follows that order, and starts
    over in random orders when it stalls, which A* cannot (Lianliankan with gravity: 200 of 200, A* 198)."""
    if algorithm != "astar":
        return algorithm
    game = system.inst.game
    if game.ranking or game.choosing:
        return "idastar"
    if (getattr(system, "persisting", False) and not getattr(system, "commuting", False)
            and any(persists for *_, persists in system.ban_successors(system.initial()))):
        return "idastar"
    return algorithm


def search_plan(game: ir.Game, algorithm: str | None, heuristic: str | None) -> tuple[str, str | None]:
    """(algorithm, heuristic) for solving a game, defaults filled in: the anytime search is guided by the rules'
    first heuristic unless one is named. A UsageError for a search that cannot answer the game's question."""
    algorithm = algorithm or default_algorithm(game, heuristic)
    if game.score is not None and algorithm != "anytime":
        raise UsageError(f"`{game.name}` ranks solutions by its score; {algorithm} finds the cheapest solution, not "
                         "the best-scored one: use --algorithm anytime")
    if algorithm == "anytime" and heuristic is None and game.heuristics:
        heuristic = game.heuristics[0].name
    return algorithm, heuristic


def system(inst: Instance, backend: str = "compiled", heuristic: str | None = None, notice=None, moves=None):
    """The instance as a TransitionSystem: `compiled` (rules lowered to native code with numba) or `reference`
    (the plain-Python oracle). notice(text) hears when the compiled backend is about to compile native code
    (slow, once per rule file and parameters). moves: only these move instances (see `query`), not all."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend `{backend}` (available: {', '.join(BACKENDS)})")
    if heuristic is not None and heuristic not in {h.name for h in inst.game.heuristics}:
        names = ", ".join(h.name for h in inst.game.heuristics) or "none"
        raise UsageError(f"`{inst.game.name}` has no heuristic `{heuristic}` (it has: {names})")
    if backend == "compiled":
        from .compiled.system import CompiledSystem

        return CompiledSystem(inst, heuristic, notice, moves)
    from .reference import ReferenceSystem

    return ReferenceSystem(inst, heuristic, moves)


def solve(system, algorithm: str = "astar", budget=None):
    """Search a system with the named algorithm: the backend's own native search where it has one (the compiled
    backend runs bfs, astar, idastar and iddfs wholly in native code), else solvers.solve, the Python search
    over the system's successors. Either way a solvers.Solution; the native searches find what the Python ones
    find (tests/helpers.native_agrees)."""
    import solvers

    native = getattr(system, "search", None)
    sol = native(algorithm, budget) if native is not None else None
    return sol if sol is not None else solvers.solve(system, algorithm, budget)


def query(inst: Instance, questions: list[tuple], backend: str = "compiled", notice=None) -> list[bool]:
    """For each tuple of move arguments (cells 0-based, as a level's `queries` hold them): is a move of some
    action taking such arguments legal in the level's first state? Only the asked moves are built, so this
    works on boards far too large to list every move of (HDU 1175's 1000 x 1000 boards)."""
    from .reference.system import interpreter, move_instance

    game = inst.game
    rules = interpreter(inst)
    kinds = [tuple(_arg_type(a) for a in q) for q in questions]
    fits = {k: [ai for ai, a in enumerate(game.actions) if tuple(dom.ty for _, dom in a.proc.params) == k]
            for k in set(kinds)}
    for k, actions in fits.items():
        if not actions:
            shown = ", ".join(str(t) for t in k)
            raise UsageError(f"no action of `{game.name}` takes ({shown}), which the queries give")
    instances: dict[str, tuple] = {}  # text -> instance: each asked move built once
    asked = []
    for q, k in zip(questions, kinds):
        texts = []
        for ai in fits[k]:
            if any(not _on_board(inst, a) for a in q):
                continue
            m = move_instance(inst, rules, ai, tuple(q))
            if m is not None:
                instances.setdefault(m[0], m)
                texts.append(m[0])
        asked.append(texts)
    legal = set()
    if instances:
        sys_ = system(inst, backend, notice=notice, moves=list(instances.values()))
        legal = set(sys_.legal_moves(sys_.initial()))
    return [any(t in legal for t in texts) for texts in asked]


def _arg_type(value) -> ir.Ty:
    if isinstance(value, tuple):
        return ir.CELL
    if isinstance(value, bool):
        return ir.BOOL
    return ir.INT


def _on_board(inst: Instance, value) -> bool:
    return not isinstance(value, tuple) or (0 <= value[0] < inst.rows and 0 <= value[1] < inst.cols)
