"""Builds the package with its C library: `pip install ./python` from a checkout runs CMake on
the checkout (the target tessel_py, libtessel.so) and puts the library, the model descriptions
(models/, which libtessel finds beside itself) and the version into the package, so that the
installed package needs nothing of the checkout.

TESSEL_LIBRARY=PATH takes that library instead of building one; TESSEL_BUILD_DIR=DIR builds in
DIR (default: the checkout's build/ when it is configured, else a folder of its own). The version
is the project's one, project(VERSION) in the top CMakeLists.txt.
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _version():
    """project(tessel VERSION x.y.z) of the top CMakeLists.txt: the one version of the project."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        found = re.search(r"project\(\s*tessel\s+VERSION\s+([0-9.]+)", f.read())
    if not found:
        raise SystemExit("tessel: no project(tessel VERSION ...) in %s/CMakeLists.txt" % ROOT)
    return found.group(1)


def _build_library(temp):
    """Configures and builds tessel_py; returns the path of libtessel.so."""
    build = os.environ.get("TESSEL_BUILD_DIR")
    if not build:
        default = os.path.join(ROOT, "build")
        configured = os.path.isfile(os.path.join(default, "CMakeCache.txt"))
        build = default if configured else os.path.join(temp, "tessel-cmake")
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build,
                               "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    subprocess.check_call(["cmake", "--build", build, "--target", "tessel_py", "-j", jobs])
    return os.path.join(build, "lib", "libtessel.so")


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        temp = os.path.abspath(os.path.join(self.build_lib, os.pardir, "temp-tessel"))
        lib = os.environ.get("TESSEL_LIBRARY") or _build_library(temp)
        if not os.path.isfile(lib):
            raise SystemExit("tessel: no library at %s" % lib)
        dest = os.path.join(self.build_lib, "tessel")
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(lib, os.path.join(dest, "libtessel.so"))
        # The models beside the library: where ts_models_dir (src/core/base/paths.c) looks.
        models = os.path.join(dest, "models")
        shutil.rmtree(models, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "models"), models,
                        ignore=shutil.ignore_patterns("*.md"))
        with open(os.path.join(dest, "_version.py"), "w") as f:
            f.write('"""Written by setup.py from the top CMakeLists.txt."""\n'
                    '__version__ = "%s"\n' % _version())


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: it is for this platform only."""

    def has_ext_modules(self):
        return True


setup(version=_version(), cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
