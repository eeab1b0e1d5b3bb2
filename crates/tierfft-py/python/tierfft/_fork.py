"""Forked children: a process forked from one that used tierfft (multiprocessing's default
start method on Linux before Python 3.14) has none of its parent's threads, neither the GPU
drivers' nor the CPU pools', and a device opened in the parent would wait on them forever.

In such a child the package forgets the parent's devices, cached plans, compile worker and
CPU pools, so that the functions open and plan afresh there (``auto`` takes the CPU where
the parent had used CUDA, which cannot be used in such a child). The parent's objects are
kept in ``_left``, never used or dropped: dropping them would wait on the same threads. A
device or :class:`tierfft.Plan` the child still holds from its parent refuses work with a
``RuntimeError`` that says what to do (plans on the CPU go on working).
"""

from __future__ import annotations

import os

from . import _background, _core, _plan, config

_left: list = []


def _in_child() -> None:
    _core.forked()
    _left.append(_plan._forget_devices())
    _left.append(config._forget_plans())
    _background._forget_worker()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_in_child)
