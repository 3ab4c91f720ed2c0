# SPDX-License-Identifier: Apache-2.0
# gradyn.view: a rollout from Python becomes gradyn view's HTML page (the frames' poses in it
# are checked by tests/test_cli_view.c; here that the page is made from our trajectory).
import os
import shutil

import numpy as np
import pytest

import gradyn
from conftest import model_path


def cli():
    path = os.environ.get("GDNPY_CLI") or shutil.which("gradyn")
    if not path:
        pytest.skip("the gradyn command line program is not built")
    return path


def test_view_writes_the_page(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADYN_CLI", cli())
    path = model_path("double_pendulum.xml")
    m = gradyn.Model.from_xml_path(path)
    qpos, _ = gradyn.rollout(m, [0.3, -0.2], [0, 0], np.zeros((40, 2)))
    try:
        out = gradyn.view(path, qpos, tmp_path / "out.html", timestep=m.opt.timestep)
    except gradyn.Error as e:
        if "built without the viewer" in str(e):
            pytest.skip("gradyn was built without the viewer bundle")
        raise
    html = open(out).read()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "three" in html.lower() and len(html) > 100000
    with pytest.raises(ValueError):
        gradyn.view(path, qpos[:, :1].ravel(), tmp_path / "bad.html")
    with pytest.raises(gradyn.Error, match="qpos"):
        gradyn.view(path, qpos[:, :1], tmp_path / "bad.html")
