//! Words for group members ([`GroupWords`]) against independent oracles: thousands of random
//! groups of degree <= 9 whose whole element list is known by breadth-first closure (every
//! element gets a word, every random non-member none), known groups (Rubik's cube, M24, giants),
//! and every word multiplied out here, point by point, independently of [`Word::evaluate`].

use std::collections::HashSet;

use orbit_worker::group::{
    GroupProblem, GroupWords, LetterBudget, Perm, PermGroup, Word, WordEffort, WordMethod,
    solve_group,
};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::group_closure::{closure, pack, random_generator, to_perm};
use crate::group_known_orders::{M24, RUBIK};
use crate::group_wreath_products::build;

const BUDGET: u64 = 1 << 30;

/// The image of every point under `word`, multiplied out letter by letter (left to right: a
/// point goes through the first letter first), each power applied as repeated images.
fn multiply_out(word: &Word, gens: &[Perm], degree: usize) -> Vec<u32> {
    let mut images: Vec<u32> = (0..degree as u32).collect();
    for letter in word.letters() {
        let g = &gens[letter.generator as usize];
        let inverse = g.inverse();
        let (step, times) = if letter.exponent > 0 {
            (g, letter.exponent)
        } else {
            (&inverse, -letter.exponent)
        };
        for _ in 0..times {
            for x in images.iter_mut() {
                *x = step.image(*x);
            }
        }
    }
    images
}

/// The normal form the contract promises: no two neighbouring letters with the same generator,
/// no zero exponent, and the length the sum of the absolute exponents.
fn assert_reduced(word: &Word, label: &str) {
    let letters = word.letters();
    assert!(letters.iter().all(|l| l.exponent != 0), "{label}: {word}");
    assert!(
        letters.windows(2).all(|w| w[0].generator != w[1].generator),
        "{label}: not freely reduced: {word}"
    );
    let sum: u64 = letters.iter().map(|l| l.exponent.unsigned_abs()).sum();
    assert_eq!(word.len(), sum, "{label}: {word}");
}

fn words_for(group: &PermGroup, effort: u32) -> GroupWords {
    GroupWords::new(
        group,
        WordEffort(effort),
        &SolveContext::detached(),
        BUDGET,
        "max_job_memory",
    )
    .expect("words build")
}

/// A member: the product of `steps` generators drawn at random.
fn random_product(gens: &[Perm], d: usize, steps: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut x = Perm::identity(d);
    for _ in 0..steps {
        x = x.compose(gens.choose(rng).expect("generators"));
    }
    x
}

fn perm(text: &str, d: usize) -> Perm {
    Perm::parse_cycles(text, d).expect("test permutation is valid")
}

#[test]
fn group_words_random_small_groups_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1_998);
    let ctx = SolveContext::detached();
    let mut checked = 0usize;
    for case in 0..1_500 {
        let d = rng.random_range(1..=9);
        let k = rng.random_range(0..=4);
        let gens: Vec<Perm> = (0..k).map(|_| random_generator(d, &mut rng)).collect();
        let all = closure(d, &gens);
        let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).expect("builds");
        let words = words_for(&group, case % 3);
        let label = format!("case {case}: d={d} gens={gens:?}");
        let elements: Vec<u64> = all.iter().copied().collect();
        let sample: Vec<u64> = if elements.len() <= 300 {
            elements
        } else {
            elements.choose_multiple(&mut rng, 300).copied().collect()
        };
        for e in sample {
            let x = to_perm(d, e);
            let word = words
                .word_of(&x)
                .unwrap_or_else(|| panic!("{label}: member {x} has no word"));
            assert_reduced(&word, &label);
            assert_eq!(
                multiply_out(&word, &gens, d),
                x.images(),
                "{label}: {word} for {x}"
            );
            checked += 1;
        }
        // Random permutations: a word exactly for the members.
        for _ in 0..20 {
            let mut img: Vec<u32> = (0..d as u32).collect();
            img.shuffle(&mut rng);
            let member = all.contains(&pack(img.iter().copied()));
            let x = to_perm(d, pack(img.iter().copied()));
            match words.word_of(&x) {
                Some(word) => {
                    assert!(member, "{label}: non-member {x} got {word}");
                    assert_eq!(multiply_out(&word, &gens, d), x.images(), "{label}");
                }
                None => assert!(!member, "{label}: member {x} got no word"),
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
}

/// Every element of a few small groups, and the identity's word is the empty word.
#[test]
fn group_words_every_element_of_small_groups() {
    let cases: [(usize, &[&str]); 4] = [
        (4, &["(1,2,3,4)", "(1,2)"]),
        (8, &["(1,2,3,4,5,6,7)", "(1,8)(2,7)(3,4)(5,6)"]),
        (
            9,
            &[
                "(1,2,3)",
                "(1,2)",
                "(1,4,7)(2,5,8)(3,6,9)",
                "(1,4)(2,5)(3,6)",
            ],
        ),
        (6, &["(1,2)(3,4)(5,6)", "(1,3,5)(2,4,6)"]),
    ];
    for (d, texts) in cases {
        let gens: Vec<Perm> = texts.iter().map(|t| perm(t, d)).collect();
        let group = build(d, gens.clone());
        let words = words_for(&group, 2);
        let all = closure(d, &gens);
        for &e in &all {
            let x = to_perm(d, e);
            let word = words.word_of(&x).expect("member");
            assert_eq!(
                multiply_out(&word, &gens, d),
                x.images(),
                "{texts:?}: {word}"
            );
        }
        let identity = words.word_of(&Perm::identity(d)).expect("identity");
        assert!(identity.is_identity() && identity.letters().is_empty());
        assert_eq!(identity.to_string(), "<identity>");
    }
}

/// Rubik's cube group (order 43,252,003,274,489,856,000) and M24: random members (products of
/// random generator powers) get words that multiply out to them; a single edge flip and a
/// transposition get none. Every generator itself gets a word of length at most its own.
#[test]
fn group_words_rubik_and_m24() {
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    for (d, texts) in [(48usize, &RUBIK[..]), (24, &M24[..])] {
        let gens: Vec<Perm> = texts.iter().map(|t| perm(t, d)).collect();
        let group = build(d, gens.clone());
        let words = words_for(&group, 1);
        for _ in 0..100 {
            let x = random_product(&gens, d, 200, &mut rng);
            let word = words.word_of(&x).expect("member");
            assert_reduced(&word, "random member");
            assert_eq!(multiply_out(&word, &gens, d), x.images(), "{word}");
        }
        for (i, g) in gens.iter().enumerate() {
            let word = words.word_of(g).expect("generator");
            assert_eq!(multiply_out(&word, &gens, d), g.images());
            assert!(word.len() <= 1, "generator {i}: {word}");
        }
        assert!(words.word_of(&perm("(1,2)", d)).is_none());
    }
    let rubik: Vec<Perm> = RUBIK.iter().map(|t| perm(t, 48)).collect();
    let group = build(48, rubik);
    assert!(words_for(&group, 0).word_of(&perm("(2,34)", 48)).is_none());
}

/// Giants and giant products in their natural action, given by random or structured generators:
/// words for random elements multiply out; an odd permutation in Alt(n) has none.
#[test]
fn group_words_giants_and_products() {
    let mut rng = ChaCha8Rng::seed_from_u64(60);
    let cycle = |from: usize, to: usize| -> String {
        let pts: Vec<String> = (from..=to).map(|p| p.to_string()).collect();
        format!("({})", pts.join(","))
    };
    let cases: Vec<(usize, Vec<String>)> = vec![
        (30, vec![cycle(1, 30), "(1,2)".into()]),
        (31, vec![cycle(1, 31), "(1,2,3)".into()]),
        // Sym(10) x Sym(12) on disjoint points.
        (
            22,
            vec![
                cycle(1, 10),
                "(1,2)".into(),
                cycle(11, 22),
                "(11,12)".into(),
            ],
        ),
    ];
    for (d, texts) in cases {
        let gens: Vec<Perm> = texts.iter().map(|t| perm(t, d)).collect();
        let group = build(d, gens.clone());
        let words = words_for(&group, 1);
        for _ in 0..50 {
            let x = random_product(&gens, d, 100, &mut rng);
            let word = words.word_of(&x).expect("member");
            assert_eq!(
                multiply_out(&word, &gens, d),
                x.images(),
                "{texts:?}: {word}"
            );
        }
        let odd = perm("(1,2)", d);
        let member = group.contains(&odd);
        assert_eq!(words.word_of(&odd).is_some(), member, "{texts:?}");
    }
    // Alt(31) does not contain a transposition.
    let gens = vec![perm(&cycle(1, 31), 31), perm("(1,2,3)", 31)];
    let group = build(31, gens);
    assert!(words_for(&group, 0).word_of(&perm("(1,2)", 31)).is_none());
}

/// More effort never makes the tables' words longer on average, and on Rubik's cube it makes
/// them shorter (the knob the README documents).
#[test]
fn group_words_effort_trades_set_up_for_length() {
    let gens: Vec<Perm> = RUBIK.iter().map(|t| perm(t, 48)).collect();
    let group = build(48, gens.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let members: Vec<Perm> = (0..50)
        .map(|_| random_product(&gens, 48, 300, &mut rng))
        .collect();
    let mean = |words: &GroupWords| -> f64 {
        let total: u64 = members
            .iter()
            .map(|x| words.word_of(x).expect("member").len())
            .sum();
        total as f64 / members.len() as f64
    };
    let low = mean(&words_for(&group, 0));
    let high = mean(&words_for(&group, 2));
    assert!(high < low, "effort 2: {high}, effort 0: {low}");
}

#[test]
fn group_words_memory_limit_and_cancellation() {
    let gens: Vec<Perm> = RUBIK.iter().map(|t| perm(t, 48)).collect();
    let group = build(48, gens);
    let e = GroupWords::new(
        &group,
        WordEffort(2),
        &SolveContext::detached(),
        10_000,
        "max_job_memory",
    )
    .expect_err("10 kB is too little");
    match e {
        SolveError::LimitExceeded { limit_name, .. } => assert_eq!(limit_name, "max_job_memory"),
        other => panic!("expected LimitExceeded, got {other:?}"),
    }
    let flag = CancelFlag::new();
    flag.cancel();
    let e = GroupWords::new(
        &group,
        WordEffort(2),
        &SolveContext::new(flag, None),
        BUDGET,
        "max_job_memory",
    )
    .expect_err("cancelled");
    assert!(matches!(e, SolveError::Cancelled), "{e:?}");
}

/// A word stops within one piece once its job is cancelled (the server frees a cancelled job's
/// worker within 100 ms, and a word of millions of letters takes a good part of a second): for
/// a giant (`Sym(300)`), a wreath product through its blocks' orientations (`Sym(20) wr
/// Sym(10)`) and one through the action on its blocks (`Sym(2) wr Sym(300)`), a random member's
/// word under a cancelled job stops with fewer than a tenth of the letters of its whole word,
/// which the same member gets, multiplied out here, when the job is not cancelled.
#[test]
fn group_words_stop_within_a_piece_once_cancelled() {
    let mut rng = ChaCha8Rng::seed_from_u64(6040);
    let cancelled = CancelFlag::new();
    cancelled.cancel();
    let cancelled = SolveContext::new(cancelled, None);
    let running = SolveContext::detached();
    let mut cases: Vec<(String, usize, Vec<Perm>, Perm, WordMethod)> = Vec::new();
    let sym = random_sym_pair(300, &mut rng, Perm::clone);
    let member = random_product(&sym, 300, 400, &mut rng);
    cases.push(("Sym(300)".into(), 300, sym, member, WordMethod::Giant));
    for (m, b, method) in [
        (20usize, 10usize, WordMethod::AlternatingBlocks),
        (2, 300, WordMethod::ActionKernel),
    ] {
        let blocks = crate::group_wreath_products::Blocks::new(m, b, &mut rng);
        let member = blocks.random(&mut rng);
        let label = format!("Sym({m}) wr Sym({b})");
        cases.push((label, m * b, blocks.generators(), member, method));
    }
    for (label, d, gens, member, method) in cases {
        let group = build(d, gens.clone());
        let words = words_for(&group, 1);
        assert_eq!(words.method(), method, "{label}");
        let word = words
            .word_within(&member, LetterBudget::new(u64::MAX, &running))
            .expect("not cancelled")
            .expect("a member");
        assert_eq!(multiply_out(&word, &gens, d), member.images(), "{label}");
        let stopped = words
            .word_within(&member, LetterBudget::new(u64::MAX, &cancelled))
            .expect_err("cancelled");
        assert!(
            stopped < word.len() / 10,
            "{label}: stopped at {stopped} of {} letters",
            word.len()
        );
    }
}

/// Words of distinct members are distinct elements: no two members of a small group share a word.
#[test]
fn group_words_distinct_members_distinct_words() {
    let d = 7;
    let gens = vec![perm("(1,2,3,4,5,6,7)", d), perm("(1,2)", d)];
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    let mut seen = HashSet::new();
    for e in closure(d, &gens) {
        let word = words.word_of(&to_perm(d, e)).expect("member");
        assert!(seen.insert(word.to_string()), "{word} twice");
    }
    assert_eq!(seen.len(), 5_040);
}

/// `m!`, for the orders of products of giants.
fn factorial(m: usize) -> num_bigint::BigUint {
    (2..=m as u64).map(num_bigint::BigUint::from).product()
}

/// A uniformly random permutation of `points` (the other points of `0..d` fixed).
fn random_on(points: &[u32], d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut shuffled = points.to_vec();
    shuffled.shuffle(rng);
    let mut images: Vec<u32> = (0..d as u32).collect();
    for (&x, &y) in points.iter().zip(&shuffled) {
        images[x as usize] = y;
    }
    Perm::from_images(images, "test").expect("a permutation")
}

/// Whether `p` is even, from its cycle count (the test's own parity, not the library's).
fn even(p: &Perm) -> bool {
    let d = p.degree();
    let mut seen = vec![false; d];
    let mut cycles = 0;
    for s in 0..d {
        if !seen[s] {
            cycles += 1;
            let mut x = s;
            while !seen[x] {
                seen[x] = true;
                x = p.image(x as u32) as usize;
            }
        }
    }
    (d - cycles).is_multiple_of(2)
}

/// Giants of large degree from random generators, on part of the points (the rest fixed): the
/// words come from conjugates of one 3-cycle; each word multiplies out to its member (uniformly
/// random members of `Sym(m)`, the even ones for `Alt(m)`), and odd permutations (for `Alt`) or
/// permutations moving a fixed point get none.
#[test]
fn group_words_giants_of_large_degree_from_random_generators() {
    let mut rng = ChaCha8Rng::seed_from_u64(1_000);
    for (m, fixed, alternating) in [
        (24, 0, false),
        (25, 3, true),
        (40, 0, true),
        (57, 2, false),
        (150, 5, false),
        (301, 0, true),
    ] {
        let d = m + fixed;
        let points: Vec<u32> = (fixed as u32..d as u32).collect();
        // Two random generators of the giant (redrawn in the rare case they generate less).
        let (group, gens) = loop {
            let gens: Vec<Perm> = (0..2)
                .map(|_| {
                    loop {
                        let p = random_on(&points, d, &mut rng);
                        if !alternating || even(&p) {
                            break p;
                        }
                    }
                })
                .collect();
            let group = build(d, gens.clone());
            let factorial: num_bigint::BigUint = (2..=m as u64).product();
            let full = if alternating {
                factorial / 2u32
            } else {
                factorial
            };
            if group.order() == full {
                break (group, gens);
            }
        };
        let words = words_for(&group, 2);
        assert_eq!(words.method(), WordMethod::Giant, "m = {m}");
        let label = format!("{} of {m} points", if alternating { "Alt" } else { "Sym" });
        for _ in 0..6 {
            let x = random_on(&points, d, &mut rng);
            let member = !alternating || even(&x);
            match words.word_of(&x) {
                Some(word) => {
                    assert!(member, "{label}: a non-member got {word}");
                    assert_reduced(&word, &label);
                    assert_eq!(multiply_out(&word, &gens, d), x.images(), "{label}");
                }
                None => assert!(!member, "{label}: a member got no word"),
            }
        }
        if fixed > 0 {
            let moves_fixed = perm(&format!("(1,{d})"), d);
            assert!(words.word_of(&moves_fixed).is_none(), "{label}");
        }
    }
}

/// `Sym(1000)` from two random generators through the job: a word for a random member that
/// multiplies out, none for a permutation of another degree's points; with `max_word_letters`
/// below one word's length the job is refused naming that limit, before the word is built.
#[test]
fn group_words_sym_1000_through_the_job() {
    let mut rng = ChaCha8Rng::seed_from_u64(1_001);
    let d = 1000;
    let points: Vec<u32> = (0..d as u32).collect();
    let gens = loop {
        let a = random_on(&points, d, &mut rng);
        let b = random_on(&points, d, &mut rng);
        if !even(&a) || !even(&b) {
            break vec![a, b];
        }
    };
    let x = random_on(&points, d, &mut rng);
    let problem = GroupProblem {
        degree: d,
        generators: gens.clone(),
        candidates: vec![x.clone(), Perm::identity(d)],
        words: Some(WordEffort::default()),
    };
    let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default())
        .expect("Sym(1000) words fit the default limits");
    let factorial: num_bigint::BigUint = (2..=1000u64).product();
    assert_eq!(answer.order, factorial, "two random generators, one odd");
    let word = answer.words[0].as_ref().expect("a member's word");
    assert_reduced(word, "Sym(1000)");
    assert!(
        word.len() > 4_000,
        "at least log_3(1000!) letters: {}",
        word.len()
    );
    assert_eq!(multiply_out(word, &gens, d), x.images());
    assert_eq!(answer.words[1], Some(Word::identity()));

    let limits = Limits {
        max_word_letters: 100_000,
        ..Limits::default()
    };
    match solve_group(&problem, &SolveContext::detached(), &limits) {
        Err(SolveError::LimitExceeded { limit_name, .. }) => {
            assert_eq!(limit_name, "max_word_letters")
        }
        other => panic!("expected max_word_letters, got {other:?}"),
    }
}

/// A cancel while the words are set up ends the work within the 100 ms the server promises (36
/// copies of Sym(5) from a transposition in each and one product of 5-cycles moving them all, so
/// not factor by factor: a product of giants on 36 orbits, whose set-up at effort 100 takes
/// about 10 s, searching each orbit's 3-cycle as a power that fixes the other 35).
#[test]
fn group_words_cancellation_frees_the_worker_quickly() {
    let d = 180;
    let mut gens = Vec::new();
    let mut five_cycles = String::new();
    for b in 0..36 {
        let p = 5 * b + 1;
        five_cycles.push_str(&format!("({},{},{},{},{})", p, p + 1, p + 2, p + 3, p + 4));
        gens.push(perm(&format!("({},{})", p, p + 1), d));
    }
    gens.push(perm(&five_cycles, d));
    let group = build(d, gens);
    let flag = CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(30));
        flag.cancel();
        std::time::Instant::now()
    });
    let result = GroupWords::new(&group, WordEffort(100), &ctx, BUDGET, "max_job_memory");
    let ended = std::time::Instant::now();
    let cancelled_at = canceller.join().expect("canceller thread");
    assert!(matches!(result, Err(SolveError::Cancelled)), "{result:?}");
    let latency = ended.saturating_duration_since(cancelled_at);
    assert!(
        latency < std::time::Duration::from_millis(100),
        "took {latency:?} to stop"
    );
}

/// The shortest word length of every element of `<gens>` (a small group, on all `d` points), by
/// breadth-first search of its Cayley graph with the generators and their inverses: the test's
/// own oracle for what a shortest word costs.
fn shortest_lengths(gens: &[Perm], d: usize) -> std::collections::HashMap<Vec<u32>, u64> {
    let mut steps: Vec<Perm> = gens.to_vec();
    steps.extend(gens.iter().map(Perm::inverse));
    let identity: Vec<u32> = (0..d as u32).collect();
    let mut lengths = std::collections::HashMap::from([(identity.clone(), 0u64)]);
    let mut frontier = vec![identity];
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        let mut next = Vec::new();
        for p in &frontier {
            for s in &steps {
                let q: Vec<u32> = p.iter().map(|&x| s.image(x)).collect();
                if !lengths.contains_key(&q) {
                    lengths.insert(q.clone(), depth);
                    next.push(q);
                }
            }
        }
        frontier = next;
    }
    lengths
}

/// Sixty copies of `Sym(3)` on shuffled points, each from its own 3-cycle and transposition: a
/// direct product given factor by factor. Every random member's word multiplies out to it and is
/// as short as possible: the sum over the copies of the breadth-first distance of its
/// restriction in the copy's Cayley graph (GAP's words average 69.6 letters here).
#[test]
fn group_words_direct_products_get_the_factors_shortest_words() {
    let mut rng = ChaCha8Rng::seed_from_u64(603);
    let copies = 60;
    let d = 3 * copies;
    let mut points: Vec<u32> = (0..d as u32).collect();
    points.shuffle(&mut rng);
    let mut gens = Vec::new();
    for c in 0..copies {
        let (a, b, e) = (
            points[3 * c] + 1,
            points[3 * c + 1] + 1,
            points[3 * c + 2] + 1,
        );
        gens.push(perm(&format!("({a},{b},{e})"), d));
        gens.push(perm(&format!("({a},{b})"), d));
    }
    let group = build(d, gens.clone());
    let words = words_for(&group, 5);
    assert_eq!(words.method(), WordMethod::OrbitProduct);
    let local = |c: usize, g: &Perm| -> Vec<u32> {
        let orbit = &points[3 * c..3 * c + 3];
        orbit
            .iter()
            .map(|&x| orbit.iter().position(|&y| y == g.image(x)).expect("stays") as u32)
            .collect()
    };
    let copy_lengths: Vec<_> = (0..copies)
        .map(|c| {
            let local_gens: Vec<Perm> = gens[2 * c..2 * c + 2]
                .iter()
                .map(|g| Perm::from_images(local(c, g), "local").expect("a permutation"))
                .collect();
            shortest_lengths(&local_gens, 3)
        })
        .collect();
    let mut total = 0;
    for _ in 0..200 {
        let x = random_product(&gens, d, 400, &mut rng);
        let word = words.word_of(&x).expect("member");
        assert_reduced(&word, "Sym(3)^60");
        assert_eq!(multiply_out(&word, &gens, d), x.images(), "{word}");
        let shortest: u64 = (0..copies).map(|c| copy_lengths[c][&local(c, &x)]).sum();
        assert_eq!(word.len(), shortest, "{word}");
        total += word.len();
    }
    assert!(total as f64 / 200.0 < 75.0, "mean {}", total as f64 / 200.0);
    // A permutation mixing two copies is no member.
    let mixed = perm(&format!("({},{})", points[0] + 1, points[3] + 1), d);
    assert!(words.word_of(&mixed).is_none());
}

/// `Sym(30) x Alt(41) x Sym(25)` on shuffled points with 4 fixed points, each factor from its own
/// two generators: the giant factors get the giants' words. Uniformly random members multiply
/// out; an odd permutation of the `Alt` orbit, a swap across two orbits and a permutation
/// moving a fixed point get none.
#[test]
fn group_words_products_of_giants_factor_by_factor() {
    let mut rng = ChaCha8Rng::seed_from_u64(3041);
    let sizes = [30usize, 41, 25];
    let d = sizes.iter().sum::<usize>() + 4;
    let mut points: Vec<u32> = (0..d as u32).collect();
    points.shuffle(&mut rng);
    let mut orbits = Vec::new();
    let mut gens = Vec::new();
    let mut start = 0;
    for (f, &m) in sizes.iter().enumerate() {
        let orbit: Vec<u32> = points[start..start + m].to_vec();
        start += m;
        let cycle: Vec<String> = orbit.iter().map(|x| (x + 1).to_string()).collect();
        gens.push(perm(&format!("({})", cycle.join(",")), d));
        let extra = if f == 1 {
            format!("({},{},{})", orbit[0] + 1, orbit[1] + 1, orbit[2] + 1)
        } else {
            format!("({},{})", orbit[0] + 1, orbit[1] + 1)
        };
        gens.push(perm(&extra, d));
        orbits.push(orbit);
    }
    let group = build(d, gens.clone());
    assert_eq!(
        group.order(),
        factorial(30) * factorial(41) / 2u32 * factorial(25)
    );
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::OrbitProduct);
    for _ in 0..20 {
        let mut x = Perm::identity(d);
        for (f, orbit) in orbits.iter().enumerate() {
            let mut part = random_on(orbit, d, &mut rng);
            if f == 1 && !even(&part) {
                part = part.compose(&perm(&format!("({},{})", orbit[3] + 1, orbit[4] + 1), d));
            }
            x = x.compose(&part);
        }
        let word = words.word_of(&x).expect("member");
        assert_eq!(
            multiply_out(&word, &gens, d),
            x.images(),
            "a product member"
        );
    }
    let odd = perm(&format!("({},{})", orbits[1][0] + 1, orbits[1][1] + 1), d);
    assert!(words.word_of(&odd).is_none());
    let across = perm(&format!("({},{})", orbits[0][0] + 1, orbits[2][0] + 1), d);
    assert!(words.word_of(&across).is_none());
    let fixed = &points[start..];
    let moves_fixed = perm(&format!("({},{})", fixed[0] + 1, fixed[1] + 1), d);
    assert!(words.word_of(&moves_fixed).is_none());
}

/// A product of giants on orbits of 40, 60 and 50 points (shuffled, 3 fixed points) from two
/// random elements, each moving every orbit: every orbit but the last is written with a
/// 3-cycle that may move the orbits after it, and the later orbits write what those pieces did
/// there. Members (random products of the generators) get words that multiply out to them; a
/// swap across two orbits and a move of a fixed point get none.
#[test]
fn group_words_products_of_giants_from_two_random_elements() {
    let mut rng = ChaCha8Rng::seed_from_u64(5_150);
    let sizes = [40usize, 60, 50];
    let d = sizes.iter().sum::<usize>() + 3;
    let mut points: Vec<u32> = (0..d as u32).collect();
    points.shuffle(&mut rng);
    let mut orbits: Vec<&[u32]> = Vec::new();
    let mut start = 0;
    for &m in &sizes {
        orbits.push(&points[start..start + m]);
        start += m;
    }
    let gens: Vec<Perm> = (0..2)
        .map(|_| {
            orbits.iter().fold(Perm::identity(d), |x, o| {
                x.compose(&random_on(o, d, &mut rng))
            })
        })
        .collect();
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::GiantProduct);
    for _ in 0..6 {
        let x = random_product(&gens, d, 60, &mut rng);
        let word = words.word_of(&x).expect("member");
        assert_reduced(&word, "giant product from two random elements");
        assert_eq!(multiply_out(&word, &gens, d), x.images(), "a member");
    }
    let across = perm(&format!("({},{})", orbits[0][0] + 1, orbits[2][0] + 1), d);
    assert!(words.word_of(&across).is_none(), "a swap across orbits");
    let fixed = &points[start..];
    let moves_fixed = perm(&format!("({},{})", fixed[0] + 1, fixed[1] + 1), d);
    assert!(
        words.word_of(&moves_fixed).is_none(),
        "a move of a fixed point"
    );
}

/// `Sym(30) x Alt(41) x Sym(25)`'s subgroup of index 2 whose members have the same sign on the
/// first and third orbits, on shuffled points with 4 fixed points, from three random elements
/// that each move all three orbits (so not factor by factor): recognised by its order, every
/// uniformly random member's word multiplies out; members of the full product outside it (odd on
/// one orbit only), a swap across orbits and a move of a fixed point get none. A diagonal
/// `Sym(20)` on two orbits is not such a product (its order says so) and keeps the tables.
#[test]
fn group_words_products_of_giants_with_generators_moving_every_orbit() {
    let mut rng = ChaCha8Rng::seed_from_u64(4107);
    let sizes = [30usize, 41, 25];
    let d = sizes.iter().sum::<usize>() + 4;
    let mut points: Vec<u32> = (0..d as u32).collect();
    points.shuffle(&mut rng);
    let mut orbits = Vec::new();
    let mut start = 0;
    for &m in &sizes {
        orbits.push(points[start..start + m].to_vec());
        start += m;
    }
    let swap = |orbit: &[u32]| perm(&format!("({},{})", orbit[0] + 1, orbit[1] + 1), d);
    // A random member of the subgroup: even on orbit 1, equal signs on orbits 0 and 2.
    let member = |rng: &mut ChaCha8Rng| {
        let mut parts: Vec<Perm> = orbits.iter().map(|o| random_on(o, d, rng)).collect();
        if !even(&parts[1]) {
            parts[1] = parts[1].compose(&swap(&orbits[1]));
        }
        if even(&parts[0]) != even(&parts[2]) {
            parts[2] = parts[2].compose(&swap(&orbits[2]));
        }
        parts
            .iter()
            .fold(Perm::identity(d), |x, part| x.compose(part))
    };
    let gens: Vec<Perm> = (0..3).map(|_| member(&mut rng)).collect();
    let group = build(d, gens.clone());
    assert_eq!(
        group.order(),
        factorial(30) * factorial(41) * factorial(25) / 4u32,
        "three random members generate the subgroup"
    );
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::GiantProduct);
    for _ in 0..20 {
        let x = member(&mut rng);
        let word = words.word_of(&x).expect("member");
        assert_reduced(&word, "giant product");
        assert_eq!(
            multiply_out(&word, &gens, d),
            x.images(),
            "a product member"
        );
    }
    for (label, outside) in [
        ("odd on the first orbit only", swap(&orbits[0])),
        ("odd on the Alt orbit", swap(&orbits[1])),
        ("odd on the third orbit only", swap(&orbits[2])),
        (
            "a swap across orbits",
            perm(&format!("({},{})", orbits[0][0] + 1, orbits[2][0] + 1), d),
        ),
        (
            "a move of a fixed point",
            perm(
                &format!("({},{})", points[start] + 1, points[start + 1] + 1),
                d,
            ),
        ),
    ] {
        assert!(words.word_of(&outside).is_none(), "{label}");
    }
    assert!(
        words
            .word_of(&swap(&orbits[0]).compose(&swap(&orbits[2])))
            .is_some(),
        "odd on both the first and the third orbit"
    );

    // Diagonal Sym(20): the same random permutation on two copies of 20 points.
    let d = 40;
    let diagonal = |rng: &mut ChaCha8Rng| {
        let on_first = random_on(&(0..20).collect::<Vec<u32>>(), 20, rng);
        let images: Vec<u32> = (0..40u32)
            .map(|x| on_first.image(x % 20) + 20 * (x / 20))
            .collect();
        Perm::from_images(images, "diagonal").expect("a permutation")
    };
    let gens: Vec<Perm> = (0..2).map(|_| diagonal(&mut rng)).collect();
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_ne!(words.method(), WordMethod::GiantProduct);
    let x = diagonal(&mut rng);
    if group.contains(&x) {
        let word = words.word_of(&x).expect("member");
        assert_eq!(
            multiply_out(&word, &gens, d),
            x.images(),
            "a diagonal member"
        );
    }
}

/// A random element of `C_b wr Sym(m)` on `b·m` points (block `i` is `relabel[b·i..b·i+b]`):
/// a random permutation of the blocks and a random rotation inside each, the rotations summing
/// to `rotation_sum` modulo `b` when it is given (then it lies in the subgroup of that sum); with
/// `full`, a random permutation inside each block instead (`Sym(b) wr Sym(m)`).
fn random_wreath_element(
    b: usize,
    m: usize,
    relabel: &[u32],
    rotation_sum: Option<usize>,
    full: bool,
    rng: &mut ChaCha8Rng,
) -> Perm {
    let mut blocks: Vec<usize> = (0..m).collect();
    blocks.shuffle(rng);
    let mut rotations: Vec<usize> = (0..m).map(|_| rng.random_range(0..b)).collect();
    if let Some(sum) = rotation_sum {
        let others: usize = rotations[1..].iter().sum();
        rotations[0] = (sum + b * m - others % b) % b;
    }
    let mut images = vec![0u32; b * m];
    for (i, (&to, &r)) in blocks.iter().zip(&rotations).enumerate() {
        let mut inside: Vec<usize> = (0..b).map(|j| (j + r) % b).collect();
        if full {
            inside.shuffle(rng);
        }
        for (j, &k) in inside.iter().enumerate() {
            images[relabel[b * i + j] as usize] = relabel[b * to + k];
        }
    }
    Perm::from_images(images, "wreath").expect("a permutation")
}

/// Two random permutations of `0..m`, the first odd (so that they generate `Sym(m)`, not
/// `Alt(m)`, with high probability), each given to `on` (the action they are wanted in).
fn random_sym_pair(m: usize, rng: &mut ChaCha8Rng, on: impl Fn(&Perm) -> Perm) -> Vec<Perm> {
    let points: Vec<u32> = (0..m as u32).collect();
    (0..2)
        .map(|i| {
            loop {
                let p = random_on(&points, m, rng);
                if i > 0 || !even(&p) {
                    break on(&p);
                }
            }
        })
        .collect()
}

/// Builds `<gens>` on `d` points, checks its `order` and that its words come through an action
/// (`method`: down the kernel's series, or through the blocks' orientations), and multiplies
/// out here the words of `members` random members drawn by `member`.
fn words_through_an_action(
    d: usize,
    gens: &[Perm],
    (order, method): (num_bigint::BigUint, WordMethod),
    members: usize,
    mut member: impl FnMut() -> Perm,
    label: &str,
) -> (PermGroup, GroupWords) {
    let group = build(d, gens.to_vec());
    assert_eq!(group.order(), order, "{label}");
    let words = words_for(&group, 1);
    assert_eq!(
        words.method(),
        method,
        "{label}: base {}",
        group.base().len()
    );
    for _ in 0..members {
        let x = member();
        let word = words.word_of(&x).expect("member");
        assert_reduced(&word, label);
        assert_eq!(multiply_out(&word, gens, d), x.images(), "{label}");
    }
    (group, words)
}

/// Groups with a long base that are neither giants nor products of giants get their words
/// through an action, down their kernel's series of signs on the blocks, rotations and an
/// elementary abelian bottom: `C_2 wr Sym(30)` and its subgroup of even flips (kernel `C_2^29`:
/// an odd number of flips is a non-member with a member's image on the blocks), `C_3 wr
/// Sym(26)`, `PSL(2,47) wr Sym(8)` (each block's
/// group beyond a table and not alternating: its own words in the block's elements), and
/// `Sym(30)` acting on two copies of its points (faithful on each: trivial kernel); and
/// `Sym(3) wr Sym(26)`, `Sym(4) wr Sym(20)`, `Sym(5) wr Sym(12)`, `Sym(9) wr Sym(6)` and
/// `Sym(40) wr Sym(3)` through the orientations of their blocks (the image's words, then
/// conjugates of one 3-cycle of the group for the blocks' alternating groups; the series of
/// `Sym(4)^k`, signs, rotations of the pairings, `V_4^k`, is tested in `kernel_series`). Orders against their formulas, each random member's word
/// multiplied out here, and non-members (by construction) get none.
#[test]
fn group_words_through_an_action_down_the_kernels_series() {
    let mut rng = ChaCha8Rng::seed_from_u64(5021);
    for (b, m, sum, full) in [
        (2usize, 30usize, None, false),
        (2, 30, Some(0), false),
        (3, 26, None, false),
        (3, 26, None, true),
        (4, 20, None, true),
        (5, 12, None, true),
        (9, 6, None, true),
        (40, 3, None, true),
    ] {
        let d = b * m;
        let mut relabel: Vec<u32> = (0..d as u32).collect();
        relabel.shuffle(&mut rng);
        let gens: Vec<Perm> = (0..3)
            .map(|_| random_wreath_element(b, m, &relabel, sum, full, &mut rng))
            .collect();
        let kernel_rank = if sum.is_some() { m - 1 } else { m } as u32;
        let block_group = if full {
            factorial(b)
        } else {
            num_bigint::BigUint::from(b)
        };
        // Transitive with the blocks' alternating groups: the orientations, else the kernel's
        // series.
        let method = if full {
            WordMethod::AlternatingBlocks
        } else {
            WordMethod::ActionKernel
        };
        let (group, words) = words_through_an_action(
            d,
            &gens,
            (factorial(m) * block_group.pow(kernel_rank), method),
            20,
            || random_wreath_element(b, m, &relabel, sum, full, &mut rng),
            &format!("C_{b} wr Sym({m}), rotation sum {sum:?}, full {full}"),
        );
        let across = perm(&format!("({},{})", relabel[0] + 1, relabel[b] + 1), d);
        assert!(words.word_of(&across).is_none(), "a swap across blocks");
        if sum.is_some() {
            let odd = random_wreath_element(b, m, &relabel, Some(1), false, &mut rng);
            assert!(words.word_of(&odd).is_none(), "an odd number of flips");
        }
        // Too little memory, or a cancel: a clear error, never a panic.
        match GroupWords::new(
            &group,
            WordEffort(1),
            &SolveContext::detached(),
            10_000,
            "max_job_memory",
        ) {
            Err(SolveError::LimitExceeded { limit_name, .. }) => {
                assert_eq!(limit_name, "max_job_memory")
            }
            other => panic!("expected LimitExceeded, got {other:?}"),
        }
        let flag = CancelFlag::new();
        flag.cancel();
        let cancelled = GroupWords::new(
            &group,
            WordEffort(1),
            &SolveContext::new(flag, None),
            BUDGET,
            "max_job_memory",
        );
        assert!(
            matches!(cancelled, Err(SolveError::Cancelled)),
            "{cancelled:?}"
        );
    }

    // PSL(2,47) wr Sym(8) on 8 x 48 points (a base of 24 points; each block the projective
    // line: 0..47 for GF(47), 47 for infinity): x -> x + 1 and x -> -1/x on the first block,
    // and an 8-cycle and a transposition of the blocks.
    let (q, line, k) = (47u32, 48usize, 8usize);
    let mobius = |f: &dyn Fn(u32) -> u32| -> Vec<u32> { (0..line as u32).map(f).collect() };
    let shift = mobius(&|x| if x == q { q } else { (x + 1) % q });
    let inverse_of = |x: u32| (1..q).find(|y| x * y % q == 1).expect("a unit");
    let flip = mobius(&|x| match x {
        x if x == q => 0,
        0 => q,
        x => q - inverse_of(x),
    });
    let identity: Vec<u32> = (0..line as u32).collect();
    // Point x of block i goes to point inside[i][x] of block blocks[i].
    let element = |inside: &[&Vec<u32>], blocks: &[usize]| {
        let mut images = vec![0u32; k * line];
        for i in 0..k {
            for x in 0..line {
                images[i * line + x] = (blocks[i] * line) as u32 + inside[i][x];
            }
        }
        Perm::from_images(images, "PSL(2,47) wr Sym(8)").expect("a permutation")
    };
    let mut on_first = vec![&identity; k];
    let still: Vec<usize> = (0..k).collect();
    on_first[0] = &shift;
    let shift_first = element(&on_first, &still);
    on_first[0] = &flip;
    let flip_first = element(&on_first, &still);
    let cycle: Vec<usize> = (0..k).map(|i| (i + 1) % k).collect();
    let mut swap = still.clone();
    swap.swap(0, 1);
    let gens = vec![
        shift_first,
        flip_first,
        element(&vec![&identity; k], &cycle),
        element(&vec![&identity; k], &swap),
    ];
    // A random member: a random word of 200 letters in the generators.
    let mut random_member = || {
        (0..200).fold(Perm::identity(k * line), |x, _| {
            x.compose(gens.choose(&mut rng).expect("generators"))
        })
    };
    let psl_order = num_bigint::BigUint::from(q * (q * q - 1) / 2);
    let (_, words) = words_through_an_action(
        k * line,
        &gens,
        (
            psl_order.pow(k as u32) * factorial(k),
            WordMethod::ActionKernel,
        ),
        20,
        &mut random_member,
        "PSL(2,47) wr Sym(8)",
    );
    assert!(
        words.word_of(&perm("(1,2)", k * line)).is_none(),
        "a transposition in a block"
    );

    // Sym(30) on two copies of its points, the second relabelled: the copy is left out (a
    // member's points there follow its points on the first), and the first is a giant.
    let (m, d) = (30usize, 60usize);
    let mut relabel: Vec<u32> = (0..m as u32).collect();
    relabel.shuffle(&mut rng);
    let diagonal = |p: &Perm, q: &Perm| {
        let mut images = vec![0u32; d];
        for x in 0..m {
            images[x] = p.image(x as u32);
            images[m + relabel[x] as usize] = m as u32 + relabel[q.image(x as u32) as usize];
        }
        Perm::from_images(images, "diagonal").expect("a permutation")
    };
    let points: Vec<u32> = (0..m as u32).collect();
    let gens = random_sym_pair(m, &mut rng, |p| diagonal(p, p));
    let (_, words) = words_through_an_action(
        d,
        &gens,
        (factorial(m), WordMethod::Giant),
        20,
        || {
            let p = random_on(&points, m, &mut rng);
            diagonal(&p, &p)
        },
        "the diagonal Sym(30)",
    );
    let p = random_on(&points, m, &mut rng);
    let q = p.compose(&perm("(1,2)", m));
    assert!(
        words.word_of(&diagonal(&p, &q)).is_none(),
        "different on the two copies"
    );
}

/// A primitive group with a long base: `Sym(32)` on the 496 2-sets of its points (from two
/// random permutations, the first odd) gets its words through its faithful action on the 32
/// stars; random members' words multiply out, and a permutation of the 2-sets that is not
/// induced by a permutation of the points gets none.
#[test]
fn group_words_sym_on_two_sets_through_its_stars() {
    let mut rng = ChaCha8Rng::seed_from_u64(6203);
    let m = 32usize;
    let pairs: Vec<(usize, usize)> = (0..m)
        .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
        .collect();
    let d = pairs.len();
    let number = |a: u32, b: u32| {
        let (a, b) = (a.min(b) as usize, a.max(b) as usize);
        (a * (2 * m - a - 1) / 2 + (b - a - 1)) as u32
    };
    let on_pairs = |p: &Perm| {
        let images = pairs
            .iter()
            .map(|&(a, b)| number(p.image(a as u32), p.image(b as u32)))
            .collect();
        Perm::from_images(images, "on 2-sets").expect("a permutation")
    };
    let points: Vec<u32> = (0..m as u32).collect();
    let gens = random_sym_pair(m, &mut rng, on_pairs);
    let (_, words) = words_through_an_action(
        d,
        &gens,
        (factorial(m), WordMethod::ActionKernel),
        10,
        || on_pairs(&random_on(&points, m, &mut rng)),
        "Sym(32) on 2-sets",
    );
    // Swapping two 2-sets only is not induced by a permutation of the points.
    let swap = perm("(1,2)", d);
    assert!(words.word_of(&swap).is_none(), "a swap of two 2-sets");
}

/// `Sym(30) wr Sym(20)` on 600 points and `Sym(10) wr Sym(100)` on 1,000 (points relabelled):
/// words through the blocks' orientations and conjugates of one 3-cycle of the group; 3 random
/// members' words multiplied out here, a swap across blocks gets none, nor a permutation of
/// another degree. (With this seed the second group's first Schreier generators for the giants'
/// level 1 reach its orbit but generate too little for level 2, which must then send level 1
/// back for more: before that, an internal error.)
#[test]
fn group_words_wreath_products_of_giants_of_degree_600_and_1000() {
    let mut rng = ChaCha8Rng::seed_from_u64(6023);
    for (m, b) in [(30usize, 20usize), (10, 100)] {
        let blocks = crate::group_wreath_products::Blocks::new(m, b, &mut rng);
        let (d, gens) = (m * b, blocks.generators());
        let group = crate::group_wreath_products::build(d, gens.clone());
        let words = words_for(&group, 1);
        let label = format!("Sym({m}) wr Sym({b})");
        assert_eq!(words.method(), WordMethod::AlternatingBlocks, "{label}");
        for _ in 0..3 {
            let x = blocks.random(&mut rng);
            let word = words.word_of(&x).expect("member");
            assert_reduced(&word, &label);
            assert_eq!(multiply_out(&word, &gens, d), x.images(), "{label}");
        }
        assert!(
            words.word_of(&blocks.across()).is_none(),
            "{label}: across blocks"
        );
        // Another degree, or a member moving one more point: none, and no panic.
        assert!(words.word_of(&Perm::identity(d + 1)).is_none(), "{label}");
        assert!(words.word_of(&Perm::identity(d - 1)).is_none(), "{label}");
        let mut longer: Vec<u32> = blocks.random(&mut rng).images().to_vec();
        longer.extend([d as u32 + 1, d as u32]);
        let longer = Perm::from_images(longer, "longer").expect("a permutation");
        assert!(
            words.word_of(&longer).is_none(),
            "{label}: a point beyond the group's"
        );
    }
}

/// `Sym(2) wr Sym(500)` (degree 1,000; its order proven from its blocks of two): words through
/// the action on the blocks (the kernel `C_2^500` by elimination), two random members' words
/// multiplied out here, and none for a swap across blocks.
#[test]
fn group_words_wreath_product_with_blocks_of_two_of_degree_1000() {
    let mut rng = ChaCha8Rng::seed_from_u64(6026);
    let (m, b) = (2usize, 500usize);
    let blocks = crate::group_wreath_products::Blocks::new(m, b, &mut rng);
    let (d, gens) = (m * b, blocks.generators());
    let group = crate::group_wreath_products::build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::ActionKernel);
    for _ in 0..2 {
        let x = blocks.random(&mut rng);
        let word = words.word_of(&x).expect("member");
        assert_reduced(&word, "Sym(2) wr Sym(500)");
        assert_eq!(multiply_out(&word, &gens, d), x.images());
    }
    assert!(words.word_of(&blocks.across()).is_none());
}

/// Wreath products `N wr Sym(m)` whose block group `N` is small and solvable but neither
/// elementary abelian nor the block's symmetric or alternating group, so that the kernel on the
/// blocks, `N^m`, is written down the blocks' own series: the dihedral groups `D_5` (its
/// reflections even: no signs) and `D_7`, the affine groups `AGL(1,5)` (odd elements) and
/// `AGL(1,7)`, each `Sym(m)` on 30 or 36 blocks (points relabelled), from four random elements.
/// Orders against `|N|^m · m!`; random elements of the wreath product (a random permutation of
/// the blocks, a random element of `N` in each) get words that multiply out to them; the same
/// with a transposition inside one block (outside `N`, which has none) and a swap of two points
/// of different blocks are non-members and get none.
#[test]
fn group_words_wreath_products_of_small_solvable_groups() {
    let mut rng = ChaCha8Rng::seed_from_u64(7243);
    // (points, generators of N as images, |N|, blocks)
    let cases: [(usize, Vec<Vec<u32>>, u32, usize); 4] = [
        (5, vec![vec![1, 2, 3, 4, 0], vec![0, 4, 3, 2, 1]], 10, 36),
        (
            7,
            vec![vec![1, 2, 3, 4, 5, 6, 0], vec![0, 6, 5, 4, 3, 2, 1]],
            14,
            30,
        ),
        (5, vec![vec![1, 2, 3, 4, 0], vec![0, 2, 4, 1, 3]], 20, 36),
        (
            7,
            vec![vec![1, 2, 3, 4, 5, 6, 0], vec![0, 3, 6, 2, 5, 1, 4]],
            42,
            30,
        ),
    ];
    for (b, inside, order, m) in cases {
        let d = b * m;
        let mut relabel: Vec<u32> = (0..d as u32).collect();
        relabel.shuffle(&mut rng);
        // A random element of N: a random product of its generators.
        let random_inside = |rng: &mut ChaCha8Rng| {
            let mut x: Vec<u32> = (0..b as u32).collect();
            for _ in 0..12 {
                let g = inside.choose(rng).expect("generators");
                x = x.iter().map(|&y| g[y as usize]).collect();
            }
            x
        };
        // Block `i` is `relabel[b·i..b·i+b]`; `outside` puts a transposition into block 0.
        let element = |rng: &mut ChaCha8Rng, outside: bool| {
            let mut blocks: Vec<usize> = (0..m).collect();
            blocks.shuffle(rng);
            let mut images = vec![0u32; d];
            for (i, &to) in blocks.iter().enumerate() {
                let mut within = random_inside(rng);
                if outside && i == 0 {
                    within.swap(0, 1);
                }
                for (j, &k) in within.iter().enumerate() {
                    images[relabel[b * i + j] as usize] = relabel[b * to + k as usize];
                }
            }
            Perm::from_images(images, "wreath").expect("a permutation")
        };
        let gens: Vec<Perm> = (0..4).map(|_| element(&mut rng, false)).collect();
        let label = format!("N of order {order} on {b} points, wr Sym({m})");
        let (group, words) = words_through_an_action(
            d,
            &gens,
            (
                factorial(m) * num_bigint::BigUint::from(order).pow(m as u32),
                WordMethod::ActionKernel,
            ),
            10,
            || element(&mut rng, false),
            &label,
        );
        for _ in 0..5 {
            let x = element(&mut rng, true);
            assert!(!group.contains(&x), "{label}: outside N in a block");
            assert!(
                words.word_of(&x).is_none(),
                "{label}: a word for a non-member"
            );
        }
        let across = perm(&format!("({},{})", relabel[0] + 1, relabel[b] + 1), d);
        assert!(
            words.word_of(&across).is_none(),
            "{label}: a swap across blocks"
        );
    }
}

/// Groups with minimal blocks of three or four points that contain the blocks' alternating
/// groups, through the orientations (`Alt(3)` on a block is one conjugate of the base 3-cycle
/// or its inverse; on four points, whose two-point stabiliser in `Alt(4)` is trivial, one
/// conjugate or two) where the recognition's 3-cycle turns up (at least half of them; the others
/// go through the action on the blocks or the tables): 48 random groups, each from three random
/// elements of `Sym(m) wr Sym(b)` or of `Alt(m) wr Sym(b)` (`m` 3 or 4, `b` from 12 to 40,
/// points relabelled), with the group's own membership test (its stabiliser chain) as the
/// oracle: members (products of random generators and random elements of the wreath product
/// that are members) get words that multiply out to them, non-members none. Then `Sym(3) wr
/// Sym(333)` (degree 999) from its standard generators.
#[test]
fn group_words_wreath_products_with_blocks_of_three_and_four_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(6027);
    let mut through_orientations = 0;
    for case in 0..48 {
        let m = 3 + case % 2;
        let b = rng.random_range(12..=40usize);
        let blocks = crate::group_wreath_products::Blocks::new(m, b, &mut rng);
        let d = m * b;
        // Alt(m) wr Sym(b): even permutations of each block's points.
        let even_inside = case % 3 == 0;
        let element = |rng: &mut ChaCha8Rng| {
            if even_inside {
                blocks.random_even_inside(rng)
            } else {
                blocks.random(rng)
            }
        };
        let gens: Vec<Perm> = (0..3).map(|_| element(&mut rng)).collect();
        let group = crate::group_wreath_products::build(d, gens.clone());
        if group.orbits_ref().iter().filter(|o| o.len() > 1).count() != 1 {
            continue;
        }
        let words = words_for(&group, 1);
        let label = format!("case {case}: degree {d}");
        through_orientations += usize::from(words.method() == WordMethod::AlternatingBlocks);
        let mut members = vec![];
        for _ in 0..3 {
            let mut x = Perm::identity(d);
            for _ in 0..40 {
                x = x.compose(gens.choose(&mut rng).expect("generators"));
            }
            members.push(x);
        }
        members.extend((0..6).map(|_| element(&mut rng)));
        for x in members {
            match words.word_of(&x) {
                Some(word) => {
                    assert!(group.contains(&x), "{label}: a word for a non-member");
                    assert_reduced(&word, &label);
                    assert_eq!(multiply_out(&word, &gens, d), x.images(), "{label}");
                }
                None => assert!(!group.contains(&x), "{label}: no word for a member"),
            }
        }
    }
    assert!(through_orientations >= 24, "{through_orientations}");
    let blocks = crate::group_wreath_products::Blocks::new(3, 333, &mut rng);
    let gens = blocks.generators();
    let group = crate::group_wreath_products::build(999, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::AlternatingBlocks);
    let x = blocks.random(&mut rng);
    let word = words.word_of(&x).expect("member");
    assert_eq!(multiply_out(&word, &gens, 999), x.images());
    assert!(words.word_of(&blocks.across()).is_none());
}

/// `Sym(50) wr Sym(9)` on 450 points beside `Sym(50)` on 50 more, from three random elements
/// moving both orbits (degree 500, its order proven from the orbits' constituents): the group
/// holds the alternating groups of the nine blocks and of the primitive orbit (one block), as
/// its order tells, so the words go through the oriented blocks and one 3-cycle per orbit: 1.43
/// to 1.44 million letters a word here. Through the action on the larger orbit's blocks, whose
/// kernel acts on the other orbit as `Sym(50)`, they had 1.4 to 2.5 million, and at degree 1,000
/// (`Sym(100) wr Sym(9)` beside `Sym(100)`) up to 10.8 million, over the server's default
/// `max_word_letters`; asked for within 2 million here.
/// The group's own membership test (its stabiliser chain) is the oracle: of 12 random elements
/// of the product, the first three members get words that multiply out to them, the others none.
#[test]
fn group_words_intransitive_product_with_a_wreath_orbit() {
    let mut rng = ChaCha8Rng::seed_from_u64(6028);
    let product = crate::group_wreath_products::WreathBeside::new(50, 9, 50, &mut rng);
    let d = product.degree();
    let gens: Vec<Perm> = (0..3).map(|_| product.random(&mut rng).0).collect();
    let group = crate::group_wreath_products::build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::AlternatingBlocks);
    let mut members = 0;
    for _ in 0..12 {
        let x = product.random(&mut rng).0;
        if !group.contains(&x) {
            assert!(words.word_of(&x).is_none(), "a non-member");
        } else if members < 3 {
            let word = words
                .word_of_at_most(&x, 2_000_000)
                .expect("within 2 million letters")
                .expect("a member");
            assert_reduced(&word, "a member");
            assert_eq!(multiply_out(&word, &gens, d), x.images());
            members += 1;
        }
    }
    assert_eq!(
        members, 3,
        "at least a quarter of the product is in the group"
    );
}

/// `Sym(4) wr Sym(b)` beside `Sym(c)` from three random elements moving both orbits: through
/// the giant orbit the kernel is the wreath product, written in kernel elements that are long
/// powers; through the wreath orbit it holds `Alt(c)`, one part written with conjugates of a
/// 3-cycle of the group. The second is now tried first, also for a part of more than 255 points
/// (`c = 300`). Through the giant, in scratch runs of these shapes: 224,355 to 242,958 letters
/// a word for `b = 20, c = 60`, 797,349 to 807,669 for `b = 10, c = 300`; here now 18,623 to
/// 18,859 and 306,151 to 313,084. The group's
/// membership test is the oracle, as in [`check_two_wreath_products`].
#[test]
fn group_words_giant_orbit_beside_a_wreath_orbit_of_small_blocks() {
    for (seed, blocks, c, max_letters) in [(6031, 20, 60, 25_000), (6032, 10, 300, 350_000)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let product = crate::group_wreath_products::WreathBeside::new(4, blocks, c, &mut rng);
        let d = product.degree();
        let gens: Vec<Perm> = (0..3).map(|_| product.random(&mut rng).0).collect();
        let group = crate::group_wreath_products::build(d, gens.clone());
        let words = words_for(&group, 1);
        assert_eq!(words.method(), WordMethod::ActionKernel);
        let members = check_random_members(&words, &group, &gens, 8, max_letters, || {
            product.random(&mut rng).0
        });
        assert!(members >= 2, "{members} members of 8");
    }
}

/// `Sym(20) wr Sym(10)` beside `Sym(100)` beside `Sym(120)` (420 points, three random elements
/// each moving every orbit): the alternating groups of the blocks and of the two primitive
/// orbits, one 3-cycle per orbit in writing order, the last fixing both other orbits. One power
/// doing so must kill the cycles of both: 34,572 to 79,200 letters for the three orbits here,
/// and 1,998,104 to 2,070,778 letters a word. The commutator of two 3-cycles, each fixing one
/// of the other orbits and free on the other, is shorter (the last one 9,704 letters, the
/// words 755,880 to 791,540). The group's membership test is the oracle.
#[test]
fn group_words_three_orbits_last_three_cycle_from_two_sides() {
    let factors = [(20, 10), (100, 1), (120, 1)];
    check_three_wreath_products(6034, factors, WordMethod::AlternatingBlocks, 8, 1_000_000);
}

/// `Sym(4) wr Sym(20)` beside `Sym(60)` beside `Sym(80)` (220 points, three random elements
/// each moving every orbit): through the wreath orbit the kernel is `Alt(60) × Alt(80)` (up to
/// signs), two parts that are whole orbits. Each was written with a 3-cycle fixing every other
/// orbit (301,501 to 323,985 letters a word); now one after the other, the first with a 3-cycle
/// free on the second (143,487 to 153,947). The group's membership test is the oracle.
#[test]
fn group_words_two_giant_orbits_in_the_kernel_one_after_another() {
    let factors = [(4, 20), (60, 1), (80, 1)];
    check_three_wreath_products(6035, factors, WordMethod::ActionKernel, 24, 200_000);
}

/// Words by `method` for three random elements of the product of three `Sym(b) wr Sym(m)`
/// (`factors`; `Sym(b)` for `m = 1`), each moving every orbit: of `tries` random elements of the
/// product, at least two are members (see [`check_random_members`], words of at most
/// `max_letters`).
fn check_three_wreath_products(
    seed: u64,
    factors: [(usize, usize); 3],
    method: WordMethod,
    tries: usize,
    max_letters: u64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let d = factors.iter().map(|&(b, m)| b * m).sum();
    let factors = factors.map(|(b, m)| crate::group_wreath_products::Blocks::new(b, m, &mut rng));
    let random = |rng: &mut ChaCha8Rng| {
        let mut images = Vec::with_capacity(d);
        for factor in &factors {
            let at = images.len() as u32;
            images.extend(factor.random(rng).images().iter().map(|&q| at + q));
        }
        Perm::from_images(images, "an element").expect("a permutation")
    };
    let gens: Vec<Perm> = (0..3).map(|_| random(&mut rng)).collect();
    let group = crate::group_wreath_products::build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), method);
    let members = check_random_members(&words, &group, &gens, tries, max_letters, || {
        random(&mut rng)
    });
    assert!(members >= 2, "{members} members of {tries}");
}

/// `Sym(4) wr Sym(40)` on 160 points beside `Sym(3) wr Sym(40)` on 120 more, from three random
/// elements moving both orbits (their block actions independent): through either orbit the
/// kernel holds the other's `Alt(40)` on its blocks, so the words go through the action on both
/// orbits' blocks at once (an image of 80 points, a solvable kernel in `Sym(4)^40 × Sym(3)^40`
/// whose first elements are commutators of short powers trivial on one orbit's blocks each).
#[test]
fn group_words_product_of_two_wreath_products_through_both_orbits_blocks() {
    // 8 of the 12 elements tried are members with this seed (the generators' signs tie the
    // orbits).
    let expected = (1_000_000, WordMethod::ActionKernel);
    check_two_wreath_products(6029, (4, 40), (3, 40), expected, 4);
}

/// `Sym(10) wr Sym(3)` on 30 points beside `Sym(9) wr Sym(4)` on 36 more, likewise: the group
/// holds `Alt(10)^3 × Alt(9)^4` (its order says so), the kernel of its action on the oriented
/// blocks of both orbits, written with conjugates of one 3-cycle of the group per orbit: 3,628
/// to 3,920 letters a word here (through the action on the blocks, below the kernel's signs,
/// 5,088 to 5,949; in the parts' own elements, powers, 6,980 to 12,389; at degree 220,
/// `Sym(30) wr Sym(4)` beside `Sym(20) wr Sym(5)`, 0.2 million letters against 6 million
/// through one orbit).
#[test]
fn group_words_product_of_two_wreath_products_of_large_blocks() {
    let expected = (4_500, WordMethod::AlternatingBlocks);
    check_two_wreath_products(6030, (10, 3), (9, 4), expected, 4);
}

/// `Sym(4) wr Sym(20)` on 80 points beside `Sym(8) wr Sym(12)` on 96 more, likewise: through
/// both orbits' blocks the kernel's bottom is a product over the blocks (`Alt(8)` on the larger
/// ones), where no short kernel element's power is an involution of `V_4` on one four-point
/// block alone (each has involutions on the `Alt(8)` blocks too); the `V_4` of the small blocks
/// is a layer of the kernel's series of its own: 21,159 to 23,177 letters a word here (without
/// that layer, 46,262 to 52,159).
#[test]
fn group_words_product_of_two_wreath_products_with_blocks_of_four_beside_larger_blocks() {
    let expected = (30_000, WordMethod::ActionKernel);
    check_two_wreath_products(6031, (4, 20), (8, 12), expected, 4);
}

/// Words for the group of three random elements of `Sym(b1) wr Sym(m1)` beside `Sym(b2) wr
/// Sym(m2)` (each moving both orbits), by `method`. The group's
/// own membership test (its stabiliser chain) is the oracle: of 12 random elements of the
/// product, the members (at least `least_members`) get words of at most `max_letters` that
/// multiply out to them, the others none.
fn check_two_wreath_products(
    seed: u64,
    (b1, m1): (usize, usize),
    (b2, m2): (usize, usize),
    (max_letters, method): (u64, WordMethod),
    least_members: usize,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let first = crate::group_wreath_products::Blocks::new(b1, m1, &mut rng);
    let second = crate::group_wreath_products::Blocks::new(b2, m2, &mut rng);
    let side_by_side = |x: Perm, y: Perm| {
        let n = x.degree() as u32;
        let images = x
            .images()
            .iter()
            .copied()
            .chain(y.images().iter().map(|&q| n + q));
        Perm::from_images(images.collect(), "an element").expect("a permutation")
    };
    let random = |rng: &mut ChaCha8Rng| side_by_side(first.random(rng), second.random(rng));
    let d = b1 * m1 + b2 * m2;
    let gens: Vec<Perm> = (0..3).map(|_| random(&mut rng)).collect();
    let group = crate::group_wreath_products::build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), method);
    let members = check_random_members(&words, &group, &gens, 12, max_letters, || random(&mut rng));
    assert!(members >= least_members, "{members} members of 12");
}

/// Of `tries` elements drawn by `random`, the members of `group` (its stabiliser chain's
/// membership test, the oracle) get reduced words of at most `max_letters` that multiply out to
/// them in `gens`, the others none. Returns how many were members.
fn check_random_members(
    words: &GroupWords,
    group: &PermGroup,
    gens: &[Perm],
    tries: usize,
    max_letters: u64,
    mut random: impl FnMut() -> Perm,
) -> usize {
    let mut members = 0;
    for _ in 0..tries {
        let x = random();
        if !group.contains(&x) {
            assert!(words.word_of(&x).is_none(), "a non-member");
            continue;
        }
        let word = words
            .word_of_at_most(&x, max_letters)
            .expect("within the letters asked")
            .expect("a member");
        assert_reduced(&word, "a member");
        assert_eq!(multiply_out(&word, gens, x.degree()), x.images());
        members += 1;
    }
    members
}

/// `D_5 wr C_2 wr C_2 wr Sym(20)` (400 points: 20 blocks of 20, each two of 10, each two of 5
/// with `D_5` on them), from three random elements, relabelled. Short random words there give
/// back their images' words exactly (`t · u_t⁻¹` is the identity), so the blocks' series must be
/// made from the kernel elements the search meets, not from random samples alone (before, no
/// method answered: Minkwitz's tables on a base of 160 points did not finish in 150 s). The
/// words come down the kernel's series; 20 random members' words are multiplied out here, and
/// a member times a swap of two points of different `D_5` blocks gets none.
#[test]
fn group_words_iterated_wreath_product_of_a_small_solvable_group() {
    let mut rng = ChaCha8Rng::seed_from_u64(7244);
    let d = 400;
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    // Point `((i·2 + a)·2 + c)·5 + x`: top block `i`, halves `a` and `c`, `x` in the `D_5` block.
    let element = |rng: &mut ChaCha8Rng| {
        let mut top: Vec<usize> = (0..20).collect();
        top.shuffle(rng);
        let mut images = vec![0u32; d];
        for (i, &to) in top.iter().enumerate() {
            let flip = rng.random_range(0..2usize);
            for a in 0..2 {
                let inner = rng.random_range(0..2usize);
                for c in 0..2 {
                    let (sign, shift) = (rng.random_range(0..2usize), rng.random_range(0..5usize));
                    for x in 0..5 {
                        let y = if sign == 0 {
                            (x + shift) % 5
                        } else {
                            (5 - x + shift) % 5
                        };
                        let from = ((i * 2 + a) * 2 + c) * 5 + x;
                        let image = ((to * 2 + (a ^ flip)) * 2 + (c ^ inner)) * 5 + y;
                        images[relabel[from] as usize] = relabel[image];
                    }
                }
            }
        }
        Perm::from_images(images, "wreath").expect("a permutation")
    };
    let gens: Vec<Perm> = (0..3).map(|_| element(&mut rng)).collect();
    let words = words_for(&build(d, gens.clone()), 1);
    assert_eq!(words.method(), WordMethod::ActionKernel);
    let mut across: Vec<u32> = (0..d as u32).collect();
    across.swap(relabel[0] as usize, relabel[5] as usize);
    let across = Perm::from_images(across, "a swap").expect("a permutation");
    for _ in 0..20 {
        let mut x = Perm::identity(d);
        for _ in 0..40 {
            x = x.compose(gens.choose(&mut rng).expect("generators"));
        }
        let word = words.word_of(&x).expect("a member");
        assert_reduced(&word, "iterated wreath product");
        assert_eq!(multiply_out(&word, &gens, d), x.images());
        assert!(words.word_of(&x.compose(&across)).is_none());
    }
}

/// `AGL(6,3) × Sym(200)` (729 + 200 points) from three random elements, each moving both
/// orbits. Through its action on the orbit with the larger image, `Sym(200)`, the kernel is
/// `AGL(6,3)`, which the kernel's series cannot take; through the other orbit's it is `Sym(200)`,
/// whose alternating group comes from 3-cycles (before, only the first was tried, and Minkwitz's
/// tables on a base of 206 points ran out of the job's memory). Members' words multiplied out; a
/// member times a swap of two points of different orbits gets none.
#[test]
fn group_words_direct_product_of_an_affine_group_and_a_giant() {
    let mut rng = ChaCha8Rng::seed_from_u64(7245);
    let (dim, affine_points, giant_points) = (6usize, 729usize, 200usize);
    let d = affine_points + giant_points;
    // An affine map `v ↦ A·v + b` of GF(3)^6, `A` a product of random elementary matrices (one
    // row plus a multiple of another, or a row negated): invertible by construction.
    let affine = |rng: &mut ChaCha8Rng| {
        let mut a = [[0u32; 6]; 6];
        for (i, row) in a.iter_mut().enumerate() {
            row[i] = 1;
        }
        for _ in 0..40 {
            let (i, j) = (rng.random_range(0..dim), rng.random_range(0..dim));
            if i == j {
                a[i].iter_mut().for_each(|x| *x = (3 - *x) % 3);
            } else {
                let c = rng.random_range(1..3u32);
                let row_j = a[j];
                for (x, y) in a[i].iter_mut().zip(row_j) {
                    *x = (*x + c * y) % 3;
                }
            }
        }
        let b: Vec<u32> = (0..dim).map(|_| rng.random_range(0..3)).collect();
        let coordinates = |mut v: usize| -> Vec<u32> {
            (0..dim)
                .map(|_| {
                    let c = (v % 3) as u32;
                    v /= 3;
                    c
                })
                .collect()
        };
        (0..affine_points)
            .map(|v| {
                let x = coordinates(v);
                (0..dim).rev().fold(0u32, |number, i| {
                    let image = (0..dim).fold(b[i], |s, j| (s + a[i][j] * x[j]) % 3);
                    number * 3 + image
                })
            })
            .collect::<Vec<u32>>()
    };
    let gens: Vec<Perm> = (0..3)
        .map(|_| {
            let mut images = affine(&mut rng);
            let mut giant: Vec<u32> = (affine_points as u32..d as u32).collect();
            giant.shuffle(&mut rng);
            images.extend(giant);
            Perm::from_images(images, "affine and giant").expect("a permutation")
        })
        .collect();
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::ActionKernel);
    let mut across: Vec<u32> = (0..d as u32).collect();
    across.swap(0, affine_points);
    let across = Perm::from_images(across, "a swap").expect("a permutation");
    for _ in 0..3 {
        let x = random_product(&gens, d, 40, &mut rng);
        let word = words.word_of(&x).expect("a member");
        assert_reduced(&word, "affine group and giant");
        assert_eq!(multiply_out(&word, &gens, d), x.images());
        assert!(words.word_of(&x.compose(&across)).is_none());
    }
}

/// A random element of the product of the wreath products `T wr Sym(m)`, one per `m` of
/// `blocks` (`T` the permutations `inside`, all on `b` points; the products' blocks of `b`
/// points one after another, then `relabel`led): each product's blocks permuted at random, a
/// random element of `inside` in each block.
fn random_block_wreath_element(
    inside: &[Perm],
    blocks: &[usize],
    relabel: &[u32],
    rng: &mut ChaCha8Rng,
) -> Perm {
    let orbits: Vec<(&[Perm], usize)> = blocks.iter().map(|&m| (inside, m)).collect();
    random_mixed_wreath_element(&orbits, relabel, rng)
}

/// Every element of the group of `gens` on `b` points, in a fixed order (the closure is a hash
/// set, whose order changes from run to run: a seeded choice from it must not).
fn elements_in_order(b: usize, gens: &[Perm]) -> Vec<Perm> {
    let mut packed: Vec<u64> = closure(b, gens).into_iter().collect();
    packed.sort_unstable();
    packed.into_iter().map(|e| to_perm(b, e)).collect()
}

/// A random element of the product of the wreath products `T_i wr Sym(m_i)` over `orbits`
/// (`(T_i, m_i)`, `T_i` the permutations of one block, of any degree; the blocks one after
/// another, then `relabel`led), as [`random_block_wreath_element`].
fn random_mixed_wreath_element(
    orbits: &[(&[Perm], usize)],
    relabel: &[u32],
    rng: &mut ChaCha8Rng,
) -> Perm {
    let mut images = vec![0u32; relabel.len()];
    let mut first = 0;
    for &(inside, m) in orbits {
        let b = inside[0].degree();
        let mut to: Vec<usize> = (0..m).collect();
        to.shuffle(rng);
        for (i, &to) in to.iter().enumerate() {
            let element = inside.choose(rng).expect("elements");
            for j in 0..b {
                images[relabel[first + b * i + j] as usize] =
                    relabel[first + b * to + element.image(j as u32) as usize];
            }
        }
        first += b * m;
    }
    Perm::from_images(images, "a product of wreath products").expect("a permutation")
}

/// For `count` random products of 40 of the generators `gens`, a word of at most
/// `max_letters`, freely reduced, that multiplies out to the product.
fn check_random_products(
    words: &GroupWords,
    gens: &[Perm],
    count: usize,
    max_letters: u64,
    label: &str,
    rng: &mut ChaCha8Rng,
) {
    let d = gens[0].degree();
    for _ in 0..count {
        let x = random_product(gens, d, 40, rng);
        let word = words.word_of(&x).expect("a member");
        assert!(word.len() <= max_letters, "{label}: {} letters", word.len());
        assert_reduced(&word, label);
        assert_eq!(multiply_out(&word, gens, d), x.images());
    }
}

/// The words of the group of three random elements of the product of wreath products over
/// `orbits` ([`mixed_wreath_words`]): four random products of its generators get words of at
/// most `max_letters` that multiply out to them ([`check_random_products`]), and `elements`
/// random elements of the product get words exactly when the group's membership test says
/// they are members.
fn check_mixed_wreath_words(
    orbits: &[(&[Perm], usize)],
    max_letters: u64,
    elements: usize,
    label: &str,
    rng: &mut ChaCha8Rng,
) {
    let (relabel, gens, group, words) = mixed_wreath_words(orbits, rng);
    check_random_products(&words, &gens, 4, max_letters, label, rng);
    for _ in 0..elements {
        let x = random_mixed_wreath_element(orbits, &relabel, rng);
        assert_eq!(words.word_of(&x).is_some(), group.contains(&x), "{label}");
    }
}

/// `count` random permutations of `0..points`: the elements one block of a giant orbit takes
/// in [`random_mixed_wreath_element`].
fn random_permutations(points: u32, count: usize, rng: &mut ChaCha8Rng) -> Vec<Perm> {
    (0..count)
        .map(|_| {
            let mut images: Vec<u32> = (0..points).collect();
            images.shuffle(rng);
            Perm::from_images(images, "a permutation").expect("a permutation")
        })
        .collect()
}

/// The group of three random elements of the product of wreath products over `orbits` (as
/// [`random_mixed_wreath_element`], its points relabelled at random) and its words, which go
/// through an action: the relabelling, the generators, the group and the words.
fn mixed_wreath_words(
    orbits: &[(&[Perm], usize)],
    rng: &mut ChaCha8Rng,
) -> (Vec<u32>, Vec<Perm>, PermGroup, GroupWords) {
    let d: usize = orbits
        .iter()
        .map(|(inside, m)| inside[0].degree() * m)
        .sum();
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(rng);
    let gens: Vec<Perm> = (0..3)
        .map(|_| random_mixed_wreath_element(orbits, &relabel, rng))
        .collect();
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::ActionKernel);
    (relabel, gens, group, words)
}

/// `Sym(30)` beside `Alt(5) wr Sym(8)` beside `Sym(20)` beside `C_3 wr Sym(10)` (120 points,
/// three random elements moving every orbit): through the action on the first orbit the
/// kernel acts on the three others as parts, whose words nest; through all orbits' blocks (the
/// giants' points as they are) they do not. Both are built and the shorter kept: 10,310 to
/// 11,330 letters for the four random products of the generators here (through the first
/// orbit alone 25,594 to 27,134); their words multiply out to them, and a random element of
/// the product gets one exactly when the group's membership test says it is a member.
#[test]
fn group_words_two_giant_orbits_beside_two_wreath_orbits() {
    let mut rng = ChaCha8Rng::seed_from_u64(4423);
    let sym30 = random_permutations(30, 16, &mut rng);
    let sym20 = random_permutations(20, 16, &mut rng);
    let alt5 = elements_in_order(5, &[perm("(1,2,3)", 5), perm("(3,4,5)", 5)]);
    let c3 = vec![perm("(1,2,3)", 3), perm("(1,3,2)", 3), Perm::identity(3)];
    let orbits = [
        (sym30.as_slice(), 1usize),
        (alt5.as_slice(), 8),
        (sym20.as_slice(), 1),
        (c3.as_slice(), 10),
    ];
    let label = "two giant orbits beside two wreath orbits";
    check_mixed_wreath_words(&orbits, 12_500, 1, label, &mut rng);
}

/// `C_3 wr Sym(20)` beside `Sym(3) wr Sym(8)` beside `Sym(3) wr Sym(30)` beside `C_3 wr
/// Sym(20)` (204 points, three random elements moving every orbit): the kernel on the 78
/// blocks is solvable, but a short word's power kills its image only where the orders of its
/// four orbits' parts meet, mostly beyond the longest power tried, so the kernel's elements
/// came from the few short powers, each moving dozens of blocks, their conjugates and random
/// elements carrying the image's long words: 217,354 to 303,910 letters a word for the four
/// members here. Iterated commutators of four powers, each killing one orbit, are short
/// kernel elements too (90,706 to 178,818), and those that come after the layer of signs is
/// full go down squared rather than times a product of many of its elements (90,706 to
/// 133,702). The group's membership test is the oracle; members' words multiply out to them.
#[test]
fn group_words_four_wreath_orbits_of_blocks_of_three() {
    let mut rng = ChaCha8Rng::seed_from_u64(4424);
    let c3 = vec![perm("(1,2,3)", 3), perm("(1,3,2)", 3), Perm::identity(3)];
    let sym3 = elements_in_order(3, &[perm("(1,2,3)", 3), perm("(1,2)", 3)]);
    let orbits = [
        (c3.as_slice(), 20usize),
        (sym3.as_slice(), 8),
        (sym3.as_slice(), 30),
        (c3.as_slice(), 20),
    ];
    let label = "four wreath orbits of blocks of three";
    check_mixed_wreath_words(&orbits, 150_000, 4, label, &mut rng);
}

/// `Sym(10)` beside `D_5 wr Sym(30)` beside `D_5 wr Sym(25)` (285 points, three random
/// elements moving every orbit), as the words bench's `sweep_2003_2` but smaller: through one
/// orbit the kernel has two parts whose words nest (139,790 to 177,142 letters for the four
/// random products of the generators here); through every orbit's blocks (the giant's points
/// as they are) its kernel is in `D_5^55`, solvable, and the words are far shorter (30,782 to
/// 33,540). Both routes are built and the shorter kept. The group's membership test is the
/// oracle; members' words multiply out to them.
#[test]
fn group_words_a_giant_beside_two_dihedral_wreath_orbits() {
    let mut rng = ChaCha8Rng::seed_from_u64(4425);
    let sym10 = random_permutations(10, 16, &mut rng);
    let d5 = elements_in_order(5, &[perm("(1,2,3,4,5)", 5), perm("(2,5)(3,4)", 5)]);
    assert_eq!(d5.len(), 10, "D_5");
    let orbits = [
        (sym10.as_slice(), 1usize),
        (d5.as_slice(), 30),
        (d5.as_slice(), 25),
    ];
    let label = "a giant beside two dihedral wreath orbits";
    check_mixed_wreath_words(&orbits, 50_000, 4, label, &mut rng);
}

/// `AGL(1,7) wr Sym(20)` on 140 points beside `Alt(5) wr Sym(20)` on 100 more, from three
/// random elements moving both orbits: through both orbits' blocks the kernel is
/// `AGL(1,7)^20 × Alt(5)^20` (or a subgroup of it tied by signs), not solvable, so not written
/// down its blocks' series as a whole. Below the signs, a product over the blocks gets the
/// affine blocks' `C_3` only as powers that move one block (every short one of them also moved
/// `Alt(5)` blocks): 654,024 to 840,509 letters a word for the 7 members here, where that
/// search completed. Here it passes its bound, and the affine blocks go down their series
/// (`C_2`, `C_3`, `C_7`) and `Alt(5)`, the series' residual, block by block: 27,524 to 32,036.
/// The group's membership test is the oracle; members' words multiply out to them.
#[test]
fn group_words_affine_blocks_beside_alternating_blocks() {
    let mut rng = ChaCha8Rng::seed_from_u64(4422);
    let affine = elements_in_order(7, &[perm("(1,2,3,4,5,6,7)", 7), perm("(2,4,3,7,5,6)", 7)]);
    assert_eq!(affine.len(), 42, "AGL(1,7)");
    let alt5 = elements_in_order(5, &[perm("(1,2,3)", 5), perm("(3,4,5)", 5)]);
    assert_eq!(alt5.len(), 60);
    let orbits = [(affine.as_slice(), 20usize), (alt5.as_slice(), 20)];
    let (relabel, gens, group, words) = mixed_wreath_words(&orbits, &mut rng);
    let random = |rng: &mut ChaCha8Rng| random_mixed_wreath_element(&orbits, &relabel, rng);
    let members = check_random_members(&words, &group, &gens, 12, 40_000, || random(&mut rng));
    assert!(members >= 3, "{members} members of 12");
}

/// `PSL(2,7) wr Sym(40)` (`PSL(3,2)` on the seven points of each block, 280 points) from three
/// random elements: the kernel on the blocks, `PSL(2,7)^40`, is written block by block from
/// elements that move one block only. Made as powers of kernel elements, each such element
/// carried the words of `Sym(40)` on the blocks and the members' words had about 300,000
/// letters; as powers of short words whose cycles isolate a block, under 100,000.
#[test]
fn group_words_wreath_product_of_a_simple_group_over_many_blocks() {
    check_psl27_wreaths(7246, &[40], 100_000, "PSL(2,7) wr Sym(40)");
}

/// `PSL(2,7) wr Sym(24)` beside `PSL(2,7) wr Sym(16)` (280 points, each generator moving both
/// orbits): the kernel on the 40 blocks, `PSL(2,7)^40`, has two classes of blocks (the
/// generators map no block of one orbit to the other). The shortest powers that move one block
/// all lay on one orbit's blocks, whose conjugates never reach the other's, and the other's
/// blocks were written with long powers of kernel elements: about 370,000 letters a word.
/// With the shortest kept per class of blocks, about 40,000.
#[test]
fn group_words_two_orbits_of_blocks_of_a_simple_group() {
    let label = "PSL(2,7) wr Sym(24) beside PSL(2,7) wr Sym(16)";
    check_psl27_wreaths(4419, &[24, 16], 100_000, label);
}

/// Words through the action on the blocks for three random elements of the product of
/// `PSL(2,7) wr Sym(m)` over `orbits` (each `m` an orbit of blocks of seven points, `PSL(3,2)`
/// on the Fano plane's points in each, relabelled at random): the order against
/// `168^Σm · Π m!`, and for three random members their words multiplied out here, under
/// `max_letters`, and none for a member times a transposition inside a block (its part there
/// odd, so outside `PSL(3,2)`).
fn check_psl27_wreaths(seed: u64, orbits: &[usize], max_letters: u64, label: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let b = 7usize;
    let blocks: usize = orbits.iter().sum();
    let d = b * blocks;
    let psl = elements_in_order(b, &[perm("(4,6)(5,7)", b), perm("(1,2,4)(3,6,5)", b)]);
    assert_eq!(psl.len(), 168, "PSL(3,2) on the Fano plane's points");
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    let random_element =
        |rng: &mut ChaCha8Rng| random_block_wreath_element(&psl, orbits, &relabel, rng);
    let gens: Vec<Perm> = (0..3).map(|_| random_element(&mut rng)).collect();
    let order = orbits.iter().fold(
        num_bigint::BigUint::from(168u32).pow(blocks as u32),
        |order, &m| order * factorial(m),
    );
    let (_, words) = words_through_an_action(
        d,
        &gens,
        (order, WordMethod::ActionKernel),
        0,
        || unreachable!(),
        label,
    );
    let in_a_block = perm(&format!("({},{})", relabel[0] + 1, relabel[1] + 1), d);
    for _ in 0..3 {
        let x = random_element(&mut rng);
        let word = words.word_of(&x).expect("a member");
        assert_reduced(&word, label);
        assert_eq!(multiply_out(&word, &gens, d), x.images(), "{label}");
        assert!(word.len() < max_letters, "{label}: {} letters", word.len());
        assert!(words.word_of(&x.compose(&in_a_block)).is_none(), "{label}");
    }
}

/// `Alt(5) wr Sym(60)` beside `Alt(5) wr Sym(50)` (550 points, each generator moving both
/// orbits). Through the action on the blocks its kernel's parts were tables of `Alt(5)`, each
/// from elements that move one block only, long powers here (the primes of `Alt(5)`'s element
/// orders, 2, 3 and 5, divide most cycles' lengths): over 2 million letters a word, after 69 s
/// of set-up. The group's order shows it holds `Alt(5)^110`, the kernel of its action on the
/// oriented blocks (`Sym(60) × Sym(50)` on two copies of the blocks, no element flipping one,
/// so on one copy), and the words come from that action and conjugates of a 3-cycle per orbit:
/// about 900,000 letters, 3.4 s in all. The group's membership test is the oracle: members get
/// words that multiply out to them, other elements of the product none, nor a member made odd
/// on a block.
#[test]
fn group_words_two_orbits_of_alternating_blocks_of_five_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(4421);
    let orbits = [60usize, 50];
    let d = 5 * orbits.iter().sum::<usize>();
    let alt5 = elements_in_order(5, &[perm("(1,2,3)", 5), perm("(3,4,5)", 5)]);
    assert_eq!(alt5.len(), 60);
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    let random_element =
        |rng: &mut ChaCha8Rng| random_block_wreath_element(&alt5, &orbits, &relabel, rng);
    let gens: Vec<Perm> = (0..3).map(|_| random_element(&mut rng)).collect();
    let group = build(d, gens.clone());
    let words = words_for(&group, 1);
    assert_eq!(words.method(), WordMethod::AlternatingBlocks);
    let odd_on_a_block = perm(&format!("({},{})", relabel[0] + 1, relabel[1] + 1), d);
    let mut members = 0;
    for _ in 0..6 {
        let x = random_element(&mut rng);
        if !group.contains(&x) {
            assert!(words.word_of(&x).is_none(), "a non-member");
            continue;
        }
        let word = words
            .word_of_at_most(&x, 2_000_000)
            .expect("within two million letters")
            .expect("a member");
        assert_reduced(&word, "Alt(5) wr Sym(60) beside Alt(5) wr Sym(50)");
        assert_eq!(multiply_out(&word, &gens, d), x.images());
        assert!(words.word_of(&x.compose(&odd_on_a_block)).is_none());
        members += 1;
    }
    assert!(members >= 2, "{members} members of 6");
}
