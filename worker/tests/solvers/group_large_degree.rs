//! Large-degree groups with small bases (degree up to 100,000): dihedral groups, affine
//! groups AGL(1, p), direct products, PSL(2, p). Independent oracles: the orders are textbook
//! formulas (|D_n| = 2n, |AGL(1,p)| = p(p-1), |PSL(2,p)| = p(p²-1)/2), and membership is decided
//! from the definitions (affine maps x -> ax+b, rotations/reflections of the n-gon).

use crate::common::build;

use crate::common::classical_groups::{from_fn, pow_mod, primitive_root, psl2};
use num_bigint::BigUint;
use orbit_worker::group::{GroupTuning, Perm, PermGroup};
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rotation x -> x + k and reflection x -> k - x of Z/n.
fn rotation(n: usize, k: u64) -> Perm {
    let n64 = n as u64;
    from_fn(n, |x| (x + k) % n64)
}
fn reflection(n: usize, k: u64) -> Perm {
    let n64 = n as u64;
    from_fn(n, |x| (k + n64 - x) % n64)
}

fn check_dihedral(n: usize, tuning: &GroupTuning, rng: &mut ChaCha8Rng) {
    let t = std::time::Instant::now();
    let g = build(n, vec![rotation(n, 1), reflection(n, 0)], tuning);
    assert_eq!(g.order(), BigUint::from(2 * n), "D_{n}");
    assert!(g.base().len() <= 2, "D_{n} base {:?}", g.base());
    for _ in 0..5 {
        let k = rng.random_range(0..n as u64);
        assert!(g.contains(&rotation(n, k)), "rotation {k}");
        assert!(g.contains(&reflection(n, k)), "reflection {k}");
    }
    // A transposition, and a rotation times a transposition, are not symmetries of the n-gon.
    let tr = Perm::parse_cycles("(1,2)", n).expect("valid");
    assert!(!g.contains(&tr));
    assert!(!g.contains(&rotation(n, 7).compose(&tr)));
    // x -> 2x (n odd) fixes 0 but is not a reflection.
    if n % 2 == 1 {
        assert!(!g.contains(&from_fn(n, |x| 2 * x % n as u64)));
    }
    eprintln!("D_{n}: {:?}", t.elapsed());
}

#[test]
fn group_dihedral_degree_20000_and_100000() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_000);
    for n in [20_000usize, 100_000, 99_999] {
        check_dihedral(n, &GroupTuning::default(), &mut rng);
    }
}

#[test]
fn group_affine_group_agl1_p_near_100000() {
    let p = 99_991u64; // prime
    let n = p as usize;
    let g0 = primitive_root(p);
    let t = std::time::Instant::now();
    let gens = vec![from_fn(n, |x| (x + 1) % p), from_fn(n, |x| g0 * x % p)];
    let g = build(n, gens, &GroupTuning::default());
    assert_eq!(g.order(), BigUint::from(p * (p - 1)));
    let mut rng = ChaCha8Rng::seed_from_u64(p);
    for _ in 0..5 {
        let a = rng.random_range(1..p);
        let b = rng.random_range(0..p);
        assert!(
            g.contains(&from_fn(n, |x| (a * x + b) % p)),
            "x -> {a}x + {b}"
        );
    }
    // x -> x^{-1} (0 -> 0) and x -> x^3 + 1... (x^3 is not a bijection as 3 | p-1): x -> x^5 when
    // gcd(5, p-1) = 5 is not one either, so use inversion and a transposition.
    assert!(!g.contains(&from_fn(n, |x| if x == 0 {
        0
    } else {
        pow_mod(x, p - 2, p)
    })));
    assert!(!g.contains(&Perm::parse_cycles("(1,2)", n).expect("valid")));
    // A subgroup: x -> x+1 and x -> g^2 x, order p(p-1)/2; the odd-power scalings are not in it.
    let gens = vec![
        from_fn(n, |x| (x + 1) % p),
        from_fn(n, |x| g0 * g0 % p * x % p),
    ];
    let h = build(n, gens, &GroupTuning::default());
    assert_eq!(h.order(), BigUint::from(p * (p - 1) / 2));
    assert!(h.contains(&from_fn(n, |x| (pow_mod(g0, 10, p) * x + 3) % p)));
    assert!(!h.contains(&from_fn(n, |x| (pow_mod(g0, 11, p) * x + 3) % p)));
    eprintln!("AGL(1,{p}) and its index-2 subgroup: {:?}", t.elapsed());
}

#[test]
fn group_direct_product_of_dihedral_and_cyclic() {
    // D_50000 on 0..50000 and C_49999 on the next 49,999 points: order 2 · 50000 · 49999.
    let (n, m) = (50_000usize, 49_999usize);
    let d = n + m;
    let on_first = |p: Perm| {
        from_fn(d, |x| {
            if (x as usize) < n {
                u64::from(p.image(x as u32))
            } else {
                x
            }
        })
    };
    let c = from_fn(d, |x| {
        if (x as usize) < n {
            x
        } else {
            n as u64 + (x - n as u64 + 1) % m as u64
        }
    });
    let gens = vec![
        on_first(rotation(n, 1)),
        on_first(reflection(n, 0)),
        c.clone(),
    ];
    let g = build(d, gens, &GroupTuning::default());
    assert_eq!(g.order(), BigUint::from(2u64 * n as u64 * m as u64));
    assert_eq!(g.orbits().len(), 2);
    let elt = on_first(reflection(n, 17)).compose(&c.pow(12_345));
    assert!(g.contains(&elt));
    let tr = Perm::parse_cycles(&format!("({},{})", n + 1, n + 2), d).expect("valid");
    assert!(!g.contains(&elt.compose(&tr)));
    assert!(!g.contains(&Perm::parse_cycles(&format!("(1,{})", n + 1), d).expect("valid")));
}

/// PSL(2, p) (x -> x+1 and x -> -1/x on the projective line), through Schreier trees (forced)
/// and through explicit transversals.
#[test]
fn group_psl2_with_schreier_trees_and_explicit_transversals() {
    let p = 1009u64;
    let n = (p + 1) as usize;
    let expect = BigUint::from(p * (p * p - 1) / 2);
    let trees = GroupTuning {
        max_explicit_transversal_entries: 0,
        ..GroupTuning::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1009);
    for tuning in [GroupTuning::default(), trees] {
        let g = build(n, psl2(p), &tuning);
        assert_eq!(g.order(), expect, "{tuning:?}");
        // x -> a²x + b (a square scaling) is in PSL(2,p); x -> gx with g a non-square is not.
        let a = rng.random_range(1..p);
        let b = rng.random_range(0..p);
        let sq = a * a % p;
        let aff = |k: u64, b: u64| from_fn(n, move |x| if x == p { p } else { (k * x + b) % p });
        assert!(g.contains(&aff(sq, b)));
        let nonsq = primitive_root(p);
        assert!(!g.contains(&aff(nonsq, b)));
        let t = g.transversals().expect("fits");
        let prod: BigUint = t.iter().map(|l| BigUint::from(l.len())).product();
        assert_eq!(prod, expect);
    }
}

#[test]
fn group_large_degree_refusals_state_the_limit() {
    // With a 1 MiB chain budget, D_20000 does not fit (the Schreier tree's pos array and the
    // generators alone need more): RESOURCE_EXHAUSTED stating the limit, not an allocation.
    let n = 20_000;
    let limits = Limits {
        max_group_chain_bytes: 1 << 20,
        ..Limits::default()
    };
    let e = PermGroup::new(
        n,
        vec![rotation(n, 1), reflection(n, 0)],
        &SolveContext::detached(),
        &limits,
    )
    .unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    assert!(e.to_string().contains("1048576 bytes"), "{e}");
    // Explicit transversals of D_100000 would need 2 · 10^5 · 10^5 · 4 bytes: refused by the limit.
    let n = 100_000;
    let g = build(
        n,
        vec![rotation(n, 1), reflection(n, 0)],
        &GroupTuning::default(),
    );
    let e = g.transversals().unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
}
