//! Giant products (intransitive groups acting as `Alt`/`Sym` on their large orbits) against two
//! independent oracles: the order and membership *by construction* (a model that knows the
//! factors, their linked copies and the parity couplings it built, with its own GF(2) rank), and,
//! for small degrees, the stabiliser chain (`GroupTuning::recognise_giant_products = false`).

use num_bigint::BigUint;
use orbit_worker::counting::{CountRequest, count_group};
use orbit_worker::group::{GroupTuning, Perm, PermGroup};
use orbit_worker::{Limits, SolveContext};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a factor is: the group `X` on its `n` local points and its subgroup `X_0` (index 1 or 2).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// `Sym(n) ⊳ Alt(n)`: a giant orbit when `n >= 8`, a small one otherwise.
    Sym(usize),
    /// `D_m ⊳ C_m` on `m >= 3` points (rotations `i -> i + a`, reflections `i -> a - i`).
    Dihedral(usize),
    /// `C_m` on `m >= 1` points (`m = 1`: a fixed point), no index-2 subgroup used.
    Cyclic(usize),
}

impl Kind {
    fn size(self) -> usize {
        match self {
            Kind::Sym(n) | Kind::Dihedral(n) | Kind::Cyclic(n) => n,
        }
    }

    fn coupled(self) -> bool {
        !matches!(self, Kind::Cyclic(_))
    }

    /// `|X_0|`.
    fn even_order(self) -> BigUint {
        match self {
            Kind::Sym(n) => (1..=n as u64).map(BigUint::from).product::<BigUint>() / 2u32,
            Kind::Dihedral(m) | Kind::Cyclic(m) => BigUint::from(m),
        }
    }
}

/// One factor: `copies[j][i]` is the point of local point `i` in copy `j`; the copies are linked
/// (every element acts on all of them as on copy 0).
#[derive(Debug, Clone)]
struct Factor {
    kind: Kind,
    copies: Vec<Vec<u32>>,
}

/// A group built from factors: `G = (Π X_0) · <t_u>`, `t_u` odd exactly on the factors of `u`.
#[derive(Debug)]
struct Model {
    degree: usize,
    factors: Vec<Factor>,
    /// The coupling vectors (bit `f` for factor `f`), reduced by GF(2) elimination.
    span: Vec<u64>,
    generators: Vec<Perm>,
    /// Known members: the coupled generators as built.
    coupled: Vec<Perm>,
    order: BigUint,
}

fn local_cycle(n: usize, points: &[usize]) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    for w in 0..points.len() {
        v[points[w]] = points[(w + 1) % points.len()] as u32;
    }
    v
}

fn random_local(n: usize, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    v.shuffle(rng);
    v
}

fn is_even_local(v: &[u32]) -> bool {
    Perm::from_images(v.to_vec(), "local")
        .expect("a permutation")
        .is_even()
}

/// `σ⁻¹ a σ` (relabel the points of `a` by `σ`).
fn conjugate_local(a: &[u32], sigma: &[u32]) -> Vec<u32> {
    let mut out = vec![0u32; a.len()];
    for (x, &y) in a.iter().enumerate() {
        out[sigma[x] as usize] = sigma[y as usize];
    }
    out
}

/// Generators of `X_0` (local), the standard ones conjugated by a random relabelling.
fn even_generators(kind: Kind, rng: &mut ChaCha8Rng) -> Vec<Vec<u32>> {
    let n = kind.size();
    let gens = match kind {
        Kind::Sym(n) if n >= 3 => {
            // Alt(n) = <(0,1,2), (0,...,n-1)> for n odd, <(0,1,2), (1,...,n-1)> for n even.
            let long: Vec<usize> = if n % 2 == 1 {
                (0..n).collect()
            } else {
                (1..n).collect()
            };
            vec![local_cycle(n, &[0, 1, 2]), local_cycle(n, &long)]
        }
        Kind::Sym(_) => Vec::new(),
        Kind::Dihedral(m) | Kind::Cyclic(m) => {
            vec![local_cycle(m, &(0..m).collect::<Vec<_>>())]
        }
    };
    if matches!(kind, Kind::Sym(_)) {
        let sigma = random_local(n, rng);
        gens.iter().map(|g| conjugate_local(g, &sigma)).collect()
    } else {
        gens
    }
}

/// A random element of `X_0` (local).
fn random_even(kind: Kind, rng: &mut ChaCha8Rng) -> Vec<u32> {
    match kind {
        Kind::Sym(n) => {
            let mut v = random_local(n, rng);
            if !is_even_local(&v) {
                v.swap(0, 1);
            }
            v
        }
        Kind::Dihedral(m) | Kind::Cyclic(m) => {
            let a = rng.random_range(0..m) as u32;
            (0..m as u32).map(|i| (i + a) % m as u32).collect()
        }
    }
}

/// A random element of `X \ X_0` (local), for a coupled kind.
fn random_odd(kind: Kind, rng: &mut ChaCha8Rng) -> Vec<u32> {
    match kind {
        Kind::Sym(n) => {
            let mut v = random_local(n, rng);
            if is_even_local(&v) {
                v.swap(0, 1);
            }
            v
        }
        Kind::Dihedral(m) => {
            let a = rng.random_range(0..m) as u32;
            (0..m as u32)
                .map(|i| (a + m as u32 - i) % m as u32)
                .collect()
        }
        Kind::Cyclic(_) => unreachable!("not coupled"),
    }
}

/// Reduces `v` against a GF(2) basis kept with distinct leading bits; returns the remainder.
fn reduce(basis: &[u64], mut v: u64) -> u64 {
    for &b in basis {
        let top = 63 - b.leading_zeros();
        if v >> top & 1 == 1 {
            v ^= b;
        }
    }
    v
}

fn insert(basis: &mut Vec<u64>, v: u64) {
    let r = reduce(basis, v);
    if r != 0 {
        basis.push(r);
        basis.sort_unstable_by(|a, b| b.cmp(a));
    }
}

impl Model {
    /// The permutation of all points acting as `local[f]` on every copy of factor `f`
    /// (identity where `local[f]` is `None`).
    fn lift(&self, local: &[Option<Vec<u32>>]) -> Perm {
        let mut img: Vec<u32> = (0..self.degree as u32).collect();
        for (f, l) in self.factors.iter().zip(local) {
            if let Some(l) = l {
                for copy in &f.copies {
                    for (i, &x) in copy.iter().enumerate() {
                        img[x as usize] = copy[l[i] as usize];
                    }
                }
            }
        }
        Perm::from_images(img, "lift").expect("a permutation")
    }

    fn lift_one(&self, f: usize, l: Vec<u32>) -> Perm {
        let mut local = vec![None; self.factors.len()];
        local[f] = Some(l);
        self.lift(&local)
    }

    /// Membership by construction: orbits kept, copies consistent, each factor's action in `X`,
    /// the vector of odd factors in the span of the couplings.
    fn contains(&self, x: &Perm) -> bool {
        let mut where_: Vec<(usize, usize, usize)> = vec![(0, 0, 0); self.degree];
        for (f, factor) in self.factors.iter().enumerate() {
            for (j, copy) in factor.copies.iter().enumerate() {
                for (i, &p) in copy.iter().enumerate() {
                    where_[p as usize] = (f, j, i);
                }
            }
        }
        let mut vector = 0u64;
        for (f, factor) in self.factors.iter().enumerate() {
            let n = factor.kind.size();
            let mut sigma = vec![0u32; n];
            for (i, &p) in factor.copies[0].iter().enumerate() {
                let (f2, j2, i2) = where_[x.image(p) as usize];
                if f2 != f || j2 != 0 {
                    return false;
                }
                sigma[i] = i2 as u32;
            }
            for copy in &factor.copies[1..] {
                for (i, &p) in copy.iter().enumerate() {
                    if x.image(p) != copy[sigma[i] as usize] {
                        return false;
                    }
                }
            }
            let odd = match factor.kind {
                Kind::Sym(_) => !is_even_local(&sigma),
                Kind::Dihedral(m) | Kind::Cyclic(m) => {
                    let a = sigma[0];
                    let m32 = m as u32;
                    let rotation = (0..m32).all(|i| sigma[i as usize] == (a + i) % m32);
                    let reflection = (0..m32).all(|i| sigma[i as usize] == (a + m32 - i) % m32);
                    match factor.kind {
                        Kind::Cyclic(_) if rotation => false,
                        Kind::Dihedral(_) if rotation => false,
                        Kind::Dihedral(_) if reflection => true,
                        _ => return false,
                    }
                }
            };
            if odd {
                vector |= 1 << f;
            }
        }
        reduce(&self.span, vector) == 0
    }
}

/// Builds a random model: 1-4 `Sym` factors of 8-14 points (sizes often equal, some with linked
/// copies), 0-3 rest factors (small `Sym`, dihedral, cyclic), random couplings, generators mixed
/// by Nielsen moves and all points relabelled.
fn random_model(rng: &mut ChaCha8Rng, big: bool) -> Model {
    let mut kinds = Vec::new();
    for _ in 0..rng.random_range(1..=4) {
        let n = if big {
            rng.random_range(8..=60)
        } else if rng.random_bool(0.5) {
            8 + 2 * rng.random_range(0..2)
        } else {
            rng.random_range(8..=14)
        };
        let copies = match rng.random_range(0..10) {
            0..=5 => 1,
            6..=8 => 2,
            _ => 3,
        };
        kinds.push((Kind::Sym(n), copies));
    }
    for _ in 0..rng.random_range(0..=3) {
        let kind = match rng.random_range(0..3) {
            0 => Kind::Sym(rng.random_range(2..=7)),
            1 => Kind::Dihedral(rng.random_range(3..=12)),
            _ => Kind::Cyclic(rng.random_range(2..=12)),
        };
        kinds.push((kind, if rng.random_bool(0.2) { 2 } else { 1 }));
    }
    // Fixed points (a trivial "cyclic" factor each): the engine then works on the moved points.
    for _ in 0..rng.random_range(0..=2) {
        kinds.push((Kind::Cyclic(1), 1));
    }
    kinds.shuffle(rng);
    let mut next = 0u32;
    let mut factors: Vec<Factor> = kinds
        .iter()
        .map(|&(kind, copies)| {
            let copies = (0..copies)
                .map(|_| {
                    // Each copy's points in a random order: the linking bijections are random.
                    let mut pts: Vec<u32> = (next..next + kind.size() as u32).collect();
                    next += kind.size() as u32;
                    pts.shuffle(rng);
                    pts
                })
                .collect();
            Factor { kind, copies }
        })
        .collect();
    let degree = next as usize;
    // Relabel every point by one random permutation.
    let pi = random_local(degree, rng);
    for f in &mut factors {
        for copy in &mut f.copies {
            for p in copy.iter_mut() {
                *p = pi[*p as usize];
            }
        }
    }
    let mut model = Model {
        degree,
        factors,
        span: Vec::new(),
        generators: Vec::new(),
        coupled: Vec::new(),
        order: BigUint::from(1u32),
    };
    let mut gens = Vec::new();
    for f in 0..model.factors.len() {
        let kind = model.factors[f].kind;
        model.order *= kind.even_order();
        for g in even_generators(kind, rng) {
            gens.push(model.lift_one(f, g));
        }
    }
    let coupled: Vec<usize> = (0..model.factors.len())
        .filter(|&f| model.factors[f].kind.coupled())
        .collect();
    for _ in 0..rng.random_range(0..=coupled.len() + 1) {
        let mut local = vec![None; model.factors.len()];
        let mut u = 0u64;
        for &f in &coupled {
            if rng.random_bool(0.5) {
                local[f] = Some(random_odd(model.factors[f].kind, rng));
                u |= 1 << f;
            }
        }
        let t = model.lift(&local);
        insert(&mut model.span, u);
        model.coupled.push(t.clone());
        gens.push(t);
    }
    model.order *= BigUint::from(1u32) << model.span.len();
    // Nielsen moves keep the generated group and mix the factors.
    for _ in 0..2 * gens.len() {
        if gens.len() < 2 {
            break;
        }
        let i = rng.random_range(0..gens.len());
        let mut j = rng.random_range(0..gens.len() - 1);
        if j >= i {
            j += 1;
        }
        gens[i] = if rng.random_bool(0.5) {
            gens[i].compose(&gens[j])
        } else {
            gens[j].compose(&gens[i])
        };
    }
    gens.shuffle(rng);
    model.generators = gens;
    model
}

/// Candidates with their kind: members (random elements by construction, random words) and
/// non-members of several kinds (they are non-members by the model unless it says otherwise).
fn candidates(model: &Model, rng: &mut ChaCha8Rng) -> Vec<(&'static str, Perm)> {
    let mut out = Vec::new();
    let d = model.degree;
    let member = |rng: &mut ChaCha8Rng| {
        let local: Vec<Option<Vec<u32>>> = model
            .factors
            .iter()
            .map(|f| Some(random_even(f.kind, rng)))
            .collect();
        let mut x = model.lift(&local);
        for t in &model.coupled {
            if rng.random_bool(0.5) {
                x = x.compose(t);
            }
        }
        x
    };
    for _ in 0..6 {
        out.push(("member", member(rng)));
        let mut w = Perm::identity(d);
        for _ in 0..20 {
            let g = &model.generators[rng.random_range(0..model.generators.len())];
            w = w.compose(g);
        }
        out.push(("word", w));
    }
    for _ in 0..4 {
        let x = member(rng);
        // Odd on one coupled factor only.
        let f = rng.random_range(0..model.factors.len());
        if model.factors[f].kind.coupled() {
            let t = model.lift_one(f, random_odd(model.factors[f].kind, rng));
            out.push(("parity", x.compose(&t)));
        }
        // Linkage broken: a 3-cycle (or transposition) on one copy only.
        if let Some(f) = (0..model.factors.len()).find(|&f| model.factors[f].copies.len() > 1) {
            let copy = &model.factors[f].copies[1];
            let mut img: Vec<u32> = (0..d as u32).collect();
            if copy.len() >= 3 {
                img[copy[0] as usize] = copy[1];
                img[copy[1] as usize] = copy[2];
                img[copy[2] as usize] = copy[0];
            } else {
                img.swap(copy[0] as usize, copy[1] as usize);
            }
            let b = Perm::from_images(img, "break").expect("a permutation");
            out.push(("linkage", x.compose(&b)));
        }
        // Orbit crossing: swap two points of different orbits.
        if model.factors.len() > 1 || model.factors[0].copies.len() > 1 {
            let a = model.factors[0].copies[0][0];
            let b = if model.factors.len() > 1 {
                model.factors[1].copies[0][0]
            } else {
                model.factors[0].copies[1][0]
            };
            let mut img: Vec<u32> = (0..d as u32).collect();
            img.swap(a as usize, b as usize);
            let s = Perm::from_images(img, "swap").expect("a permutation");
            out.push(("crossing", x.compose(&s)));
        }
        // Rest: a transposition inside a dihedral or cyclic orbit.
        if let Some(f) = (0..model.factors.len()).find(|&f| {
            matches!(model.factors[f].kind, Kind::Dihedral(_) | Kind::Cyclic(_))
                && model.factors[f].kind.size() >= 2
        }) {
            let copy = &model.factors[f].copies[0];
            let mut img: Vec<u32> = (0..d as u32).collect();
            img.swap(copy[0] as usize, copy[1] as usize);
            let s = Perm::from_images(img, "rest").expect("a permutation");
            out.push(("rest", x.compose(&s)));
        }
        let mut v: Vec<u32> = (0..d as u32).collect();
        v.shuffle(rng);
        out.push(("random", Perm::from_images(v, "random").expect("a shuffle")));
    }
    out
}

fn build(model: &Model, tuning: &GroupTuning) -> PermGroup {
    PermGroup::new_with_tuning(
        model.degree,
        model.generators.clone(),
        &SolveContext::detached(),
        &Limits::default(),
        tuning,
    )
    .expect("group builds")
}

fn chain_only() -> GroupTuning {
    GroupTuning {
        recognise_giant_products: false,
        ..GroupTuning::default()
    }
}

/// The transversals' contract: identity first, distinct images of the base point, earlier base
/// points fixed, every representative a member (by the model), product of lengths = order.
fn check_transversals(g: &PermGroup, model: &Model) {
    let t = g.transversals().expect("small");
    let lengths = g.transversal_lengths();
    assert_eq!(t.len(), g.base().len());
    assert_eq!(
        t.iter().map(|l| l.len() as u64).collect::<Vec<_>>(),
        lengths
    );
    let product: BigUint = lengths.iter().map(|&l| BigUint::from(l)).product();
    assert_eq!(product, g.order());
    for (i, level) in t.iter().enumerate() {
        assert!(level[0].is_identity());
        let b = g.base()[i];
        let mut images: Vec<u32> = level.iter().map(|u| u.image(b)).collect();
        images.sort_unstable();
        images.dedup();
        assert_eq!(images.len(), level.len(), "level {i}");
        for u in level {
            assert!(g.base()[..i].iter().all(|&x| u.image(x) == x));
            assert!(
                model.contains(u),
                "representative of level {i} not a member"
            );
        }
    }
}

/// Hundreds of random products: the order is the model's, and every candidate's membership is
/// the model's; for small degrees the stabiliser chain agrees on both.
#[test]
fn giant_products_match_the_construction_and_the_chain() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x61a7);
    let (mut products, mut compared, mut members, mut non_members) = (0, 0, 0, 0);
    let mut kinds_seen = std::collections::BTreeMap::new();
    for case in 0..300 {
        let model = random_model(&mut rng, false);
        let g = build(&model, &GroupTuning::default());
        assert_eq!(g.order(), model.order, "case {case}: {model:?}");
        if format!("{g:?}").contains("GiantProduct") {
            products += 1;
        }
        let chain = (model.degree <= 60).then(|| build(&model, &chain_only()));
        if let Some(c) = &chain {
            assert_eq!(c.order(), model.order, "case {case}: the chain's order");
            compared += 1;
        }
        for (what, x) in candidates(&model, &mut rng) {
            let expected = model.contains(&x);
            assert_eq!(g.contains(&x), expected, "case {case}, {what}: {model:?}");
            if let Some(c) = &chain {
                assert_eq!(c.contains(&x), expected, "case {case}, {what} (chain)");
            }
            if expected {
                members += 1;
            } else {
                non_members += 1;
                *kinds_seen.entry(what).or_insert(0) += 1;
            }
        }
        if model.degree <= 60 {
            check_transversals(&g, &model);
        }
    }
    eprintln!(
        "300 cases: {products} giant products, {compared} compared with the chain, \
         {members} members, {non_members} non-members {kinds_seen:?}"
    );
    assert!(products >= 250, "{products}");
    assert!(compared >= 150, "{compared}");
    for kind in ["parity", "linkage", "crossing", "rest", "random"] {
        assert!(
            kinds_seen.get(kind).copied().unwrap_or(0) >= 30,
            "{kinds_seen:?}"
        );
    }
}

/// Larger factors (8 to 60 points, degrees in the hundreds): the model only.
#[test]
fn larger_giant_products_match_the_construction() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x61a8);
    for case in 0..60 {
        let model = random_model(&mut rng, true);
        let g = build(&model, &GroupTuning::default());
        assert_eq!(g.order(), model.order, "case {case}");
        for (what, x) in candidates(&model, &mut rng) {
            assert_eq!(g.contains(&x), model.contains(&x), "case {case}, {what}");
        }
    }
}

/// A small product enumerated through its transversals: every element distinct and a member.
#[test]
fn a_small_giant_product_enumerates_exactly_its_elements() {
    // Sym(8) x C_3 on 11 points, the two linked by nothing; order 8! * 3 = 120,960.
    let d = 11;
    let gens = vec![
        Perm::parse_cycles("(1,2,3,4,5,6,7,8)(9,10,11)", d).expect("valid"),
        Perm::parse_cycles("(1,2)", d).expect("valid"),
    ];
    let g = PermGroup::new(d, gens, &SolveContext::detached(), &Limits::default()).expect("builds");
    assert!(format!("{g:?}").contains("GiantProduct"), "{g:?}");
    assert_eq!(g.order(), BigUint::from(120_960u32));
    let t = g.transversals().expect("small");
    let mut elements = std::collections::HashSet::new();
    let mut stack = vec![(0usize, Perm::identity(d))];
    while let Some((level, e)) = stack.pop() {
        if level == t.len() {
            assert!(g.contains(&e));
            assert!(elements.insert(e), "repeated element");
            continue;
        }
        for u in &t[level] {
            stack.push((level + 1, u.compose(&e)));
        }
    }
    assert_eq!(elements.len(), 120_960);
    // Counting through the same group: 2-colourings up to Sym(8) x C_3 are 9 x 4 = 36.
    let gens = vec![
        Perm::parse_cycles("(1,2,3,4,5,6,7,8)(9,10,11)", d).expect("valid"),
        Perm::parse_cycles("(1,2)", d).expect("valid"),
    ];
    let counted = count_group(
        d,
        gens,
        &CountRequest::colours(2),
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("counts");
    assert_eq!(counted.count, BigUint::from(36u32));
}

/// `Sym(8)` acting at once naturally (8 points) and on the 28 pairs: the pair orbit is not a giant,
/// `8!/2` divides its group's order, so the class might be linked to it and the giant-product path
/// must decline; the chain gives `8!`, not `8! · 8!`.
#[test]
fn a_giant_linked_to_a_non_natural_action_is_left_to_the_chain() {
    let pairs: Vec<(u32, u32)> = (0..8u32)
        .flat_map(|a| (a + 1..8).map(move |b| (a, b)))
        .collect();
    let d = 8 + pairs.len();
    let on_both = |s: &[u32]| {
        let mut img: Vec<u32> = s.to_vec();
        for &(a, b) in &pairs {
            let (x, y) = (s[a as usize], s[b as usize]);
            let key = (x.min(y), x.max(y));
            img.push(8 + pairs.iter().position(|&p| p == key).expect("a pair") as u32);
        }
        Perm::from_images(img, "pairs").expect("a permutation")
    };
    let cycle: Vec<u32> = (0..8).map(|i| (i + 1) % 8).collect();
    let mut swap: Vec<u32> = (0..8).collect();
    swap.swap(0, 1);
    let gens = vec![on_both(&cycle), on_both(&swap)];
    let g = PermGroup::new(
        d,
        gens.clone(),
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("builds");
    assert!(!format!("{g:?}").contains("GiantProduct"), "{g:?}");
    assert_eq!(g.order(), BigUint::from(40_320u32));
    assert!(g.contains(&gens[0].compose(&gens[1])));
    // The natural part of one element with the pair part of another: not a member.
    let mut mixed = on_both(&cycle).images().to_vec();
    mixed[8..].copy_from_slice(&on_both(&swap).images()[8..]);
    let mixed = Perm::from_images(mixed, "mixed").expect("a permutation");
    assert!(!g.contains(&mixed));
}

/// Two orbits of equal size that are *not* linked although every generator has the same cycle
/// type on both (so the invariant cannot tell them apart): `Sym(9) x Sym(9)` from pairs of
/// conjugates by different relabellings, each generator of the same parity on both orbits, so
/// the order is `9!/2 · 9!/2 · 2`.
#[test]
fn equal_cycle_types_without_a_linking_bijection_are_independent() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let n = 9usize;
    let cycle: Vec<u32> = (0..n as u32).map(|i| (i + 1) % n as u32).collect();
    let mut swap: Vec<u32> = (0..n as u32).collect();
    swap.swap(0, 1);
    // The same two generators on the first orbit; on the second conjugated by different
    // bijections, so no single bijection links both.
    let s1 = random_local(n, &mut rng);
    let s2 = random_local(n, &mut rng);
    let both = |a: &[u32], b: &[u32]| {
        let mut img: Vec<u32> = a.to_vec();
        img.extend(b.iter().map(|&y| y + n as u32));
        Perm::from_images(img, "pair").expect("a permutation")
    };
    let gens = vec![
        both(&cycle, &conjugate_local(&cycle, &s1)),
        both(&swap, &conjugate_local(&swap, &s2)),
    ];
    let g = PermGroup::new(
        2 * n,
        gens.clone(),
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("builds");
    let chain = PermGroup::new_with_tuning(
        2 * n,
        gens,
        &SolveContext::detached(),
        &Limits::default(),
        &chain_only(),
    )
    .expect("builds");
    assert_eq!(g.order(), chain.order());
    let f9: BigUint = (1..=9u32).map(BigUint::from).product();
    // Linked would give 9!; for this seed no bijection links them.
    assert_eq!(g.order(), &f9 * &f9 / 2u32);
}

/// 150 orbits of 101 points with identical invariants (one 101-cycle on all of them, and on each
/// a transposition `(x, x + δ)`): two orbits are linked exactly when their `±δ` agree (the
/// centraliser of a full cycle is its rotations), so the classes are the distinct `min(δ, 101-δ)`
/// and the order is `(101!/2)^classes · 2` (every generator has the same parity on all orbits).
/// Every pair of orbits passes the cheap filters, so this exercises the bijection search.
#[test]
fn many_equal_orbits_are_linked_exactly_by_their_transposition_offsets() {
    let mut rng = ChaCha8Rng::seed_from_u64(101);
    let (p, orbits) = (101usize, 150usize);
    let d = p * orbits;
    let mut cycle = vec![0u32; d];
    let mut swaps: Vec<u32> = (0..d as u32).collect();
    let mut classes = std::collections::BTreeSet::new();
    for o in 0..orbits {
        let base = o * p;
        for i in 0..p {
            cycle[base + i] = (base + (i + 1) % p) as u32;
        }
        let x = rng.random_range(0..p);
        let delta = rng.random_range(1..p);
        classes.insert(delta.min(p - delta));
        swaps.swap(base + x, base + (x + delta) % p);
    }
    let gens = vec![
        Perm::from_images(cycle, "cycle").expect("a permutation"),
        Perm::from_images(swaps, "swaps").expect("a permutation"),
    ];
    let g = PermGroup::new(
        d,
        gens.clone(),
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("builds");
    let half: BigUint = (1..=p as u64).map(BigUint::from).product::<BigUint>() / 2u32;
    assert!(classes.len() > 30, "{}", classes.len());
    assert_eq!(g.order(), half.pow(classes.len() as u32) * 2u32);
    assert!(g.contains(&gens[0].compose(&gens[1]).compose(&gens[0])));
    // The transposition of the first orbit alone: odd on one class only.
    let mut one: Vec<u32> = (0..d as u32).collect();
    let t = gens[1].images();
    let x = (0..p).find(|&x| t[x] != x as u32).expect("a moved point");
    one.swap(x, t[x] as usize);
    assert!(!g.contains(&Perm::from_images(one, "one").expect("a permutation")));
}
