//! Where a product's echoes come from: the point on the Earth (the WGS84 ellipsoid, height
//! 0) seen at a slant range and time, at zero Doppler or along the antenna's beam centre;
//! the effective velocity of the hyperbolic range history there; the Doppler centroid the
//! orbit and attitude predict.

use super::LookSide;
use super::orbit::{Attitude, Orbit, Vec3, cross, dot, norm};
use crate::error::SarError;

/// WGS84 semi-major axis, m.
const A: f64 = 6_378_137.0;
/// WGS84 semi-minor axis, m.
const B: f64 = 6_356_752.314_245;

fn unit(v: Vec3) -> Vec3 {
    let n = norm(v);
    v.map(|x| x / n)
}

fn add(a: Vec3, b: Vec3, s: f64) -> Vec3 {
    std::array::from_fn(|k| a[k] + s * b[k])
}

/// How far `p` lies outside the ellipsoid: negative inside.
fn outside(p: Vec3) -> f64 {
    (p[0] * p[0] + p[1] * p[1]) / (A * A) + p[2] * p[2] / (B * B) - 1.0
}

/// The point of the ellipsoid at `range` m from `position`, in the plane through it spanned
/// by `down` and `side` (orthonormal): the look direction turned from `down` towards `side`
/// by the angle that meets the surface (bisection: nadir is inside the Earth for a range
/// above the platform's height, the horizontal is outside).
fn on_surface(position: Vec3, down: Vec3, side: Vec3, range: f64) -> Result<Vec3, SarError> {
    let at = |angle: f64| {
        let look: Vec3 = std::array::from_fn(|k| angle.cos() * down[k] + angle.sin() * side[k]);
        add(position, look, range)
    };
    let (mut lo, mut hi) = (0.0, std::f64::consts::FRAC_PI_2);
    if outside(at(lo)) > 0.0 || outside(at(hi)) < 0.0 {
        return Err(SarError::Product(format!(
            "no point of the Earth lies {range:.0} m from the platform in the look plane (the \
             platform is {:.0} m from the Earth's centre)",
            norm(position)
        )));
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if outside(at(mid)) < 0.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let point = at(0.5 * (lo + hi));
    // Seen from the platform only if the line of sight meets the surface from above.
    let normal = [point[0] / (A * A), point[1] / (A * A), point[2] / (B * B)];
    if dot(add(point, position, -1.0), normal) >= 0.0 {
        return Err(SarError::Product(format!(
            "{range:.0} m is beyond the horizon of a platform {:.0} m from the Earth's centre",
            norm(position)
        )));
    }
    Ok(point)
}

/// The down direction at `position` made perpendicular to `along`, and the side the radar
/// looks to, perpendicular to both.
fn look_frame(position: Vec3, along: Vec3, look: LookSide) -> (Vec3, Vec3) {
    let a = unit(along);
    let down = unit(add(position.map(|x| -x), a, dot(position, a)));
    // Forward × down points left.
    let left = cross(a, down);
    let side = match look {
        LookSide::Left => left,
        LookSide::Right => left.map(|x| -x),
    };
    (down, side)
}

/// The ground point (ellipsoid, height 0) at zero Doppler from the platform at time `t` s,
/// `range` m away on the `look` side: perpendicular to the velocity (Earth-fixed, so the
/// Earth's rotation is in it).
pub fn zero_doppler_target(
    orbit: &Orbit,
    t: f64,
    range: f64,
    look: LookSide,
) -> Result<Vec3, SarError> {
    let s = orbit.at(t)?;
    let (down, side) = look_frame(s.position_m, s.velocity_mps, look);
    on_surface(s.position_m, down, side, range)
}

/// The effective velocity at zero-Doppler time `t` and range `range`, m/s: the `v` of the
/// hyperbolic range history `R(t')² = R² + v²·(t' − t)²` of the ground point there, fitted
/// to the orbit's ranges over ±`half_span_s` (the aperture's half length).
pub fn effective_velocity(
    orbit: &Orbit,
    t: f64,
    range: f64,
    look: LookSide,
    half_span_s: f64,
) -> Result<f64, SarError> {
    let target = zero_doppler_target(orbit, t, range, look)?;
    let r0 = norm(add(orbit.at(t)?.position_m, target, -1.0));
    // Least squares of R² − R0² = v²·τ² over τ = ±k·span/4.
    let (mut num, mut den) = (0.0, 0.0);
    for k in [-4.0, -3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0] {
        let tau = k * half_span_s / 4.0;
        let r = norm(add(orbit.at(t + tau)?.position_m, target, -1.0));
        num += (r * r - r0 * r0) * tau * tau;
        den += tau.powi(4);
    }
    let v2 = num / den;
    match v2.is_finite() && v2 > 0.0 {
        true => Ok(v2.sqrt()),
        false => Err(SarError::Product(format!(
            "the range history at {range:.0} m is not a hyperbola (v² = {v2})"
        ))),
    }
}

/// The Doppler centroid the orbit and attitude predict at time `t` and `range`, Hz. The
/// attitude turns the antenna's frame into the Earth-fixed one, as NISAR L0B products give
/// it (ISCE3's convention: boresight along z, the azimuth axis along y): the beam centre
/// lies in the plane perpendicular to y, its ground point at `range` there, and the centroid
/// is `2·v·û/λ` for the look direction `û` (positive while the target approaches).
pub fn predicted_centroid(
    orbit: &Orbit,
    attitude: &Attitude,
    t: f64,
    range: f64,
    look: LookSide,
    wavelength_m: f64,
) -> Result<f64, SarError> {
    let s = orbit.at(t)?;
    let azimuth_axis = attitude.rotate(t, [0.0, 1.0, 0.0])?;
    // The beam plane is perpendicular to the azimuth axis; within it, look down and to the
    // side.
    let (down, side) = look_frame(s.position_m, azimuth_axis, look);
    let target = on_surface(s.position_m, down, side, range)?;
    let u = unit(add(target, s.position_m, -1.0));
    Ok(2.0 * dot(s.velocity_mps, u) / wavelength_m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A circular equatorial-plane orbit of radius `r` (a sphere-like test: the ellipsoid's
    /// equator is a circle).
    fn orbit(r: f64, w: f64) -> Orbit {
        let t: Vec<f64> = (0..11).map(|i| 10.0 * i as f64).collect();
        let p = t
            .iter()
            .map(|&t| [r * (w * t).cos(), r * (w * t).sin(), 0.0])
            .collect();
        let v = t
            .iter()
            .map(|&t| [-r * w * (w * t).sin(), r * w * (w * t).cos(), 0.0])
            .collect();
        let a = t
            .iter()
            .map(|&t| [-r * w * w * (w * t).cos(), -r * w * w * (w * t).sin(), 0.0])
            .collect();
        Orbit::new(t, p, v).unwrap().with_accelerations(a).unwrap()
    }

    #[test]
    fn zero_doppler_geometry_on_the_equator() {
        let (r, w) = (A + 700e3, 1.06e-3);
        let o = orbit(r, w);
        // Nadir range is the height.
        let nadir = zero_doppler_target(&o, 50.0, 700e3 + 1e-3, LookSide::Right).unwrap();
        assert!((norm(nadir) - A).abs() < 1.0, "{}", norm(nadir));
        // At 850 km, perpendicular to the velocity, on the ellipsoid, and to the right.
        let s = o.at(50.0).unwrap();
        let t = zero_doppler_target(&o, 50.0, 850e3, LookSide::Right).unwrap();
        let los = add(t, s.position_m, -1.0);
        assert!((norm(los) - 850e3).abs() < 1e-3);
        assert!(dot(los, unit(s.velocity_mps)).abs() < 1e-3);
        assert!(outside(t).abs() < 1e-12);
        // Moving counter-clockwise in the x-y plane (+z up), the right is towards −z.
        assert!(t[2] < 0.0);
        // Effective velocity between the ground speed and the platform's: √(Vs·Vg) for a
        // sphere, Vg = Vs·Re·cos β / Rs.
        let vs = r * w;
        let cos_b = (r * r + A * A - 850e3f64.powi(2)) / (2.0 * r * A);
        let want = (vs * vs * A * cos_b / r).sqrt();
        let got = effective_velocity(&o, 50.0, 850e3, LookSide::Right, 2.0).unwrap();
        assert!((got - want).abs() < 1e-3 * want, "{got} vs {want}");
        assert!(zero_doppler_target(&o, 50.0, 5000e3, LookSide::Right).is_err());
    }

    #[test]
    fn a_beam_squinted_by_yaw_predicts_its_doppler() {
        let (r, w) = (A + 700e3, 1.06e-3);
        let o = orbit(r, w);
        let s = o.at(50.0).unwrap();
        let wavelength = 0.236;
        let yaw = |deg: f64| {
            // Body y along the velocity, then turned about the radial axis by `deg`: the
            // beam plane squints forward or back.
            let radial = unit(s.position_m);
            let half = deg.to_radians() / 2.0;
            let q = [
                half.cos(),
                half.sin() * radial[0],
                half.sin() * radial[1],
                half.sin() * radial[2],
            ];
            // Without yaw the azimuth axis (body y) is the velocity, at angle w·t + 90° in
            // the x-y plane: a rotation about z by w·t.
            let base = (w * 50.0) / 2.0;
            let q0 = [base.cos(), 0.0, 0.0, base.sin()];
            let q = mul(q, q0);
            Attitude::new(vec![0.0, 100.0], vec![q, q]).unwrap()
        };
        let zero =
            predicted_centroid(&o, &yaw(0.0), 50.0, 850e3, LookSide::Right, wavelength).unwrap();
        assert!(zero.abs() < 1.0, "{zero}");
        let forward =
            predicted_centroid(&o, &yaw(0.5), 50.0, 850e3, LookSide::Right, wavelength).unwrap();
        let back =
            predicted_centroid(&o, &yaw(-0.5), 50.0, 850e3, LookSide::Right, wavelength).unwrap();
        assert!(
            (forward + back).abs() < 1e-6 * forward.abs() + 1e-6,
            "{forward} {back}"
        );
        assert!(forward.abs() > 100.0, "{forward}");
    }

    /// The quaternion product `a·b`.
    fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    }
}
