//! Burnside/Pólya counting: exact numbers of colourings up to symmetry, for any
//! permutation group given by generators and for classic families by closed formulas.
//!
//! The job-level API is [`CountProblem`] (what to count, optional modulus), [`validate_count`]
//! (cheap checks before queueing) and [`solve_count`] (the answer as a [`CountAnswer`]). The
//! families are also callable directly ([`necklace_count`], [`torus_count`], ...).
//!
//! | kind         | group                                        | method                           |
//! |--------------|----------------------------------------------|----------------------------------|
//! | necklace     | `C_n` rotating `n` beads                     | `(1/n) Σ_{d∣n} φ(d) k^{n/d}`     |
//! | bracelet     | `D_n` (order `2n`)                           | necklace sum + reflections       |
//! | torus        | `Z_n x Z_m` shifts (+ 180° turn, order `2nm`) | divisor pairs by `lcm`, [`torus`] |
//! | cube         | 24 rotations on faces / vertices / edges     | explicit cycle index, [`cube`]   |
//! | graphs       | `S_n` on the `n(n-1)/2` vertex pairs         | partitions of `n`, [`graphs`]    |
//! | binary tree  | child swaps (iterated wreath product of C_2) | recursion, [`binary_tree`]       |
//! | graph colourings | a graph's automorphisms on its vertices or edges | the graph kind's search, then as `group` |
//! | group        | `<generators>` on `d` points                 | stabiliser-chain enumeration; closed forms for `Sym`/`Alt`; divisors for one generator and for a proven natural `D_d` |
//!
//! **Exactness and the modulus.** Answers are exact big integers ([`num_bigint::BigUint`]). With
//! a modulus `M`, Burnside's `S / |G|` is computed as `(S mod |G|·M) / |G|`, which equals
//! `(S / |G|) mod M` because `|G|` divides `S`; powers are then modular. This is how necklaces,
//! bracelets (any `n < 2^64`), tori (`rows * cols < 2^62`), the cube, enumerated groups, cyclic
//! groups and proven dihedral groups (as bracelets) are reduced, so the first three need not fit
//! [`MAX_EXACT_BITS`] when a modulus is given. The binary tree halves at each level and carries the modulus `2^(levels left) · M`
//! instead. Graphs, `Sym`/`Alt` counts and pattern-inventory terms are computed exactly and then
//! reduced (their sizes are bounded by the other limits). Without a modulus an answer may have
//! at most [`MAX_EXACT_BITS`] bits.

pub(crate) mod arith;
pub mod binary_tree;
pub mod cube;
pub mod cycle_index;

pub mod graph_colourings;
pub mod graphs;
pub mod group_count;
pub mod necklace;
pub mod torus;

use std::fmt;

use num_bigint::BigUint;

pub use binary_tree::{binary_tree_count, binary_tree_memory_estimate};
pub use cube::{CubePart, cube_count, cube_cycle_index, cube_memory_estimate};
pub use cycle_index::{CycleIndex, CycleIndexTerm, CycleType, MAX_CONTENT_STATES, Rational};
pub use graph_colourings::{graph_colouring_group, induced_edge_permutation};
pub use graphs::{graphs_count, graphs_memory_estimate, partition_count};
pub use group_count::dihedral;
pub use group_count::is_natural_dihedral;
pub use group_count::{
    CountRequest, ElementTally, GroupCount, count_group, count_group_enumerated,
    count_group_memory_estimate, enumerate_levels, giant_cycle_index,
};
pub use necklace::{
    bracelet_count, bracelet_cycle_index, necklace_count, necklace_cycle_index,
    necklace_memory_estimate,
};
pub use torus::{torus_count, torus_memory_estimate};

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::graph::{
    GraphJob, MAX_GENERATOR_BYTES, UndirectedGraph, generator_bytes, graph_memory_estimate,
    validate_graph_job,
};
use crate::group::{GroupKind, Perm, check_group_sizes, parse_group_text_with_limits};
use crate::limits::Limits;

/// Largest exact answer (before dividing by `|G|`), in bits, that a job may ask for without a
/// modulus: 2^24 bits, about 5 million decimal digits (converting that to decimal takes about
/// 3 CPU seconds with `num-bigint`). Above it the job needs a modulus.
pub const MAX_EXACT_BITS: u64 = 1 << 24;

/// Deepest binary tree accepted with a modulus (the modular recursion works with
/// `depth + log2 M`-bit numbers at each of `depth` levels).
pub const MAX_TREE_DEPTH_MODULAR: u64 = 10_000;

/// What to count. Every kind has `k >= 1` colours unless said otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountKind {
    /// Necklaces of `n >= 1` beads up to rotation.
    Necklace { n: u64, k: u64 },
    /// Bracelets of `n >= 1` beads up to rotation and turning over.
    Bracelet { n: u64, k: u64 },
    /// The `rows x cols` torus up to cyclic shifts of rows and columns, and the 180-degree
    /// rotation when `rotation` is true (the torus counting problem, see [`torus`]).
    Torus {
        rows: u64,
        cols: u64,
        k: u64,
        rotation: bool,
    },
    /// A cube's faces, vertices or edges up to its 24 rotations.
    Cube { part: CubePart, k: u64 },
    /// Unlabelled graphs on `n >= 0` vertices (2 "colours" per vertex pair: edge or not).
    Graphs { n: u64 },
    /// The complete rooted binary tree of depth `depth >= 0` (a single vertex at depth 0), its
    /// vertices coloured, up to swapping the children of any node.
    BinaryTree { depth: u64, k: u64 },
    /// Any group `<generators>` on the points `0..degree` (`degree >= 1`). With `content`
    /// (entries adding up to `degree`), only colourings using colour `j` exactly `content[j]`
    /// times are counted, and `k` is ignored (the number of colours is `content.len()`).
    /// `cycle_index` asks for the cycle index in the answer.
    Group {
        degree: usize,
        generators: Vec<Perm>,
        k: u64,
        content: Option<Vec<u64>>,
        cycle_index: bool,
    },
    /// The vertices (or, with `edges`, the edges) of a graph coloured with `k` colours, up to the
    /// graph's automorphisms (those keeping its vertex colouring, if it has one); `content` and
    /// `cycle_index` as for [`CountKind::Group`], over the vertices or the edges.
    GraphColourings {
        graph: UndirectedGraph,
        edges: bool,
        k: u64,
        content: Option<Vec<u64>>,
        cycle_index: bool,
    },
}

/// A counting job: what to count and, optionally, a modulus `M >= 1` (the answer is then the
/// count modulo `M`).
///
/// ```
/// use orbit_worker::counting::{CountKind, CountProblem};
/// let p = CountProblem::new(CountKind::Necklace { n: 6, k: 2 }).with_modulus(1000u32.into());
/// assert!(p.modulus.is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountProblem {
    /// The family or group and its parameters.
    pub kind: CountKind,
    /// If set, the answer is reduced modulo this number.
    pub modulus: Option<BigUint>,
}

impl CountProblem {
    /// A problem without a modulus.
    pub fn new(kind: CountKind) -> Self {
        Self {
            kind,
            modulus: None,
        }
    }

    /// The same problem with a modulus.
    pub fn with_modulus(mut self, modulus: BigUint) -> Self {
        self.modulus = Some(modulus);
        self
    }
}

impl From<CountKind> for CountProblem {
    fn from(kind: CountKind) -> Self {
        Self::new(kind)
    }
}

/// How an answer was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountMethod {
    /// A closed formula over divisors or an explicit cycle index.
    ClosedForm,
    /// A sum over the partitions of `n` (graphs), `partitions` of them.
    Partitions { partitions: u64 },
    /// A recursion on the structure (binary tree).
    Recursion,
    /// A recognised `Sym(d)` or `Alt(d)`: closed formulas (partitions for its cycle index).
    Giant,
    /// Enumeration of `elements` group elements through the stabiliser chain.
    Enumerated { elements: u64 },
    /// A cyclic group (one generator): a sum over the `divisors` of its order.
    Cyclic { divisors: u64 },
    /// A proven natural dihedral group `D_d`: the bracelet sum over the `divisors` of `d`.
    Dihedral { divisors: u64 },
}

/// The answer to a [`CountProblem`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountAnswer {
    /// The number of orbits, or its residue modulo [`modulus`](Self::modulus).
    pub count: BigUint,
    /// The modulus the count was reduced by, if any.
    pub modulus: Option<BigUint>,
    /// How it was computed.
    pub method: CountMethod,
    /// For group jobs: the group order and what the engine proved it to be.
    pub group_order: Option<BigUint>,
    /// For group jobs: the engine's classification (`None` for a cyclic group counted by
    /// divisors, which never builds a stabiliser chain).
    pub group_kind: Option<GroupKind>,
    /// For group jobs that asked for it: the cycle index.
    pub cycle_index: Option<CycleIndex>,
}

impl fmt::Display for CountAnswer {
    /// The count alone, in decimal (what the CLI prints).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.count)
    }
}

fn positive(field: &str, value: u64) -> Result<(), SolveError> {
    if value == 0 {
        Err(SolveError::invalid(field, "must be at least 1"))
    } else {
        Ok(())
    }
}

/// Rejects exact answers above [`MAX_EXACT_BITS`]: `k^points` bounds the Burnside sum.
fn exact_size(k: u64, points: u64, modulus: Option<&BigUint>) -> Result<(), SolveError> {
    if modulus.is_some() {
        return Ok(());
    }
    let bits = arith::pow_bits(k, points);
    if bits > MAX_EXACT_BITS as f64 {
        return Err(SolveError::limit_shown(
            format!(
                "the exact answer (about {} bits; give a modulus)",
                bits.ceil() as u64
            ),
            "exact_answer_bits",
            MAX_EXACT_BITS,
            format!("{MAX_EXACT_BITS} bits"),
        )
        .requested(bits.ceil() as u64));
    }
    Ok(())
}

/// Checks a counting job before it is queued: parameters in range, sizes within `limits` and
/// [`MAX_EXACT_BITS`]. Cheap (no group is built; the graphs check computes `p(n)`).
///
/// Returns `InvalidArgument` with fields `count.n`, `count.k`, `count.rows`, `count.cols`,
/// `count.depth`, `count.degree`, `count.generators[i]`, `count.content`, `count.modulus`; or
/// `LimitExceeded` naming the limit.
///
/// Complexity: O(number of generators) (O(n^2) for graphs).
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::counting::{CountKind, CountProblem, validate_count};
/// let bad = CountProblem::new(CountKind::Necklace { n: 6, k: 0 });
/// let e = validate_count(&bad, &Limits::default()).unwrap_err();
/// assert_eq!(e.to_string(), "count.k: must be at least 1");
/// ```
///
/// Reference: none (input policy of Orbit).
pub fn validate_count(p: &CountProblem, limits: &Limits) -> Result<(), SolveError> {
    let modulus = p.modulus.as_ref();
    if modulus.is_some_and(|m| m == &BigUint::default()) {
        return Err(SolveError::invalid("count.modulus", "must be at least 1"));
    }
    match &p.kind {
        CountKind::Necklace { n, k } | CountKind::Bracelet { n, k } => {
            positive("count.n", *n)?;
            positive("count.k", *k)?;
            exact_size(*k, *n, modulus)
        }
        CountKind::Torus { rows, cols, k, .. } => {
            positive("count.rows", *rows)?;
            positive("count.cols", *cols)?;
            positive("count.k", *k)?;
            let cells = rows
                .checked_mul(*cols)
                .filter(|&c| c < 1 << 62)
                .ok_or_else(|| {
                    SolveError::limit_shown(
                        "count: rows * cols",
                        "count_cells",
                        1 << 62,
                        "2^62 cells",
                    )
                    .requested(u128::from(*rows) * u128::from(*cols))
                })?;
            exact_size(*k, cells, modulus)
        }
        CountKind::Cube { k, .. } => positive("count.k", *k),
        CountKind::Graphs { n } => match partition_count(*n) {
            Some(parts) if parts <= u128::from(limits.max_group_elements) => Ok(()),
            partitions => {
                let error = SolveError::limit_shown(
                    format!("count.n: the cycle types of S_{n} (partitions of {n}) to visit"),
                    "max_group_elements",
                    limits.max_group_elements,
                    format!("{} (max_group_elements)", limits.max_group_elements),
                );
                // Beyond u128 the count is not computed: the requested amount is then unknown.
                Err(match partitions {
                    Some(p) => error.requested(p),
                    None => error,
                })
            }
        },
        CountKind::BinaryTree { depth, k } => {
            positive("count.k", *k)?;
            if *k == 1 {
                return Ok(());
            }
            if modulus.is_some() {
                if *depth > MAX_TREE_DEPTH_MODULAR {
                    return Err(SolveError::limit(
                        format!("count.depth {depth} (with a modulus)"),
                        "tree_depth_with_modulus",
                        MAX_TREE_DEPTH_MODULAR,
                    )
                    .requested(depth));
                }
                return Ok(());
            }
            if *depth >= 40 {
                return Err(SolveError::limit_shown(
                    format!(
                        "the exact answer (2^{} vertices; give a modulus)",
                        // `depth` may be u64::MAX: no `+ 1` in u64.
                        u128::from(*depth) + 1
                    ),
                    // The answer's size in bits is not computed (it is far beyond the cap):
                    // no requested amount.
                    "exact_answer_bits",
                    MAX_EXACT_BITS,
                    format!("{MAX_EXACT_BITS} bits"),
                ));
            }
            exact_size(*k, (1u64 << (depth + 1)) - 1, modulus)
        }
        CountKind::Group {
            degree,
            generators,
            k,
            content,
            ..
        } => {
            positive("count.degree", *degree as u64)?;
            if content.is_none() {
                positive("count.k", *k)?;
            }
            check_group_sizes(*degree as u64, generators.len() as u64, limits)?;
            for (i, g) in generators.iter().enumerate() {
                if g.degree() != *degree {
                    return Err(SolveError::invalid(
                        format!("count.generators[{i}]"),
                        format!("has degree {}, expected {degree}", g.degree()),
                    ));
                }
            }
            let colours = match content {
                Some(c) => {
                    cycle_index::check_content(c, *degree as u64)?;
                    c.len() as u64
                }
                None => *k,
            };
            exact_size(colours, *degree as u64, modulus)
        }
        CountKind::GraphColourings {
            graph,
            edges,
            k,
            content,
            ..
        } => {
            validate_graph_job(&GraphJob {
                graph: graph.clone(),
            })
            .map_err(|e| match e {
                SolveError::InvalidArgument { field, reason } => SolveError::InvalidArgument {
                    field: format!("count.graph_colourings.{field}"),
                    reason,
                },
                other => other,
            })?;
            let points = graph_colouring_points(graph, *edges);
            if points == 0 {
                return Err(SolveError::invalid(
                    "count.graph_colourings.graph",
                    if *edges {
                        "has no edges to colour"
                    } else {
                        "has no vertices to colour"
                    },
                ));
            }
            if content.is_none() {
                positive("count.k", *k)?;
            }
            let colours = match content {
                Some(c) => {
                    cycle_index::check_content(c, points)?;
                    c.len() as u64
                }
                None => *k,
            };
            exact_size(colours, points, modulus)
        }
    }
}

/// The points a graph colouring colours: the vertices, or the edges.
fn graph_colouring_points(graph: &UndirectedGraph, edges: bool) -> u64 {
    if edges {
        graph.edges.len() as u64
    } else {
        u64::from(graph.vertices)
    }
}

/// The limits a graph colouring count's group is built and enumerated under: the graph kind's
/// own sizes replace the group kind's degree and permutation limits.
fn graph_colouring_limits(limits: &Limits, points: u64) -> Limits {
    Limits {
        max_degree: limits.max_degree.max(points),
        max_permutation_entries: limits
            .max_permutation_entries
            .max(points.saturating_mul(u64::from(u32::MAX).min(points))),
        ..limits.clone()
    }
}

/// Upper bound on the bytes [`solve_count`] allocates for `p` (the answer and its decimal form
/// included): each family's own estimate (see [`necklace_memory_estimate`],
/// [`torus_memory_estimate`], [`cube_memory_estimate`], [`graphs_memory_estimate`],
/// [`binary_tree_memory_estimate`], [`count_group_memory_estimate`]). Call it on a job that
/// passed [`validate_count`]: the sizes it bounds are the ones validation allows.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::counting::{CountKind, CountProblem, count_memory_estimate};
/// let p = CountProblem::new(CountKind::Necklace { n: 6, k: 2 });
/// assert!(count_memory_estimate(&p, &Limits::default()) < 1 << 20);
/// ```
pub fn count_memory_estimate(p: &CountProblem, limits: &Limits) -> u64 {
    let modulus_bits = p.modulus.as_ref().map(BigUint::bits);
    match &p.kind {
        CountKind::Necklace { n, k } | CountKind::Bracelet { n, k } => {
            necklace_memory_estimate(*n, *k, modulus_bits)
        }
        CountKind::Torus { rows, cols, k, .. } => {
            torus_memory_estimate(*rows, *cols, *k, modulus_bits)
        }
        CountKind::Cube { k, .. } => cube_memory_estimate(*k, modulus_bits),
        CountKind::Graphs { n } => graphs_memory_estimate(*n, modulus_bits),
        CountKind::BinaryTree { depth, k } => binary_tree_memory_estimate(*depth, *k, modulus_bits),
        CountKind::Group {
            degree,
            generators,
            k,
            content,
            ..
        } => count_group_memory_estimate(
            *degree as u64,
            generators.len() as u64,
            *k,
            content.as_deref(),
            modulus_bits,
            limits,
        ),
        CountKind::GraphColourings {
            graph,
            edges,
            k,
            content,
            ..
        } => {
            let n = u64::from(graph.vertices);
            let points = graph_colouring_points(graph, *edges);
            let generators = n
                .saturating_sub(1)
                .min(MAX_GENERATOR_BYTES / generator_bytes(n).max(1));
            let job = GraphJob {
                graph: graph.clone(),
            };
            graph_memory_estimate(&job, limits).saturating_add(count_group_memory_estimate(
                points,
                generators,
                *k,
                content.as_deref(),
                modulus_bits,
                limits,
            ))
        }
    }
}

/// Solves a counting job (after [`validate_count`], which it calls again).
///
/// Arguments: the problem; `ctx` for cancellation (checked at least every few milliseconds of
/// work in the long loops: graph partitions, group elements) and progress; `limits`.
///
/// Returns the [`CountAnswer`], or the errors of [`validate_count`], `LimitExceeded` naming
/// `max_group_elements` for a group too large to enumerate, errors of the group engine, or
/// `Cancelled`.
///
/// Complexity: see each family; the group kind is O(|G| · d) unless the group is a giant.
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::counting::{CountKind, CountProblem, solve_count};
/// let p = CountProblem::new(CountKind::Torus { rows: 2, cols: 2, k: 2, rotation: true });
/// let a = solve_count(&p, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(a.to_string(), "7");
/// ```
///
/// Reference: W. Burnside (1897); G. Pólya (1937).
pub fn solve_count(
    p: &CountProblem,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<CountAnswer, SolveError> {
    validate_count(p, limits)?;
    let modulus = p.modulus.as_ref();
    let mut answer = CountAnswer {
        count: BigUint::default(),
        modulus: p.modulus.clone(),
        method: CountMethod::ClosedForm,
        group_order: None,
        group_kind: None,
        cycle_index: None,
    };
    answer.count = match &p.kind {
        CountKind::Necklace { n, k } => necklace_count(*n, *k, modulus, ctx)?,
        CountKind::Bracelet { n, k } => bracelet_count(*n, *k, modulus, ctx)?,
        CountKind::Torus {
            rows,
            cols,
            k,
            rotation,
        } => torus_count(*rows, *cols, *k, *rotation, modulus, ctx)?,
        CountKind::Cube { part, k } => cube_count(*part, *k, modulus),
        CountKind::Graphs { n } => {
            let parts =
                partition_count(*n).map_or(u64::MAX, |x| x.min(u128::from(u64::MAX)) as u64);
            answer.method = CountMethod::Partitions { partitions: parts };
            graphs_count(*n, modulus, ctx)?
        }
        CountKind::BinaryTree { depth, k } => {
            answer.method = CountMethod::Recursion;
            if *k == 1 {
                let one = BigUint::from(1u32);
                match modulus {
                    Some(m) => one % m,
                    None => one,
                }
            } else {
                binary_tree_count(*depth, *k, modulus, ctx)?
            }
        }
        CountKind::Group {
            degree,
            generators,
            k,
            content,
            cycle_index,
        } => {
            let request = CountRequest {
                k: *k,
                content: content.as_deref(),
                modulus,
                want_cycle_index: *cycle_index,
            };
            let g = count_group(*degree, generators.clone(), &request, ctx, limits)?;
            answer.method = match (g.kind, g.cyclic_divisors, g.dihedral_divisors) {
                (_, Some(divisors), _) => CountMethod::Cyclic { divisors },
                (_, _, Some(divisors)) => CountMethod::Dihedral { divisors },
                (Some(GroupKind::Symmetric | GroupKind::Alternating), _, _) => CountMethod::Giant,
                _ => CountMethod::Enumerated {
                    elements: g.enumerated,
                },
            };
            answer.group_order = Some(g.group_order);
            answer.group_kind = g.kind;
            answer.cycle_index = g.cycle_index;
            g.count
        }
        CountKind::GraphColourings {
            graph,
            edges,
            k,
            content,
            cycle_index,
        } => {
            let (points, generators) = graph_colouring_group(graph, *edges, ctx, limits)?;
            let request = CountRequest {
                k: *k,
                content: content.as_deref(),
                modulus,
                want_cycle_index: *cycle_index,
            };
            let group_limits = graph_colouring_limits(limits, points as u64);
            let g = count_group(points, generators, &request, ctx, &group_limits)?;
            answer.method = match (g.kind, g.cyclic_divisors, g.dihedral_divisors) {
                (_, Some(divisors), _) => CountMethod::Cyclic { divisors },
                (_, _, Some(divisors)) => CountMethod::Dihedral { divisors },
                (Some(GroupKind::Symmetric | GroupKind::Alternating), _, _) => CountMethod::Giant,
                _ => CountMethod::Enumerated {
                    elements: g.enumerated,
                },
            };
            answer.group_order = Some(g.group_order);
            answer.group_kind = g.kind;
            answer.cycle_index = g.cycle_index;
            g.count
        }
    };
    ctx.progress(1.0);
    Ok(answer)
}

/// Parses a content list such as `4,3,1` (commas and/or spaces).
///
/// Returns the counts, or `InvalidArgument` with field `count.content[i]` naming the bad entry.
///
/// ```
/// use orbit_worker::counting::parse_content;
/// assert_eq!(parse_content("4,3,1").unwrap(), vec![4, 3, 1]);
/// assert_eq!(parse_content("4,x").unwrap_err().to_string(), "count.content[1]: `x` is not a non-negative integer");
/// ```
pub fn parse_content(text: &str) -> Result<Vec<u64>, SolveError> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, t)| {
            t.parse::<u64>().map_err(|_| {
                SolveError::invalid(
                    format!("count.content[{i}]"),
                    format!("`{t}` is not a non-negative integer"),
                )
            })
        })
        .collect()
}

/// Parses a group for `orbit count group FILE`: the `orbit group` text format (`d k q`, then
/// generator lines and candidate lines in GAP cycle notation), keeping the degree and the
/// generators and ignoring the candidate lines.
///
/// Returns `(degree, generators)` or the parser's errors (field `line N ...`).
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::counting::parse_count_group_text;
/// let (d, gens) = parse_count_group_text("4 1 1\n(1,2,3,4)\n(1,2)\n", &Limits::default()).unwrap();
/// assert_eq!((d, gens.len()), (4, 1));
/// ```
pub fn parse_count_group_text(
    text: &str,
    limits: &Limits,
) -> Result<(usize, Vec<Perm>), SolveError> {
    let problem = parse_group_text_with_limits(text, limits)?;
    Ok((problem.degree, problem.generators))
}

impl crate::job::Solve for CountProblem {
    type Answer = CountAnswer;
    const KIND: &'static str = "count";

    /// [`validate_count`].
    fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        validate_count(self, limits)
    }

    /// [`count_memory_estimate`].
    fn memory_estimate(&self, limits: &Limits) -> u64 {
        count_memory_estimate(self, limits)
    }

    /// [`solve_count`].
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<CountAnswer, SolveError> {
        solve_count(&self, ctx, limits)
    }
}
