//! The crate's errors, on the lowest floor: every module reports through them.

/// Errors of the SAR crate.
#[derive(Debug, thiserror::Error)]
pub enum SarError {
    /// A configuration that cannot work (the message says which value and why).
    #[error("bad SAR configuration: {0}")]
    Config(String),
    /// Echoes that cannot be focused as given (non-finite samples, a transposed or real
    /// array; the message says what and the remedy).
    #[error("{0}")]
    Echoes(String),
    /// A raw product that cannot be read (the message names the file, the field and what is
    /// wrong with it, or what the reader cannot handle yet).
    #[error("{0}")]
    Product(String),
    /// The FFT library failed (device, size, memory).
    #[error(transparent)]
    Fft(#[from] tierfft::Error),
    /// A point target could not be analysed.
    #[error("point-target analysis: {0}")]
    Metrics(#[from] MetricsError),
}

/// Errors for cuts or images that cannot be analysed.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The cut has fewer than 8 samples (e.g. clamped at an image edge).
    #[error("cut has {0} samples, at least 8 are needed")]
    TooShort(usize),
    /// The upsampling factor is not a power of two ≥ 2.
    #[error("upsampling factor {0} is not a power of two >= 2")]
    BadFactor(usize),
    /// The cut or the noise region contains NaN or infinite samples.
    #[error("non-finite samples in the data")]
    NonFinite,
    /// No finite, non-zero peak was found.
    #[error("no finite non-zero peak found")]
    NoPeak,
    /// The peak is on the first or last upsampled sample of the cut.
    #[error("peak lies on the edge of the cut, no room for a mainlobe")]
    PeakAtEdge,
    /// Power keeps falling up to the end of the cut on this side ("left"/"right").
    #[error("no null (local power minimum) found {0} of the peak")]
    NoNull(&'static str),
    /// Power does not fall to half the peak before the null on this side.
    #[error("power does not fall below half the peak before the {0} null")]
    NoHalfPower(&'static str),
    /// The image has no samples (`lines` or `samples` is 0).
    #[error("image is empty")]
    EmptyImage,
    /// `image.len()` (first field) differs from `lines × samples` (second, third).
    #[error("image has {0} samples, which does not match {1} lines x {2} samples")]
    ImageSize(usize, usize, usize),
    /// The guess (azimuth, range) lies outside the image.
    #[error("guess ({0}, {1}) lies outside the image")]
    GuessOutside(usize, usize),
    /// The noise rectangle is empty or extends outside the image.
    #[error("noise region is empty or extends outside the image")]
    BadNoiseRegion,
}
