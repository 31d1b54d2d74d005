"""Fixtures of the Python suite (docs/python.md, "Tests").

Run by ctest (python_tests, with PYTHONPATH at the build tree's package) and by
tools/test.sh against the package `pip install .` put in the venv. SWITCHYARD_CLI names
the CLI built beside the module, for the tests that compare messages with it.
"""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """The switchyard CLI as a function returning (exit code, stdout, stderr)."""
    path = os.environ.get("SWITCHYARD_CLI") or shutil.which("switchyard")
    if not path:
        pytest.skip("no switchyard CLI (set SWITCHYARD_CLI)")

    def run(*args):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True,
                              timeout=120)
        return done.returncode, done.stdout, done.stderr

    return run
