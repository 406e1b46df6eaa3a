//! Known group orders (independent oracle: the literature and GAP 4.12's `Size`), membership
//! spot checks and the shape of the transversals.

use num_bigint::BigUint;
use orbit_worker::group::{GroupKind, Perm, PermGroup, orbits_of};
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn perm(text: &str, d: usize) -> Perm {
    Perm::parse_cycles(text, d).expect("test permutation is valid")
}

fn group(d: usize, gens: &[&str]) -> PermGroup {
    let gens = gens.iter().map(|t| perm(t, d)).collect();
    PermGroup::new(d, gens, &SolveContext::detached(), &Limits::default()).expect("group builds")
}

fn factorial(n: u32) -> BigUint {
    (1..=n).map(BigUint::from).product()
}

fn cycle(points: impl IntoIterator<Item = usize>) -> String {
    let pts: Vec<String> = points.into_iter().map(|p| p.to_string()).collect();
    format!("({})", pts.join(","))
}

fn random_perm(d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut v: Vec<u32> = (0..d as u32).collect();
    v.shuffle(rng);
    Perm::from_images(v, "random").expect("a shuffle is a permutation")
}

fn random_even_perm(d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let p = random_perm(d, rng);
    if p.is_even() {
        p
    } else {
        p.compose(&perm("(1,2)", d))
    }
}

/// Checks the transversals multiply out to the order and rebuild members in the documented order.
fn check_transversals(g: &PermGroup, rng: &mut ChaCha8Rng) {
    let t = g.transversals().expect("small enough");
    assert_eq!(t.len(), g.base().len());
    let prod: BigUint = t.iter().map(|l| BigUint::from(l.len())).product();
    assert_eq!(prod, g.order());
    for (i, level) in t.iter().enumerate() {
        assert!(level[0].is_identity());
        let b = g.base()[i];
        let mut images: Vec<u32> = level.iter().map(|u| u.image(b)).collect();
        images.sort_unstable();
        images.dedup();
        assert_eq!(
            images.len(),
            level.len(),
            "representatives of level {i} map b_{i} apart"
        );
        for u in level {
            assert!(g.base()[..i].iter().all(|&x| u.image(x) == x));
        }
    }
    // Products u_{k-1} * ... * u_0 (first u_{k-1}) are members.
    for _ in 0..20 {
        let mut e = Perm::identity(g.degree());
        for level in t.iter().rev() {
            e = e.compose(&level[rng.random_range(0..level.len())]);
        }
        assert!(g.contains(&e));
    }
}

#[test]
fn group_symmetric_from_cycle_and_transposition() {
    for n in [2usize, 3, 4, 5, 7, 8, 9, 12, 20, 50, 100, 200] {
        let g = group(n, &[&cycle(1..=n), "(1,2)"]);
        assert_eq!(g.order(), factorial(n as u32), "Sym({n})");
        assert_eq!(g.kind(), GroupKind::Symmetric, "Sym({n})");
        assert!(g.contains(&perm(&cycle(1..=n.min(3)), n)));
    }
}

#[test]
fn group_symmetric_from_adjacent_transpositions() {
    for n in [9usize, 30, 100] {
        let gens: Vec<String> = (1..n).map(|i| format!("({},{})", i, i + 1)).collect();
        let refs: Vec<&str> = gens.iter().map(String::as_str).collect();
        let g = group(n, &refs);
        assert_eq!(g.order(), factorial(n as u32), "Sym({n})");
        assert_eq!(g.kind(), GroupKind::Symmetric);
    }
}

#[test]
fn group_alternating_from_three_cycles() {
    for n in [3usize, 4, 5, 6, 7, 8, 9, 10, 11, 30, 101] {
        // A_n = <(1,2,3), (1,..,n)> for n odd, <(1,2,3), (2,..,n)> for n even.
        let long = if n % 2 == 1 {
            cycle(1..=n)
        } else {
            cycle(2..=n)
        };
        let g = group(n, &["(1,2,3)", &long]);
        assert_eq!(g.order(), factorial(n as u32) / 2u32, "Alt({n})");
        assert_eq!(g.kind(), GroupKind::Alternating, "Alt({n})");
        assert!(!g.contains(&perm("(1,2)", n)));
        assert!(g.contains(&perm("(1,3,2)", n)));
    }
}

#[test]
fn group_symmetric_and_alternating_from_two_random_generators() {
    // Two random permutations generate Alt(n) or Sym(n) with probability 1 - 1/n + O(1/n^2)
    // (Dixon 1969); for these seeds GAP 4.12 confirms the giants.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for n in [10usize, 16, 25, 64, 100, 500, 1000] {
        // Redraw until transitive (an independent orbit computation); a transitive pair then
        // generates Alt(n) or Sym(n) except with negligible probability, and GAP confirms it for
        // these seeds.
        let (a, b) = transitive_pair(n, &mut rng, random_perm);
        let odd = !a.is_even() || !b.is_even();
        let g = PermGroup::new(n, vec![a, b], &SolveContext::detached(), &Limits::default())
            .expect("builds");
        let expect = if odd {
            factorial(n as u32)
        } else {
            factorial(n as u32) / 2u32
        };
        assert_eq!(g.order(), expect, "n = {n}");
        let (ea, eb) = transitive_pair(n, &mut rng, random_even_perm);
        let g = PermGroup::new(
            n,
            vec![ea, eb],
            &SolveContext::detached(),
            &Limits::default(),
        )
        .expect("builds");
        assert_eq!(g.order(), factorial(n as u32) / 2u32, "Alt({n})");
        assert_eq!(g.kind(), GroupKind::Alternating);
        assert!(g.contains(&random_even_perm(n, &mut rng)));
        let odd_perm = random_even_perm(n, &mut rng).compose(&perm("(1,2)", n));
        assert!(!g.contains(&odd_perm));
    }
}

fn transitive_pair(
    n: usize,
    rng: &mut ChaCha8Rng,
    draw: fn(usize, &mut ChaCha8Rng) -> Perm,
) -> (Perm, Perm) {
    loop {
        let a = draw(n, rng);
        let b = draw(n, rng);
        if orbits_of(n, &[a.clone(), b.clone()]).len() == 1 {
            return (a, b);
        }
    }
}

#[test]
fn group_cyclic_and_dihedral() {
    for n in [1usize, 2, 3, 5, 12, 97, 360, 1000] {
        let c = group(n, &[&cycle(1..=n)]);
        assert_eq!(c.order(), BigUint::from(n), "C_{n}");
        if n >= 3 {
            let mut refl = String::new();
            for i in 2..=n.div_ceil(2) {
                let j = n + 2 - i;
                if i < j {
                    refl.push_str(&format!("({i},{j})"));
                }
            }
            let refl = if refl.is_empty() {
                "()".to_string()
            } else {
                refl
            };
            let d = group(n, &[&cycle(1..=n), &refl]);
            assert_eq!(d.order(), BigUint::from(2 * n), "D_{}", 2 * n);
            assert!(d.contains(&perm(&refl, n)));
            assert!(!c.contains(&perm(&refl, n)));
        }
    }
}

#[test]
fn group_psl27_and_mathieu_groups() {
    // PSL(2,7) on the projective line over F_7: x -> x+1 and x -> -1/x (infinity = point 8).
    let psl = group(8, &["(1,2,3,4,5,6,7)", "(1,8)(2,7)(3,4)(5,6)"]);
    assert_eq!(psl.order(), BigUint::from(168u32));
    // GAP's MathieuGroup(11), (12), (24) generators.
    let m11 = group(11, &["(1,2,3,4,5,6,7,8,9,10,11)", "(3,7,11,8)(4,10,5,6)"]);
    assert_eq!(m11.order(), BigUint::from(7920u32));
    let m12 = group(
        12,
        &[
            "(1,2,3,4,5,6,7,8,9,10,11)",
            "(3,7,11,8)(4,10,5,6)",
            "(1,12)(2,11)(3,6)(4,8)(5,9)(7,10)",
        ],
    );
    assert_eq!(m12.order(), BigUint::from(95040u32));
    let m24 = group(24, &M24);
    assert_eq!(m24.order(), BigUint::from(244_823_040u64));
    assert_eq!(m24.kind(), GroupKind::General);
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    check_transversals(&m24, &mut rng);
    // M24 is 5-transitive but a transposition or a 3-cycle is not in it.
    assert!(!m24.contains(&perm("(1,2)", 24)));
    assert!(!m24.contains(&perm("(1,2,3)", 24)));
    assert!(m24.contains(&perm(M24[1], 24).compose(&perm(M24[2], 24))));
}

pub(crate) const M24: [&str; 3] = [
    "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23)",
    "(3,17,10,7,9)(4,13,14,19,5)(8,18,11,12,23)(15,20,22,21,16)",
    "(1,24)(2,23)(3,12)(4,16)(5,18)(6,10)(7,20)(8,14)(9,21)(11,17)(13,22)(15,19)",
];

/// The Rubik's cube group on 48 facelets (GAP's standard example, "Analyzing Rubik's Cube").
pub(crate) const RUBIK: [&str; 6] = [
    "(1,3,8,6)(2,5,7,4)(9,33,25,17)(10,34,26,18)(11,35,27,19)",
    "(9,11,16,14)(10,13,15,12)(1,17,41,40)(4,20,44,37)(6,22,46,35)",
    "(17,19,24,22)(18,21,23,20)(6,25,43,16)(7,28,42,13)(8,30,41,11)",
    "(25,27,32,30)(26,29,31,28)(3,38,43,19)(5,36,45,21)(8,33,48,24)",
    "(33,35,40,38)(34,37,39,36)(3,9,46,32)(2,12,47,29)(1,14,48,27)",
    "(41,43,48,46)(42,45,47,44)(14,22,30,38)(15,23,31,39)(16,24,32,40)",
];

#[test]
fn group_rubiks_cube_group() {
    let g = group(48, &RUBIK);
    assert_eq!(g.order().to_string(), "43252003274489856000");
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    check_transversals(&g, &mut rng);
    // A single quarter turn of the centre-less cube is a member; swapping two edge facelets
    // (flipping one edge) is not.
    assert!(g.contains(&perm(RUBIK[0], 48)));
    assert!(!g.contains(&perm("(2,34)", 48)));
    assert!(!g.contains(&perm("(2,5)", 48)));
    assert_eq!(g.orbits().iter().filter(|o| o.len() > 1).count(), 2); // corners and edges
}

#[test]
fn group_wreath_product_direct_product_intransitive_trivial() {
    // Sym(3) wr Sym(3) on 9 points: 6^3 * 6 = 1296.
    let w = group(
        9,
        &[
            "(1,2,3)",
            "(1,2)",
            "(1,4,7)(2,5,8)(3,6,9)",
            "(1,4)(2,5)(3,6)",
        ],
    );
    assert_eq!(w.order(), BigUint::from(1296u32));
    assert_eq!(w.orbits().len(), 1);
    // C_2 wr Sym(5) (hyperoctahedral group) on 10 points: 2^5 * 120 = 3840.
    let h = group(10, &["(1,2)", "(1,3,5,7,9)(2,4,6,8,10)", "(1,3)(2,4)"]);
    assert_eq!(h.order(), BigUint::from(3840u32));
    // Sym(5) x PSL(2,7) on 5 + 8 points: 120 * 168 = 20160; intransitive with two orbits.
    let d = group(
        13,
        &[
            "(1,2,3,4,5)",
            "(1,2)",
            "(6,7,8,9,10,11,12)",
            "(6,13)(7,12)(8,9)(10,11)",
        ],
    );
    assert_eq!(d.order(), BigUint::from(20160u32));
    assert_eq!(
        d.orbits(),
        vec![vec![0, 1, 2, 3, 4], vec![5, 6, 12, 7, 11, 8, 9, 10]]
    );
    assert_eq!(d.kind(), GroupKind::General);
    // Intransitive, not a direct product: <(1,2,3)(4,5)> has order 6 and orbits {1,2,3},{4,5},{6}.
    let c = group(6, &["(1,2,3)(4,5)"]);
    assert_eq!(c.order(), BigUint::from(6u32));
    assert_eq!(c.orbits().len(), 3);
    assert!(c.contains(&perm("(1,3,2)(4,5)", 6))); // g^5
    assert!(!c.contains(&perm("(1,3)", 6)));
    assert!(c.contains(&perm("(1,3,2)", 6))); // ((1,2,3)(4,5))^4 = (1,3,2)
    assert!(!c.contains(&perm("(1,2)", 6)));
    // Trivial group: no generators, or only identities.
    for t in [group(5, &[]), group(5, &["()", "()"]), group(0, &[])] {
        assert_eq!(t.order(), BigUint::from(1u32));
        assert_eq!(t.kind(), GroupKind::Trivial);
        assert!(t.base().is_empty());
        assert!(t.contains(&Perm::identity(t.degree())));
        assert_eq!(t.transversals().expect("empty").len(), 0);
    }
    assert!(!group(3, &[]).contains(&perm("(1,2)", 3)));
}

#[test]
fn group_large_degree_small_base_and_giants() {
    // A product of two disjoint long cycles of coprime lengths: cyclic of order 1999 * 2001.
    let d = 4000;
    let g = group(d, &[&format!("{}{}", cycle(1..=1999), cycle(2000..=4000))]);
    assert_eq!(g.order(), BigUint::from(1999u64 * 2001));
    // Cyclic groups of degree 100,000 (one generator): order, base and membership in linear time.
    let n = 100_000;
    let c = perm(&cycle(1..=n), n);
    let g = PermGroup::new(
        n,
        vec![c.clone()],
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("builds");
    assert_eq!(g.order(), BigUint::from(n));
    assert_eq!(g.base().len(), 1);
    assert!(g.contains(&c.pow(77_777)));
    assert!(!g.contains(&perm("(1,2)", n)));
    // Cycles of lengths 2^5, 3^4, 5^3, 7^2, 11 and 99,693 = 11 x 9,063, 9 fixed points.
    let lens = [32usize, 81, 125, 49, 11, 99_693];
    let mut text = String::new();
    let mut start = 1;
    for l in lens {
        text.push_str(&cycle(start..start + l));
        start += l;
    }
    let c = perm(&text, n);
    let g = PermGroup::new(
        n,
        vec![c.clone()],
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("builds");
    let lcm = lens.iter().fold(BigUint::from(1u32), |acc, &l| {
        num_integer::Integer::lcm(&acc, &BigUint::from(l))
    });
    assert_eq!(g.order(), lcm);
    assert!(g.contains(&c.pow(123_456_789)));
    // Rotating only the long cycle by one (or only the 11-cycle) is not a power of c: it would
    // need k = 1 mod 99,693 and k = 0 mod 11, but 11 divides 99,693.
    let on_big = perm(&cycle(start - 99_693..start), n);
    let on_11 = perm(&cycle(start - 99_704..start - 99_693), n);
    assert!(!g.contains(&on_big));
    assert!(!g.contains(&on_11));
    assert!(!g.contains(&c.pow(5).compose(&on_11)));
    assert!(g.contains(&c.pow(5).compose(&c.pow(-7))));
    // Sym(20000) from a 20000-cycle and a transposition is recognised without a chain.
    let n = 20000;
    let g = group(n, &[&cycle(1..=n), "(1,2)"]);
    assert_eq!(g.kind(), GroupKind::Symmetric);
    assert_eq!(g.order(), factorial(n as u32));
    assert_eq!(g.base().len(), n - 1);
}

#[test]
fn group_small_groups_embedded_in_a_large_degree() {
    // M24 on points 50001..50024 of 100000: the chain only spans the 24 moved points.
    let d = 100_000;
    let shift = |t: &str| -> String {
        let mut out = String::new();
        let mut num = String::new();
        for c in t.chars() {
            if c.is_ascii_digit() {
                num.push(c);
            } else {
                if !num.is_empty() {
                    out.push_str(&(num.parse::<usize>().expect("digits") + 50_000).to_string());
                    num.clear();
                }
                out.push(c);
            }
        }
        out
    };
    let gens: Vec<String> = M24.iter().map(|t| shift(t)).collect();
    let refs: Vec<&str> = gens.iter().map(String::as_str).collect();
    let g = group(d, &refs);
    assert_eq!(g.order(), BigUint::from(244_823_040u64));
    assert!(g.base().iter().all(|&b| (50_000..50_024).contains(&b)));
    assert!(g.contains(&perm(&gens[1], d).compose(&perm(&gens[2], d))));
    assert!(!g.contains(&perm("(50001,50002)", d)));
    assert!(!g.contains(&perm(&gens[1], d).compose(&perm("(1,2,3)", d))));
    assert_eq!(g.transversals().expect("fits").len(), g.base().len());
    // Alt(10) on points 41..50 of 50: a giant on its support, but not the natural Alt(50).
    let g = group(
        50,
        &[
            "(41,42,43)",
            "(41,42,43,44,45,46,47,48,49)",
            "(42,43,44,45,46,47,48,49,50)",
        ],
    );
    assert_eq!(g.order(), factorial(10) / 2u32);
    assert_eq!(g.kind(), GroupKind::General);
    assert!(g.contains(&perm("(41,50)(42,49)", 50)));
    assert!(!g.contains(&perm("(41,50)", 50)));
    assert!(!g.contains(&perm("(1,2,3)", 50)));
    let t = g.transversals().expect("fits");
    let prod: BigUint = t.iter().map(|l| BigUint::from(l.len())).product();
    assert_eq!(prod, g.order());
    assert!(
        t.iter()
            .flatten()
            .all(|u| (0..40).all(|x| u.image(x) == x) && u.is_even())
    );
}

#[test]
fn group_oversized_chain_is_resource_exhausted() {
    // 60 disjoint copies of Sym(3) on 180 points: a base of length 120; with a small budget the
    // chain does not fit and the answer says so instead of allocating.
    let d = 180;
    let mut gens = Vec::new();
    for b in 0..60 {
        let p = 3 * b + 1;
        gens.push(perm(&format!("({},{},{})", p, p + 1, p + 2), d));
        gens.push(perm(&format!("({},{})", p, p + 1), d));
    }
    let limits = Limits {
        max_group_chain_bytes: 1 << 16,
        ..Limits::default()
    };
    let e = PermGroup::new(d, gens.clone(), &SolveContext::detached(), &limits).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    let g = PermGroup::new(d, gens, &SolveContext::detached(), &Limits::default()).expect("fits");
    assert_eq!(g.order(), BigUint::from(6u32).pow(60));
    // Dihedral group of degree 20,000: explicit coset representatives would need 20,000 x 20,000
    // x 4 bytes; the first level is kept as a Schreier tree instead, so it fits the default budget,
    // and with a 1 MiB budget it is refused before allocating, stating the limit.
    let n = 20_000;
    let refl: String = (2..=n / 2)
        .map(|i| format!("({},{})", i, n + 2 - i))
        .collect();
    let gens = vec![perm(&cycle(1..=n), n), perm(&refl, n)];
    let t = std::time::Instant::now();
    let small = Limits {
        max_group_chain_bytes: 1 << 20,
        ..Limits::default()
    };
    let e = PermGroup::new(n, gens.clone(), &SolveContext::detached(), &small).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    assert!(e.to_string().contains("1048576 bytes"), "{e}");
    let g = PermGroup::new(n, gens, &SolveContext::detached(), &Limits::default()).expect("fits");
    assert_eq!(g.order(), BigUint::from(2 * n));
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
    // Degree limit.
    let limits = Limits {
        max_degree: 10,
        ..Limits::default()
    };
    let e = PermGroup::new(11, vec![], &SolveContext::detached(), &limits).unwrap_err();
    assert_eq!(e.to_string(), "group degree 11 exceeds the limit of 10");
}

#[test]
fn group_cancellation_stops_construction() {
    let flag = orbit_worker::CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    let e = PermGroup::new(
        48,
        RUBIK.iter().map(|t| perm(t, 48)).collect(),
        &ctx,
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(e, SolveError::Cancelled);
}

#[test]
fn group_cancellation_frees_the_worker_quickly() {
    // A long-base group (300 disjoint copies of Sym(3), base length 600) takes seconds; a cancel
    // 30 ms in must end the construction within the 100 ms the server promises.
    let d = 900;
    let mut gens = Vec::new();
    for b in 0..300 {
        let p = 3 * b + 1;
        gens.push(perm(&format!("({},{},{})", p, p + 1, p + 2), d));
        gens.push(perm(&format!("({},{})", p, p + 1), d));
    }
    let flag = orbit_worker::CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(30));
        flag.cancel();
        std::time::Instant::now()
    });
    let result = PermGroup::new(d, gens, &ctx, &Limits::default());
    let ended = std::time::Instant::now();
    let cancelled_at = canceller.join().expect("canceller thread");
    assert_eq!(result.unwrap_err(), SolveError::Cancelled);
    let latency = ended.saturating_duration_since(cancelled_at);
    assert!(
        latency < std::time::Duration::from_millis(100),
        "took {latency:?} to stop"
    );
}
