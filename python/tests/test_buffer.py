# SPDX-License-Identifier: Apache-2.0
# The array exporter (gradyn.Buffer, behind every numpy view) follows the buffer protocol's
# request flags: Fortran-order requests only where the C-ordered array is also F-contiguous,
# shape / strides / format only when asked for, read-only arrays refuse writable requests.
import ctypes

import numpy as np
import pytest

import gradyn
from conftest import model_path

# the flag values of CPython's pybuffer.h (stable ABI)
SIMPLE, WRITABLE, FORMAT, ND = 0, 0x1, 0x4, 0x8
STRIDES = 0x10 | ND
C_CONTIGUOUS, F_CONTIGUOUS, ANY_CONTIGUOUS = 0x20 | STRIDES, 0x40 | STRIDES, 0x80 | STRIDES


class PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
                ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)), ("internal", ctypes.c_void_p)]


_get = ctypes.pythonapi.PyObject_GetBuffer
_get.argtypes = [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int]
_get.restype = ctypes.c_int
_release = ctypes.pythonapi.PyBuffer_Release
_release.argtypes = [ctypes.POINTER(PyBuffer)]
_release.restype = None


def request(exporter, flags):
    """PyObject_GetBuffer(exporter, flags) as a dict of the view's fields (released again);
    raises the exporter's BufferError."""
    view = PyBuffer()
    try:
        _get(exporter, ctypes.byref(view), flags)
    except BufferError:
        assert view.obj is None  # a refused request leaves no reference behind
        raise
    try:
        nd = view.ndim
        return {"ndim": nd, "len": view.len, "itemsize": view.itemsize,
                "readonly": view.readonly,
                "format": view.format.decode() if view.format else None,
                "shape": tuple(view.shape[i] for i in range(nd)) if view.shape else None,
                "strides": tuple(view.strides[i] for i in range(nd)) if view.strides else None,
                "buf": view.buf}
    finally:
        _release(ctypes.byref(view))


def exporter(array):
    """The gradyn.Buffer under a numpy view (numpy wraps it in a memoryview)."""
    exp = array.base.obj
    assert type(exp).__name__ == "Buffer"
    return exp


@pytest.fixture
def pendulum():
    m = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    return m, gradyn.Data(m)


def test_fortran_request_refused_on_2d(pendulum):
    m, d = pendulum
    xpos = exporter(d.xpos)  # (nbody = 2, 3): C-ordered, not F-contiguous
    assert d.xpos.shape == (2, 3)
    with pytest.raises(BufferError, match="Fortran"):
        request(xpos, F_CONTIGUOUS)
    with pytest.raises(BufferError, match="Fortran"):
        request(xpos, F_CONTIGUOUS | FORMAT | WRITABLE)
    assert not memoryview(xpos).f_contiguous and memoryview(xpos).c_contiguous
    # C order and any order are met, with the C strides
    for flags in (C_CONTIGUOUS, ANY_CONTIGUOUS, STRIDES):
        v = request(xpos, flags | FORMAT)
        assert v["shape"] == (2, 3) and v["strides"] == (24, 8) and v["format"] == "d"
        assert v["len"] == 48 and v["ndim"] == 2


def test_fortran_request_met_on_1d_and_size1(pendulum):
    m, d = pendulum
    # 1-D: both C- and F-contiguous
    v = request(exporter(d.qvel), F_CONTIGUOUS | FORMAT)
    assert v["shape"] == (m.nv,) and v["strides"] == (8,) and v["format"] == "d"
    # (1, nq): one dimension longer than 1
    mk = gradyn.Model.from_xml_path(model_path("box_spin.xml"))
    key = exporter(mk.key_qpos)
    assert mk.key_qpos.shape == (1, 7)
    v = request(key, F_CONTIGUOUS | FORMAT)
    assert v["shape"] == (1, 7) and v["readonly"] == 1
    assert memoryview(key).f_contiguous and memoryview(key).c_contiguous
    # (1, 1): every dimension of size 1
    mp = gradyn.Model.from_xml_path(model_path("kamino_pendulum.xml"))
    assert mp.key_qpos.shape == (1, 1)
    assert request(exporter(mp.key_qpos), F_CONTIGUOUS)["shape"] == (1, 1)
    # an empty array (no constraint rows: efc_J is (0, nv)) is contiguous in every order
    gradyn.forward(m, d)
    assert d.nefc == 0 and d.efc_J.shape == (0, m.nv)
    v = request(exporter(d.efc_J), F_CONTIGUOUS)
    assert v["len"] == 0 and v["shape"] == (0, m.nv)


def test_flags_shape_strides_format(pendulum):
    m, d = pendulum
    xpos = exporter(d.xpos)
    addr = d.xpos.__array_interface__["data"][0]
    # simple: bytes, one dimension, no shape, strides or format
    v = request(xpos, SIMPLE)
    assert v == {"ndim": 1, "len": 48, "itemsize": 8, "readonly": 0, "format": None,
                 "shape": None, "strides": None, "buf": addr}
    # ND: the shape, C order implied (no strides)
    v = request(xpos, ND)
    assert v["ndim"] == 2 and v["shape"] == (2, 3) and v["strides"] is None
    assert v["format"] is None
    v = request(xpos, ND | FORMAT)
    assert v["format"] == "d" and v["strides"] is None
    # int arrays say so
    v = request(exporter(m.body_parentid), FORMAT | ND)
    assert v["format"] == "i" and v["itemsize"] == 4 and v["shape"] == (m.nbody,)


def test_writable_request_on_read_only(pendulum):
    m, d = pendulum
    with pytest.raises(BufferError, match="read-only"):
        request(exporter(m.body_mass), WRITABLE)
    assert request(exporter(m.body_mass), SIMPLE)["readonly"] == 1
    assert request(exporter(d.qpos), WRITABLE | C_CONTIGUOUS)["readonly"] == 0


def test_numpy_consumers(pendulum):
    # numpy's own requests are met; a Fortran copy is a copy, the view stays C-ordered
    m, d = pendulum
    a = np.asarray(exporter(d.xpos))
    assert a.flags.c_contiguous and not a.flags.f_contiguous and a.shape == (2, 3)
    f = np.asfortranarray(d.xpos)
    assert f.flags.f_contiguous and np.array_equal(f, d.xpos)
    assert np.asarray(exporter(d.qpos)).flags.f_contiguous
