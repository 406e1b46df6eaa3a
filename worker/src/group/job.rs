//! The group job as the server and the CLI see it: a problem (degree, generators, candidates),
//! its validation against the limits, and the answer (order, base, orbits, memberships).

use num_bigint::BigUint;

use super::perm::Perm;
use super::perm_group::{
    GroupKind, PermGroup, chain_budget, check_group_sizes, perm_group_memory_estimate,
};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::limits::Limits;

/// One group job: the group `<generators>` on `0..degree` and permutations to test for
/// membership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupProblem {
    /// Number of points `d`.
    pub degree: usize,
    /// Generators, each of degree `d`.
    pub generators: Vec<Perm>,
    /// Permutations to test, each of degree `d`; answered in order.
    pub candidates: Vec<Perm>,
}

/// The answer to a [`GroupProblem`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupAnswer {
    /// The exact order `|G|`.
    pub order: BigUint,
    /// What the group is proven to be.
    pub kind: GroupKind,
    /// A base (0-based points); see [`PermGroup::base`].
    pub base: Vec<u32>,
    /// The orbits on `0..d`; see [`PermGroup::orbits`].
    pub orbits: Vec<Vec<u32>>,
    /// `members[i]` says whether `candidates[i]` lies in the group.
    pub members: Vec<bool>,
}

/// Checks a problem against `limits` and for consistent degrees, before any solving.
///
/// Returns [`SolveError::LimitExceeded`] if the degree exceeds `limits.max_degree` or the
/// permutations hold more than `limits.max_permutation_entries` integers;
/// [`SolveError::InvalidArgument`] (field `group.generators[i]` or `group.candidates[i]`) if a
/// permutation's degree differs from `degree`.
///
/// Complexity: O(number of permutations).
///
/// ```
/// use orbit_worker::{Limits, group::{GroupProblem, Perm, validate_group_problem}};
/// let p = GroupProblem { degree: 3, generators: vec![Perm::identity(4)], candidates: vec![] };
/// let e = validate_group_problem(&p, &Limits::default()).unwrap_err();
/// assert_eq!(e.to_string(), "group.generators[0]: has degree 4, expected 3");
/// ```
///
/// Reference: none (input policy of Orbit).
pub fn validate_group_problem(problem: &GroupProblem, limits: &Limits) -> Result<(), SolveError> {
    let perms = problem.generators.len() as u64 + problem.candidates.len() as u64;
    check_group_sizes(problem.degree as u64, perms, limits)?;
    let named = [
        ("generators", &problem.generators),
        ("candidates", &problem.candidates),
    ];
    for (name, list) in named {
        for (i, p) in list.iter().enumerate() {
            if p.degree() != problem.degree {
                return Err(SolveError::invalid(
                    format!("group.{name}[{i}]"),
                    format!("has degree {}, expected {}", p.degree(), problem.degree),
                ));
            }
        }
    }
    Ok(())
}

/// Upper bound on the bytes [`solve_group`] allocates besides the stabiliser chain: the group's
/// construction ([`perm_group_memory_estimate`]), the copy of the generators it takes
/// (`k (4d + 16)`), the sifting scratch (`4d`), the memberships (`q` bytes) and the answer's base
/// and orbits (`4d + 28d`), plus a cyclic group's membership scratch (`6d`).
fn fixed_memory(problem: &GroupProblem) -> u64 {
    let d = problem.degree as u64;
    let k = problem.generators.len() as u64;
    let q = problem.candidates.len() as u64;
    perm_group_memory_estimate(d, k)
        .saturating_add(k.saturating_mul(4 * d + 16))
        .saturating_add(d.saturating_mul(4 + 4 + 28 + 6))
        .saturating_add(q)
}

/// Upper bound on the bytes [`solve_group`] allocates for `problem` (the answer included):
/// everything but the stabiliser chain, as bounded from the degree and the numbers of
/// generators and candidates, plus the chain's budget ([`chain_budget`]), which the chain is
/// charged against as it grows — the chain's size is only known while it is built.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::group::{GroupProblem, Perm, group_memory_estimate};
/// let p = GroupProblem { degree: 3, generators: vec![Perm::identity(3)], candidates: vec![] };
/// let small = Limits { max_job_memory: 10 << 20, ..Limits::default() };
/// assert_eq!(group_memory_estimate(&p, &small), 10 << 20); // the chain may use what is left
/// ```
pub fn group_memory_estimate(problem: &GroupProblem, limits: &Limits) -> u64 {
    let fixed = fixed_memory(problem);
    fixed.saturating_add(chain_budget(limits, fixed))
}

/// Solves a group job: builds the group (giant recognition or Schreier–Sims, always exact), then
/// tests every candidate by sifting.
///
/// Arguments: the problem; `ctx` for cancellation/progress; `limits` (checked first, see
/// [`validate_group_problem`]; the stabiliser chain gets the budget of
/// [`group_memory_estimate`]: `max_group_chain_bytes`, capped by what is left of
/// `max_job_memory`).
///
/// Returns the [`GroupAnswer`], or the errors of [`validate_group_problem`] and
/// [`PermGroup::new`].
///
/// Complexity: that of [`PermGroup::new`] plus O(q · d · |B|) for q candidates.
///
/// ```
/// use orbit_worker::{Limits, SolveContext, group::{parse_group_text, solve_group}};
/// let problem = parse_group_text("4 1 2\n(1,2,3,4)\n(1,3)(2,4)\n(1,2)\n").unwrap();
/// let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(answer.order.to_string(), "4");
/// assert_eq!(answer.members, vec![true, false]);
/// ```
///
/// Reference: Seress, *Permutation Group Algorithms* (2003), §4 and §10.2;
/// Holt–Eick–O'Brien, *Handbook of Computational Group Theory* (2005), §4.4.
pub fn solve_group(
    problem: &GroupProblem,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupAnswer, SolveError> {
    validate_group_problem(problem, limits)?;
    let limits = Limits {
        max_group_chain_bytes: chain_budget(limits, fixed_memory(problem)),
        ..limits.clone()
    };
    let group = PermGroup::new(problem.degree, problem.generators.clone(), ctx, &limits)?;
    let mut scratch = Vec::new();
    let mut members = Vec::with_capacity(problem.candidates.len());
    for (i, c) in problem.candidates.iter().enumerate() {
        if i % 256 == 0 {
            ctx.check()?;
        }
        members.push(group.contains_with(c, &mut scratch));
    }
    Ok(GroupAnswer {
        order: group.order(),
        kind: group.kind(),
        base: group.base().to_vec(),
        orbits: group.orbits(),
        members,
    })
}

/// Formats an answer the way `orbit group` prints it: the order on the first line, then one
/// `Yes`/`No` line per candidate.
///
/// Complexity: O(q + digits of the order).
///
/// ```
/// use orbit_worker::{Limits, SolveContext, group::{format_group_answer, parse_group_text, solve_group}};
/// let problem = parse_group_text("3 1 1\n(1,2)\n()\n").unwrap();
/// let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(format_group_answer(&answer), "2\nYes\n");
/// ```
///
/// Reference: none (Orbit's CLI format).
pub fn format_group_answer(answer: &GroupAnswer) -> String {
    let mut out = format!("{}\n", answer.order);
    for &m in &answer.members {
        out.push_str(if m { "Yes\n" } else { "No\n" });
    }
    out
}

impl crate::job::Solve for GroupProblem {
    type Answer = GroupAnswer;
    const KIND: &'static str = "group";

    /// [`validate_group_problem`].
    fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        validate_group_problem(self, limits)
    }

    /// [`group_memory_estimate`].
    fn memory_estimate(&self, limits: &Limits) -> u64 {
        group_memory_estimate(self, limits)
    }

    /// [`solve_group`].
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<GroupAnswer, SolveError> {
        solve_group(&self, ctx, limits)
    }
}
