//! The scene: the radar and its parameters, the Doppler geometry and the antenna pattern
//! (given, or estimated from echoes), a measured pulse, simulated or checked echoes, and the
//! extent a scene is processed at, and the configuration a raw product's description gives
//! ([`product`]). It imports only itself, the raw products' floor and the errors.

pub mod centroid;
pub mod doppler;
pub mod echoes;
pub mod extent;
pub mod freq;
pub mod layout;
pub mod params;
pub mod pattern;
pub mod product;
pub mod replica;
pub mod simulate;
pub mod values;
