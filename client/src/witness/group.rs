//! Checks a group answer's words against the job's generators and candidates, by multiplying
//! every word out here: a member's word must be a freely reduced product of the job's
//! generators equal to the candidate; a non-member carries none.

use crate::pb;

/// Why a group answer's words are wrong: the candidate (0-based) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("candidate {candidate}: {reason}")]
pub struct GroupWordError {
    /// The candidate whose word is wrong (`usize::MAX` for the answer as a whole).
    pub candidate: usize,
    /// What is wrong, in words.
    pub reason: String,
}

/// A permutation of `0..degree` as its image array, with its cycles for fast powers.
struct Generator {
    /// `cycle_of[x]` = (index of x's cycle, position of x in it).
    cycle_of: Vec<(usize, usize)>,
    cycles: Vec<Vec<u32>>,
}

impl Generator {
    fn new(images: &[u32]) -> Generator {
        let mut cycle_of = vec![(usize::MAX, 0); images.len()];
        let mut cycles = Vec::new();
        for start in 0..images.len() {
            if cycle_of[start].0 != usize::MAX {
                continue;
            }
            let mut cycle = Vec::new();
            let mut x = start;
            while cycle_of[x].0 == usize::MAX {
                cycle_of[x] = (cycles.len(), cycle.len());
                cycle.push(x as u32);
                x = images[x] as usize;
            }
            cycles.push(cycle);
        }
        Generator { cycle_of, cycles }
    }

    /// The image of `x` under this permutation raised to `exponent`.
    fn power_image(&self, x: u32, exponent: i64) -> u32 {
        let (c, pos) = self.cycle_of[x as usize];
        let cycle = &self.cycles[c];
        let len = cycle.len() as i64;
        cycle[(pos as i64 + exponent).rem_euclid(len) as usize]
    }
}

/// The image array of `p` on `degree` points: its `images` (0-based), or its `cycles` in GAP
/// notation (1-based, `()` the identity).
fn images_of(p: &pb::Permutation, degree: usize) -> Result<Vec<u32>, String> {
    if !p.images.is_empty() {
        if p.images.len() != degree {
            return Err(format!("has {} images, not {degree}", p.images.len()));
        }
        return Ok(p.images.clone());
    }
    let mut images: Vec<u32> = (0..degree as u32).collect();
    let text: String = p.cycles.chars().filter(|c| !c.is_whitespace()).collect();
    for cycle in text.split(')').filter(|c| !c.is_empty()) {
        let inner = cycle
            .strip_prefix('(')
            .ok_or_else(|| format!("cannot read the cycles {:?}", p.cycles))?;
        if inner.is_empty() {
            continue;
        }
        let points = inner
            .split(',')
            .map(|s| match s.parse::<usize>() {
                Ok(v) if (1..=degree).contains(&v) => Ok(v as u32 - 1),
                _ => Err(format!("cannot read the cycles {:?}", p.cycles)),
            })
            .collect::<Result<Vec<u32>, String>>()?;
        for (i, &x) in points.iter().enumerate() {
            images[x as usize] = points[(i + 1) % points.len()];
        }
    }
    Ok(images)
}

/// Checks the words of `result` against `job`: with `job.words`, one word per candidate, a word
/// exactly for the members, each freely reduced (no zero exponent, no two neighbouring letters
/// with the same generator), indexing the job's generators, and multiplying out (left to right,
/// as GAP does) to its candidate. Without `job.words` the answer must carry no words.
///
/// # Errors
/// The first wrong word found, naming its candidate.
///
/// # Example
/// ```
/// use orbit_client::pb;
/// use orbit_client::witness::check_group_words;
///
/// let perm = |cycles: &str| pb::Permutation { cycles: cycles.into(), ..Default::default() };
/// let job = pb::GroupJob {
///     degree: 3,
///     generators: vec![perm("(1,2,3)"), perm("(1,2)")],
///     candidates: vec![perm("(1,3)")],
///     words: true,
///     ..Default::default()
/// };
/// // (1,3) = (1,2,3)^-1 * (1,2): 1 -> 3 -> 3, 3 -> 2 -> 1.
/// let word = pb::GroupWord { has_word: true, generators: vec![0, 1], exponents: vec![-1, 1] };
/// let mut result = pb::GroupResult { members: vec![true], words: vec![word], ..Default::default() };
/// assert!(check_group_words(&job, &result).is_ok());
/// result.words[0].exponents = vec![1, 1];
/// assert!(check_group_words(&job, &result).is_err());
/// ```
pub fn check_group_words(
    job: &pb::GroupJob,
    result: &pb::GroupResult,
) -> Result<(), GroupWordError> {
    let whole = |reason: String| GroupWordError {
        candidate: usize::MAX,
        reason,
    };
    if !job.words {
        return if result.words.is_empty() {
            Ok(())
        } else {
            Err(whole("words that were not asked for".into()))
        };
    }
    if result.words.len() != job.candidates.len() || result.members.len() != job.candidates.len() {
        return Err(whole(format!(
            "{} words and {} memberships for {} candidates",
            result.words.len(),
            result.members.len(),
            job.candidates.len()
        )));
    }
    let degree = job.degree as usize;
    let generators = job
        .generators
        .iter()
        .enumerate()
        .map(|(i, g)| {
            images_of(g, degree)
                .map(|images| Generator::new(&images))
                .map_err(|e| whole(format!("generator {i} {e}")))
        })
        .collect::<Result<Vec<Generator>, GroupWordError>>()?;
    for (i, ((word, &member), candidate)) in result
        .words
        .iter()
        .zip(&result.members)
        .zip(&job.candidates)
        .enumerate()
    {
        let fail = |reason: String| GroupWordError {
            candidate: i,
            reason,
        };
        if word.has_word != member {
            return Err(fail(format!(
                "member {member} but has_word {}",
                word.has_word
            )));
        }
        if word.generators.len() != word.exponents.len() {
            return Err(fail(format!(
                "{} generators and {} exponents",
                word.generators.len(),
                word.exponents.len()
            )));
        }
        if !member {
            if !word.generators.is_empty() {
                return Err(fail("a non-member with letters".into()));
            }
            continue;
        }
        let target = images_of(candidate, degree).map_err(fail)?;
        let mut images: Vec<u32> = (0..degree as u32).collect();
        for (j, (&g, &e)) in word.generators.iter().zip(&word.exponents).enumerate() {
            let generator = generators
                .get(g as usize)
                .ok_or_else(|| fail(format!("letter {j}: no generator {g}")))?;
            if e == 0 {
                return Err(fail(format!("letter {j}: exponent 0")));
            }
            if j > 0 && word.generators[j - 1] == g {
                return Err(fail(format!(
                    "letters {} and {j}: not freely reduced",
                    j - 1
                )));
            }
            for x in images.iter_mut() {
                *x = generator.power_image(*x, e);
            }
        }
        if images != target {
            return Err(fail(format!(
                "the word {} does not multiply out to the candidate",
                format_word(word)
            )));
        }
    }
    Ok(())
}

/// A word as `orbit group --words` prints it: `g1`, `g2`, ... (1-based) joined by `*`, powers
/// and inverses as `g2^2`, `g3^-1`, the empty word as `<identity>`.
///
/// ```
/// use orbit_client::pb;
/// use orbit_client::witness::format_word;
/// let w = pb::GroupWord { has_word: true, generators: vec![0, 2, 1], exponents: vec![1, -1, 2] };
/// assert_eq!(format_word(&w), "g1*g3^-1*g2^2");
/// assert_eq!(format_word(&pb::GroupWord { has_word: true, ..Default::default() }), "<identity>");
/// ```
pub fn format_word(word: &pb::GroupWord) -> String {
    if word.generators.is_empty() {
        return "<identity>".into();
    }
    let letters: Vec<String> = word
        .generators
        .iter()
        .zip(&word.exponents)
        .map(|(g, e)| match e {
            1 => format!("g{}", g + 1),
            e => format!("g{}^{e}", g + 1),
        })
        .collect();
    letters.join("*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_and_images_read_alike() {
        let cycles = pb::Permutation {
            cycles: "(1, 3)(2,4,5)".into(),
            ..Default::default()
        };
        assert_eq!(images_of(&cycles, 5).unwrap(), vec![2, 3, 0, 4, 1]);
        let identity = pb::Permutation {
            cycles: "()".into(),
            ..Default::default()
        };
        assert_eq!(images_of(&identity, 3).unwrap(), vec![0, 1, 2]);
        let bad = pb::Permutation {
            cycles: "(1,9)".into(),
            ..Default::default()
        };
        assert!(images_of(&bad, 3).is_err());
    }

    #[test]
    fn powers_walk_the_cycles() {
        let g = Generator::new(&[1, 2, 0, 4, 3]);
        assert_eq!(g.power_image(0, 1), 1);
        assert_eq!(g.power_image(0, -1), 2);
        assert_eq!(g.power_image(0, 5), 2);
        assert_eq!(g.power_image(3, 3), 4);
    }
}
