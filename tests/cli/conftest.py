"""Fixtures for the CLI tests: an in-process runner and small rule files written to tmp_path."""
from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import BLOCK, WALK, Run


@pytest.fixture
def run():
    return Run()


@pytest.fixture
def write(tmp_path):
    """write(name, text or bytes) -> the path of a new file in tmp_path."""

    def _write(name: str, content) -> Path:
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        return p

    return _write


@pytest.fixture
def walk(write):
    return write("walk.grl", WALK)


@pytest.fixture
def block(write):
    return write("block.grl", BLOCK)
