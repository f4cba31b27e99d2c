"""Fuzz the front end: broken variants of the bundled rule files must give a located error, never a crash.

Each example takes a bundled `.grl` file and applies a few random edits of the kinds people make (delete,
duplicate or swap lines; delete, duplicate or replace a token by another word of the file; insert a
character). `compile_rules` must then either succeed or raise a GridrulesError whose rendering names
`file:line:col:`; any other exception is a bug in the parser or the checker.
"""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridrules.api import compile_rules
from gridrules.errors import Diagnostic, ErrorList, GridrulesError

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "rulesets").glob("*/*.grl"))
TEXTS = [p.read_text() for p in BUNDLED]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+|\.\.|->|[=!<>]=|\S")
WORDS = sorted({w for t in TEXTS for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*|\d+", t)})
CHARS = list("()[]:=,.+-*/%<>!|&#'\"{}\\\t ") + ["\n", "..", "->", "0", "-1"]

EDITS = ("delete line", "duplicate line", "swap lines", "insert char", "replace token", "delete token",
         "duplicate token")


@st.composite
def broken_rules(draw):
    text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(EDITS))
        i = draw(st.integers(0, len(lines) - 1))
        if edit == "delete line" and len(lines) > 1:
            del lines[i]
        elif edit == "duplicate line":
            lines.insert(i, lines[i])
        elif edit == "swap lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif edit == "insert char":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(st.sampled_from(CHARS)) + lines[i][at:]
        else:
            tokens = list(TOKEN.finditer(lines[i]))
            if not tokens:
                continue
            m = draw(st.sampled_from(tokens))
            new = {"replace token": lambda: draw(st.sampled_from(WORDS)), "delete token": lambda: "",
                   "duplicate token": lambda: m.group(0) + " " + m.group(0)}[edit]()
            lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
    return "\n".join(lines)


def test_bundled_rule_files_compile():
    assert BUNDLED, "no bundled rule files found"
    for path, text in zip(BUNDLED, TEXTS):
        compile_rules(text, str(path))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_rules())
def test_broken_rules_give_located_errors(text):
    try:
        compile_rules(text, "fuzz.grl")
    except GridrulesError as err:
        rendered = err.render()
        assert "Traceback" not in rendered
        for d in err.errors if isinstance(err, ErrorList) else [err]:
            assert isinstance(d, Diagnostic) and d.span is not None, d
            assert d.render().startswith(f"fuzz.grl:{d.span.line}:{d.span.col}: ")
