"""Kernels compiled in the background while the CPU transforms: with
``tierfft.config.compile_in_background`` on, the functions' plans for small arrays on a GPU
start their native transform here and run on the CPU until it is ready, so that the first
call of a new length does not wait for NVRTC or lavapipe to compile its kernels.

One worker thread compiles, in the order asked; a plan dropped before its turn is not
compiled. A process that exits with compiles still queued drops them and waits for the one
running (the devices it uses close as the interpreter exits: a CUDA process that left it
compiling crashed at exit).
"""

from __future__ import annotations

import atexit
import queue
import threading
import weakref
from concurrent.futures import Future
from typing import Any, Callable

#: Seconds the first call of a plan waits for its compile before running on the CPU: long
#: enough for kernels already in the disk cache (a few milliseconds on CUDA), short against
#: a compile (hundreds).
FIRST_CALL_WAIT = 0.02

#: Points (of the larger of the input and output) up to which a plan runs on the CPU while
#: its kernels compile: there the CPU, host copies included, takes milliseconds.
MAX_POINTS = 1 << 20

_queue: "queue.Queue[tuple[weakref.ref, Callable[[], Any], Future]]" = queue.Queue()
_worker: "threading.Thread | None" = None
_worker_lock = threading.Lock()


def _work() -> None:
    while True:
        item = _queue.get()
        if item is None:
            return  # the process is exiting
        owner, make, future = item
        if owner() is None or not future.set_running_or_notify_cancel():
            continue  # its plan was dropped meanwhile
        try:
            future.set_result(make())
        except BaseException as e:  # raised to the plan's caller at its next call
            future.set_exception(e)


def submit(owner: Any, make: Callable[[], Any]) -> Future:
    """``make()`` run on the worker for ``owner`` (skipped if ``owner`` is gone by then)."""
    global _worker
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="tierfft-compile", daemon=True)
            _worker.start()
    future: Future = Future()
    _queue.put((weakref.ref(owner), make, future))
    return future


def _forget_worker() -> None:
    """In a forked child: the worker thread stayed in the parent (the plans waiting for it
    are the parent's, forgotten with them); the next submit starts one here."""
    global _queue, _worker, _worker_lock
    _queue, _worker, _worker_lock = queue.Queue(), None, threading.Lock()


@atexit.register
def _stop() -> None:
    """At exit: the queued compiles dropped (their futures cancelled), the running one
    waited for."""
    while True:
        try:
            item = _queue.get_nowait()
        except queue.Empty:
            break
        if item is not None:
            item[2].cancel()
    worker = _worker
    if worker is not None and worker.is_alive():
        _queue.put(None)
        worker.join()
