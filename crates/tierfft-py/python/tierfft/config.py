"""The plans the functions keep (``tierfft.fft`` ... ``tierfft.idstn``, and the scipy.fft
backend), one cache per device, as CuPy's ``cupy.fft.config`` keeps its own::

    cache = tierfft.config.get_plan_cache("cuda")
    cache.set_memsize(256 << 20)   # at most 256 MiB of the GPU's memory held by plans
    cache.set_size(8)              # and at most 8 plans
    cache.show_info()

A plan holds device memory once it has run: its tables, the arrays its 1-D passes keep
between calls, and the device copies of host arrays. After every call the least recently
used plans of that device are dropped, freeing theirs, until the cache holds at most
``size`` plans and ``memsize`` bytes (a plan larger than ``memsize`` on its own is dropped
after its call). Defaults: 32 plans and 1 GiB per device; a memsize of -1 lifts the byte
limit. :class:`tierfft.Plan` objects made by hand are not cached.

The work arrays of N-D, real and DCT transforms on a GPU (the second array of a 2-D
transform, a DCT's complex array) are the device's, shared by all its plans (as cuFFT's
plans may share one work area): one set, sized for the largest call so far, counted apart
from the plans (``Device.workspace_bytes``, printed by :meth:`PlanCache.show_info`) and freed by
:meth:`PlanCache.clear`.
"""

from __future__ import annotations

import itertools
import operator
import threading
from typing import Any, Callable, Optional

__all__ = ["PlanCache", "get_plan_cache"]

#: Whether the functions' plans for small arrays on a GPU compile their kernels in the
#: background and transform on the CPU meanwhile: the first call of a new length then waits
#: at most 20 ms for its kernels (which come from the disk cache within that time once
#: compiled before) instead of the hundreds a compile takes. Off by default: the calls made
#: meanwhile give the CPU's results, as accurate but not bit for bit the GPU's, so that the
#: same call may give different last bits before and after the kernels are ready (NumPy's
#: own thread test, which compares results bit for bit, fails with it on). Off, every new
#: plan compiles before its first call runs.
compile_in_background = False

#: Plans a device's cache keeps at most, unless set otherwise.
DEFAULT_SIZE = 32
#: Bytes of a device's memory its cache's plans may hold, unless set otherwise.
DEFAULT_MEMSIZE = 1 << 30

_lock = threading.Lock()
# Every cached plan: key -> [its device's name, the plan, the bytes it held when last
# counted, when it was last used (a tick of `_ticks`)]. Changed under `_lock`, but for the
# last use, which a call sets without it (one list item: atomic under the GIL).
_entries: dict = {}
_ticks = itertools.count()
# The key of each cached plan, by id(plan): a call's settle() finds its entry at once.
_keys: dict = {}
# Each device's plans kept and bytes they held when last counted, by its name: [plans, bytes].
_totals: dict = {}
# Each device's limits, by its name: [size, memsize].
_limits: dict = {}


def _forget_plans() -> list:
    """In a forked child: the parent's cached plans, forgotten (the caller keeps them from
    being dropped); the limits set stay."""
    global _lock
    left = [entry[1] for entry in _entries.values()]
    _entries.clear()
    _keys.clear()
    _totals.clear()
    _lock = threading.Lock()
    return left


def _device_name(plan: Any) -> str:
    device = plan.device  # a Device (Plan) or its name (Transform)
    return device if isinstance(device, str) else device.name


def _limits_of(name: str) -> list:
    return _limits.setdefault(name, [DEFAULT_SIZE, DEFAULT_MEMSIZE])


def _drop(key: tuple) -> None:
    """Forgets the cached plan under ``key`` (lock held)."""
    name, plan, held, _ = _entries.pop(key)
    del _keys[id(plan)]
    totals = _totals[name]
    totals[0] -= 1
    totals[1] -= held


def _trim(name: str) -> None:
    """Drops ``name``'s least recently used plans until its limits hold (lock held). The
    plans are only walked when a limit is exceeded."""
    size, memsize = _limits_of(name)
    totals = _totals.setdefault(name, [0, 0])

    def over() -> bool:
        return totals[0] > size or (memsize >= 0 and totals[1] > memsize)

    if not over():
        return
    mine = [(entry[3], k) for k, entry in _entries.items() if entry[0] == name]
    for _, key in sorted(mine, key=lambda t: t[0]):  # the least recently used first
        if not over():
            break
        _drop(key)


def kept(key: tuple) -> Any:
    """The plan kept under ``key``, marked as used now, or ``None``. Without the lock: a
    call's whole lookup is a dictionary's."""
    entry = _entries.get(key)
    if entry is None:
        return None
    entry[3] = next(_ticks)
    return entry[1]


def cached(key: tuple, make: Callable[[], Any]) -> Any:
    """The plan kept under ``key``, or ``make()``'s, kept in its device's cache."""
    plan = kept(key)
    if plan is not None:
        return plan
    plan = make()
    name, held = _device_name(plan), plan.held_bytes
    with _lock:
        if key in _entries:  # made meanwhile by another thread: keep the first
            return _entries[key][1]
        _entries[key] = [name, plan, held, next(_ticks)]
        _keys[id(plan)] = key
        totals = _totals.setdefault(name, [0, 0])
        totals[0] += 1
        totals[1] += held
        _trim(name)
    return plan


def settle(plan: Any) -> None:
    """After a call of ``plan``: its device's cache trimmed to its limits where the call
    changed what the plan holds (its first call makes its work arrays)."""
    key = _keys.get(id(plan))
    if key is None:
        return  # not (or no longer) cached
    held = plan.held_bytes
    entry = _entries.get(key)
    if entry is not None and entry[2] == held:
        return  # unchanged: most calls, which need not take the lock
    with _lock:
        entry = _entries.get(key)
        if entry is None or entry[1] is not plan or entry[2] == held:
            return
        _totals[entry[0]][1] += held - entry[2]
        entry[2] = held
        _trim(entry[0])


class PlanCache:
    """The plans the functions keep for one device (see the module's description)."""

    def __init__(self, device_name: str) -> None:
        self._name = device_name

    @property
    def device(self) -> str:
        """The device's name."""
        return self._name

    def get_size(self) -> int:
        """Plans kept at most."""
        with _lock:
            return _limits_of(self._name)[0]

    def set_size(self, size: int) -> None:
        """Keeps at most ``size`` plans (0: none), dropping the least recently used now."""
        size = operator.index(size)
        if size < 0:
            raise ValueError(f"size must be 0 or more plans (got {size})")
        with _lock:
            _limits_of(self._name)[0] = size
            _trim(self._name)

    def get_memsize(self) -> int:
        """Bytes of device memory the plans may hold (-1: no limit)."""
        with _lock:
            return _limits_of(self._name)[1]

    def set_memsize(self, memsize: int) -> None:
        """Lets the plans hold at most ``memsize`` bytes of the device's memory (-1: no
        limit), dropping the least recently used now."""
        memsize = operator.index(memsize)
        if memsize < -1:
            raise ValueError(f"memsize must be a number of bytes, or -1 for no limit (got {memsize})")
        with _lock:
            _limits_of(self._name)[1] = memsize
            _trim(self._name)

    size = property(get_size, set_size, doc="Plans kept at most.")
    memsize = property(get_memsize, set_memsize, doc="Bytes the plans may hold (-1: no limit).")

    def get_curr_size(self) -> int:
        """Plans kept now."""
        with _lock:
            return _totals.get(self._name, [0, 0])[0]

    def get_curr_memsize(self) -> int:
        """Bytes of device memory the kept plans hold now."""
        with _lock:
            return sum(e[1].held_bytes for e in _entries.values() if e[0] == self._name)

    def clear(self) -> None:
        """Drops every kept plan of the device and frees its shared work arrays."""
        with _lock:
            for key in [k for k, e in _entries.items() if e[0] == self._name]:
                _drop(key)
        for device in self._devices():
            device.free_workspace()

    def _devices(self) -> list:
        """The opened devices of this name ("cuda" and "cuda:0" are two, with work arrays
        of their own)."""
        from ._plan import _devices, _devices_lock

        with _devices_lock:
            return [d for d in _devices.values() if d.name == self._name]

    def show_info(self) -> None:
        """Prints the limits and what is kept."""
        print(f"tierfft plan cache for '{self._name}':")
        print(f"  plans: {self.get_curr_size()} of at most {self.get_size()}")
        memsize = self.get_memsize()
        limit = "no limit" if memsize < 0 else f"at most {memsize} bytes"
        print(f"  device memory held: {self.get_curr_memsize()} bytes ({limit})")
        shared = sum(d.workspace_bytes for d in self._devices())
        print(f"  work arrays shared by the device's plans: {shared} bytes")

    def __repr__(self) -> str:
        return (f"tierfft.config.PlanCache(device={self._name!r}, size={self.get_size()}, "
                f"memsize={self.get_memsize()}, current size={self.get_curr_size()})")


def get_plan_cache(device: Optional[str] = None) -> PlanCache:
    """The plan cache of ``device`` (a name as the functions take it; default the one they
    use: ``TIERFFT_DEVICE``, else ``"auto"``)."""
    from ._plan import open_device

    return PlanCache(open_device(device).name)
