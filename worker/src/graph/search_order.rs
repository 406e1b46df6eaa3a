//! The exact order of the automorphism group from the search's generators: they form a strong
//! generating set relative to the vertices the first path of the search tree fixes.

use num_bigint::BigUint;

/// `|Aut(G)|` from the generators the search reported, in the order found, each with the
/// first-path vertex `stabilised[i]` of the level it was found at (it fixes the first-path
/// vertices above that level).
///
/// The search finds generators bottom-up: those found at a level, with those found below, generate
/// the stabiliser `G_i` of the first-path vertices above it, and the level's index
/// `|G_i : G_{i+1}|` is the orbit length of its first-path vertex `v_i` under them. So `|G|` is
/// the product, over the levels that found generators, of `|v_i^{G_i}|` once the last generator
/// of the level is in; the orbits are kept in a union-find as generators arrive.
///
/// # Arguments
/// `n` vertices; `generators` as image arrays of length `n`; `stabilised[i]` the first-path
/// vertex of generator `i`'s level (equal for generators of one level, consecutive in the list).
///
/// # Returns
/// The exact order.
///
/// Complexity: O(k · n · α(n)) for k generators; memory O(n).
///
/// ```
/// use orbit_worker::graph::order_from_search;
/// // The 4-cycle 0-1-2-3: (1 3) found at the level of vertex 1, then the rotation-reflection at
/// // the level of vertex 0: |Aut| = 2 · 4 = 8.
/// assert_eq!(order_from_search(4, &[&[0, 3, 2, 1][..], &[1, 0, 3, 2][..]], &[1, 0]).to_string(), "8");
/// ```
///
/// Reference: B. D. McKay, "Practical graph isomorphism" (1981), Theorem 2.34 and §3 (the
/// automorphisms found form a strong generating set; the group size from the orbit lengths);
/// Seress, *Permutation Group Algorithms* (2003), §4.1 (orders from a stabiliser chain).
pub fn order_from_search(n: usize, generators: &[&[u32]], stabilised: &[u32]) -> BigUint {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut size = vec![1u32; n];
    let mut order = BigUint::from(1u32);
    for (i, g) in generators.iter().enumerate() {
        for (x, &y) in g.iter().enumerate() {
            let (a, b) = (find(&mut parent, x as u32), find(&mut parent, y));
            if a != b {
                let (big, small) = if size[a as usize] >= size[b as usize] {
                    (a, b)
                } else {
                    (b, a)
                };
                parent[small as usize] = big;
                size[big as usize] += size[small as usize];
            }
        }
        let last_of_level = i + 1 == generators.len() || stabilised[i + 1] != stabilised[i];
        if last_of_level {
            let root = find(&mut parent, stabilised[i]);
            order *= size[root as usize];
        }
    }
    order
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}
