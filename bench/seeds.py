"""The seeds' reference programs, extracted from ../shared/seeds and built at benchmark time.

Never copy seed code into the project: this module reads the seed documents, cuts the program out of the
surrounding prose, strips the listing's line-number prefixes and non-breaking spaces, writes the source under
bench/.build/ (gitignored) and compiles it there, once per distinct source and flags.

    seed 000 (Drops): the Pascal listing (iterative deepening, clicking only 3s and 4s; reads `drop.in`,
        writes `drop.out` in the current directory).
    seed 001 (Flood-It, HDU 4127): the first of its two listings, the C one (IDA*; reads HDU input on stdin).
        Its board limit `#define MAXN 8` may be raised at build time (text substitution) for larger boards.
    seed 002 (Bloxorz): the Pascal listing (BFS; reads `bloxorz.in`, writes `bloxorz.out` in the current
        directory; `{$I+,Q+,R+,S+}`, maps up to `maxn=15`, at most `maxq=20000` states). Both limits may be
        raised at build time for a second, clearly labelled build.

`python -m bench.seeds` builds everything it can and says what is missing.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEEDS = (ROOT / ".." / "shared" / "seeds").resolve()
BUILD = HERE / ".build"

NBSP = "\u00a0"


class SeedError(Exception):
    """A seed program could not be found, extracted or built: the comparison is skipped with this message."""


def seed_file(number: int) -> Path:
    found = sorted(SEEDS.glob(f"{number:03d}_*.txt"))
    if not found:
        raise SeedError(f"seed {number:03d} not found in {SEEDS} (the benchmarks need ../shared beside the project)")
    return found[0]


def _clean(line: str) -> str:
    return line.replace(NBSP, " ").rstrip()


def extract_c_floodit() -> str:
    """Seed 001's first program (the C one): from its first `#include` to the `}` that closes `main`."""
    lines = seed_file(1).read_text(encoding="utf-8").splitlines()
    try:
        begin = next(i for i, ln in enumerate(lines) if _clean(ln).lstrip().startswith("#include"))
    except StopIteration:
        raise SeedError("seed 001: no `#include` line: the C listing was not found") from None
    out, depth, in_main = [], 0, False
    for ln in lines[begin:]:
        text = _clean(ln)
        out.append(text)
        code = text.split("//")[0]
        if re.match(r"\s*int\s+main\s*\(", code):
            in_main = True
        if in_main:
            depth += code.count("{") - code.count("}")
            if depth == 0 and "}" in code:
                return "\n".join(out) + "\n"
    raise SeedError("seed 001: the C listing's `main` does not end")


def extract_pascal_bloxorz() -> str:
    """Seed 002's Pascal listing."""
    return _numbered_listing(2)


def extract_pascal_drops() -> str:
    """Seed 000's Pascal listing."""
    return _numbered_listing(0)


def _numbered_listing(seed: int) -> str:
    """A seed's Pascal listing: the run of lines numbered 1, 2, 3, ... with the numbers stripped."""
    lines = seed_file(seed).read_text(encoding="utf-8").splitlines()
    for i in range(len(lines) - 1):
        if re.match(r"\s*1\s", _clean(lines[i])) and re.match(r"\s*2(\s|$)", _clean(lines[i + 1])):
            break
    else:
        raise SeedError(f"seed {seed:03d}: no numbered listing (lines `1 ...`, `2 ...`) was found")
    out, expect = [], 1
    for ln in lines[i:]:
        m = re.match(r"\s*(\d+)(?:\s(.*))?$", _clean(ln))
        if not m or int(m.group(1)) != expect:
            break
        out.append((m.group(2) or "").strip())
        expect += 1
    text = "\n".join(out) + "\n"
    if "program" not in text.lower() and "begin" not in text.lower():
        raise SeedError(f"seed {seed:03d}: the numbered listing is not a Pascal program")
    return text


@dataclass(frozen=True)
class Program:
    """A built reference program."""

    name: str
    exe: Path
    source: Path
    note: str  # how it was built, e.g. "unchanged" or "MAXN raised to 14"


def _build(name: str, source: str, suffix: str, compiler: list[str], note: str) -> Program:
    tool = compiler[0]
    if shutil.which(tool) is None:
        hint = {"fpc": "apt-get install -y fp-compiler", "gcc": "apt-get install -y gcc"}.get(tool, "")
        raise SeedError(f"`{tool}` is not installed: skipping {name}" + (f" (install: {hint})" if hint else ""))
    key = hashlib.sha256((source + "\0" + " ".join(compiler)).encode()).hexdigest()[:12]
    folder = BUILD / f"{name}-{key}"
    exe = folder / name
    src = folder / f"{name}{suffix}"
    if exe.exists():
        return Program(name, exe, src, note)
    folder.mkdir(parents=True, exist_ok=True)
    src.write_text(source, encoding="utf-8")
    if tool == "fpc":
        cmd = compiler + [f"-o{exe.name}", src.name]
    else:
        cmd = compiler + ["-o", exe.name, src.name]
    run = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    if run.returncode != 0 or not exe.exists():
        tail = (run.stdout + run.stderr).strip().splitlines()[-8:]
        raise SeedError(f"building {name} failed ({' '.join(cmd)}):\n    " + "\n    ".join(tail))
    return Program(name, exe, src, note)


def floodit_c(maxn: int = 8) -> Program:
    """Seed 001's C program, `gcc -O2`; `maxn` > 8 raises its board limit by text substitution."""
    source = extract_c_floodit()
    note = "unchanged"
    if maxn != 8:
        new, count = re.subn(r"#define\s+MAXN\s+8\b", f"#define MAXN {maxn}", source)
        if count != 1:
            raise SeedError("seed 001: `#define MAXN 8` not found; cannot raise the board limit")
        source, note = new, f"MAXN raised from 8 to {maxn}"
    return _build(f"floodit-seed001-n{maxn}", source, ".c", ["gcc", "-O2", "-w"], note)


def _pascal_consts(seed: int, source: str, changes) -> tuple[str, list[str]]:
    """A Pascal listing with constants changed, (name, new value, the listing's value) each (None or the listing's
    value: left as it is), and a note per change."""
    notes = []
    for const, value, default in changes:
        if value is None or value == default:
            continue
        source, count = re.subn(rf"\b{const}\s*=\s*{default}\s*;", f"{const}={value};", source)
        if count != 1:
            raise SeedError(f"seed {seed:03d}: `{const}={default};` not found; cannot change it")
        notes.append(f"{const} {default} -> {value}")
    return source, notes


def bloxorz_pascal(maxn: int | None = None, maxq: int | None = None) -> Program:
    """Seed 002's Pascal program, `fpc -O2`; maxn/maxq raise its map size (15) and state cap (20000)."""
    source, notes = _pascal_consts(2, extract_pascal_bloxorz(), (("maxn", maxn, 15), ("maxq", maxq, 20000)))
    note = ", ".join(notes) if notes else "unchanged"
    tag = "" if not notes else f"-n{maxn or 15}-q{maxq or 20000}"
    return _build(f"bloxorz-seed002{tag}", source, ".pas", ["fpc", "-O2", "-v0"], note)


def drops_pascal(max_depth: int | None = None) -> Program:
    """Seed 000's Pascal program, `fpc -O2`, unchanged: iterative deepening over clicks of 3s and 4s; reads
    `drop.in` (6 lines of 6 sizes) and writes `drop.out` (each click `row col`, 1-based, with the board after
    it; the last click alone) in the current directory. `max_depth` lowers its last depth (its `m`, 20): with 7
    it stops after finishing depth 7, writing its `WARNING` line when no line of 7 clicks or fewer was found."""
    source, notes = _pascal_consts(0, extract_pascal_drops(), (("m", max_depth, 20),))
    if not notes:
        return _build("drops-seed000", source, ".pas", ["fpc", "-O2", "-v0"], "unchanged")
    return _build(f"drops-seed000-m{max_depth}", source, ".pas", ["fpc", "-O2", "-v0"], notes[0])


def main() -> int:
    ok = True
    for label, make in (("seed 000 Pascal (unchanged)", drops_pascal),("seed 001 C (unchanged)", lambda: floodit_c(8)),
                        ("seed 001 C (MAXN 14)", lambda: floodit_c(14)),
                        ("seed 002 Pascal (unchanged)", lambda: bloxorz_pascal()),
                        ("seed 002 Pascal (maxn 64, maxq 8M)", lambda: bloxorz_pascal(64, 8_000_000))):
        try:
            prog = make()
            print(f"{label}: {prog.exe}")
        except SeedError as err:
            ok = False
            print(f"{label}: {err}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
