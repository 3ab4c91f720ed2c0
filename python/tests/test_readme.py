# SPDX-License-Identifier: Apache-2.0
# The README's Python example runs as written, from the repository root.
import os
import re
import subprocess
import sys

SOURCE = os.environ.get("GDNPY_SOURCE", os.path.join(os.path.dirname(__file__), ".."))


def test_readme_python_example():
    root = os.path.dirname(os.path.abspath(SOURCE))
    readme = open(os.path.join(root, "README.md")).read()
    section = readme[readme.index("\n## Python\n"):]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 10 <= len(block.strip().splitlines()) <= 20
    out = subprocess.run([sys.executable, "-c", block], cwd=root, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert "<string>:1: geom: " in out.stdout
