//! The real-to-real trigonometric transforms: discrete cosine and sine transforms of types
//! I to IV, with SciPy's definitions (`scipy.fft.dct`, `dst`). Each is computed through one
//! complex FFT of a related length between two passes that reorder, extend and twiddle the
//! reals ([`crate::nd`] plans them).

use num_complex::Complex64;

use crate::error::{Error, Result};
use crate::spec::Direction;

/// A discrete cosine or sine transform, unnormalised, as SciPy defines it for `norm=None`
/// (`x` the `n` inputs, `y` the `n` outputs, `k = 0..n`):
///
/// | type | `y[k]` |
/// |---|---|
/// | DCT-I | `x[0] + (−1)^k x[n−1] + 2 Σ_{j=1}^{n−2} x[j] cos(πjk/(n−1))` (n ≥ 2) |
/// | DCT-II | `2 Σ_j x[j] cos(πk(2j+1)/(2n))` |
/// | DCT-III | `x[0] + 2 Σ_{j≥1} x[j] cos(πj(2k+1)/(2n))` |
/// | DCT-IV | `2 Σ_j x[j] cos(π(2j+1)(2k+1)/(4n))` |
/// | DST-I | `2 Σ_j x[j] sin(π(j+1)(k+1)/(n+1))` |
/// | DST-II | `2 Σ_j x[j] sin(π(k+1)(2j+1)/(2n))` |
/// | DST-III | `(−1)^k x[n−1] + 2 Σ_{j<n−1} x[j] sin(π(j+1)(2k+1)/(2n))` |
/// | DST-IV | `2 Σ_j x[j] sin(π(2j+1)(2k+1)/(4n))` |
///
/// Type II's inverse is type III divided by [`Trig::logical_len`] (`2n`), and the other way
/// round; types I and IV are their own inverses but for that factor.
///
/// ```
/// use tierfft::Trig;
/// let t = Trig::dct(2)?;
/// assert_eq!(t, Trig::DctII);
/// assert_eq!(t.inverse(), Trig::DctIII);
/// assert_eq!(Trig::dst(1)?.logical_len(7), 16);
/// assert!(Trig::dct(5).is_err());
/// # Ok::<(), tierfft::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Trig {
    /// DCT type I (the even extension of length `2(n−1)`).
    DctI,
    /// DCT type II, "the" DCT (JPEG's, SciPy's default).
    DctII,
    /// DCT type III, the inverse of type II.
    DctIII,
    /// DCT type IV.
    DctIV,
    /// DST type I (the odd extension of length `2(n+1)`).
    DstI,
    /// DST type II.
    DstII,
    /// DST type III, the inverse of type II.
    DstIII,
    /// DST type IV.
    DstIV,
}

/// Which ends of a line SciPy's `orthogonalize` scales ([`Trig::orthogonal_ends`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ends {
    /// Point 0.
    pub first: bool,
    /// Point `n − 1`.
    pub last: bool,
}

impl Ends {
    /// Whether point `j` of `n` is one of the ends.
    pub fn contains(self, j: usize, n: usize) -> bool {
        (self.first && j == 0) || (self.last && j + 1 == n)
    }
}

impl Trig {
    /// Every transform, DCTs then DSTs, types I to IV.
    pub const ALL: [Trig; 8] = [
        Trig::DctI,
        Trig::DctII,
        Trig::DctIII,
        Trig::DctIV,
        Trig::DstI,
        Trig::DstII,
        Trig::DstIII,
        Trig::DstIV,
    ];

    /// The DCT of type `kind` (1 to 4, SciPy's `type`).
    pub fn dct(kind: u32) -> Result<Trig> {
        Self::of(kind, [Trig::DctI, Trig::DctII, Trig::DctIII, Trig::DctIV])
    }

    /// The DST of type `kind` (1 to 4, SciPy's `type`).
    pub fn dst(kind: u32) -> Result<Trig> {
        Self::of(kind, [Trig::DstI, Trig::DstII, Trig::DstIII, Trig::DstIV])
    }

    fn of(kind: u32, types: [Trig; 4]) -> Result<Trig> {
        let at = usize::try_from(kind).ok().and_then(|k| k.checked_sub(1));
        at.and_then(|i| types.get(i).copied()).ok_or_else(|| {
            Error::InvalidSpec(format!(
                "there is no {} of type {kind}: the types are 1, 2, 3 and 4",
                if types[0] == Trig::DctI { "DCT" } else { "DST" }
            ))
        })
    }

    /// True for the sine transforms.
    pub fn is_sine(self) -> bool {
        matches!(self, Trig::DstI | Trig::DstII | Trig::DstIII | Trig::DstIV)
    }

    /// The type, 1 to 4.
    pub fn kind(self) -> u32 {
        match self {
            Trig::DctI | Trig::DstI => 1,
            Trig::DctII | Trig::DstII => 2,
            Trig::DctIII | Trig::DstIII => 3,
            Trig::DctIV | Trig::DstIV => 4,
        }
    }

    /// "DCT-II" and so on.
    pub fn name(self) -> String {
        let family = if self.is_sine() { "DST" } else { "DCT" };
        let roman = ["I", "II", "III", "IV"][self.kind() as usize - 1];
        format!("{family}-{roman}")
    }

    /// The transform whose unnormalised result, divided by [`Trig::logical_len`], undoes this
    /// one: type II ↔ type III, types I and IV themselves.
    pub fn inverse(self) -> Trig {
        match self {
            Trig::DctII => Trig::DctIII,
            Trig::DctIII => Trig::DctII,
            Trig::DstII => Trig::DstIII,
            Trig::DstIII => Trig::DstII,
            other => other,
        }
    }

    /// The length of the symmetric extension the transform is a DFT of, by which a round trip
    /// is divided (SciPy's normalisation factor): `2(n−1)` for DCT-I, `2(n+1)` for DST-I,
    /// `2n` otherwise.
    pub fn logical_len(self, n: usize) -> usize {
        match self {
            Trig::DctI => 2 * n.saturating_sub(1),
            Trig::DstI => 2 * (n + 1),
            _ => 2 * n,
        }
    }

    /// The ends SciPy's `orthogonalize` multiplies by √2 on input (`output` false: DCT-I
    /// both, DCT-III the first, DST-III the last) or divides by √2 on output (`output` true:
    /// DCT-I both, DCT-II the first, DST-II the last).
    pub fn orthogonal_ends(self, output: bool) -> Ends {
        let (first, last) = match (self, output) {
            (Trig::DctI, _) => (true, true),
            (Trig::DctIII, false) | (Trig::DctII, true) => (true, false),
            (Trig::DstIII, false) | (Trig::DstII, true) => (false, true),
            _ => (false, false),
        };
        Ends { first, last }
    }

    /// The fewest points the transform is defined for: 2 for DCT-I, else 1.
    pub fn min_len(self) -> usize {
        if self == Trig::DctI { 2 } else { 1 }
    }

    /// The length of the complex FFT that computes an `n`-point transform: the extension's
    /// for type I, `2n` for type IV (the zero-padded twiddled input), `n` for types II and
    /// III (Makhoul's reordering).
    pub fn fft_len(self, n: usize) -> usize {
        match self.kind() {
            1 => self.logical_len(n),
            4 => 2 * n,
            _ => n,
        }
    }

    /// The direction of that FFT: inverse for type III, forward otherwise.
    pub fn direction(self) -> Direction {
        if self.kind() == 3 {
            Direction::Inverse
        } else {
            Direction::Forward
        }
    }

    /// The twiddles `exp(−πit/(4n))`, `t = 0..2n`, that types II to IV read before or after
    /// their FFT (in f64, reduced exactly, rounded once to the precision they are used in);
    /// `None` for type I.
    pub fn twiddles(self, n: usize) -> Option<Vec<Complex64>> {
        (self.kind() != 1).then(|| crate::base::twiddle::table(2 * n, 1, 8 * n, -1.0))
    }
}

impl std::fmt::Display for Trig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A real-to-real transform along every axis an [`crate::NdSpec`] transforms
/// ([`crate::NdSpec::trig`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct RealToReal {
    /// The transform (its inverse when the spec's direction is inverse).
    pub transform: Trig,
    /// SciPy's `orthogonalize`: for types I to III, scale the first (DCT) or last (DST) input
    /// by √2 and divide the same output by √2 (both ends for DCT-I), which with a scale of
    /// `1/√(logical length)` makes the transform orthogonal. No effect on type IV and DST-I.
    pub orthogonalize: bool,
    /// A factor on every output, after the normalisation (SciPy's `norm="ortho"`:
    /// `1/√(Π logical lengths)`). 1 by default.
    pub scale: f64,
}

impl RealToReal {
    /// `transform`, unscaled and not orthogonalised (SciPy's `norm="backward"` forward).
    pub fn new(transform: Trig) -> Self {
        RealToReal {
            transform,
            orthogonalize: false,
            scale: 1.0,
        }
    }

    /// With SciPy's `orthogonalize=True` ([`RealToReal::orthogonalize`]).
    pub fn orthogonalized(mut self) -> Self {
        self.orthogonalize = true;
        self
    }

    /// With every output multiplied by `scale` ([`RealToReal::scale`]).
    pub fn scaled(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }
}

impl From<Trig> for RealToReal {
    fn from(transform: Trig) -> Self {
        RealToReal::new(transform)
    }
}
