"""A worker's compile environment: the fast linker is used where it links, and never over the user's own choice."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from numfuzz.workers.compile_env import set_compile_environment, use_fast_linker

SETTINGS = ("COMPILER_PATH", "TORCHINDUCTOR_COMPILE_THREADS", "TORCHINDUCTOR_FX_GRAPH_CACHE", "TORCHINDUCTOR_AUTOGRAD_CACHE")
needs_gold = pytest.mark.skipif(shutil.which("ld.gold") is None or shutil.which("g++") is None, reason="no gold or g++ here")


@pytest.fixture
def clean_env(monkeypatch):
    """None of the settings set, and each restored afterwards even where the code under test sets it."""
    for name in SETTINGS:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)
    return monkeypatch


def linker_version(env: dict[str, str], tmp_path: Path) -> str:
    """What the linker g++ runs under `env` says it is."""
    source = tmp_path / "probe.cpp"
    source.write_text("int probe() { return 1; }\n")
    told = subprocess.run(["g++", "-shared", "-fPIC", str(source), "-o", str(tmp_path / "probe.so"), "-Wl,--version"], env=env, capture_output=True, text=True)
    return told.stdout.splitlines()[0]


@needs_gold
def test_builds_link_with_gold_where_it_links(clean_env, tmp_path):
    if "gold" in linker_version(dict(os.environ), tmp_path):
        pytest.skip("this machine's own ld is gold already")
    assert use_fast_linker() == shutil.which("ld.gold")
    assert "gold" in linker_version(dict(os.environ), tmp_path)


def test_the_users_own_compiler_path_stands(clean_env):
    clean_env.setenv("COMPILER_PATH", "")
    assert use_fast_linker() is None
    assert os.environ["COMPILER_PATH"] == ""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ here")
def test_a_gold_that_fails_to_link_is_not_used(clean_env, tmp_path):
    broken = tmp_path / "bin" / "ld.gold"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    clean_env.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
    assert use_fast_linker() is None
    assert "COMPILER_PATH" not in os.environ


def test_without_a_fast_linker_nothing_changes(clean_env, tmp_path):
    clean_env.setenv("PATH", str(tmp_path))
    assert use_fast_linker() is None
    assert "COMPILER_PATH" not in os.environ


def test_the_compile_settings_are_defaults_the_user_overrides(clean_env):
    clean_env.setenv("COMPILER_PATH", "")
    clean_env.setenv("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")
    set_compile_environment()
    assert os.environ["TORCHINDUCTOR_COMPILE_THREADS"] == "1" and os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] == "0"
    assert os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] == "1"


def test_a_model_sweep_s_workers_keep_inductor_s_graph_caches(clean_env):
    """A sweep's graphs repeat (Thunder's fusion regions of one model under both Thunder targets): its workers compile with
    one thread and the fast linker as a campaign's do, but keep Inductor's on-disk graph caches."""
    clean_env.setenv("COMPILER_PATH", "")
    set_compile_environment(graph_caches=True)
    assert os.environ["TORCHINDUCTOR_COMPILE_THREADS"] == "1"
    assert "TORCHINDUCTOR_FX_GRAPH_CACHE" not in os.environ and "TORCHINDUCTOR_AUTOGRAD_CACHE" not in os.environ
