"""The cache directory gridrules owns: GRIDRULES_CACHE, else $XDG_CACHE_HOME/gridrules, else ~/.cache/gridrules.

It holds the parser tables of the rule language and the compiled backend's generated modules and machine code;
everything in it can be deleted at any time and is rebuilt on demand.
"""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    root = os.environ.get("GRIDRULES_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "gridrules")
    return Path(root)
