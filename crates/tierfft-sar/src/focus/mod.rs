//! Focusing: a SAR plan as data ([`SarPlan`]: the scene's shape and its [`Step`]s, each
//! with its filter and what it needs whole), made by one builder per algorithm
//! ([`rda`], [`csa`], chosen in [`builders`]), and the executors that walk its steps
//! without knowing the algorithm: fused on device-resident data ([`resident`]), every step
//! through the host ([`host`]), or over several devices ([`distributed`]). [`Focuser`] plans
//! and runs one scene on one device, [`strip::StripFocuser`] a long recording in blocks, and
//! [`fit::fit`] picks whichever fits the device.

pub mod builders;
pub mod csa;
pub mod distributed;
pub mod fit;
pub mod focuser;
pub mod host;
pub mod options;
pub mod plan;
pub mod rda;
pub mod resident;
pub mod step;
pub mod strip;

pub use crate::filters::rcmc::RCMC_TAPS;
pub use crate::focus::focuser::{Focuser, MemoryNeeds, Planned, Planning, focus, memory_needs};
pub use crate::focus::options::{Algorithm, FocusOptions, StepTimings};
pub use crate::focus::plan::SarPlan;
pub use crate::focus::step::{Needs, Step};
