//! The ground floor: arithmetic every other layer shares and that knows nothing of transforms
//! as a user asks for them. Smooth lengths and the one list of primes the codelets cover,
//! strided layouts, twiddles computed in f64, double-double arithmetic for references, the precisions data
//! are stored in and how device words hold them, and shared complex vectors.

pub(crate) mod dd;
pub mod factors;
pub(crate) mod layout;
pub mod precision;
pub mod twiddle;
pub mod values;
pub(crate) mod words;
