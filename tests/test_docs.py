"""Every example in docs/language.md runs: rule files compile, levels solve to the stated answer.

The conventions (also described at the top of docs/language.md):

* A ```grl block is a complete rule file. It must compile without errors or warnings. A ```yaml block is a
  complete rule file in the YAML form, with the same rules.
* A ```grl-fragment block is a piece of a rule file; it is shown, not run.
* A ```level block directly after a ```grl block (nothing but blank lines between) is a level for it.
* An HTML comment `<!-- expect: CLAUSE; CLAUSE; ... -->` directly after the level (or after another expect
  comment) is one run of that level. Several comments are several runs (for instance with other parameters).
  Directly after a ```grl block with no level, it states what compiling the file gives.

Clauses of an expectation:
  cost N[, N ...]       solved, at this cost (one number per level in the file)
  unsolvable            the search proves there is no solution (within the level's `limit`)
  moves M M ...         the moves of the solution bfs finds (one level), separated by blanks
  param NAME=VALUE      a parameter override, as `--param NAME=VALUE` on the command line (repeatable)
  format NAME           force the level format instead of detecting it
  words N               the packed state has N 64-bit words
  score N               solved with this score, proven best (a game with a `score`)
  solver NAME           solve with this algorithm instead of bfs (anytime for a game with a `score`)
  heuristic NAME        use this heuristic (the solver is then told whether it is admissible)
  error "TEXT"          compiling fails with a message containing TEXT
  warning "TEXT"        compiling warns with a message containing TEXT
  level-error "TEXT"    loading the level fails with a message containing TEXT
  runtime-error "TEXT"  solving stops with a rule error containing TEXT
  twin GAME             (after a rule file) it parses to the same syntax tree as the page's first ```grl file
                        of game GAME

Whenever a game has admissible heuristics, a solved run is also solved with A*, which must find the same cost:
that checks the documentation's claims of admissibility on its own examples.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import solvers
from gridrules import api
from gridrules.api import parse_rules
from gridrules.errors import ErrorList, GridrulesError, LevelError, RuleRuntimeError
from gridrules.syntax.yaml_form import canonical

DOCS = Path(__file__).resolve().parents[1] / "docs"
LANGUAGE = DOCS / "language.md"

_TOKEN = re.compile(
    r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```[ \t]*$"  # a fenced block
    r"|^<!--[ \t]*expect:(?P<expect>.*?)-->",  # an expectation, at the start of a line
    re.M | re.S,
)


@dataclass
class Run:
    clauses: list[tuple[str, str]]
    line: int


@dataclass
class Example:
    rules: str
    line: int
    lang: str = "grl"
    level: str | None = None
    runs: list[Run] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"line{self.line}-{self.game or 'nogame'}"

    @property
    def game(self) -> str | None:
        m = re.search(r"^game\s*:?\s*(\w+)", self.rules, re.M)
        return m.group(1) if m else None

    @property
    def suffix(self) -> str:
        return ".yaml" if self.lang == "yaml" else ".grl"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _clauses(text: str, line: int) -> list[tuple[str, str]]:
    out = []
    for part in _split(text):
        key, _, rest = part.strip().partition(" ")
        if key not in ("cost", "score", "unsolvable", "moves", "param", "format", "words", "solver", "heuristic", "error",
                       "warning", "level-error", "runtime-error", "twin"):
            raise AssertionError(f"docs/language.md:{line}: unknown expectation clause `{part.strip()}`")
        rest = rest.strip()
        if key in ("error", "warning", "level-error", "runtime-error"):
            rest = shlex.split(rest)[0]
        out.append((key, rest))
    return out


def _split(text: str) -> list[str]:
    """Split on `;` outside double quotes."""
    parts, cur, quoted = [], "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for p in parts if p.strip()]


def parse_doc(text: str) -> tuple[list[Example], list[str]]:
    """The examples of a markdown text, and the problems of its layout (orphan levels, missing expectations)."""
    examples: list[Example] = []
    problems: list[str] = []
    last_end = 0
    open_ex: Example | None = None  # the example later blocks may attach to
    stage = None  # "rules" | "level" | "expect": what the open example last received
    for m in _TOKEN.finditer(text):
        attached = not text[last_end:m.start()].strip()
        line = _line(text, m.start())
        last_end = m.end()
        if m.group("expect") is not None:
            if open_ex is None or not attached or stage is None:
                problems.append(f"line {line}: an expectation that follows no ```grl or ```level block")
                continue
            open_ex.runs.append(Run(_clauses(m.group("expect"), line), line))
            stage = "expect"
            continue
        lang, body = m.group("lang"), m.group("body")
        if lang in ("grl", "yaml"):
            if open_ex is not None and open_ex.level is not None and not open_ex.runs:
                problems.append(f"line {open_ex.line}: a level with no `<!-- expect: ... -->` after it")
            open_ex = Example(body, line, lang)
            examples.append(open_ex)
            stage = "rules"
            continue
        if lang == "level":
            if open_ex is None or not attached or stage != "rules":
                problems.append(f"line {line}: a ```level block that does not directly follow a ```grl block")
                open_ex, stage = None, None
                continue
            open_ex.level = body
            stage = "level"
            continue
        stage = None  # any other block ends the example
    if open_ex is not None and open_ex.level is not None and not open_ex.runs:
        problems.append(f"line {open_ex.line}: a level with no `<!-- expect: ... -->` after it")
    return examples, problems


DOC_TEXT = LANGUAGE.read_text(encoding="utf-8") if LANGUAGE.exists() else ""
EXAMPLES, PROBLEMS = parse_doc(DOC_TEXT)


def test_language_reference_exists():
    assert LANGUAGE.exists(), "docs/language.md is missing"
    assert (DOCS / "README.md").exists(), "docs/README.md is missing"


def test_examples_are_well_formed():
    assert not PROBLEMS, "\n".join(PROBLEMS)


def test_there_are_enough_solved_examples():
    solved = [ex for ex in EXAMPLES if ex.level is not None and any(k == "cost" for r in ex.runs for k, _ in r.clauses)]
    assert len(solved) >= 8, f"only {len(solved)} solved examples"


def _one(clauses, key):
    vals = [v for k, v in clauses if k == key]
    return vals[-1] if vals else None


def _compile(ex: Example, tmp_path: Path):
    rule_path = tmp_path / f"{ex.id}{ex.suffix}"
    rule_path.write_text(ex.rules, encoding="utf-8")
    return rule_path


def _check_compile(ex: Example, rule_path: Path):
    """Compile; apply compile-time expectations. Returns the game or None when an error was expected."""
    compile_runs = [r for r in ex.runs if ex.level is None]
    want_error = [v for r in compile_runs for k, v in r.clauses if k == "error"]
    want_warning = [v for r in compile_runs for k, v in r.clauses if k == "warning"]
    try:
        game, warnings = api.compile_rules(ex.rules, str(rule_path))
    except (ErrorList, GridrulesError) as err:
        if want_error:
            rendered = err.render()
            for w in want_error:
                assert w in rendered, f"expected an error containing {w!r}, got:\n{rendered}"
            return None
        raise AssertionError(f"docs/language.md:{ex.line}: example does not compile:\n{err.render()}") from None
    assert not want_error, f"docs/language.md:{ex.line}: expected an error containing {want_error}, but it compiled"
    for twin in [v for r in ex.runs for k, v in r.clauses if k == "twin"]:
        first = next((e for e in EXAMPLES if e.lang == "grl" and e.game == twin), None)
        assert first is not None, f"docs/language.md:{ex.line}: no ```grl example of game {twin!r} on the page"
        assert canonical(parse_rules(ex.rules, str(rule_path))) == canonical(parse_rules(first.rules, "twin.grl")), \
            f"docs/language.md:{ex.line}: not the same syntax tree as the `{twin}` example at line {first.line}"
    rendered = "\n".join(w.render() for w in warnings)
    for w in want_warning:
        assert w in rendered, f"expected a warning containing {w!r}, got:\n{rendered or 'no warnings'}"
    if not want_warning:
        assert not warnings, f"docs/language.md:{ex.line}: example compiles with warnings:\n{rendered}"
    return game


def _solve(ex: Example, run: Run, rule_path: Path, level_path: Path):
    c = run.clauses
    where = f"docs/language.md:{run.line}"
    params = [v for k, v in c if k == "param"]
    level_error, runtime_error = _one(c, "level-error"), _one(c, "runtime-error")
    try:
        insts = api.load(str(rule_path), str(level_path), params, _one(c, "format"))
    except LevelError as err:
        assert level_error, f"{where}: the level does not load:\n{err.render()}"
        assert level_error in err.render(), f"{where}: expected {level_error!r} in:\n{err.render()}"
        return
    assert not level_error, f"{where}: expected the level to be rejected ({level_error!r}), but it loaded"
    costs = []
    for inst in insts:
        # bfs unless told (A* is checked against it below); a scored game as the command line solves it
        algorithm = _one(c, "solver") or (None if inst.game.score is not None else "bfs")
        algorithm, heuristic = api.search_plan(inst.game, algorithm, _one(c, "heuristic"))
        system = api.system(inst, "reference", heuristic=heuristic)
        budget = solvers.Budget(max_cost=inst.limit, admissible=system.admissible)
        try:
            sol = solvers.solve(system, algorithm, budget)
        except RuleRuntimeError as err:
            assert runtime_error, f"{where}: solving stopped with a rule error:\n{err.render()}"
            assert runtime_error in err.render(), f"{where}: expected {runtime_error!r} in:\n{err.render()}"
            return
        assert not runtime_error, f"{where}: expected a rule error ({runtime_error!r}), but the search ran"
        if _one(c, "words") is not None:
            assert inst.layout.words == int(_one(c, "words")), f"{where}: the state has {inst.layout.words} words"
        if any(k == "unsolvable" for k, _ in c):
            assert sol.status == solvers.UNSOLVABLE, f"{where}: expected unsolvable, got {sol.status} {sol.moves}"
            continue
        assert sol.status == solvers.SOLVED, f"{where}: expected a solution, got {sol.status}"
        costs.append(sol.cost)
        if _one(c, "score") is not None:
            assert (sol.score, sol.optimal) == (int(_one(c, "score")), True), \
                f"{where}: score {sol.score}, {'proven' if sol.optimal else 'not proven'} best"
        if _one(c, "moves") is not None:
            assert " ".join(sol.moves) == " ".join(_one(c, "moves").split()), \
                f"{where}: the solution is {' '.join(sol.moves)}"
        # every solution replays, and admissible heuristics agree with breadth-first search
        state = system.initial()
        for mv in sol.moves:
            state = system.apply(state, mv)
            assert state is not None, f"{where}: move {mv} of the solution does not replay"
        assert system.is_goal(state)
        if heuristic is None and any(h.admissible for h in inst.game.heuristics) and algorithm == "bfs":
            again = solvers.solve(system, "astar", budget)
            assert again.cost == sol.cost, f"{where}: A* with the admissible heuristics finds cost {again.cost}"
    want = _one(c, "cost")
    if want is not None:
        assert costs == [int(x) for x in want.split(",")], f"{where}: solved at cost {costs}"


@pytest.mark.parametrize("ex", EXAMPLES, ids=[ex.id for ex in EXAMPLES])
def test_example(ex: Example, tmp_path: Path):
    rule_path = _compile(ex, tmp_path)
    game = _check_compile(ex, rule_path)
    if game is None or ex.level is None:
        return
    level_path = tmp_path / "level.txt"
    level_path.write_text(ex.level, encoding="utf-8")
    for run in ex.runs:
        _solve(ex, run, rule_path, level_path)


def test_parse_doc_conventions():
    """The extractor itself: attachment by adjacency, orphans reported."""
    text = (
        "```grl\ngame a\n```\n\n```level\n.\n```\n<!-- expect: cost 1; param n=2 -->\n<!-- expect: cost 2 -->\n"
        "text\n```level\n.\n```\n"
        "```grl\ngame b\n```\n<!-- expect: error \"no goal\" -->\n"
        "```grl-fragment\nx\n```\n"
    )
    examples, problems = parse_doc(text)
    assert [e.id for e in examples] == ["line1-a", "line14-b"]
    assert examples[0].level == ".\n"
    assert [r.clauses for r in examples[0].runs] == [[("cost", "1"), ("param", "n=2")], [("cost", "2")]]
    assert examples[1].runs[0].clauses == [("error", "no goal")]
    assert len(problems) == 1 and "does not directly follow" in problems[0]
