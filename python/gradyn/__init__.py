# SPDX-License-Identifier: Apache-2.0
# gradyn: differentiable rigid multibody dynamics; the Python package re-exports the C module.
"""gradyn: differentiable rigid multibody dynamics (MuJoCo 2.2.2 semantics) in C17.

The conventions of the ``mujoco`` package::

    import gradyn
    m = gradyn.Model.from_xml_path("humanoid.xml")
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=100)
    A, B = gradyn.transition_jacobians(m, d)

See docs/python.md for the array layouts, the lifetime rules and the GIL.
"""

from ._gradyn import *  # noqa: F401,F403
from ._gradyn import Error, Model, Data, __version__  # noqa: F401
from . import _gradyn

__all__ = [name for name in dir(_gradyn) if not name.startswith("_")]

# the batch layer (threaded C rollouts and their gradients) and the viewer; gradyn.torch and
# gradyn.distributed are imported explicitly (they need PyTorch, mpi4py)
from . import batch  # noqa: E402
from .batch import BatchPool, rollout, rollout_vjp  # noqa: E402,F401
from .view import view  # noqa: E402,F401

__all__ += ["batch", "BatchPool", "rollout", "rollout_vjp", "view"]
