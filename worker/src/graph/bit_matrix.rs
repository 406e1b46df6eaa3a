//! The adjacency bit matrix of a dense graph, as nauty stores it: `words` machine words a row,
//! column `c` of a row at bit `63 - c % 64` of its word `c / 64` (most significant bit first).
//!
//! On a random graph G(n, 1/2) nauty's search itself is cheap (the first refinement is already
//! discrete), so writing the matrix and reading the canonical one back cost as much as the
//! search: both are done here a word at a time where they can be.

/// The symmetric adjacency matrix of a simple undirected graph.
///
/// # Arguments
/// `vertices` (`n`), `words` (row length, at least `n / 64` rounded up) and the edges `(u, v)`,
/// both ends below `n`, no self-loops (a repeated edge is harmless).
///
/// # Returns
/// `n * words` words with bits `(u, v)` and `(v, u)` set for every edge.
///
/// Each edge sets one bit, in the row of its smaller end (the upper triangle); the lower triangle
/// is then the upper one transposed 64 x 64 bits at a time. That halves the scattered writes,
/// which are what building the matrix costs.
///
/// Complexity: O(m + n^2 / 64 * log 64).
pub(super) fn symmetric_bit_matrix(
    vertices: usize,
    words: usize,
    edges: &[(u32, u32)],
) -> Vec<usize> {
    let mut matrix = vec![0usize; vertices * words];
    for &(u, v) in edges {
        let (low, high) = if u < v { (u, v) } else { (v, u) };
        let (low, high) = (low as usize, high as usize);
        matrix[low * words + high / 64] |= (1usize << 63) >> (high % 64);
    }
    mirror_upper_triangle(&mut matrix, vertices, words);
    matrix
}

/// Adds to `matrix` its transpose restricted to the upper triangle: after it, `(r, c)` is set
/// whenever `(c, r)` with `c < r` was. Blocks of 64 x 64 bits are transposed in registers.
fn mirror_upper_triangle(matrix: &mut [usize], vertices: usize, words: usize) {
    let row_blocks = vertices.div_ceil(64);
    let mut block = [0u64; 64];
    for block_row in 0..row_blocks {
        // Blocks on and right of the diagonal hold the upper triangle of rows block_row*64..
        for block_column in block_row..row_blocks.min(words) {
            let first_row = block_row * 64;
            for (i, slot) in block.iter_mut().enumerate() {
                let r = first_row + i;
                *slot = if r < vertices {
                    matrix[r * words + block_column] as u64
                } else {
                    0
                };
            }
            transpose_64(&mut block);
            // Row block_column*64 + j of the transpose, word block_row, receives column j.
            for (j, &bits) in block.iter().enumerate() {
                let r = block_column * 64 + j;
                if r < vertices {
                    matrix[r * words + block_row] |= bits as usize;
                }
            }
        }
    }
}

/// Transposes a 64 x 64 bit matrix in place, element `(i, j)` being bit `63 - j` of `rows[i]`:
/// six rounds swapping off-diagonal blocks of 32, 16, ..., 1 bits.
///
/// Reference: H. S. Warren, "Hacker's Delight", 2nd ed. (2013), section 7–3 (transposing a bit
/// matrix, the recursive block-swap method).
fn transpose_64(rows: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        // Swap the upper-right width x width sub-block of every 2width block with its lower-left.
        let mut k = 0;
        while k < 64 {
            let swapped = (rows[k] ^ (rows[k + width] >> width)) & mask;
            rows[k] ^= swapped;
            rows[k + width] ^= swapped << width;
            k = (k + width + 1) & !width;
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

/// The edges `(a, b)`, `a < b`, of a symmetric bit matrix, sorted.
///
/// Only the words right of the diagonal are read, which halves the work on a dense graph.
///
/// Complexity: O(n^2 / 64 + m).
pub(super) fn upper_triangle_edges(
    matrix: &[usize],
    words: usize,
    edges: usize,
) -> Vec<(u32, u32)> {
    let mut found = Vec::with_capacity(edges);
    for (a, row) in matrix.chunks_exact(words).enumerate() {
        push_right_of_diagonal(a, row, &mut found);
    }
    found
}

/// Pushes `(a, b)` for every bit `b > a` set in `row`, row `a` of a bit matrix, in increasing
/// `b`.
///
/// Complexity: O(words + bits set).
fn push_right_of_diagonal(a: usize, row: &[usize], found: &mut Vec<(u32, u32)>) {
    let first = (a + 1) / 64;
    let right_of_diagonal = usize::MAX >> ((a + 1) % 64);
    for (w, &word) in row.iter().enumerate().skip(first) {
        let mut bits = if w == first {
            word & right_of_diagonal
        } else {
            word
        };
        while bits != 0 {
            let k = bits.leading_zeros() as usize;
            bits ^= (1usize << 63) >> k;
            found.push((a as u32, (w * 64 + k) as u32));
        }
    }
}

/// Whether column `c` of a matrix row is set.
#[inline]
pub(super) fn row_bit(row: &[usize], c: usize) -> bool {
    row[c / 64] & ((1usize << 63) >> (c % 64)) != 0
}

/// The edges of a symmetric bit matrix relabelled by `labelling` (position → vertex): the pairs
/// `(a, b)`, `a < b`, with `labelling[a]` and `labelling[b]` adjacent, sorted. The certificate of
/// a graph under a canonical labelling, read without relabelling the matrix bit by bit (as
/// nauty's `permset` does).
///
/// # Arguments
/// `matrix` (`words` words a row, nauty's layout), `labelling` (a permutation of the rows),
/// `edges` (the number of edges, the result's capacity).
///
/// With `P` the permutation matrix of the labelling and `A` symmetric, the relabelled matrix is
/// `P A Pᵀ = P (P A)ᵀ`: the rows of `A` taken in the labelling's order (`P A`) are transposed 64
/// x 64 bits at a time, which puts the columns in canonical order, and the rows of that
/// transpose are then read in the labelling's order, right of the diagonal only. Every step
/// works on whole words; only the edges found are handled one by one.
///
/// Complexity: O(n^2 / 64 · log 64 + m); memory: one more matrix, and the edges.
pub(super) fn relabelled_upper_edges(
    matrix: &[usize],
    words: usize,
    labelling: &[u32],
    edges: usize,
) -> Vec<(u32, u32)> {
    let n = labelling.len();
    // columns_relabelled[x][b] = A[labelling[b]][x], i.e. (P A)ᵀ. Eight words of a row (one
    // cache line) are taken at a time: each line of `A` is read once, and the 512 rows of the
    // transpose being written stay in cache while their words fill in.
    const TILE: usize = 8;
    let mut columns_relabelled = vec![0usize; n * words];
    let mut blocks = [[0u64; 64]; TILE];
    for first_word in (0..words).step_by(TILE) {
        let tile = TILE.min(words - first_word);
        for block_row in 0..n.div_ceil(64) {
            for i in 0..64 {
                match labelling.get(block_row * 64 + i) {
                    Some(&v) => {
                        let row = &matrix[v as usize * words + first_word..][..tile];
                        for (block, &word) in blocks.iter_mut().zip(row) {
                            block[i] = word as u64;
                        }
                    }
                    None => blocks.iter_mut().for_each(|block| block[i] = 0),
                }
            }
            for (k, block) in blocks.iter_mut().enumerate().take(tile) {
                transpose_64(block);
                for (j, &bits) in block.iter().enumerate() {
                    let x = (first_word + k) * 64 + j;
                    if x < n {
                        columns_relabelled[x * words + block_row] = bits as usize;
                    }
                }
            }
        }
    }
    let mut found = Vec::with_capacity(edges);
    for (a, &u) in labelling.iter().enumerate() {
        let row = &columns_relabelled[u as usize * words..][..words];
        push_right_of_diagonal(a, row, &mut found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn bit(matrix: &[usize], words: usize, r: usize, c: usize) -> bool {
        matrix[r * words + c / 64] & ((1usize << 63) >> (c % 64)) != 0
    }

    #[test]
    fn transpose_matches_the_definition() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20 {
            let original: [u64; 64] = std::array::from_fn(|_| rng.random());
            let mut rows = original;
            transpose_64(&mut rows);
            for (i, row) in rows.iter().enumerate() {
                for (j, column) in original.iter().enumerate() {
                    let want = column >> (63 - i) & 1;
                    assert_eq!(row >> (63 - j) & 1, want, "({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn matrix_and_edges_against_the_edge_set() {
        // Sizes around the 64-bit word and block boundaries, with padding words in the rows.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in [1usize, 2, 63, 64, 65, 127, 128, 129, 200, 600] {
            for extra_words in [0usize, 1] {
                let words = n.div_ceil(64) + extra_words;
                let mut edges = Vec::new();
                for u in 0..n as u32 {
                    for v in u + 1..n as u32 {
                        if rng.random_bool(0.3) {
                            edges.push(if rng.random_bool(0.5) { (u, v) } else { (v, u) });
                        }
                    }
                }
                let matrix = symmetric_bit_matrix(n, words, &edges);
                let mut wanted = vec![vec![false; n]; n];
                for &(u, v) in &edges {
                    wanted[u as usize][v as usize] = true;
                    wanted[v as usize][u as usize] = true;
                }
                for (r, row) in wanted.iter().enumerate() {
                    for (c, &set) in row.iter().enumerate() {
                        assert_eq!(bit(&matrix, words, r, c), set, "n {n}: ({r}, {c})");
                    }
                    for c in n..words * 64 {
                        assert!(!bit(&matrix, words, r, c), "n {n}: padding ({r}, {c})");
                    }
                }
                let mut sorted: Vec<(u32, u32)> =
                    edges.iter().map(|&(u, v)| (u.min(v), u.max(v))).collect();
                sorted.sort_unstable();
                assert_eq!(upper_triangle_edges(&matrix, words, edges.len()), sorted);
                let identity: Vec<u32> = (0..n as u32).collect();
                assert_eq!(
                    relabelled_upper_edges(&matrix, words, &identity, edges.len()),
                    sorted
                );
                let mut labelling = identity;
                for i in (1..n).rev() {
                    labelling.swap(i, rng.random_range(0..=i));
                }
                let mut label = vec![0u32; n];
                for (position, &v) in labelling.iter().enumerate() {
                    label[v as usize] = position as u32;
                }
                let mut relabelled: Vec<(u32, u32)> = edges
                    .iter()
                    .map(|&(u, v)| {
                        let (a, b) = (label[u as usize], label[v as usize]);
                        (a.min(b), a.max(b))
                    })
                    .collect();
                relabelled.sort_unstable();
                assert_eq!(
                    relabelled_upper_edges(&matrix, words, &labelling, edges.len()),
                    relabelled
                );
            }
        }
    }
}
