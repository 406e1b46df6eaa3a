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

/// Points of the projective space PG(k-1, q) (`k >= 2`): `(q^k - 1)/(q - 1)` of them.
pub fn projective_points(k: u32, q: u64) -> usize {
    ((q.pow(k) - 1) / (q - 1)) as usize
}

/// Points of the projective plane over F_q.
pub fn plane_points(q: u64) -> usize {
    projective_points(3, q)
}

/// The normalised vector (first non-zero coordinate 1) with index `index`: vectors whose leading
/// 1 is at coordinate `i` come after those with it at coordinates `< i`, each block in
/// lexicographic order of the coordinates after the 1.
fn projective_point(k: u32, q: u64, mut index: u64) -> Vec<u64> {
    let mut v = vec![0u64; k as usize];
    for lead in 0..k as usize {
        let block = q.pow(k - 1 - lead as u32);
        if index < block {
            v[lead] = 1;
            for c in (lead + 1..k as usize).rev() {
                v[c] = index % q;
                index /= q;
            }
            return v;
        }
        index -= block;
    }
    unreachable!("index below the number of points")
}

fn projective_index(q: u64, v: &[u64]) -> u64 {
    let k = v.len() as u32;
    let lead = v.iter().position(|&c| c != 0).expect("a non-zero vector");
    let inv = pow_mod(v[lead], q - 2, q);
    let offset: u64 = (0..lead).map(|i| q.pow(k - 1 - i as u32)).sum();
    let rest = v[lead + 1..]
        .iter()
        .fold(0, |acc, &c| acc * q + c * inv % q);
    offset + rest
}

/// The k x k matrix `m` (rows) over F_q acting on PG(k-1, q) (row vectors, `v -> v m`).
pub fn projective_matrix(q: u64, m: &[Vec<u64>]) -> Perm {
    let k = m.len();
    from_fn(projective_points(k as u32, q), |x| {
        let v = projective_point(k as u32, q, x);
        let w: Vec<u64> = (0..k)
            .map(|j| (0..k).map(|i| v[i] * m[i][j]).sum::<u64>() % q)
            .collect();
        projective_index(q, &w)
    })
}

/// The 3 x 3 matrix `m` over F_q acting on the projective plane.
pub fn plane_matrix(q: u64, m: [[u64; 3]; 3]) -> Perm {
    projective_matrix(q, &m.map(Vec::from))
}

/// The determinant of a square matrix over F_q (q prime), by Gaussian elimination.
pub fn det(q: u64, m: &[Vec<u64>]) -> u64 {
    let mut a: Vec<Vec<u64>> = m
        .iter()
        .map(|r| r.iter().map(|&x| x % q).collect())
        .collect();
    let k = a.len();
    let mut d = 1;
    for c in 0..k {
        let Some(r) = (c..k).find(|&r| a[r][c] != 0) else {
            return 0;
        };
        if r != c {
            a.swap(r, c);
            d = (q - d) % q;
        }
        d = d * a[c][c] % q;
        let inv = pow_mod(a[c][c], q - 2, q);
        let pivot = a[c].clone();
        for row in a.iter_mut().skip(c + 1) {
            let f = row[c] * inv % q;
            for (x, &y) in row.iter_mut().zip(&pivot).skip(c) {
                *x = (*x + q * q - f * y % q) % q;
            }
        }
    }
    d
}

/// An affine map `v -> v m + t` of F_p² (points `x p + y`).
pub fn affine2(p: u64, m: [[u64; 2]; 2], t: [u64; 2]) -> Perm {
    from_fn((p * p) as usize, |v| {
        let (x, y) = (v / p, v % p);
        let a = (x * m[0][0] + y * m[1][0] + t[0]) % p;
        let b = (x * m[0][1] + y * m[1][1] + t[1]) % p;
        a * p + b
    })
}

/// The determinant of a 3 x 3 matrix over F_q.
pub fn det3(q: u64, m: [[u64; 3]; 3]) -> u64 {
    let term = |a: usize, b: usize, c: usize| m[0][a] * m[1][b] % q * m[2][c] % q;
    let pos = term(0, 1, 2) + term(1, 2, 0) + term(2, 0, 1);
    let neg = term(2, 1, 0) + term(0, 2, 1) + term(1, 0, 2);
    (pos + 3 * q - neg) % q
}

/// PSL(k, q), q prime, on the points of PG(k-1, q): the transvection `I + E_12` and a signed
/// coordinate cycle of determinant 1 (conjugates of the transvection by its powers and their
/// commutators give every elementary transvection, which generate SL(k, q)).
pub fn psl(k: usize, q: u64) -> Vec<Perm> {
    let identity = |i: usize, j: usize| u64::from(i == j);
    let transvection: Vec<Vec<u64>> = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| identity(i, j) + u64::from(i == 0 && j == 1))
                .collect()
        })
        .collect();
    // e_i -> e_{i+1}, e_k -> ±e_1 with the sign making the determinant 1 ((-1)^(k-1) unsigned).
    let sign = if k.is_multiple_of(2) { q - 1 } else { 1 };
    let cycle: Vec<Vec<u64>> = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| match (i + 1 == k, j == (i + 1) % k) {
                    (false, true) => 1,
                    (true, true) => sign,
                    _ => 0,
                })
                .collect()
        })
        .collect();
    vec![
        projective_matrix(q, &transvection),
        projective_matrix(q, &cycle),
    ]
}

/// PSL(3, q) on the projective plane.
pub fn psl3(q: u64) -> Vec<Perm> {
    psl(3, q)
}

/// `|PSL(k, q)| = q^(k(k-1)/2) Π_{i=2..k} (q^i - 1) / gcd(k, q - 1)`.
pub fn psl_order(k: u32, q: u64) -> num_bigint::BigUint {
    let q = num_bigint::BigUint::from(q);
    let one = num_bigint::BigUint::from(1u32);
    let mut order = q.pow(k * (k - 1) / 2);
    for i in 2..=k {
        order *= q.pow(i) - &one;
    }
    let g = num_integer::Integer::gcd(&num_bigint::BigUint::from(k), &(&q - &one));
    order / g
}

/// `|PSL(3, q)|`.
pub fn psl3_order(q: u64) -> u128 {
    let q = u128::from(q);
    let g = if (q - 1).is_multiple_of(3) { 3 } else { 1 };
    q * q * q * (q * q * q - 1) * (q * q - 1) / g
}

/// AGL(2, p) on the `p²` vectors of F_p² (`(x, y)` is `x p + y`): the translation by `(0, 1)`,
/// the transvections `I + E_12`, `I + E_21` (generating SL(2, p)) and `diag(g, 1)` for a
/// primitive root `g`. Order `p² (p² - 1)(p² - p)`.
pub fn agl2(p: u64) -> Vec<Perm> {
    let id = [[1, 0], [0, 1]];
    vec![
        affine2(p, id, [0, 1]),
        affine2(p, [[1, 1], [0, 1]], [0, 0]),
        affine2(p, [[1, 0], [1, 1]], [0, 0]),
        affine2(p, [[primitive_root(p), 0], [0, 1]], [0, 0]),
    ]
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
