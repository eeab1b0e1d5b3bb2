//! SciPy's `workers=`: a CPU transform run on a pool of that many threads instead of
//! rayon's global pool (one per core). Pools are made once per count and kept. In a forked
//! child, whose copy of a pool has no threads, every transform runs on a pool of its own
//! (made again there, [`forget_pools`]), never on the global one, which cannot be.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use rayon::ThreadPool;

/// The pools made so far, by their number of threads (0: one per core).
static POOLS: Mutex<BTreeMap<usize, Arc<ThreadPool>>> = Mutex::new(BTreeMap::new());

/// Runs `work` without the GIL, with its parallel loops on `workers` threads (`None`: one
/// per core, on rayon's global pool from the calling thread, which saves handing the work
/// to a pool thread, about 10 µs, except in a forked child).
pub(crate) fn on_workers<T: Send>(
    py: Python<'_>,
    workers: Option<usize>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| run_on(workers, work))
}

fn run_on<T: Send>(workers: Option<usize>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    // rayon takes 0 threads as its default count, one per core.
    let threads = match workers {
        Some(threads) => threads,
        None if crate::fork::generation() > 0 => 0,
        None => return Ok(work()),
    };
    let pool = {
        let mut pools = POOLS
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a thread panicked while making a pool"))?;
        match pools.get(&threads) {
            Some(pool) => Arc::clone(pool),
            None => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("tierfft-worker-{i}"))
                    .build()
                    .map_err(|e| {
                        PyRuntimeError::new_err(format!("cannot start {threads} workers: {e}"))
                    })?;
                Arc::clone(pools.entry(threads).or_insert(Arc::new(pool)))
            }
        }
    };
    Ok(pool.install(work))
}

/// In a forked child: the pools' threads stayed in the parent, so the next call makes its
/// pool again. The old pools are leaked, not dropped: their registries wait on threads that
/// do not exist here. (A fork while another thread held the map's lock would leave it held;
/// the lock is held only to look a pool up or make one.)
pub(crate) fn forget_pools() {
    if let Ok(mut pools) = POOLS.try_lock() {
        std::mem::forget(std::mem::take(&mut *pools));
    }
}
