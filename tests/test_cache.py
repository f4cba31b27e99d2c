"""The cache directory (GRIDRULES_CACHE): parser tables are written there, and a damaged file is rebuilt."""
from __future__ import annotations

import os
import subprocess
import sys

from helpers import ROOT

VALIDATE = [sys.executable, "-m", "gridrules", "validate", str(ROOT / "rulesets/floodit/floodit.grl")]


def test_parser_tables_are_cached_and_a_damaged_file_is_rebuilt(tmp_path):
    env = dict(os.environ, GRIDRULES_CACHE=str(tmp_path))
    first = subprocess.run(VALIDATE, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    (tables,) = (tmp_path / "parser").glob("*.lark")
    whole = tables.read_bytes()
    tables.write_bytes(whole[: len(whole) // 3])  # e.g. two processes raced, or the disk filled up
    again = subprocess.run(VALIDATE, capture_output=True, text=True, env=env)
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout == first.stdout
    assert len(tables.read_bytes()) > len(whole) // 2  # written again in full
