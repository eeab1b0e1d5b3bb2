//! The one error type of the library.

use thiserror::Error;

/// Everything a user or a device can get wrong, each with a message that says what to do.
#[derive(Debug, Error)]
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
    /// A spec asks for something no backend can do (the message says what and the limit).
    #[error("invalid spec: {0}")]
    InvalidSpec(String),
    /// No device matched what was asked for.
    #[error("no device found: {0}")]
    NoDevice(String),
    /// The GPU API failed (device lost, out of memory, a validation error).
    #[error("GPU error: {0}")]
    Gpu(String),
    /// A generated kernel did not compile; the message carries the compiler's log.
    #[error("kernel '{kernel}' failed to compile: {log}")]
    Compile {
        /// The kernel's name.
        kernel: String,
        /// The compiler's message.
        log: String,
    },
}

/// Shorthand for `std::result::Result<T, tierfft::Error>`.
pub type Result<T> = std::result::Result<T, Error>;
