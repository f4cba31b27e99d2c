"""One exception hierarchy for everything a user can get wrong; each error knows where it happened.

Errors print as ``file:line:col: message`` followed by the source line and a caret, like a compiler.
Exit codes (the CLI's contract): 1 check failed / proved unsolvable, 2 usage or input error.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Source:
    """A text a user gave us (a rule file, a level file, a command-line value)."""

    path: str
    text: str = field(repr=False, compare=False)

    def line_text(self, line: int) -> str:
        lines = self.text.split("\n")  # like the parser and the level readers: not on \f, \v or \u2028
        return lines[line - 1].rstrip("\r") if 1 <= line <= len(lines) else ""


@dataclass(frozen=True)
class Span:
    source: Source
    line: int  # 1-based
    col: int  # 1-based
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.source.path}:{self.line}:{self.col}"

    def shifted(self, source: Source, dline: int, dcol: int, first_line_only: bool) -> "Span":
        """This span, read from a snippet embedded in `source` (YAML strings): move it to its true place."""
        col = self.col + (dcol if self.line == 1 or not first_line_only else 0)
        end_col = self.end_col + (dcol if self.end_line == 1 or not first_line_only else 0)
        return Span(source, self.line + dline, col, self.end_line + dline, end_col)


class GridrulesError(Exception):
    """Base of every error meant for the user; never shown with a traceback."""

    exit_code = 2

    def render(self) -> str:
        return str(self)


EXCERPT = 160  # the most characters of a source line an error quotes


class Diagnostic(GridrulesError):
    """One located message: ``file:line:col: [warning: ]message``, the source line and a caret."""

    def __init__(self, message: str, span: Span | None, hint: str | None = None, warning: bool = False):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.warning = warning

    def render(self) -> str:
        kind = "warning: " if self.warning else ""
        if self.span is None:
            head = f"{kind}{self.message}"
            return head + (f"\n  hint: {self.hint}" if self.hint else "")
        out = [f"{self.span}: {kind}{self.message}"]
        text = self.span.source.line_text(self.span.line)
        if text.strip():  # an empty file or line has nothing to point at
            # (tabs and control characters, a lone CR say, as blanks: one column each, and none moves the cursor)
            shown = "".join(ch if ch.isprintable() else " " for ch in text)
            first, width = self.span.col - 1, 1
            if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                width = self.span.end_col - self.span.col
            if len(shown) > EXCERPT:  # (a long line, a generated one say: the part around the place, marked cut)
                start = max(0, min(first - EXCERPT // 4, len(shown) - EXCERPT))
                end = start + EXCERPT
                pre, post = "..." if start else "", "..." if end < len(shown) else ""
                shown = pre + shown[start:end] + post
                width = max(1, min(width, end - first))
                first += len(pre) - start
            out.append("  " + shown)
            out.append("  " + " " * first + "^" * width)
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


class RuleError(Diagnostic):
    """A rule file is wrong (syntax or meaning)."""


class LevelError(Diagnostic):
    """A level file is wrong."""


class RuleRuntimeError(Diagnostic):
    """A rule did something impossible while running (e.g. stored an off-board cell)."""


class ErrorList(GridrulesError):
    """Several diagnostics found in one pass; rendered one after another."""

    def __init__(self, errors: list[Diagnostic]):
        super().__init__("; ".join(e.message for e in errors))
        self.errors = errors

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)


class UsageError(GridrulesError):
    """A command-line argument or file the user named is unusable."""


class OutOfMemory(GridrulesError):
    """The machine's memory ran out (a MemoryError): a budget the search could not stay within, not a bug."""

    exit_code = 3

    def __init__(self):
        super().__init__("out of memory: the search outgrew this machine's memory before it finished; "
                         "`--max-states N` stops a search at N states, with the best solution found so far and "
                         "the least cost it proved")


def closest(name: str, candidates) -> str | None:
    """The candidate most like `name`, if any is like enough. A name that is numbers between fixed words (a cell
    `1,1`, a pair `1,1-1,9`) gets the candidate written alike whose numbers are nearest (the least sum of their
    differences; of those as near, the first in the candidates' order, or in sorted order where they are a set):
    compared as characters, `1,1` on a Drops board whose corner is empty was nearest `5,1`, not the cell beside
    it. Anything else is compared as text."""
    import difflib

    ordered = sorted(set(candidates))
    words, numbers = _numbered(name)
    if numbers:
        listed = ordered if isinstance(candidates, (set, frozenset)) else list(dict.fromkeys(candidates))
        alike = [(sum(abs(a - b) for a, b in zip(numbers, theirs)), k, c)
                 for k, c in enumerate(listed) for w, theirs in (_numbered(c),) if w == words]
        if alike:
            return min(alike)[2]
    close = difflib.get_close_matches(name, ordered, n=1, cutoff=0.6)
    return close[0] if close else None


def _numbered(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The words between a text's numbers, and the numbers: `1,1-3,4` -> (('', ',', '-', ',', ''), (1, 1, 3, 4))."""
    parts = re.split(r"(\d+)", text)
    return tuple(parts[0::2]), tuple(int(x) for x in parts[1::2])


def shown_char(ch: str) -> str:
    """A character as a message quotes it: itself when printable, else its escape (a tab, a lone CR, a BOM, a
    no-break or zero-width space: `\\t`, `\\r`, `\\ufeff`, `\\xa0`, `\\u200b`), which a reader can see and search for."""
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode()


def counted(n: int, word: str) -> str:
    """`1 move`, `2 moves`: a count in a message."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def did_you_mean(name: str, candidates) -> str | None:
    close = closest(name, candidates)
    return f"did you mean `{close}`?" if close else None
