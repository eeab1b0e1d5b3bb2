//! Smooth lengths: those whose prime factors all have codelets (the primes up to 31). The one
//! list of those primes, read by the planner (which lengths take one pass of radix stages)
//! and the kernel generator (which codelets exist).

/// The primes a smooth length may contain: those the kernel generator has codelets for.
pub const PRIMES: [usize; 11] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31];

/// The prime factors of `n`, largest first, when every one is in [`PRIMES`].
pub fn smooth_factors(mut n: usize) -> Option<Vec<usize>> {
    let mut f = Vec::new();
    for p in PRIMES {
        while n > 1 && n.is_multiple_of(p) {
            f.push(p);
            n /= p;
        }
    }
    f.reverse();
    (n == 1).then_some(f)
}

/// Whether `n`'s prime factors are all 31 or less, the radices the kernels have (1 is smooth).
pub fn is_smooth(n: usize) -> bool {
    smooth_factors(n).is_some()
}
