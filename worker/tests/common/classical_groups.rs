//! Classical groups over prime fields as permutation groups, for tests and the group benchmark
//! (which includes this file by path): PSL(2, p) and PGL(2, p) on the projective line, PSL(3, q)
//! on the projective plane, and Möbius maps and matrices as permutations, so that membership can
//! be decided from the definitions (a map is in PSL(2, p) iff its determinant is a square, a
//! matrix acts as an element of PSL(3, q) iff its determinant is a cube) and orders checked
//! against the textbook formulas.
#![allow(dead_code)] // each includer uses a part

use orbit_worker::group::Perm;

pub fn from_fn(n: usize, f: impl Fn(u64) -> u64) -> Perm {
    Perm::from_images((0..n as u64).map(|x| f(x) as u32).collect(), "test").expect("a permutation")
}

pub fn pow_mod(mut b: u64, mut e: u64, m: u64) -> u64 {
    let mut acc = 1;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * b % m;
        }
        b = b * b % m;
        e >>= 1;
    }
    acc
}

/// The least primitive root modulo the prime `p`.
pub fn primitive_root(p: u64) -> u64 {
    let mut factors = Vec::new();
    let (mut r, mut q) = (p - 1, 2);
    while q * q <= r {
        if r.is_multiple_of(q) {
            factors.push(q);
            while r.is_multiple_of(q) {
                r /= q;
            }
        }
        q += 1;
    }
    if r > 1 {
        factors.push(r);
    }
    (2..p)
        .find(|&g| factors.iter().all(|&f| pow_mod(g, (p - 1) / f, p) != 1))
        .expect("a prime has a primitive root")
}

/// The Möbius map `x -> (ax + b) / (cx + d)` of the projective line over F_p (points `0..p`,
/// point `p` = infinity), `ad - bc != 0`.
pub fn mobius(p: u64, a: u64, b: u64, c: u64, d: u64) -> Perm {
    assert!(
        !(a * d + p * p - b * c % p).is_multiple_of(p),
        "singular Möbius map"
    );
    let inv = |x: u64| pow_mod(x, p - 2, p);
    from_fn((p + 1) as usize, |x| {
        let (num, den) = if x == p {
            (a % p, c % p)
        } else {
            ((a * x + b) % p, (c * x + d) % p)
        };
        if den == 0 { p } else { num * inv(den) % p }
    })
}

/// PSL(2, p) on the `p + 1` points of the projective line: `x -> x + 1` and `x -> -1/x`.
/// Order `p (p² - 1) / 2` for odd `p`.
pub fn psl2(p: u64) -> Vec<Perm> {
    vec![mobius(p, 1, 1, 0, 1), mobius(p, 0, p - 1, 1, 0)]
}

/// PGL(2, p): PSL(2, p) and `x -> g x` for a primitive root `g` (determinant a non-square).
/// Order `p (p² - 1)`.
pub fn pgl2(p: u64) -> Vec<Perm> {
    let mut gens = psl2(p);
    gens.push(mobius(p, primitive_root(p), 0, 0, 1));
    gens
}

/// Points of the projective plane over F_q: `(1, y, z)` is `y q + z`, `(0, 1, z)` is `q² + z`,
/// `(0, 0, 1)` is `q² + q`.
pub fn plane_points(q: u64) -> usize {
    (q * q + q + 1) as usize
}

fn plane_point(q: u64, index: u64) -> [u64; 3] {
    if index < q * q {
        [1, index / q, index % q]
    } else if index < q * q + q {
        [0, 1, index - q * q]
    } else {
        [0, 0, 1]
    }
}

fn plane_index(q: u64, v: [u64; 3]) -> u64 {
    let lead = v
        .iter()
        .copied()
        .find(|&c| c != 0)
        .expect("a non-zero vector");
    let inv = pow_mod(lead, q - 2, q);
    let w = v.map(|c| c * inv % q);
    if w[0] == 1 {
        w[1] * q + w[2]
    } else if w[1] == 1 {
        q * q + w[2]
    } else {
        q * q + q
    }
}

/// The 3 x 3 matrix `m` over F_q acting on the projective plane (row vectors, `v -> v m`).
pub fn plane_matrix(q: u64, m: [[u64; 3]; 3]) -> Perm {
    from_fn(plane_points(q), |x| {
        let v = plane_point(q, x);
        let w: [u64; 3] = std::array::from_fn(|j| (0..3).map(|i| v[i] * m[i][j]).sum::<u64>() % q);
        plane_index(q, w)
    })
}

/// The determinant of a 3 x 3 matrix over F_q.
pub fn det3(q: u64, m: [[u64; 3]; 3]) -> u64 {
    let term = |a: usize, b: usize, c: usize| m[0][a] * m[1][b] % q * m[2][c] % q;
    let pos = term(0, 1, 2) + term(1, 2, 0) + term(2, 0, 1);
    let neg = term(2, 1, 0) + term(0, 2, 1) + term(1, 0, 2);
    (pos + 3 * q - neg) % q
}

/// PSL(3, q), q prime, on the `q² + q + 1` points of the projective plane: the transvection
/// `I + E_12` and the coordinate cycle (their conjugates and commutators give every elementary
/// transvection, which generate SL(3, q)). Order `q³ (q³ - 1)(q² - 1) / gcd(3, q - 1)`.
pub fn psl3(q: u64) -> Vec<Perm> {
    vec![
        plane_matrix(q, [[1, 1, 0], [0, 1, 0], [0, 0, 1]]),
        plane_matrix(q, [[0, 1, 0], [0, 0, 1], [1, 0, 0]]),
    ]
}

/// `|PSL(3, q)|`.
pub fn psl3_order(q: u64) -> u128 {
    let q = u128::from(q);
    let g = if (q - 1).is_multiple_of(3) { 3 } else { 1 };
    q * q * q * (q * q * q - 1) * (q * q - 1) / g
}

/// The direct product of permutations on consecutive blocks of points.
pub fn juxtapose(parts: &[&Perm]) -> Perm {
    let mut img = Vec::new();
    for p in parts {
        let offset = img.len() as u32;
        img.extend(p.images().iter().map(|&y| y + offset));
    }
    Perm::from_images(img, "test").expect("a permutation")
}
