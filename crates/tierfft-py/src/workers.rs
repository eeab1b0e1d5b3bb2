//! SciPy's `workers=`: a CPU transform run on a pool of that many threads instead of
//! rayon's global pool (one per core). Pools are made once per count and kept.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::PyResult;
use pyo3::exceptions::PyRuntimeError;
use rayon::ThreadPool;

/// The pools made so far, by their number of threads.
static POOLS: Mutex<BTreeMap<usize, Arc<ThreadPool>>> = Mutex::new(BTreeMap::new());

/// Runs `work` with its parallel loops on `workers` threads (`None`: rayon's global pool).
pub(crate) fn on_workers<T: Send>(
    workers: Option<usize>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let Some(threads) = workers else {
        return Ok(work());
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
                    .thread_name(move |i| format!("tierfft-workers-{threads}-{i}"))
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
