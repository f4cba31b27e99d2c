"""`gridrules cache`: what the cache holds, what is stale, and deleting it."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gridrules.cache import TAG, TAG_TEXT
from gridrules.compiled import system as compiled_system
from gridrules.compiled.stale import _read_folders


def _numba_folder_name(folder: Path) -> str:
    from numba.core.caching import _CacheLocator

    return _CacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache of a current generated module and a stale one (made by another gridrules: its name no longer
    matches its text), the current runtime copy and an old one, numba's machine code of each, numba's cache of a
    copy of gridrules elsewhere, and files the pruning leaves alone (an extension module, a checked rule file)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("GRIDRULES_CACHE", str(root))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root / "numba"))
    modules = root / "modules"
    modules.mkdir(parents=True)
    (root / TAG).write_bytes(TAG_TEXT)  # (as gridrules tags the cache folders it makes)
    text = "def expand():\n    return 0\n"
    current = compiled_system._module_name(text)
    (modules / f"{current}.py").write_text(text)
    (modules / "gridrules_gen_0123456789abcdef0123.py").write_text(text)
    digest = hashlib.sha256(Path(compiled_system.__file__).with_name("runtime.py").read_bytes()).hexdigest()[:20]
    (modules / f"_runtime_unrefcounted_{digest}.py").write_text("# the runtime\n")
    (modules / "_runtime_unrefcounted_00000000000000000000.py").write_text("# an old runtime\n")
    machine = root / "numba" / _numba_folder_name(modules)
    machine.mkdir(parents=True)
    for stem in (current, "gridrules_gen_0123456789abcdef0123", f"_runtime_unrefcounted_{digest}",
                 "_runtime_unrefcounted_00000000000000000000"):
        (machine / f"{stem}.expand-1.py311.nbi").write_bytes(b"i" * 100)
        (machine / f"{stem}.expand-1.py311.1.nbc").write_bytes(b"c" * 1000)
    ours = root / "numba" / _numba_folder_name(_read_folders()[1])  # (this copy's own gridrules package)
    ours.mkdir()
    (ours / "runtime.popcount-38.py311.nbi").write_bytes(b"i" * 10)
    other = root / "numba" / "compiled_0000000000000000000000000000000000000000"
    other.mkdir()
    (other / "runtime.popcount-38.py311.nbi").write_bytes(b"i" * 10_000)
    (root / "extensions").mkdir()
    (root / "extensions" / "gridrules_ext_00.so").write_bytes(b"x" * 50)
    (root / "rules").mkdir()
    (root / "rules" / "00.pickle").write_bytes(b"r" * 20)
    return root, current, digest


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != TAG}


def test_cache_reports_its_parts_and_what_is_stale(run, cache):
    root, _, _ = cache
    r = run("cache")
    assert r.code == 0, r.all
    lines = r.out.splitlines()
    assert lines[0] == f"{root}: 14.6 kB in 16 files"
    assert any(line.split()[:2] == ["numba/", "machine"] for line in lines)
    assert any(line.split()[0] == "extensions/" and line.endswith("50 bytes") for line in lines)
    # stale: the old module and the old runtime (their sources and machine code), the other copy's machine code
    assert lines[-1].startswith("stale: 12.2 kB in 7 files that this gridrules will not read again")
    assert len(_files(root)) == 16  # (nothing deleted)


def test_prune_deletes_only_what_this_gridrules_will_not_read(run, cache):
    root, current, digest = cache
    before = _files(root)
    r = run("cache", "--prune")
    assert r.code == 0, r.all
    assert r.out == f"deleted 7 stale files in {root}: 12.2 kB\n"
    gone = before - _files(root)
    machine = f"numba/{_numba_folder_name(root / 'modules')}"
    assert gone == {"modules/gridrules_gen_0123456789abcdef0123.py",
                    "modules/_runtime_unrefcounted_00000000000000000000.py",
                    f"{machine}/gridrules_gen_0123456789abcdef0123.expand-1.py311.nbi",
                    f"{machine}/gridrules_gen_0123456789abcdef0123.expand-1.py311.1.nbc",
                    f"{machine}/_runtime_unrefcounted_00000000000000000000.expand-1.py311.nbi",
                    f"{machine}/_runtime_unrefcounted_00000000000000000000.expand-1.py311.1.nbc",
                    "numba/compiled_0000000000000000000000000000000000000000/runtime.popcount-38.py311.nbi"}
    assert f"modules/{current}.py" in _files(root) and f"modules/_runtime_unrefcounted_{digest}.py" in _files(root)
    assert run("cache").out.splitlines()[-1].startswith("stale: 0 bytes in 0 files")


def test_clear_deletes_the_whole_cache(run, cache):
    root, _, _ = cache
    r = run("cache", "--clear")
    assert r.code == 0, r.all
    assert r.out == f"deleted {root}: 14.6 kB in 16 files\n"
    assert not root.exists()
    r = run("cache")  # (no cache is no error, and the report makes no folder)
    assert r.code == 0 and r.out == f"{root}: nothing cached yet (the folder is made by the first run that needs it)\n"
    assert not root.exists()


def test_clear_leaves_what_is_not_gridrules_and_the_folder_that_holds_it(run, cache):
    """GRIDRULES_CACHE may name a folder that holds other things too (set by mistake to a home folder, say):
    --clear deletes only the parts gridrules makes (cache.PARTS), and the folder only once it is empty."""
    root, _, _ = cache
    (root / "notes.txt").write_text("precious")
    (root / "mine").mkdir()
    (root / "mine" / "data.bin").write_bytes(b"d" * 5)
    assert run("cache").out.splitlines()[0] == f"{root}: 14.6 kB in 16 files"  # (theirs not counted)
    r = run("cache", "--clear")
    assert r.code == 0, r.all
    assert r.out == f"deleted the cache in {root} (files not gridrules' are left there): 14.6 kB in 16 files\n"
    assert _files(root) == {"notes.txt", "mine/data.bin"} and (root / "notes.txt").read_text() == "precious"


def test_prune_and_clear_together_are_a_usage_error(run, cache):
    root, _, _ = cache
    r = run("cache", "--prune", "--clear")
    assert r.code == 2 and "give either --prune or --clear, not both" in r.err and "Traceback" not in r.all
    assert len(_files(root)) == 16


def test_machine_code_kept_outside_the_cache_is_left_alone(run, cache, tmp_path, monkeypatch):
    root, _, _ = cache
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    r = run("cache", "--prune")
    assert r.code == 0, r.all
    assert f"numba's machine code is kept in {tmp_path / 'elsewhere'} (NUMBA_CACHE_DIR)" in r.out
    assert r.out.startswith(f"deleted 2 stale files in {root}: ")  # (the two stale sources only)


def test_what_cannot_be_deleted_is_named_and_the_rest_is_deleted(run, cache, monkeypatch):
    """A folder that cannot be deleted (permissions, say) is named on stderr with the reason, exit 2; the other
    stale files are deleted all the same."""
    import shutil

    root, _, _ = cache

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)
    r = run("cache", "--prune")
    other = root / "numba" / "compiled_0000000000000000000000000000000000000000"
    assert r.code == 2 and "Traceback" not in r.all
    assert r.err.strip() == f"error: could not delete {other}: Permission denied"
    assert r.out == f"deleted 6 stale files in {root}: 2.2 kB\n"
    assert other.is_dir() and not (root / "modules" / "gridrules_gen_0123456789abcdef0123.py").exists()


def test_prune_and_clear_delete_nothing_in_a_folder_gridrules_did_not_make(run, tmp_path, monkeypatch):
    """GRIDRULES_CACHE set to a folder of the user's own that happens to hold folders named like the cache's
    parts (`rules/`, `modules/`): without the tag gridrules puts in the folders it makes, nothing is deleted."""
    project = tmp_path / "project"
    for name, text in (("rules/my.grl", "game mine"), ("modules/a.py", "x = 1"), ("numba/z", "z")):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    monkeypatch.setenv("GRIDRULES_CACHE", str(project))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(project / "numba"))
    for flag in ("--prune", "--clear"):
        r = run("cache", flag)
        assert r.code == 2 and r.out == "", r.all
        assert r.err == (f"error: `{project}` (GRIDRULES_CACHE) holds no CACHEDIR.TAG: gridrules did not make this "
                         "folder, so `cache --prune` and `--clear` delete nothing in it (is GRIDRULES_CACHE set to a "
                         "folder of yours? gridrules makes and tags its own when the folder is not there yet)\n")
    assert _files(project) == {"rules/my.grl", "modules/a.py", "numba/z"}
    assert (project / "rules/my.grl").read_text() == "game mine"


def test_a_cache_that_is_not_a_folder_is_a_usage_error(run, tmp_path, monkeypatch):
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("mine")
    monkeypatch.setenv("GRIDRULES_CACHE", str(not_a_folder))
    for args in (("cache",), ("cache", "--clear")):
        r = run(*args)
        assert r.code == 2 and r.out == "", (args, r.all)
        assert r.err == (f"error: GRIDRULES_CACHE `{not_a_folder}` cannot be used (it is not a folder): point "
                         "GRIDRULES_CACHE at a folder (or unset it)\n"), (args, r.all)
    # (the compiled backend needs it for its modules: in a fresh process, which has none loaded already; the error
    # alone, with no notice before it that native code is being compiled into that file)
    p = subprocess.run([sys.executable, "-m", "gridrules", "solve", "floodit", "hdu4127-sample.txt"],
                       capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parents[2],
                       env=dict(os.environ, GRIDRULES_EXTENSIONS="0", NUMBA_CACHE_DIR=str(tmp_path / "numba")))
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr, p.stderr
    assert p.stderr == (f"error: GRIDRULES_CACHE `{not_a_folder}` cannot be used (Not a directory: "
                             f"{not_a_folder}/modules): point GRIDRULES_CACHE at a folder gridrules may write, or "
                             "use --backend reference\n"), p.stderr
    r = run("solve", "floodit", "hdu4127-sample.txt", "--backend", "reference")  # (a cache only saves work)
    assert r.code == 0 and r.out == "case 1: 0 moves (optimal)\ncase 2: 3 moves (optimal): 1 2 1\n", r.all
    assert not_a_folder.read_text() == "mine"


def test_a_cache_gridrules_makes_is_tagged_and_clear_removes_it_whole(run, tmp_path, monkeypatch):
    from gridrules.cache import store

    root = tmp_path / "fresh"
    monkeypatch.setenv("GRIDRULES_CACHE", str(root))
    store(root / "rules" / "00.pickle", b"r")
    assert (root / TAG).read_bytes() == TAG_TEXT
    r = run("cache", "--clear")
    assert r.code == 0 and not root.exists(), r.all
