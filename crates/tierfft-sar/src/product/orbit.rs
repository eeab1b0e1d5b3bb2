//! The platform's path and pointing as a product records them: orbit state vectors
//! (position, velocity and, where recorded, acceleration; Earth-centred Earth-fixed)
//! interpolated by Hermite polynomials between neighbouring vectors (quintic with the
//! accelerations, cubic without), and attitude quaternions interpolated by normalised linear
//! blending.

use crate::error::SarError;

/// A vector of three components (x, y, z).
pub type Vec3 = [f64; 3];

/// Orbit state vectors, Earth-centred Earth-fixed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Orbit {
    /// Times of the vectors, s since the product's epoch, increasing.
    pub times_s: Vec<f64>,
    /// Positions, m.
    pub positions_m: Vec<Vec3>,
    /// Velocities, m/s.
    pub velocities_mps: Vec<Vec3>,
    /// Accelerations, m/s², where recorded: they raise the interpolation from cubic to
    /// quintic (over vectors a minute apart, from ~0.3 m of position error to ~1 mm).
    pub accelerations_mps2: Option<Vec<Vec3>>,
}

/// A state: position (m) and velocity (m/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    /// Position, m.
    pub position_m: Vec3,
    /// Velocity, m/s.
    pub velocity_mps: Vec3,
}

impl Orbit {
    /// An orbit from its vectors, checked: at least two, times finite and increasing, one
    /// position and velocity per time, every value finite.
    pub fn new(
        times_s: Vec<f64>,
        positions_m: Vec<Vec3>,
        velocities_mps: Vec<Vec3>,
    ) -> Result<Orbit, SarError> {
        let n = times_s.len();
        if n < 2 || positions_m.len() != n || velocities_mps.len() != n {
            return Err(SarError::Product(format!(
                "an orbit needs at least two state vectors with one position and one velocity \
                 each (got {n} times, {} positions, {} velocities)",
                positions_m.len(),
                velocities_mps.len()
            )));
        }
        let finite = |v: &[Vec3]| v.iter().flatten().all(|x| x.is_finite());
        if !times_s.iter().all(|t| t.is_finite())
            || !finite(&positions_m)
            || !finite(&velocities_mps)
        {
            return Err(SarError::Product(
                "the orbit holds NaN or infinite values".into(),
            ));
        }
        if let Some(i) = (1..n).find(|&i| times_s[i] <= times_s[i - 1]) {
            return Err(SarError::Product(format!(
                "the orbit's times do not increase: vector {i} at {} s follows {} s",
                times_s[i],
                times_s[i - 1]
            )));
        }
        Ok(Orbit {
            times_s,
            positions_m,
            velocities_mps,
            accelerations_mps2: None,
        })
    }

    /// The same orbit with an acceleration per vector (m/s²), for quintic interpolation.
    pub fn with_accelerations(mut self, accelerations_mps2: Vec<Vec3>) -> Result<Orbit, SarError> {
        if accelerations_mps2.len() != self.times_s.len()
            || !accelerations_mps2.iter().flatten().all(|x| x.is_finite())
        {
            return Err(SarError::Product(format!(
                "the orbit has {} state vectors and {} accelerations, or some are not finite",
                self.times_s.len(),
                accelerations_mps2.len()
            )));
        }
        self.accelerations_mps2 = Some(accelerations_mps2);
        Ok(self)
    }

    /// The state at `t` (s since the epoch), by the Hermite polynomial through the two
    /// vectors around it (positions, velocities and accelerations where recorded matched at
    /// each end). Outside the vectors' span it is an error: extrapolating an orbit is a guess.
    pub fn at(&self, t: f64) -> Result<State, SarError> {
        let (i, s) = interval(&self.times_s, t, "the orbit's state vectors")?;
        let h = self.times_s[i] - self.times_s[i - 1];
        let (p0, p1) = (self.positions_m[i - 1], self.positions_m[i]);
        let (v0, v1) = (self.velocities_mps[i - 1], self.velocities_mps[i]);
        let (s2, s3, s4, s5) = (s * s, s.powi(3), s.powi(4), s.powi(5));
        // Hermite bases (weights of p0, h·v0, p1, h·v1, and with accelerations h²·a0,
        // h²·a1) and their derivatives per unit s.
        let (b, d, acc) = match &self.accelerations_mps2 {
            None => (
                [
                    2.0 * s3 - 3.0 * s2 + 1.0,
                    s3 - 2.0 * s2 + s,
                    -2.0 * s3 + 3.0 * s2,
                    s3 - s2,
                    0.0,
                    0.0,
                ],
                [
                    6.0 * s2 - 6.0 * s,
                    3.0 * s2 - 4.0 * s + 1.0,
                    -6.0 * s2 + 6.0 * s,
                    3.0 * s2 - 2.0 * s,
                    0.0,
                    0.0,
                ],
                [[0.0; 3]; 2],
            ),
            Some(a) => (
                [
                    1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5,
                    s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5,
                    10.0 * s3 - 15.0 * s4 + 6.0 * s5,
                    -4.0 * s3 + 7.0 * s4 - 3.0 * s5,
                    0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5,
                    0.5 * s3 - s4 + 0.5 * s5,
                ],
                [
                    -30.0 * s2 + 60.0 * s3 - 30.0 * s4,
                    1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4,
                    30.0 * s2 - 60.0 * s3 + 30.0 * s4,
                    -12.0 * s2 + 28.0 * s3 - 15.0 * s4,
                    s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4,
                    1.5 * s2 - 4.0 * s3 + 2.5 * s4,
                ],
                [a[i - 1], a[i]],
            ),
        };
        let mut state = State {
            position_m: [0.0; 3],
            velocity_mps: [0.0; 3],
        };
        for k in 0..3 {
            let terms = [
                p0[k],
                h * v0[k],
                p1[k],
                h * v1[k],
                h * h * acc[0][k],
                h * h * acc[1][k],
            ];
            state.position_m[k] = (0..6).map(|j| b[j] * terms[j]).sum();
            state.velocity_mps[k] = (0..6).map(|j| d[j] * terms[j]).sum::<f64>() / h;
        }
        Ok(state)
    }
}

/// Attitude quaternions (scalar first), rotating the platform's body frame into the
/// Earth-centred frame the product names.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Attitude {
    /// Times, s since the product's epoch, increasing.
    pub times_s: Vec<f64>,
    /// Unit quaternions `[q0, q1, q2, q3]`, `q0` the scalar part.
    pub quaternions: Vec<[f64; 4]>,
}

impl Attitude {
    /// Attitude from its records, checked like an orbit's; the quaternions are normalised.
    pub fn new(times_s: Vec<f64>, quaternions: Vec<[f64; 4]>) -> Result<Attitude, SarError> {
        let n = times_s.len();
        if n < 2 || quaternions.len() != n {
            return Err(SarError::Product(format!(
                "attitude needs at least two quaternions, one per time (got {n} times, {} \
                 quaternions)",
                quaternions.len()
            )));
        }
        if !times_s.iter().all(|t| t.is_finite()) {
            return Err(SarError::Product(
                "the attitude's times hold NaN or infinite values".into(),
            ));
        }
        if let Some(i) = (1..n).find(|&i| times_s[i] <= times_s[i - 1]) {
            return Err(SarError::Product(format!(
                "the attitude's times do not increase at record {i}"
            )));
        }
        let mut unit = Vec::with_capacity(n);
        for (i, q) in quaternions.iter().enumerate() {
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            if !(norm.is_finite() && norm > 0.5 && norm < 2.0) {
                return Err(SarError::Product(format!(
                    "attitude quaternion {i} {q:?} is not a rotation (norm {norm})"
                )));
            }
            unit.push(q.map(|x| x / norm));
        }
        Ok(Attitude {
            times_s,
            quaternions: unit,
        })
    }

    /// The quaternion at `t` (s since the epoch): the neighbours blended linearly (the
    /// shorter way round) and normalised, accurate for records a second or so apart.
    pub fn at(&self, t: f64) -> Result<[f64; 4], SarError> {
        let (i, s) = interval(&self.times_s, t, "the attitude records")?;
        let (a, mut b) = (self.quaternions[i - 1], self.quaternions[i]);
        if a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
            b = b.map(|x| -x);
        }
        let q: [f64; 4] = std::array::from_fn(|k| (1.0 - s) * a[k] + s * b[k]);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        Ok(q.map(|x| x / norm))
    }

    /// `v` (body frame) rotated into the Earth-centred frame by the attitude at `t`.
    pub fn rotate(&self, t: f64, v: Vec3) -> Result<Vec3, SarError> {
        let [w, x, y, z] = self.at(t)?;
        // v' = v + 2w(q×v) + 2q×(q×v), q = (x, y, z).
        let q = [x, y, z];
        let c1 = cross(q, v);
        let c2 = cross(q, c1);
        Ok(std::array::from_fn(|k| {
            v[k] + 2.0 * w * c1[k] + 2.0 * c2[k]
        }))
    }
}

/// Where `t` lies among increasing `times` (at least two): the index `i` of the record after
/// it (`times[i - 1] <= t <= times[i]`) and the fraction of the way from `times[i - 1]`; an
/// error naming `what` outside their span.
fn interval(times: &[f64], t: f64, what: &str) -> Result<(usize, f64), SarError> {
    let (first, last) = (times[0], times[times.len() - 1]);
    if !(first..=last).contains(&t) {
        return Err(SarError::Product(format!(
            "time {t} s lies outside {what} ({first} s to {last} s)"
        )));
    }
    let i = times
        .partition_point(|&ti| ti <= t)
        .clamp(1, times.len() - 1);
    Ok((i, (t - times[i - 1]) / (times[i] - times[i - 1])))
}

/// The cross product `a × b`.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The dot product.
pub fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The length of `a`.
pub fn norm(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A circular orbit of radius `r` in the x-y plane at angular rate `w`.
    fn circle(r: f64, w: f64, t: f64) -> State {
        State {
            position_m: [r * (w * t).cos(), r * (w * t).sin(), 0.0],
            velocity_mps: [-r * w * (w * t).sin(), r * w * (w * t).cos(), 0.0],
        }
    }

    #[test]
    fn hermite_follows_a_circular_orbit_between_vectors_a_minute_apart() {
        let (r, w) = (7.07e6, 1.07e-3);
        let times: Vec<f64> = (0..6).map(|i| 60.0 * i as f64).collect();
        let states: Vec<State> = times.iter().map(|&t| circle(r, w, t)).collect();
        let orbit = Orbit::new(
            times,
            states.iter().map(|s| s.position_m).collect(),
            states.iter().map(|s| s.velocity_mps).collect(),
        )
        .unwrap();
        let accelerations = (0..6)
            .map(|i| {
                let p = states[i].position_m;
                [-w * w * p[0], -w * w * p[1], 0.0]
            })
            .collect();
        let quintic = orbit.clone().with_accelerations(accelerations).unwrap();
        // A cubic Hermite's error over h = 60 s of a 98-minute orbit is at most
        // r·(w·h)^4/384 = 0.31 m in position (~0.03 m/s in velocity); a quintic's
        // r·(w·h)^6/46080, 0.01 mm.
        for (orbit, position, velocity) in [(&orbit, 0.32, 0.03), (&quintic, 1e-3, 1e-4)] {
            for t in [0.0, 13.7, 90.0, 299.9, 300.0] {
                let got = orbit.at(t).unwrap();
                let want = circle(r, w, t);
                let dp: Vec3 = std::array::from_fn(|k| got.position_m[k] - want.position_m[k]);
                let dv: Vec3 = std::array::from_fn(|k| got.velocity_mps[k] - want.velocity_mps[k]);
                assert!(norm(dp) < position, "{t}: position off by {} m", norm(dp));
                assert!(norm(dv) < velocity, "{t}: velocity off by {} m/s", norm(dv));
            }
        }
        assert!(orbit.at(-1.0).is_err() && orbit.at(300.5).is_err());
    }

    #[test]
    fn orbits_and_attitudes_are_checked() {
        let p = vec![[7e6, 0.0, 0.0]; 2];
        assert!(Orbit::new(vec![0.0, 0.0], p.clone(), p.clone()).is_err());
        assert!(Orbit::new(vec![0.0], p[..1].to_vec(), p[..1].to_vec()).is_err());
        assert!(Orbit::new(vec![0.0, f64::NAN], p.clone(), p).is_err());
        let q = vec![[1.0, 0.0, 0.0, 0.0]; 2];
        assert!(Attitude::new(vec![0.0, 1.0], vec![[0.0; 4]; 2]).is_err());
        assert!(Attitude::new(vec![1.0, 0.0], q).is_err());
    }

    #[test]
    fn attitude_rotates_by_its_quaternion() {
        // 90° about z: x goes to y.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let att = Attitude::new(vec![0.0, 10.0], vec![[h, 0.0, 0.0, h]; 2]).unwrap();
        let v = att.rotate(5.0, [1.0, 0.0, 0.0]).unwrap();
        assert!((v[0]).abs() < 1e-12 && (v[1] - 1.0).abs() < 1e-12, "{v:?}");
        // Halfway between the identity and 90° about z: 45°.
        let att = Attitude::new(
            vec![0.0, 10.0],
            vec![[1.0, 0.0, 0.0, 0.0], [h, 0.0, 0.0, h]],
        )
        .unwrap();
        let v = att.rotate(5.0, [1.0, 0.0, 0.0]).unwrap();
        assert!((v[0] - h).abs() < 1e-9 && (v[1] - h).abs() < 1e-9, "{v:?}");
    }
}
