//! Breadth-first distance fields inside the nested parts of one block, kept across targets: the
//! routing of [`ear_fill`](super::ear_fill) asks the same few questions ("how far is each vertex
//! from `to` inside the part below level `lvl`, never entering `avoid`") for every target of a
//! job, so each answer is searched once and looked up afterwards.
//!
//! # Arguments
//! A block's local adjacency, each vertex's level in its [`BlockPlan`](super::block_plan::BlockPlan)
//! (0 in the core, `i` in ear `i`), and per question the level bound `lvl`, the vertex to avoid (if
//! any) and the goal `to`.
//!
//! # Returns
//! For every vertex of level `< lvl` other than `avoid`, its distance to `to` in the subgraph
//! induced by them ([`UNREACHED`] outside it or when cut off). A walk goes down the field one
//! neighbour at a time; the choice of the next step among a token's neighbours reads it too.
//!
//! # Complexity
//! A question first asked costs one breadth-first search, `O(n_B + m_B)` for a block of `n_B`
//! vertices and `m_B` edges, and `n_B` bytes; later it is an array look-up. Fields exist only for
//! blocks of at most [`MAX_FIELD_VERTICES`] vertices whose index (levels × (`n_B` + 1) × `n_B`
//! slots of 4 bytes) stays under [`MAX_SLOTS`] and within the room given (at most
//! [`MAX_FIELD_BYTES_PER_PUZZLE`] for all blocks of a puzzle and a quarter of the job's memory
//! budget left, the index at most half of it); the stored fields stop growing at
//! [`MAX_STORED_BYTES`] or the room (later questions are searched each time). Larger blocks route with a
//! search that stops at its goal instead (see [`ear_fill`](super::ear_fill)).
//!
//! # Example
//! On a 4-cycle 0-1-2-3 (all level 0), the distances to 2 avoiding 1 are 0 → 2 (round by 3):
//! `field(adj, level, 1, Some(1), 2)` is `[2, UNREACHED, 0, 1]`.
//!
//! # Reference
//! Memoised breadth-first search (all-pairs distances computed on demand), as in any textbook on
//! graph algorithms (Cormen et al., "Introduction to Algorithms", ch. 22).

/// Distance of a vertex outside the part, on `avoid`, or cut off from the goal.
pub(crate) const UNREACHED: u8 = u8::MAX;

/// Largest block given fields (distances fit a byte).
pub(crate) const MAX_FIELD_VERTICES: usize = 200;

/// Largest index of fields for one block: 2^18 slots (1 MiB).
pub(crate) const MAX_SLOTS: usize = 1 << 18;

/// Most bytes of stored fields for one block.
pub(crate) const MAX_STORED_BYTES: usize = 4 << 20;

/// Most bytes of fields (indices and stored) for all the blocks of one puzzle; blocks past it
/// route by search.
pub(crate) const MAX_FIELD_BYTES_PER_PUZZLE: u64 = 16 << 20;

/// The distance fields of one block asked so far.
#[derive(Debug)]
pub(crate) struct RouteFields {
    /// Vertices of the block.
    len: usize,
    /// For each question `(lvl, avoid or len, to)`: 0, or 1 + the index of its field in `stored`.
    slot: Vec<u32>,
    /// Fields, `len` bytes each.
    stored: Vec<u8>,
    /// A field searched when `stored` is full.
    spare: Vec<u8>,
    queue: Vec<u32>,
    /// Bytes already charged to a budget.
    pub charged: u64,
    /// Most bytes `stored` may take.
    stored_limit: usize,
}

impl RouteFields {
    /// Fields for a block of `len` vertices asked with level bounds `lvl < levels`; `None` if the
    /// block is too large for them.
    /// `room` bounds the bytes held in all (the index included); `None` also when the index
    /// alone takes more than half of it.
    pub(crate) fn new(len: usize, levels: usize, room: u64) -> Option<Self> {
        let index = Self::index_bytes(len, levels)?;
        if index > room / 2 {
            return None;
        }
        let slots = (index / 4) as usize;
        Some(Self {
            stored_limit: ((room - index) as usize).min(MAX_STORED_BYTES),
            len,
            slot: vec![0; slots],
            stored: Vec::new(),
            spare: vec![UNREACHED; len],
            queue: Vec::with_capacity(len),
            charged: 0,
        })
    }

    /// Bytes of the index for a block of `len` vertices asked with level bounds `lvl < levels`;
    /// `None` if the block is too large for fields.
    pub(crate) fn index_bytes(len: usize, levels: usize) -> Option<u64> {
        let slots = levels.checked_mul(len + 1)?.checked_mul(len)?;
        if len > MAX_FIELD_VERTICES || slots > MAX_SLOTS {
            return None;
        }
        Some(4 * slots as u64)
    }

    /// Bytes held: the index, the stored fields and the search's scratch.
    pub(crate) fn bytes(&self) -> u64 {
        4 * self.slot.len() as u64
            + self.stored.capacity() as u64
            + self.spare.len() as u64
            + 4 * self.queue.capacity() as u64
    }

    /// Distances to `to` inside the vertices of level `< lvl` other than `avoid`.
    pub(crate) fn field(
        &mut self,
        adj: &[Vec<u32>],
        level: &[u32],
        lvl: u32,
        avoid: Option<u32>,
        to: u32,
    ) -> &[u8] {
        let len = self.len;
        let a = avoid.map_or(len, |a| a as usize);
        let key = ((lvl as usize) * (len + 1) + a) * len + to as usize;
        // A question outside the index (a level past the plan's) is searched and not kept.
        let s = self.slot.get(key).copied().unwrap_or(0) as usize;
        if s != 0 {
            return &self.stored[(s - 1) * len..s * len];
        }
        let field = &mut self.spare;
        field.fill(UNREACHED);
        field[to as usize] = 0;
        self.queue.clear();
        self.queue.push(to);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head] as usize;
            head += 1;
            for &u in &adj[v] {
                let ui = u as usize;
                if level[ui] < lvl && ui != a && field[ui] == UNREACHED {
                    field[ui] = field[v] + 1;
                    self.queue.push(u);
                }
            }
        }
        // `stored` grows by doubling: keep its capacity, not only its length, in bounds.
        let grown = (self.stored.len() + len).max(2 * self.stored.capacity());
        if (grown > self.stored_limit && self.stored.len() + len > self.stored.capacity())
            || key >= self.slot.len()
        {
            return &self.spare;
        }
        self.stored.extend_from_slice(&self.spare);
        let index = self.stored.len() / len;
        self.slot[key] = index as u32;
        &self.stored[(index - 1) * len..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_four_cycle() {
        let adj = vec![vec![1, 3], vec![0, 2], vec![1, 3], vec![2, 0]];
        let level = vec![0; 4];
        let mut f = RouteFields::new(4, 2, 1 << 20).expect("small");
        assert_eq!(f.field(&adj, &level, 1, Some(1), 2), &[2, UNREACHED, 0, 1]);
        // Asked again: the stored answer.
        assert_eq!(f.field(&adj, &level, 1, Some(1), 2), &[2, UNREACHED, 0, 1]);
        assert_eq!(f.field(&adj, &level, 1, None, 2), &[2, 1, 0, 1]);
    }

    /// A room too small for the index gives no fields; a room with little left for storing
    /// answers the same, searching each time.
    #[test]
    fn the_room_bounds_the_fields() {
        let adj = vec![vec![1, 3], vec![0, 2], vec![1, 3], vec![2, 0]];
        let level = vec![0; 4];
        let index = RouteFields::index_bytes(4, 2).expect("small");
        assert!(RouteFields::new(4, 2, 2 * index - 1).is_none());
        let mut tight = RouteFields::new(4, 2, 2 * index).expect("room for the index");
        tight.stored_limit = 8; // two fields, then searched each time
        let mut roomy = RouteFields::new(4, 2, 1 << 20).expect("room");
        for _ in 0..3 {
            for avoid in [None, Some(0), Some(1), Some(2), Some(3)] {
                for to in 0..4 {
                    if avoid == Some(to) {
                        continue;
                    }
                    let want = roomy.field(&adj, &level, 1, avoid, to).to_vec();
                    assert_eq!(tight.field(&adj, &level, 1, avoid, to), &want[..]);
                }
            }
        }
        assert!(tight.stored.capacity() <= 8);
    }

    /// Against Floyd–Warshall on the same induced subgraph, for random graphs, levels and
    /// avoided vertices, asking every question twice (searched, then stored).
    #[test]
    #[allow(clippy::needless_range_loop)] // Floyd–Warshall reads best as index loops
    fn fields_are_the_distances_of_floyd_warshall() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        for _ in 0..40 {
            let len = rng.random_range(2..=12usize);
            let mut adj = vec![Vec::new(); len];
            for _ in 0..rng.random_range(0..3 * len) {
                let (u, v) = (rng.random_range(0..len), rng.random_range(0..len));
                if u != v && !adj[u].contains(&(v as u32)) {
                    adj[u].push(v as u32);
                    adj[v].push(u as u32);
                }
            }
            let levels = rng.random_range(1..=4usize);
            let level: Vec<u32> = (0..len)
                .map(|_| rng.random_range(0..levels as u32))
                .collect();
            let mut f = RouteFields::new(len, levels + 1, 1 << 20).expect("small");
            for _ in 0..2 {
                for lvl in 1..=levels as u32 {
                    for avoid in (0..len as u32).map(Some).chain([None]) {
                        let inside = |v: usize| level[v] < lvl && Some(v as u32) != avoid;
                        let mut d = vec![vec![u32::MAX; len]; len];
                        for v in 0..len {
                            if inside(v) {
                                d[v][v] = 0;
                                for &u in &adj[v] {
                                    if inside(u as usize) {
                                        d[v][u as usize] = 1;
                                    }
                                }
                            }
                        }
                        for k in 0..len {
                            for i in 0..len {
                                for j in 0..len {
                                    let via = d[i][k].saturating_add(d[k][j]);
                                    if via < d[i][j] {
                                        d[i][j] = via;
                                    }
                                }
                            }
                        }
                        for to in 0..len {
                            if !inside(to) {
                                continue;
                            }
                            let got = f.field(&adj, &level, lvl, avoid, to as u32).to_vec();
                            for v in 0..len {
                                let want = if d[v][to] == u32::MAX {
                                    UNREACHED
                                } else {
                                    d[v][to] as u8
                                };
                                assert_eq!(got[v], want, "lvl {lvl} avoid {avoid:?} to {to} v {v}");
                            }
                        }
                    }
                }
            }
        }
    }
}
