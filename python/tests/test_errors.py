# SPDX-License-Identifier: Apache-2.0
# Errors as exceptions: the loader's "file:line: element: cause" in gradyn.Error, status codes,
# ValueError / TypeError for wrong shapes and dtypes.
import os

import numpy as np
import pytest

import gradyn
from conftest import model_path, sample_path


def test_error_is_value_error():
    assert issubclass(gradyn.Error, ValueError)


def test_load_error_carries_loader_message(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n  <worldbody>\n    <body>\n      <geom type=\"bogus\"/>\n"
                   "    </body>\n  </worldbody>\n</mujoco>\n")
    with pytest.raises(gradyn.Error) as e:
        gradyn.Model.from_xml_path(str(bad))
    msg = str(e.value)
    assert msg.startswith(str(bad) + ":4: geom: "), msg
    assert "bogus" in msg
    assert e.value.status == gradyn.ERR_PARSE


def test_load_error_from_mujoco_sample():
    # <composite> (a later issue) is refused by name, with or without the opt-in
    path = sample_path("composite/rope.xml")
    for accept in (False, True):
        with pytest.raises(gradyn.Error) as e:
            gradyn.Model.from_xml_path(path, accept_unsupported=accept)
        assert str(e.value).startswith(path + ":26: composite: "), str(e.value)
        assert "<composite>" in str(e.value)


UNSUPPORTED = ("<mujoco>\n<option noslip_iterations=\"2\"/>\n<worldbody><body><joint/>"
               "<geom size=\".1\"/></body></worldbody>\n</mujoco>\n")


def test_unsupported_refused_unless_accepted(tmp_path):
    # refused by name by default; accept_unsupported=True loads with a UserWarning that names
    # the substitute (never silently)
    path = tmp_path / "rk4.xml"
    path.write_text(UNSUPPORTED)
    for load in (lambda **k: gradyn.Model.from_xml_path(str(path), **k),
                 lambda **k: gradyn.Model.from_xml_string(UNSUPPORTED, **k)):
        with pytest.raises(gradyn.Error) as e:
            load()
        assert (':2: option: noslip_iterations > 0 (the no-slip post-pass) '
                'is not simulated by gradyn') in str(e.value)
        assert e.value.status == gradyn.ERR_UNSUPPORTED
        with pytest.warns(UserWarning, match="no no-slip pass is run"):
            m = load(accept_unsupported=True)
        assert m.nv == 1
    with pytest.warns(UserWarning):
        gradyn.Model.from_xml_path(str(path), True)


def test_load_errors_of_strings_and_files(tmp_path):
    with pytest.raises(gradyn.Error) as e:
        gradyn.Model.from_xml_path(str(tmp_path / "missing.xml"))
    assert e.value.status == gradyn.ERR_IO and "missing.xml" in str(e.value)
    with pytest.raises(gradyn.Error) as e:
        gradyn.Model.from_xml_string("<mujoco><worldbody>")
    assert str(e.value)
    with pytest.raises(gradyn.Error):
        gradyn.Model.from_xml_string("")
    with pytest.raises(ValueError):
        gradyn.Model.from_xml_string("<mujoco>\0</mujoco>")  # embedded NUL
    with pytest.raises(TypeError):
        gradyn.Model.from_xml_path(None)
    with pytest.raises(TypeError):
        gradyn.Model()
    m = gradyn.Model.from_xml_string(open(model_path("pendulum.xml")).read())
    assert m.nq == 1


def test_from_xml_string_dir_resolves_assets():
    path = model_path("scene_meshes.xml")
    xml = open(path).read()
    m = gradyn.Model.from_xml_string(xml, dir=os.path.dirname(path))
    assert m.nmesh > 0


def test_wrong_shapes_and_dtypes():
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    d = gradyn.Data(m)
    with pytest.raises(ValueError):
        d.qpos = np.zeros(m.nq + 1)
    with pytest.raises(TypeError):
        d.qpos = np.zeros(m.nq, dtype=np.float32)
    with pytest.raises(TypeError):
        d.qpos = np.zeros(m.nq, dtype=np.int64)
    with pytest.raises(TypeError):
        d.qpos = "ab"
    with pytest.raises(TypeError):
        d.qpos = None
    with pytest.raises(ValueError):
        d.qvel = np.zeros((m.nv, 2))[:, 0]  # not contiguous
    with pytest.raises(TypeError):
        d.qvel = [1.0, "x"]
    d.qvel = [1.0, 2]  # a list of numbers is fine
    assert list(d.qvel) == [1.0, 2.0]
    with pytest.raises(ValueError):
        gradyn.step_jvp(m, d, np.zeros(m.nv + 1))
    with pytest.raises(TypeError):
        gradyn.step_vjp(m, d, np.zeros(m.nv, dtype=np.complex128))
    with pytest.raises(TypeError):
        gradyn.step(d, m)
    with pytest.raises(TypeError):
        gradyn.step(m, None)
    with pytest.raises(ValueError):
        gradyn.step(m, d, nstep=-1)
    with pytest.raises(TypeError):
        gradyn.Data(None)
    with pytest.raises(ValueError):
        m.set_geom_friction(0, np.ones(4))
    with pytest.raises(IndexError):
        m.set_geom_friction(-1, np.ones(3))


def test_nonfinite_state_raises_and_keeps_state():
    m = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    d = gradyn.Data(m)
    d.qvel[0] = np.nan
    with pytest.raises(gradyn.Error) as e:
        gradyn.step(m, d)
    assert e.value.status == gradyn.ERR_NONFINITE and "step 1 of 1" in str(e.value)
    assert d.time == 0.0  # unchanged
    with pytest.raises(gradyn.Error):
        gradyn.forward(m, d)
    with pytest.raises(gradyn.Error):
        gradyn.transition_jacobians(m, d)


def test_setters():
    m = gradyn.Model.from_xml_path(model_path("scene_drop_box.xml"))
    d = gradyn.Data(m)
    g = m.ngeom - 1
    m.set_geom_friction(g, [0.5, 0.01, 0.001])
    np.testing.assert_array_equal(m.geom_friction[g], [0.5, 0.01, 0.001])
    with pytest.raises(gradyn.Error) as e:
        m.set_geom_friction(g, [-1.0, 0.0, 0.0])
    assert e.value.status == gradyn.ERR_ARG
    np.testing.assert_array_equal(m.geom_friction[g], [0.5, 0.01, 0.001])  # unchanged
    m.set_geom_solref(g, [0.03, 1.0])
    m.set_geom_solimp(g, [0.9, 0.95, 0.001, 0.5, 2.0])
    b = m.nbody - 1
    p = m.get_body_inertia(b)
    p[0] *= 2.0
    m.set_body_inertia(b, p)
    assert m.body_mass[b] == p[0]
    np.testing.assert_allclose(m.get_body_inertia(b), p, rtol=1e-12, atol=1e-15)
    with pytest.raises(gradyn.Error):
        m.set_body_inertia(b, np.full(10, np.nan))
    with pytest.raises(gradyn.Error):
        m.set_body_inertia(0, p)  # the world body
    gradyn.step(m, d, nstep=10)
    m.set_penalty(False)
    with pytest.raises(gradyn.Error):
        m.set_penalty(True, 0.0, -1.0, 0.0)
    assert m.penalty["enabled"] == 0


def test_name_or_id_one_parser():
    # the named access and the setters share one parser: the same key gives the same
    # exception and message, whichever call takes it
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    p = m.get_body_inertia(1)
    cases = [("no such body", KeyError, "Invalid name 'no such body'. No body of that name."),
             (m.nbody, IndexError, f"body id out of range [0, {m.nbody})"),
             (-1, IndexError, f"body id out of range [0, {m.nbody})"),
             (2 ** 70, IndexError, f"body id out of range [0, {m.nbody})"),
             (1.5, TypeError, "body: expected a name (str) or an id (int), got float")]
    for key, exc, message in cases:
        for call in (lambda: m.body(key), lambda: m.get_body_inertia(key),
                     lambda: m.set_body_inertia(key, p),
                     lambda: gradyn.Data(m).body(key)):
            with pytest.raises(exc) as info:
                call()
            text = info.value.args[0]
            assert text == message, (key, text)
    assert np.array_equal(m.get_body_inertia(1), p)  # nothing was set
    # geoms by name and id through a setter and the named access alike
    name = m.names("geom")[1]
    m.set_geom_friction(name, [0.7, 0.01, 0.001])
    assert m.geom(name).id == 1 and m.geom(1).friction[0] == 0.7
    with pytest.raises(IndexError, match=r"geom id out of range \[0, %d\)" % m.ngeom):
        m.set_geom_friction(m.ngeom, [1.0, 0.0, 0.0])
    with pytest.raises(IndexError, match=r"pair id out of range \[0, %d\)" % m.npair):
        m.set_pair_friction(m.npair, [1.0] * 5)
