//! A span of parity vectors over GF(2), kept in reduced row echelon form: the giant products'
//! linkage classes (steps 4 and 5 of [`super::giant_product`]) and the characters of the orbit
//! constituents ([`super::orbit_constituents`]).

/// A span of parity vectors, in reduced row echelon form over GF(2).
pub(super) struct ParitySpan {
    /// 64-bit words per vector.
    pub(super) words: usize,
    /// Basis rows: row `k` has a 1 at `pivots[k]` and a 0 at every other pivot.
    pub(super) rows: Vec<Vec<u64>>,
    pub(super) pivots: Vec<usize>,
}

impl ParitySpan {
    pub(super) fn new(classes: usize) -> ParitySpan {
        ParitySpan {
            words: classes.div_ceil(64),
            rows: Vec::new(),
            pivots: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn bit(v: &[u64], i: usize) -> bool {
        v[i / 64] >> (i % 64) & 1 == 1
    }

    /// Reduces `v` by the basis: afterwards it is zero at every pivot, and zero iff `v` was in
    /// the span.
    pub(super) fn reduce(&self, v: &mut [u64]) {
        for (row, &p) in self.rows.iter().zip(&self.pivots) {
            if Self::bit(v, p) {
                v.iter_mut().zip(row).for_each(|(a, b)| *a ^= b);
            }
        }
    }

    /// Adds `v` to the span, keeping the basis reduced.
    ///
    /// Complexity: O(ρ · words).
    pub(super) fn insert(&mut self, mut v: Vec<u64>) {
        self.reduce(&mut v);
        let Some(w) = v.iter().position(|&x| x != 0) else {
            return;
        };
        let p = 64 * w + v[w].trailing_zeros() as usize;
        for row in &mut self.rows {
            if Self::bit(row, p) {
                row.iter_mut().zip(&v).for_each(|(a, b)| *a ^= b);
            }
        }
        self.rows.push(v);
        self.pivots.push(p);
    }

    /// The vector of the span whose pivot bits are `bits` (`bits[k]` for `pivots[k]`).
    pub(super) fn combine(&self, bits: impl Iterator<Item = bool>) -> Vec<u64> {
        let mut v = vec![0u64; self.words];
        for (row, b) in self.rows.iter().zip(bits) {
            if b {
                v.iter_mut().zip(row).for_each(|(a, b)| *a ^= b);
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_span_is_reduced_and_decides_membership() {
        let mut s = ParitySpan::new(70);
        let vec_of = |bits: &[usize]| {
            let mut v = vec![0u64; 2];
            for &b in bits {
                v[b / 64] |= 1 << (b % 64);
            }
            v
        };
        s.insert(vec_of(&[0, 3, 65]));
        s.insert(vec_of(&[3, 65]));
        s.insert(vec_of(&[0])); // dependent
        s.insert(vec_of(&[65, 69]));
        assert_eq!(s.rows.len(), 3);
        for (k, &p) in s.pivots.iter().enumerate() {
            for (k2, row) in s.rows.iter().enumerate() {
                assert_eq!(ParitySpan::bit(row, p), k == k2);
            }
        }
        let mut v = vec_of(&[0, 65, 69]);
        let w = v.clone();
        s.reduce(&mut v);
        assert!(v.iter().all(|&x| x == 0), "{w:?}");
        let mut v = vec_of(&[69]);
        s.reduce(&mut v);
        assert!(v.iter().any(|&x| x != 0));
        let combined = s.combine(s.pivots.iter().map(|&p| p == 0));
        assert!(ParitySpan::bit(&combined, 0));
    }
}
