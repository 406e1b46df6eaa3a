//! The `group` kind on the wire: `GroupJob` → [`GroupProblem`], [`GroupAnswer`] → `GroupResult`;
//! and permutations (image arrays or GAP cycle notation), which `count` jobs share.

use orbit_api::v1 as pb;
use orbit_worker::group::{
    GroupAnswer, GroupKind, GroupProblem, Perm, WordEffort, check_group_sizes,
};
use orbit_worker::{Limits, SolveError};

/// proto → domain, after checking that the permutations fit the limits: each becomes a
/// `degree`-long image array, whatever its input size, so this is where the allocation is bounded.
pub fn from_proto(group: pb::GroupJob, limits: &Limits) -> Result<GroupProblem, SolveError> {
    let degree = group.degree as usize;
    check_group_sizes(
        degree as u64,
        (group.generators.len() + group.candidates.len()) as u64,
        limits,
    )?;
    Ok(GroupProblem {
        degree,
        generators: perms_from_proto(&group.generators, degree, "group.generators")?,
        candidates: perms_from_proto(&group.candidates, degree, "group.candidates")?,
        words: group.words.then(|| {
            group
                .word_effort
                .map_or_else(WordEffort::default, WordEffort)
        }),
    })
}

/// proto → domain for one permutation of `degree` points; `field` names it in errors
/// (`group.generators[2]`). Exactly one of `images` (0-based) and `cycles` (GAP notation, 1-based)
/// must be set; `()` is the identity.
pub fn perm_from_proto(
    p: &pb::Permutation,
    degree: usize,
    field: &str,
) -> Result<Perm, SolveError> {
    match (p.images.is_empty(), p.cycles.trim().is_empty()) {
        (false, false) => Err(SolveError::invalid(
            field,
            "set exactly one of images and cycles, not both",
        )),
        (true, true) if degree > 0 => Err(SolveError::invalid(
            field,
            "empty permutation: set images (0-based) or cycles (1-based; \"()\" is the identity)",
        )),
        (true, true) => Ok(Perm::identity(0)),
        (true, false) => Perm::parse_cycles(&p.cycles, degree)
            .map_err(|e| e.into_solve_error(&format!("{field}.cycles"))),
        (false, true) => {
            if p.images.len() != degree {
                return Err(SolveError::invalid(
                    format!("{field}.images"),
                    format!(
                        "has {} images, expected the degree {degree}",
                        p.images.len()
                    ),
                ));
            }
            Perm::from_images(p.images.clone(), &format!("{field}.images"))
        }
    }
}

/// proto → domain for a list of permutations named `field[i]`. The caller checks first that
/// `count x degree` entries fit the limits.
pub(super) fn perms_from_proto(
    perms: &[pb::Permutation],
    degree: usize,
    field: &str,
) -> Result<Vec<Perm>, SolveError> {
    perms
        .iter()
        .enumerate()
        .map(|(i, p)| perm_from_proto(p, degree, &format!("{field}[{i}]")))
        .collect()
}

/// domain → proto: order (decimal), kind, base, orbits (ascending points), memberships and,
/// when asked for, the words (0-based generators, `has_word` for members).
pub fn result_to_proto(answer: GroupAnswer) -> pb::GroupResult {
    let kind = match answer.kind {
        GroupKind::Trivial => pb::GroupKind::Trivial,
        GroupKind::Symmetric => pb::GroupKind::Symmetric,
        GroupKind::Alternating => pb::GroupKind::Alternating,
        GroupKind::General => pb::GroupKind::General,
    };
    pb::GroupResult {
        order: answer.order.to_string(),
        base: answer.base,
        orbits: answer
            .orbits
            .into_iter()
            .map(|mut points| {
                // The contract promises ascending points.
                points.sort_unstable();
                pb::PointOrbit { points }
            })
            .collect(),
        members: answer.members,
        kind: kind as i32,
        words: answer
            .words
            .into_iter()
            .map(|word| match word {
                Some(word) => {
                    let letters = word.letters();
                    pb::GroupWord {
                        has_word: true,
                        generators: letters.iter().map(|l| l.generator).collect(),
                        exponents: letters.iter().map(|l| l.exponent).collect(),
                    }
                }
                None => pb::GroupWord::default(),
            })
            .collect(),
    }
}

/// The smallest valid job of the kind, for tests that walk every kind.
pub fn example() -> pb::GroupJob {
    pb::GroupJob {
        degree: 2,
        ..Default::default()
    }
}
