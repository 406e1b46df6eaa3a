//! Orbits of a permutation group given by generators (breadth-first search over points).

use super::perm::Perm;

/// The orbits of `<generators>` on `0..degree`, fixed points included, each listed in
/// breadth-first order from its smallest point, ordered by that point.
///
/// Arguments: `degree` the number of points; `generators` permutations of that degree.
///
/// Returns a partition of `0..degree` into orbits.
///
/// Complexity: O(degree · (1 + |generators|)).
///
/// ```
/// use orbit_worker::group::{Perm, orbits_of};
/// let g = Perm::parse_cycles("(1,2)(4,5,6)", 6).unwrap();
/// assert_eq!(orbits_of(6, &[g]), vec![vec![0, 1], vec![2], vec![3, 4, 5]]);
/// ```
///
/// Reference: Seress, *Permutation Group Algorithms* (2003), §2.1.1 (orbit algorithm);
/// Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §4.1.
pub fn orbits_of(degree: usize, generators: &[Perm]) -> Vec<Vec<u32>> {
    let mut seen = vec![false; degree];
    let mut out = Vec::new();
    for start in 0..degree {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut orbit = vec![start as u32];
        let mut head = 0;
        while head < orbit.len() {
            let x = orbit[head] as usize;
            head += 1;
            for g in generators {
                let y = g.images()[x] as usize;
                if !seen[y] {
                    seen[y] = true;
                    orbit.push(y as u32);
                }
            }
        }
        out.push(orbit);
    }
    out
}

/// The orbit of one point under `<generators>`, in breadth-first order starting at `point`.
///
/// Complexity: O(degree + |orbit| · |generators|).
///
/// ```
/// use orbit_worker::group::{Perm, orbit_of_point};
/// let g = Perm::parse_cycles("(1,2,3)", 4).unwrap();
/// assert_eq!(orbit_of_point(4, &[g], 1), vec![1, 2, 0]);
/// ```
///
/// Reference: Seress (2003), §2.1.1; Holt–Eick–O'Brien (2005), §4.1.
pub fn orbit_of_point(degree: usize, generators: &[Perm], point: u32) -> Vec<u32> {
    let mut seen = vec![false; degree];
    seen[point as usize] = true;
    let mut orbit = vec![point];
    let mut head = 0;
    while head < orbit.len() {
        let x = orbit[head] as usize;
        head += 1;
        for g in generators {
            let y = g.images()[x] as usize;
            if !seen[y] {
                seen[y] = true;
                orbit.push(y as u32);
            }
        }
    }
    orbit
}
