//! What a focused image is measured for: point-target metrics (IRW, PSLR, ISLR), targets
//! measured alone among their neighbours, where the noise is measured, the multi-looked
//! product and the run's report. The top floor: it reads scenes, filters and focusing.

pub mod looks;
pub mod measure;
pub mod metrics;
pub mod neighbours;
pub mod noise;
pub mod report;
pub mod speckle;
