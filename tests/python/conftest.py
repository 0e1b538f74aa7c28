"""What every test of the package shares: the `tessel` binary of the same build (TESSEL_BIN),
the tests folder, and a helper that runs the command line and keeps its output and status."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
# the package of this checkout, unless one is installed and asked for (TESSEL_INSTALLED=1)
if os.environ.get("TESSEL_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(ROOT, "python"))


@pytest.fixture(scope="session")
def tessel_bin():
    path = os.environ.get("TESSEL_BIN") or os.path.join(ROOT, "build", "bin", "tessel")
    if not os.path.isfile(path):
        pytest.fail("no tessel binary at %s (set TESSEL_BIN)" % path)
    return path


@pytest.fixture(scope="session")
def tests_dir():
    return TESTS


class Cli:
    def __init__(self, binary):
        self.binary = binary

    def run(self, *args, check=True):
        r = subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError("tessel %s: exit %d: %s" % (" ".join(map(str, args)),
                                                             r.returncode, r.stderr))
        return r

    def first_error_line(self, *args):
        """The status and the first line of stderr of a call that fails."""
        r = self.run(*args, check=False)
        assert r.returncode != 0, "tessel %s succeeded" % " ".join(map(str, args))
        return r.returncode, r.stderr.splitlines()[0]


@pytest.fixture(scope="session")
def cli(tessel_bin):
    return Cli(tessel_bin)
