//! The filters and multiplies focusing applies, computed on the host from the scene: the
//! range matched filter and its windows, the azimuth filter and its radiometry, SRC with the
//! bulk migration, RCMC's resampling positions, chirp scaling's multiplies. Above the scene
//! floor, below focusing.

pub mod azimuth;
pub mod chirp_scaling;
pub mod coupling;
pub mod radiometry;
pub mod range;
pub mod rcmc;
pub mod rows;
pub mod window;
