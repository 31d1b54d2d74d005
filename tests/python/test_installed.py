"""What `pip install .` installed (tools/test.sh runs the suite against it with
SY_EXPECT_INSTALLED=1): the package from site-packages, carrying its plugins, the probe
and worker programs, and its type stubs."""

import os
import pathlib
import sys

import pytest

import switchyard

pytestmark = pytest.mark.skipif(os.environ.get("SY_EXPECT_INSTALLED") != "1",
                                reason="checks an installed package (SY_EXPECT_INSTALLED=1)")


def test_the_installed_package_is_imported():
    package = pathlib.Path(switchyard.__file__).parent
    assert "site-packages" in package.parts, package
    assert pathlib.Path(sys.prefix) in package.parents


def test_it_carries_plugins_programs_and_stubs():
    package = pathlib.Path(switchyard.__file__).parent
    assert (package / "lib/switchyard/plugins/libswitchyard_cpu.so").is_file()
    for program in ("switchyard-plugin-probe", "switchyard-plugin-worker"):
        assert os.access(package / "libexec/switchyard" / program, os.X_OK)
    assert (package / "py.typed").is_file() and (package / "_native.pyi").is_file()
    cpu = next(c for c in switchyard.plugins() if c["name"] == "cpu")
    assert pathlib.Path(cpu["path"]).parent == package / "lib/switchyard/plugins"
    assert cpu["probe"] in ("probed", "probed earlier (cached)")
