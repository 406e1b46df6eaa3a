//! Wreath products of giants up to degree 1,000 (`Sym(30) wr Sym(20)`, `Sym(10) wr Sym(100)`,
//! `Sym(250) wr Sym(4)`, `Sym(3) wr Sym(333)`, `Sym(2) wr Sym(500)`), whose bases hold a half to
//! nearly all of their points: their orders come from the blocks' orientations
//! (`LevelProof::AlternatingBlocks`) or, for blocks of two points, from a bound by the action on
//! the blocks and the transfer (`LevelProof::BlockWreath`). Independent oracles: the orders are
//! the textbook formula `|Sym(m) wr Sym(b)| = (m!)^b · b!` (and half of it for the subgroups of
//! index 2), and membership is decided from the definition (a permutation mapping blocks onto
//! blocks; an even one for the even part; one whose sign is its block permutation's for the
//! other subgroup).

use num_bigint::BigUint;
use orbit_worker::group::{LevelProof, Perm, PermGroup};
use orbit_worker::{Limits, SolveContext};
use rand::SeedableRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha8Rng;

fn factorial(n: usize) -> BigUint {
    (1..=n as u64).product()
}

/// The points of block `i` of `b` blocks of `m` points: `relabel[m·i..m·i+m]`.
pub(crate) struct Blocks {
    m: usize,
    b: usize,
    relabel: Vec<u32>,
}

impl Blocks {
    pub(crate) fn new(m: usize, b: usize, rng: &mut ChaCha8Rng) -> Blocks {
        let mut relabel: Vec<u32> = (0..(m * b) as u32).collect();
        relabel.shuffle(rng);
        Blocks { m, b, relabel }
    }

    /// Point `j` of block `i` goes to point `inside[i](j)` of block `blocks(i)`.
    fn element(
        &self,
        blocks: impl Fn(usize) -> usize,
        inside: impl Fn(usize, usize) -> usize,
    ) -> Perm {
        let (m, d) = (self.m, self.m * self.b);
        let mut images = vec![0u32; d];
        for i in 0..self.b {
            for j in 0..m {
                images[self.relabel[m * i + j] as usize] =
                    self.relabel[m * blocks(i) + inside(i, j)];
            }
        }
        Perm::from_images(images, "a wreath element").expect("a permutation")
    }

    /// Generators of `Sym(m) wr Sym(b)`: an `m`-cycle and a transposition in block 0, a
    /// `b`-cycle of the blocks and a swap of blocks 0 and 1.
    pub(crate) fn generators(&self) -> Vec<Perm> {
        let (m, b) = (self.m, self.b);
        vec![
            self.element(|i| i, |i, j| if i == 0 { (j + 1) % m } else { j }),
            self.element(|i| i, |i, j| if i == 0 && j < 2 { 1 - j } else { j }),
            self.element(|i| (i + 1) % b, |_, j| j),
            self.element(|i| if i < 2 { 1 - i } else { i }, |_, j| j),
        ]
    }

    /// A random element of `Sym(m) wr Sym(b)`.
    pub(crate) fn random(&self, rng: &mut ChaCha8Rng) -> Perm {
        self.random_with_block_parity(rng).0
    }

    /// A random element of `Sym(m) wr Sym(b)` and whether its permutation of the blocks is even.
    fn random_with_block_parity(&self, rng: &mut ChaCha8Rng) -> (Perm, bool) {
        let mut blocks: Vec<usize> = (0..self.b).collect();
        blocks.shuffle(rng);
        let on_blocks = blocks.iter().map(|&i| i as u32).collect();
        let blocks_even = Perm::from_images(on_blocks, "blocks")
            .expect("a permutation")
            .is_even();
        let inside: Vec<Vec<usize>> = (0..self.b)
            .map(|_| {
                let mut p: Vec<usize> = (0..self.m).collect();
                p.shuffle(rng);
                p
            })
            .collect();
        (
            self.element(|i| blocks[i], |i, j| inside[i][j]),
            blocks_even,
        )
    }

    /// A random element of `Alt(m) wr Sym(b)`: each block goes to its image by an even
    /// permutation of the points' numbers.
    pub(crate) fn random_even_inside(&self, rng: &mut ChaCha8Rng) -> Perm {
        let mut blocks: Vec<usize> = (0..self.b).collect();
        blocks.shuffle(rng);
        let inside: Vec<Vec<usize>> = (0..self.b)
            .map(|_| {
                let mut p: Vec<usize> = (0..self.m).collect();
                p.shuffle(rng);
                let images = p.iter().map(|&j| j as u32).collect();
                if !Perm::from_images(images, "inside")
                    .expect("a permutation")
                    .is_even()
                {
                    p.swap(0, 1);
                }
                p
            })
            .collect();
        self.element(|i| blocks[i], |i, j| inside[i][j])
    }

    /// A random element of `N wr Sym(b)`, `N` given by all its elements on the `m` points'
    /// numbers (`local`).
    fn random_in(&self, local: &[Vec<usize>], rng: &mut ChaCha8Rng) -> Perm {
        let mut blocks: Vec<usize> = (0..self.b).collect();
        blocks.shuffle(rng);
        let inside: Vec<&Vec<usize>> = (0..self.b)
            .map(|_| local.choose(rng).expect("not empty"))
            .collect();
        self.element(|i| blocks[i], |i, j| inside[i][j])
    }

    /// A transposition of two points of different blocks: it maps no block onto a block.
    pub(crate) fn across(&self) -> Perm {
        let d = self.m * self.b;
        let mut images: Vec<u32> = (0..d as u32).collect();
        images.swap(self.relabel[0] as usize, self.relabel[self.m] as usize);
        Perm::from_images(images, "a swap").expect("a permutation")
    }
}

pub(crate) fn build(degree: usize, generators: Vec<Perm>) -> PermGroup {
    PermGroup::new(
        degree,
        generators,
        &SolveContext::detached(),
        &Limits::default(),
    )
    .expect("the group builds")
}

/// `Sym(m) wr Sym(b)` for (30, 20), (10, 100) and (250, 4), points relabelled at random: the
/// order by the formula, proven through the orientations, and 5 random members, a member times
/// a swap across blocks and a transposition inside a block (a member of the full product).
#[test]
fn group_wreath_products_of_giants_up_to_degree_1000() {
    wreath_products(
        6021,
        &[(30, 20), (10, 100), (250, 4)],
        LevelProof::AlternatingBlocks,
    );
}

/// The same for `Sym(3) wr Sym(333)` (proven through the orientations, whose group, of degree
/// 666, has blocks of two points) and `Sym(2) wr Sym(500)` (proven from its blocks of two: its
/// chain's own proofs took minutes, and its explicit transversals alone were over the chain's
/// memory limit).
#[test]
fn group_wreath_products_with_blocks_of_three_and_two_points() {
    wreath_products(6023, &[(3, 333)], LevelProof::AlternatingBlocks);
    wreath_products(6024, &[(2, 500)], LevelProof::BlockWreath);
}

/// The checks of the two tests above, each level proven by `proof`.
fn wreath_products(seed: u64, shapes: &[(usize, usize)], proof: LevelProof) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for &(m, b) in shapes {
        let blocks = Blocks::new(m, b, &mut rng);
        let d = m * b;
        let g = build(d, blocks.generators());
        let label = format!("Sym({m}) wr Sym({b})");
        assert_eq!(
            g.order(),
            factorial(m).pow(b as u32) * factorial(b),
            "{label}"
        );
        assert!(
            g.level_proofs().iter().all(|&p| p == proof),
            "{label}: {:?}",
            g.level_proofs().first()
        );
        for _ in 0..5 {
            let x = blocks.random(&mut rng);
            assert!(g.contains(&x), "{label}: a member");
            assert!(
                !g.contains(&x.compose(&blocks.across())),
                "{label}: across blocks"
            );
        }
        let mut inside: Vec<u32> = (0..d as u32).collect();
        inside.swap(blocks.relabel[0] as usize, blocks.relabel[1] as usize);
        assert!(g.contains(&Perm::from_images(inside, "a swap").expect("a permutation")));
    }
}

/// The even part of `Sym(30) wr Sym(20)` (600 points), from 4 random even members: half the
/// order, and a member is in it exactly when it is an even permutation.
#[test]
fn group_even_part_of_a_wreath_product_of_giants() {
    let mut rng = ChaCha8Rng::seed_from_u64(6022);
    let (m, b) = (30usize, 20usize);
    let blocks = Blocks::new(m, b, &mut rng);
    let mut even_members = std::iter::repeat_with(|| blocks.random(&mut rng)).filter(Perm::is_even);
    let generators: Vec<Perm> = (0..4)
        .map(|_| even_members.next().expect("endless"))
        .collect();
    let g = build(m * b, generators);
    assert_eq!(g.order(), factorial(m).pow(b as u32) * factorial(b) / 2u32);
    assert!(g.level_proofs().contains(&LevelProof::AlternatingBlocks));
    for _ in 0..10 {
        let x = blocks.random(&mut rng);
        assert_eq!(g.contains(&x), x.is_even(), "{x:?}");
    }
}

/// The two subgroups of index 2 of `Sym(2) wr Sym(200)` (400 points) that its blocks of two
/// bound (see `block_wreath`: the transfer is the product of the blocks' signs), each from 4
/// random members: the even part (a member is in it exactly when it is an even permutation) and
/// the one whose members' signs are their block permutations' signs (the Weyl group of type `D`
/// is the first; this is the other).
#[test]
fn group_subgroups_of_index_two_of_a_wreath_product_with_blocks_of_two() {
    let mut rng = ChaCha8Rng::seed_from_u64(6025);
    let (m, b) = (2usize, 200usize);
    let blocks = Blocks::new(m, b, &mut rng);
    let full = factorial(m).pow(b as u32) * factorial(b);
    // Whether an element of the wreath product, with the parity of its block permutation, is in
    // the subgroup.
    type Inside = fn(&Perm, bool) -> bool;
    let tests: [(&str, Inside); 2] = [
        ("even", |x, _| x.is_even()),
        ("sign of the blocks", |x, blocks_even| {
            x.is_even() == blocks_even
        }),
    ];
    for (label, inside) in tests {
        let mut members = std::iter::repeat_with(|| blocks.random_with_block_parity(&mut rng))
            .filter(|(x, blocks_even)| inside(x, *blocks_even));
        let generators: Vec<Perm> = (0..4).map(|_| members.next().expect("endless").0).collect();
        let g = build(m * b, generators);
        assert_eq!(g.order(), &full / 2u32, "{label}");
        assert!(
            g.level_proofs().contains(&LevelProof::BlockWreath),
            "{label}"
        );
        for _ in 0..10 {
            let (x, blocks_even) = blocks.random_with_block_parity(&mut rng);
            assert_eq!(g.contains(&x), inside(&x, blocks_even), "{label}: {x:?}");
        }
    }
}

/// `Sym(m) wr Sym(b)` on `m·b` points beside `Sym(c)` on `c` more, all points relabelled: an
/// intransitive group with a wreath orbit.
pub(crate) struct WreathBeside {
    blocks: Blocks,
    c: usize,
    relabel: Vec<u32>,
}

impl WreathBeside {
    pub(crate) fn new(m: usize, b: usize, c: usize, rng: &mut ChaCha8Rng) -> WreathBeside {
        let blocks = Blocks::new(m, b, rng);
        let mut relabel: Vec<u32> = (0..(m * b + c) as u32).collect();
        relabel.shuffle(rng);
        WreathBeside { blocks, c, relabel }
    }

    pub(crate) fn degree(&self) -> usize {
        self.blocks.m * self.blocks.b + self.c
    }

    /// A random element of the product, moving both orbits, and whether its wreath part, that
    /// part's block permutation and its part on the last `c` points are even.
    pub(crate) fn random(&self, rng: &mut ChaCha8Rng) -> (Perm, bool, bool, bool) {
        let (x, blocks_even) = self.blocks.random_with_block_parity(rng);
        let mut y: Vec<u32> = (0..self.c as u32).collect();
        y.shuffle(rng);
        let y_even = Perm::from_images(y.clone(), "y")
            .expect("a permutation")
            .is_even();
        let (d, wreath) = (self.degree(), self.degree() - self.c);
        let mut images = vec![0u32; d];
        let points = x
            .images()
            .iter()
            .copied()
            .chain(y.iter().map(|&q| wreath as u32 + q));
        for (p, q) in points.enumerate() {
            images[self.relabel[p] as usize] = self.relabel[q as usize];
        }
        let element = Perm::from_images(images, "an element").expect("a permutation");
        (element, x.is_even(), blocks_even, y_even)
    }
}

/// Intransitive groups with a wreath orbit ([`WreathBeside`]), from 5 random members of the
/// product or of one of its subgroups of index 2 tied by signs (each generator moves both
/// orbits; their signs span the group's): the order is the textbook formula's (halved when
/// tied), proven from the orbits' constituents (`LevelProof::OrbitConstituents`; at degree 300
/// the chain's own proofs took about a minute), and membership follows the definition.
/// `Sym(100) wr Sym(9)` beside `Sym(100)` (degree 1,000, nearly every point a base point) is the
/// full product; `Sym(30) wr Sym(9)` beside `Sym(30)`, the two ties.
#[test]
fn group_intransitive_products_with_a_wreath_orbit() {
    let mut rng = ChaCha8Rng::seed_from_u64(6026);
    // Whether an element (its wreath part's sign, its block permutation's sign, its last orbit's
    // sign; true for even) is in the group.
    type Inside = fn(bool, bool, bool) -> bool;
    let cases: [(&str, usize, usize, usize, Inside, u32); 3] = [
        ("the full product", 100, 9, 100, |_, _, _| true, 1),
        ("tied to the points' sign", 30, 9, 30, |x, _, y| x == y, 2),
        ("tied to the blocks' sign", 30, 9, 30, |_, b, y| b == y, 2),
    ];
    for (label, m, b, c, inside, index) in cases {
        let product = WreathBeside::new(m, b, c, &mut rng);
        // At least 5 members, and enough that their signs span the group's (the signs of 5
        // random members of a subgroup of index 2 span only half of them one time in eight).
        let mut generators = Vec::new();
        let mut span = vec![0u8]; // the span of the generators' sign vectors (bit set: odd)
        while generators.len() < 5 || span.len() < 8 / index as usize {
            let (g, x, b, y) = product.random(&mut rng);
            if inside(x, b, y) {
                let v = u8::from(!x) | u8::from(!b) << 1 | u8::from(!y) << 2;
                if !span.contains(&v) {
                    span = span.iter().flat_map(|&s| [s, s ^ v]).collect();
                }
                generators.push(g);
            }
        }
        let g = build(product.degree(), generators);
        let full = factorial(m).pow(b as u32) * factorial(b) * factorial(c);
        assert_eq!(g.order(), full / index, "{label}");
        assert!(
            g.level_proofs().contains(&LevelProof::OrbitConstituents),
            "{label}: {:?}",
            g.level_proofs().first()
        );
        for _ in 0..10 {
            let (x, x_even, blocks_even, y_even) = product.random(&mut rng);
            assert_eq!(
                g.contains(&x),
                inside(x_even, blocks_even, y_even),
                "{label}"
            );
        }
    }
}

/// `Sym(30) wr Sym(10)` acting on two copies of its 300 points at once (the second copy
/// relabelled), from its standard generators: the two orbits are linked (one bijection conjugates
/// every generator's action on the one into its action on the other), so the order is the wreath
/// product's own, proven from the orbits' constituents with one constituent per class of linked
/// orbits (`LevelProof::OrbitConstituents`; from random elements, the same shape took the chain's
/// own proofs 42 to 65 s); a member
/// acting alike on both copies is in the group, one acting differently is not.
#[test]
fn group_wreath_product_on_two_copies_of_its_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(6029);
    let (m, b) = (30usize, 10usize);
    let blocks = Blocks::new(m, b, &mut rng);
    let d = m * b;
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    // x on the first copy and y on the second.
    let on_both = |x: &Perm, y: &Perm| {
        let mut images = vec![0u32; 2 * d];
        for p in 0..d {
            images[p] = x.image(p as u32);
            images[d + relabel[p] as usize] = (d as u32) + relabel[y.image(p as u32) as usize];
        }
        Perm::from_images(images, "on two copies").expect("a permutation")
    };
    let generators: Vec<Perm> = blocks.generators().iter().map(|g| on_both(g, g)).collect();
    let g = build(2 * d, generators);
    assert_eq!(g.order(), factorial(m).pow(b as u32) * factorial(b));
    assert!(
        g.level_proofs().contains(&LevelProof::OrbitConstituents),
        "{:?}",
        g.level_proofs().first()
    );
    for _ in 0..5 {
        let (x, y) = (blocks.random(&mut rng), blocks.random(&mut rng));
        assert!(g.contains(&on_both(&x, &x)), "alike on both copies");
        assert!(!g.contains(&on_both(&x, &y)), "different on the copies");
    }
}

/// The affine maps `x ↦ a·x + c` modulo `p` with `a` in `multipliers`: `D_5` for `p = 5` and
/// `a = ±1`, `AGL(1,7)` for every non-zero `a`.
fn affine(p: usize, multipliers: &[usize]) -> Vec<Vec<usize>> {
    multipliers
        .iter()
        .flat_map(|&a| (0..p).map(move |c| (0..p).map(|x| (a * x + c) % p).collect()))
        .collect()
}

/// `D_5 wr Sym(200)` (1,000 points) and `AGL(1,7) wr Sym(140)` (980), points relabelled at
/// random, each from three random members and a generator of the local group's multiplicative
/// part on one block: the order `|N|^b · b!` by the formula, proven from
/// the blocks' local group and the transfer (`LevelProof::BlockWreath`: a base of 400 and 280
/// points, whose chains' own proofs took minutes); 5 random members of the wreath product
/// (from its definition) are in it, a member times a swap across blocks or times a
/// transposition inside a block (in neither local group) is not.
#[test]
fn group_wreath_products_of_small_block_groups_up_to_degree_1000() {
    let mut rng = ChaCha8Rng::seed_from_u64(6031);
    for (label, m, local, r, b) in [
        ("D_5 wr Sym(200)", 5, affine(5, &[1, 4]), 4, 200),
        (
            "AGL(1,7) wr Sym(140)",
            7,
            affine(7, &[1, 2, 3, 4, 5, 6]),
            3,
            140,
        ),
    ] {
        let blocks = Blocks::new(m, b, &mut rng);
        // Three random members, and `x ↦ r·x` (`r` of the largest multiplicative order) on
        // block 0 alone: together they reach every quotient of the wreath product by its
        // abelianisation (checked below by random members).
        let mut generators: Vec<Perm> =
            (0..3).map(|_| blocks.random_in(&local, &mut rng)).collect();
        generators.push(blocks.element(|i| i, |i, j| if i == 0 { (r * j) % m } else { j }));
        let g = build(m * b, generators);
        assert_eq!(
            g.order(),
            BigUint::from(local.len()).pow(b as u32) * factorial(b),
            "{label}"
        );
        assert!(
            g.level_proofs()
                .iter()
                .all(|&p| p == LevelProof::BlockWreath),
            "{label}: {:?}",
            g.level_proofs().first()
        );
        let mut inside: Vec<u32> = (0..(m * b) as u32).collect();
        inside.swap(blocks.relabel[0] as usize, blocks.relabel[1] as usize);
        let inside = Perm::from_images(inside, "a swap").expect("a permutation");
        for _ in 0..5 {
            let x = blocks.random_in(&local, &mut rng);
            assert!(g.contains(&x), "{label}: a member");
            assert!(!g.contains(&x.compose(&blocks.across())), "{label}: across");
            assert!(!g.contains(&x.compose(&inside)), "{label}: inside");
        }
    }
}
