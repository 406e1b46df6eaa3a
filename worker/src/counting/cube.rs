//! The faces, vertices or edges of a cube in `k` colours, up to the 24 rotations of the cube.
//!
//! The rotation group has five conjugacy classes; their cycle types on each part are:
//!
//! | class (elements)                 | faces (6)   | vertices (8) | edges (12)  |
//! |----------------------------------|-------------|--------------|-------------|
//! | identity (1)                     | x1^6        | x1^8         | x1^12       |
//! | 90/270 deg about a face axis (6) | x1^2*x4     | x4^2         | x4^3        |
//! | 180 deg about a face axis (3)    | x1^2*x2^2   | x2^4         | x2^6        |
//! | 120/240 deg about a diagonal (8) | x3^2        | x1^2*x3^2    | x3^4        |
//! | 180 deg about an edge axis (6)   | x2^3        | x2^4         | x1^2*x2^5   |

use std::fmt;
use std::str::FromStr;

use num_bigint::BigUint;

use super::arith::burnside_memory_estimate;
use super::cycle_index::{CycleIndex, CycleType};
use crate::error::SolveError;
use crate::memory::SMALL_ALLOCATIONS;

/// Which cells of the cube are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubePart {
    /// The 6 faces.
    Faces,
    /// The 8 vertices.
    Vertices,
    /// The 12 edges.
    Edges,
}

impl CubePart {
    /// Number of cells: 6, 8 or 12.
    pub fn points(self) -> u64 {
        match self {
            CubePart::Faces => 6,
            CubePart::Vertices => 8,
            CubePart::Edges => 12,
        }
    }
}

impl fmt::Display for CubePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CubePart::Faces => "faces",
            CubePart::Vertices => "vertices",
            CubePart::Edges => "edges",
        })
    }
}

impl FromStr for CubePart {
    type Err = SolveError;

    /// Parses `faces`, `vertices` or `edges` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, SolveError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "faces" | "face" => Ok(CubePart::Faces),
            "vertices" | "vertex" => Ok(CubePart::Vertices),
            "edges" | "edge" => Ok(CubePart::Edges),
            other => Err(SolveError::invalid(
                "count.part",
                format!("unknown cube part {other:?}; expected faces, vertices or edges"),
            )),
        }
    }
}

/// The cycle index of the cube's rotation group acting on `part`.
///
/// Complexity: O(1).
///
/// ```
/// use orbit_worker::counting::{CubePart, cube_cycle_index};
/// assert_eq!(
///     cube_cycle_index(CubePart::Faces).to_string(),
///     "(x1^6 + 3*x1^2*x2^2 + 6*x1^2*x4 + 6*x2^3 + 8*x3^2)/24"
/// );
/// ```
///
/// Reference: OEIS A047780 (faces), A000543 (vertices), A060530 (edges).
pub fn cube_cycle_index(part: CubePart) -> CycleIndex {
    let classes: [(u32, &[(u64, u64)]); 5] = match part {
        CubePart::Faces => [
            (1, &[(1, 6)]),
            (6, &[(1, 2), (4, 1)]),
            (3, &[(1, 2), (2, 2)]),
            (8, &[(3, 2)]),
            (6, &[(2, 3)]),
        ],
        CubePart::Vertices => [
            (1, &[(1, 8)]),
            (6, &[(4, 2)]),
            (3, &[(2, 4)]),
            (8, &[(1, 2), (3, 2)]),
            (6, &[(2, 4)]),
        ],
        CubePart::Edges => [
            (1, &[(1, 12)]),
            (6, &[(4, 3)]),
            (3, &[(2, 6)]),
            (8, &[(3, 4)]),
            (6, &[(1, 2), (2, 5)]),
        ],
    };
    CycleIndex::from_counts(
        part.points(),
        classes
            .iter()
            .map(|&(n, t)| (CycleType::new(t.iter().copied()), BigUint::from(n))),
    )
}

/// Upper bound on the bytes [`cube_count`] allocates: the five-term cycle index and a Burnside
/// sum over 24 elements with exponents at most 12 (numbers below `24 k^12`, or `24 M` with a
/// modulus of `modulus_bits` bits).
///
/// ```
/// use orbit_worker::counting::cube_memory_estimate;
/// assert!(cube_memory_estimate(3, None) < 100_000);
/// ```
pub fn cube_memory_estimate(k: u64, modulus_bits: Option<u64>) -> u64 {
    burnside_memory_estimate(k, 12, 5, modulus_bits).saturating_add(SMALL_ALLOCATIONS)
}

/// The number of colourings of the cube's `part` with `k` colours up to rotation.
///
/// Complexity: five powers of `k`.
///
/// ```
/// use orbit_worker::counting::{CubePart, cube_count};
/// assert_eq!(cube_count(CubePart::Faces, 3, None), 57u32.into());
/// ```
///
/// Reference: OEIS A047780, A000543, A060530.
pub fn cube_count(part: CubePart, k: u64, modulus: Option<&BigUint>) -> BigUint {
    cube_cycle_index(part).count(k, modulus)
}
