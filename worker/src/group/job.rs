//! The group job as the server and the CLI see it: a problem (degree, generators, candidates),
//! its validation against the limits, and the answer (order, base, orbits, memberships).

use num_bigint::BigUint;

use super::perm::Perm;
use super::perm_group::{
    GroupKind, PermGroup, chain_budget, check_group_sizes, perm_group_memory_estimate,
};
use super::words::{GroupWords, LetterBudget, Word, WordEffort};
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
    /// With `Some(effort)`, a word in the generators for every member candidate
    /// ([`GroupAnswer::words`]), short words costing set-up time as [`WordEffort`] says. `None`
    /// by default: the answer and its speed are then those of the plain solve.
    pub words: Option<WordEffort>,
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
    /// With [`GroupProblem::words`]: `words[i]` is a word for `candidates[i]` if it is a member
    /// (the empty word for the identity), `None` if not. Empty when words were not asked for.
    pub words: Vec<Option<Word>>,
}

/// Bytes per reported word letter while the answer is built and sent: the domain letter (16
/// bytes), its two protobuf fields (12) and their packed encoding (at most 15).
pub const WORD_BYTES_PER_LETTER: u64 = 43;

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
/// let p = GroupProblem { degree: 3, generators: vec![Perm::identity(4)], candidates: vec![], words: None };
/// let e = validate_group_problem(&p, &Limits::default()).unwrap_err();
/// assert_eq!(e.to_string(), "group.generators[0]: has degree 4, expected 3");
/// ```
///
/// Reference: none (input policy of Orbit).
pub fn validate_group_problem(problem: &GroupProblem, limits: &Limits) -> Result<(), SolveError> {
    let perms = problem.generators.len() as u64 + problem.candidates.len() as u64;
    check_group_sizes(problem.degree as u64, perms, limits)?;
    if let Some(WordEffort(effort)) = problem.words
        && effort > WordEffort::MAX
    {
        return Err(SolveError::invalid(
            "group.word_effort",
            format!("is {effort}, at most {} is allowed", WordEffort::MAX),
        ));
    }
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

/// Upper bound on the bytes [`solve_group`] allocates besides the stabiliser chain and the
/// words' tables: the group's construction ([`perm_group_memory_estimate`]), the copy of the
/// generators it takes (`k (4d + 16)`), the sifting scratch (`4d`), the memberships (`q` bytes)
/// and the answer's base and orbits (`4d + 28d`), plus a cyclic group's membership scratch
/// (`6d`); with words, a word's headers per candidate (96 bytes: domain and protobuf; the letters are charged to the
/// words' budget as they are made).
fn fixed_memory(problem: &GroupProblem) -> u64 {
    let d = problem.degree as u64;
    let k = problem.generators.len() as u64;
    let q = problem.candidates.len() as u64;
    let words = if problem.words.is_some() {
        q.saturating_mul(96)
    } else {
        0
    };
    perm_group_memory_estimate(d, k)
        .saturating_add(k.saturating_mul(4 * d + 16))
        .saturating_add(d.saturating_mul(4 + 4 + 28 + 6))
        .saturating_add(q)
        .saturating_add(words)
}

/// The budgets of the stabiliser chain and of the words' tables: without words the chain gets
/// [`chain_budget`]; with words the two share what is left of `max_job_memory` after the fixed
/// part, the chain at most half of it (and at most `max_group_chain_bytes`), the tables and the
/// answer's letters ([`WORD_BYTES_PER_LETTER`] each) the rest.
fn budgets(problem: &GroupProblem, limits: &Limits) -> (u64, u64) {
    let fixed = fixed_memory(problem);
    if problem.words.is_none() {
        return (chain_budget(limits, fixed), 0);
    }
    let left = limits.max_job_memory.saturating_sub(fixed);
    let chain = limits.max_group_chain_bytes.min(left / 2);
    (chain, left - chain)
}

/// Upper bound on the bytes [`solve_group`] allocates for `problem` (the answer included):
/// everything but the stabiliser chain, as bounded from the degree and the numbers of
/// generators and candidates, plus the chain's budget ([`chain_budget`]), which the chain is
/// charged against as it grows — the chain's size is only known while it is built.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::group::{GroupProblem, Perm, group_memory_estimate};
/// let p = GroupProblem { degree: 3, generators: vec![Perm::identity(3)], candidates: vec![], words: None };
/// let small = Limits { max_job_memory: 10 << 20, ..Limits::default() };
/// assert_eq!(group_memory_estimate(&p, &small), 10 << 20); // the chain may use what is left
/// ```
pub fn group_memory_estimate(problem: &GroupProblem, limits: &Limits) -> u64 {
    let (chain, words) = budgets(problem, limits);
    fixed_memory(problem)
        .saturating_add(chain)
        .saturating_add(words)
}

/// Solves a group job: builds the group (giant recognition or Schreier–Sims, always exact), then
/// tests every candidate by sifting; with [`GroupProblem::words`], builds Minkwitz's tables
/// ([`GroupWords`]) and a word for every member.
///
/// Arguments: the problem; `ctx` for cancellation/progress; `limits` (checked first, see
/// [`validate_group_problem`]; the stabiliser chain and the words' tables get the budgets of
/// [`group_memory_estimate`]: `max_group_chain_bytes`, capped by what is left of
/// `max_job_memory`, which the tables share; the words' letters are capped by
/// `max_word_letters`).
///
/// Returns the [`GroupAnswer`], or the errors of [`validate_group_problem`],
/// [`PermGroup::new`] and [`GroupWords::new`], or [`SolveError::LimitExceeded`] naming
/// `max_word_letters` when the words hold more letters in all.
///
/// Complexity: that of [`PermGroup::new`] plus O(q · d · |B|) for q candidates; with words, that
/// of [`GroupWords::new`] and [`GroupWords::word_of`] per member.
///
/// ```
/// use orbit_worker::{Limits, SolveContext, group::{parse_group_text, solve_group, WordEffort}};
/// let mut problem = parse_group_text("4 1 2\n(1,2,3,4)\n(1,3)(2,4)\n(1,2)\n").unwrap();
/// let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(answer.order.to_string(), "4");
/// assert_eq!(answer.members, vec![true, false]);
/// problem.words = Some(WordEffort::default());
/// let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(answer.words[0].as_ref().unwrap().to_string(), "g1^2");
/// assert!(answer.words[1].is_none());
/// ```
///
/// Reference: Seress, *Permutation Group Algorithms* (2003), §4 and §10.2;
/// Holt–Eick–O'Brien, *Handbook of Computational Group Theory* (2005), §4.4; Minkwitz (1998).
pub fn solve_group(
    problem: &GroupProblem,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupAnswer, SolveError> {
    validate_group_problem(problem, limits)?;
    let (chain, words_budget) = budgets(problem, limits);
    let chain_limits = Limits {
        max_group_chain_bytes: chain,
        ..limits.clone()
    };
    let mut group = PermGroup::new(
        problem.degree,
        problem.generators.clone(),
        ctx,
        &chain_limits,
    )?;
    group.prepare_for_memberships(problem.candidates.len(), ctx)?;
    let mut scratch = Vec::new();
    let mut members = Vec::with_capacity(problem.candidates.len());
    for (i, c) in problem.candidates.iter().enumerate() {
        if i % 256 == 0 {
            ctx.check()?;
        }
        members.push(group.contains_with(c, &mut scratch));
    }
    let words = match problem.words {
        Some(effort) => member_words(problem, &group, &members, effort, words_budget, ctx, limits)?,
        None => Vec::new(),
    };
    Ok(GroupAnswer {
        order: group.order(),
        kind: group.kind(),
        base: group.base().to_vec(),
        orbits: group.orbits(),
        members,
        words,
    })
}

/// A word for each member candidate (`None` for the others), at most `max_word_letters` letters
/// in all. The tables are only built when some candidate is a member.
fn member_words(
    problem: &GroupProblem,
    group: &PermGroup,
    members: &[bool],
    effort: WordEffort,
    budget: u64,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<Vec<Option<Word>>, SolveError> {
    if !members.contains(&true) {
        return Ok(vec![None; members.len()]);
    }
    let tables = GroupWords::new(group, effort, ctx, budget, "max_job_memory")?;
    let mut letters = 0u64;
    let mut words = Vec::with_capacity(members.len());
    for (i, (candidate, &member)) in problem.candidates.iter().zip(members).enumerate() {
        // Every candidate: one word can take a good part of a second (millions of letters).
        ctx.check()?;
        if !member {
            words.push(None);
            continue;
        }
        let room = limits.max_word_letters.saturating_sub(letters);
        let word = match tables.word_within(candidate, LetterBudget::new(room, ctx)) {
            Ok(Some(word)) => word,
            Ok(None) => {
                return Err(SolveError::Panicked(format!(
                    "group.candidates[{i}] is a member but the words' tables do not factor it"
                )));
            }
            Err(reached) => {
                // Stopped: cancelled, or over the cap.
                ctx.check()?;
                let letters = letters.saturating_add(reached);
                return Err(SolveError::limit_shown(
                    format!(
                        "the words of the members up to group.candidates[{i}] (more than {letters} letters)"
                    ),
                    "max_word_letters",
                    limits.max_word_letters,
                    format!("{} letters (max_word_letters)", limits.max_word_letters),
                )
                .requested(letters));
            }
        };
        letters = letters.saturating_add(word.len());
        let bytes = tables
            .bytes()
            .saturating_add(letters.saturating_mul(WORD_BYTES_PER_LETTER));
        if bytes > budget {
            return Err(SolveError::limit_shown(
                format!(
                    "the words' tables and the words up to group.candidates[{i}] ({bytes} bytes)"
                ),
                "max_job_memory",
                budget,
                format!("{budget} bytes (what max_job_memory leaves the words)"),
            )
            .requested(bytes));
        }
        if letters > limits.max_word_letters {
            return Err(SolveError::limit_shown(
                format!("the words of the members up to group.candidates[{i}] ({letters} letters)"),
                "max_word_letters",
                limits.max_word_letters,
                format!("{} letters (max_word_letters)", limits.max_word_letters),
            )
            .requested(letters));
        }
        words.push(Some(word));
    }
    Ok(words)
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
    for (i, &m) in answer.members.iter().enumerate() {
        match answer.words.get(i) {
            Some(Some(word)) => out.push_str(&format!("Yes {word}\n")),
            _ => out.push_str(if m { "Yes\n" } else { "No\n" }),
        }
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
