# SPDX-License-Identifier: Apache-2.0
# Batches of rollouts and gradients split over MPI ranks (mpi4py), each rank threaded: the
# same entries as gradyn.batch on one process, so the gathered results are identical bit for bit.
"""gradyn over MPI.

Run under ``mpirun -n R python3 script.py``; every rank calls the same function with the same
full batch (or only rank 0's arrays matter: they are broadcast first). Rank r steps the
contiguous block of entries ``[r * B // R, (r + 1) * B // R)`` with ``nthread`` threads, and the
blocks are gathered on every rank (``allgather``) or on ``root`` alone. Batch entries are
independent, so the result equals ``gradyn.batch.rollout`` on one process bit for bit, whatever
R and nthread are. As root, Open MPI's mpirun needs ``--allow-run-as-root`` (and
``--oversubscribe`` for more ranks than cores).
"""

import numpy as np

from . import batch as _batch
from ._gradyn import Model


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("gradyn.distributed needs mpi4py (Debian: python3-mpi4py)") from e
    return MPI


def _block(nbatch, size, rank):
    """The entries of one rank: a contiguous, balanced block."""
    return rank * nbatch // size, (rank + 1) * nbatch // size


def _share(comm, x):
    """Rank 0's array on every rank (None stays None)."""
    return comm.bcast(None if x is None else np.ascontiguousarray(x, dtype=np.float64), root=0)


def _gather(comm, parts, root):
    """Concatenate the ranks' blocks along the batch axis, on every rank (root None) or root."""
    if root is None:
        blocks = comm.allgather(parts)
    else:
        blocks = comm.gather(parts, root=root)
        if comm.Get_rank() != root:
            return None
    return [np.concatenate([b[k] for b in blocks if b[k] is not None and len(b[k])], axis=0)
            if any(b[k] is not None for b in blocks) else None for k in range(len(parts))]


def _check_status(comm, status, what):
    """Every rank sees every entry's status (allgather, in entry order) and raises for the
    first failed one: a failure on one rank never leaves the others waiting in a collective."""
    everything = [s for block in comm.allgather(status) for s in block]
    _batch._raise_failed(everything, what)


def _models(model, lo, hi):
    """One shared model, or the block's models of a per-entry list."""
    if isinstance(model, Model):
        return model
    models = list(model)
    return models if len(models) == 1 else models[lo:hi]


def rollout(model, qpos0, qvel0, ctrl=None, *, act0=None, act=False, sensordata=False,
            nstep=None, nthread=0, root=None, comm=None):
    """gradyn.batch.rollout of a batch [B, ...] split over the ranks of comm (COMM_WORLD);
    act0 [B, na] (None: zero), act and sensordata as gradyn.batch.rollout's.

    Returns (qpos [B, T+1, nq], qvel [B, T+1, nv][, act [B, T+1, na]][, sensordata
    [B, T, nsensordata]]) on every rank (root None) or on root alone (None elsewhere). A failing entry raises gradyn.Error on every rank, naming the entry.
    """
    comm = comm or _mpi().COMM_WORLD
    size, rank = comm.Get_size(), comm.Get_rank()
    q0, v0, u = _share(comm, qpos0), _share(comm, qvel0), _share(comm, ctrl)
    a0 = _share(comm, act0)
    if q0.ndim != 2:
        raise ValueError("qpos0: expected a batch [nbatch, nq]")
    lo, hi = _block(q0.shape[0], size, rank)
    parts = [None] * (2 + bool(act) + bool(sensordata))
    status = []
    if hi > lo:
        *parts, status = _batch.rollout(_models(model, lo, hi), q0[lo:hi], v0[lo:hi],
                                        None if u is None else u[lo:hi],
                                        act0=None if a0 is None else a0[lo:hi], act=act,
                                        sensordata=sensordata, nstep=nstep, nthread=nthread,
                                        return_status=True)
    _check_status(comm, status, "rollout")
    out = _gather(comm, parts, root)
    return None if out is None else tuple(out)


def rollout_vjp(model, qpos0, qvel0, ctrl, cqpos=None, cqvel=None, *, act0=None, nstep=None,
                nthread=0, params=False, root=None, comm=None):
    """gradyn.batch.rollout_vjp of a batch split over the ranks; the dict of gradients (J,
    qpos0, qvel0, act0, ctrl, param), batch axis first, on every rank (root None) or on root
    alone. A failing entry raises gradyn.Error on every rank."""
    comm = comm or _mpi().COMM_WORLD
    size, rank = comm.Get_size(), comm.Get_rank()
    q0, v0, u = _share(comm, qpos0), _share(comm, qvel0), _share(comm, ctrl)
    cq, cv, a0 = _share(comm, cqpos), _share(comm, cqvel), _share(comm, act0)
    if q0.ndim != 2:
        raise ValueError("qpos0: expected a batch [nbatch, nq]")
    lo, hi = _block(q0.shape[0], size, rank)
    keys = ["J", "qpos0", "qvel0", "act0", "ctrl"] + (["param"] if params else [])
    parts = [None] * len(keys)
    status = []
    if hi > lo:
        g = _batch.rollout_vjp(_models(model, lo, hi), q0[lo:hi], v0[lo:hi],
                               None if u is None else u[lo:hi],
                               None if cq is None else cq[lo:hi],
                               None if cv is None else cv[lo:hi],
                               act0=None if a0 is None else a0[lo:hi], nstep=nstep, nthread=nthread, params=params,
                               return_status=True)
        parts = [g[k] for k in keys]
        status = g["status"]
    _check_status(comm, status, "rollout_vjp")
    out = _gather(comm, parts, root)
    return None if out is None else dict(zip(keys, out))
