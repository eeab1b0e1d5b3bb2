//! The one error type of the library.

use thiserror::Error;

/// A lower-level error kept as the source of an [`enum@Error`].
pub type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything a user or a device can get wrong, each with a message that says what to do.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The transform length is outside the lengths tierfft plans.
    #[error("unsupported FFT length {n}: tierfft transforms lengths from 1 to 2^{max_log2}")]
    UnsupportedLength {
        /// The length asked for.
        n: usize,
        /// log2 of the largest supported length.
        max_log2: u32,
    },
    /// The device cannot do what was asked (the message names the device and what it can do
    /// instead).
    #[error("{what} is not supported on '{device}': {detail}")]
    Unsupported {
        /// What was asked for.
        what: String,
        /// The device's name.
        device: String,
        /// What the device does, and what to do instead.
        detail: String,
    },
    /// A batch of zero transforms was asked for.
    #[error("batch must be at least 1 (got 0)")]
    ZeroBatch,
    /// A buffer handed to `process` does not hold `n × batch` elements.
    #[error(
        "buffer holds {got} complex elements, but the plan needs n × batch = {n} × {batch} = {expected}"
    )]
    BufferLength {
        /// Elements in the buffer.
        got: usize,
        /// Elements the plan needs.
        expected: usize,
        /// Transform length.
        n: usize,
        /// Number of transforms.
        batch: usize,
    },
    /// A vector fused into the spec (a window, a filter, a per-element multiply) does not
    /// hold the values the transform needs.
    #[error("{operand} holds {got} complex values, but the spec needs {expected} ({per})")]
    OperandLength {
        /// Which vector: e.g. "on_load PointOp::Multiply" or "then_multiply_and_invert's filter".
        operand: String,
        /// Values in the vector.
        got: usize,
        /// Values the spec needs.
        expected: usize,
        /// Why that many: one per point of a transform, or one per element of the batch.
        per: String,
    },
    /// The transform does not fit the device (one transform larger than a buffer binding, say).
    #[error("{what} on device '{device}': {detail}")]
    TooLarge {
        /// What was too large.
        what: String,
        /// The device's name.
        device: String,
        /// The limit and what to do.
        detail: String,
    },
    /// A planner option has a value the planner cannot use.
    #[error("invalid planner option: {0}")]
    InvalidOptions(String),
    /// A wisdom file (`tierfft tune`'s measured shapes) could not be read: the message
    /// names the file, the entry and the field.
    #[error("invalid wisdom: {0}")]
    InvalidWisdom(String),
    /// A spec asks for something no backend can do (the message says what and the limit).
    #[error("invalid spec: {0}")]
    InvalidSpec(String),
    /// No device matched what was asked for.
    #[error("no device found: {0}")]
    NoDevice(String),
    /// The GPU API failed: a validation error, or a driver call that returned an error.
    #[error("GPU error: {what}")]
    Gpu {
        /// What failed.
        what: String,
        /// The API's own error, where there is one.
        #[source]
        source: Option<Source>,
    },
    /// The device ran out of memory: free buffers or plans, or take smaller batches.
    #[error("out of device memory: {what}{}", memory_note(*.requested, *.free))]
    OutOfMemory {
        /// What needed the memory.
        what: String,
        /// Bytes asked for, where known.
        requested: Option<u64>,
        /// Bytes the device had free when asked, where the API says (CUDA).
        free: Option<u64>,
        /// The API's own error, where there is one.
        #[source]
        source: Option<Source>,
    },
    /// The device can no longer be used: it was lost (driver reset, removal), or a kernel
    /// faulted and left the CUDA context unusable (CUDA keeps such faults until the process
    /// exits). Plans and buffers on it are dead.
    #[error("the device was lost: {what}")]
    DeviceLost {
        /// What failed, and what to do.
        what: String,
        /// The API's own error, where there is one.
        #[source]
        source: Option<Source>,
    },
    /// A checksummed transform ([`crate::Checksum`]) failed its check: the output of these
    /// transforms does not match the weighted sum of their input, so a fault (a flipped bit
    /// in device memory, a faulty unit) or a NaN or infinity in the data changed them.
    /// The other transforms of the batch passed.
    #[error("checksum mismatch in {} of {batch} transforms (batch indices {}): their output \
             is not to be trusted; run them again, and if it persists suspect the device",
            transforms.len(), list_indices(transforms))]
    Checksum {
        /// Batch indices of the transforms that failed, ascending.
        transforms: Vec<usize>,
        /// Transforms in the call.
        batch: usize,
    },
    /// The ranks of a distributed transform could not meet or exchange data: a rank failed
    /// or exited, the rendezvous address or port was wrong, or not every rank arrived in
    /// time. The message names the rank and what to check.
    #[error("between ranks: {what}")]
    Ranks {
        /// What failed, and what to do.
        what: String,
        /// The operating system's error, where there is one.
        #[source]
        source: Option<Source>,
    },
    /// A generated kernel did not compile; the message carries the compiler's log.
    #[error("kernel '{kernel}' failed to compile: {log}")]
    Compile {
        /// The kernel's name.
        kernel: String,
        /// The compiler's message.
        log: String,
    },
}

impl Error {
    /// A GPU API failure with only a message.
    pub(crate) fn gpu(what: impl Into<String>) -> Error {
        Error::Gpu {
            what: what.into(),
            source: None,
        }
    }

    /// A failure between ranks ([`Error::Ranks`]), the system's error kept as the source.
    pub(crate) fn ranks(what: impl Into<String>, source: Option<std::io::Error>) -> Error {
        let what = what.into();
        match source {
            Some(e) => Error::Ranks {
                what: format!("{what} ({e})"),
                source: Some(Box::new(e)),
            },
            None => Error::Ranks { what, source: None },
        }
    }

    /// A GPU API failure, the API's error kept as the source (and quoted in the message).
    #[cfg(feature = "wgpu")]
    pub(crate) fn gpu_from(
        what: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error::Gpu {
            what: format!("{what}: {source}"),
            source: Some(Box::new(source)),
        }
    }
}

/// " (N MiB asked, M MiB free: ...)" for an [`Error::OutOfMemory`], as much as is known.
fn memory_note(requested: Option<u64>, free: Option<u64>) -> String {
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64);
    let advice = "free buffers or plans, or take smaller batches";
    match (requested, free) {
        (Some(r), Some(f)) => format!(" ({} asked, {} free: {advice})", mib(r), mib(f)),
        (Some(r), None) => format!(" ({} asked: {advice})", mib(r)),
        (None, Some(f)) => format!(" ({} free: {advice})", mib(f)),
        (None, None) => format!(" ({advice})"),
    }
}

/// Up to eight indices, then how many more.
fn list_indices(xs: &[usize]) -> String {
    let shown: Vec<String> = xs.iter().take(8).map(usize::to_string).collect();
    match xs.len() {
        0..=8 => shown.join(", "),
        more => format!("{}, … and {} more", shown.join(", "), more - 8),
    }
}

/// Shorthand for `std::result::Result<T, tierfft::Error>`.
pub type Result<T> = std::result::Result<T, Error>;
