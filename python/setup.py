# SPDX-License-Identifier: Apache-2.0
# Builds the extension gradyn._gradyn for pip: python/src/*.c and the library's src/*/*.c with
# the project's floating-point flags (no contraction, no fast-math), against expat and Qhull.
import glob
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class ParallelBuildExt(build_ext):
    """build_ext compiling the ~150 sources on every core (pip passes no --parallel)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


def rel(paths):
    # setuptools wants paths relative to setup.py
    return sorted(os.path.relpath(p, HERE) for p in paths)


sources = rel(glob.glob(os.path.join(HERE, "src", "*.c")) +
              glob.glob(os.path.join(ROOT, "src", "*", "*.c")))
if not any(s.startswith("..") for s in sources):
    raise SystemExit("setup.py: the gradyn library sources (../src) are missing: install from "
                     "the repository's python/ directory")

extension = Extension(
    "gradyn._gradyn",
    sources=sources,
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src")],
    libraries=["expat", "qhull_r", "m"],
    # -pthread: the library may run thread pools (the batch API)
    extra_compile_args=["-std=c17", "-ffp-contract=off", "-fno-fast-math",
                        "-fvisibility=hidden", "-pthread"],
    extra_link_args=["-pthread"],
)

setup(ext_modules=[extension], cmdclass={"build_ext": ParallelBuildExt})
