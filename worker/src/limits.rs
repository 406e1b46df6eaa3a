//! Size limits checked before a job is queued, so no input can make a worker allocate without
//! bound. The server sets them from its flags and reports them in `ServerInfo`.

/// Default [`Limits::max_job_memory`]: 4 GiB, so that the scale benchmarks' jobs fit with room
/// to spare (the 10^7-vertex / 5·10^7-edge game is estimated at 392 MiB, the 100 x 100
/// policeman-and-thief grid at 815 MiB, a group job at its fixed part plus the 1 GiB chain
/// budget; see `worker/tests/memory_estimates.rs`).
pub const DEFAULT_MAX_JOB_MEMORY: u64 = 4 << 30;

/// Upper bounds on job sizes. Each solver's `validate` checks the ones that apply to it and answers
/// [`SolveError::LimitExceeded`](crate::SolveError::LimitExceeded) stating the bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Vertices of an explicit game graph, or of a puzzle graph.
    pub max_vertices: u64,
    /// Edges of an explicit game graph, or of a puzzle graph.
    pub max_edges: u64,
    /// States of an implicit game (e.g. policeman-and-thief: 2 x cells^2).
    pub max_states: u64,
    /// Degree of a permutation group (points 0..d-1).
    pub max_degree: u64,
    /// Group elements a counting job may enumerate one by one.
    pub max_group_elements: u64,
    /// Total integers in one job's permutations (generators + candidates, targets), bounding memory.
    pub max_permutation_entries: u64,
    /// Bytes a permutation group's stabiliser chain (explicit transversals, strong generators) or
    /// its exported transversals may occupy.
    pub max_group_chain_bytes: u64,
    /// Bytes one job may allocate while it runs: its working memory and the answer it builds (its
    /// input is already in memory). [`JobSpec::validate`](crate::job::JobSpec::validate) refuses a
    /// job whose [`memory_estimate`](crate::job::JobSpec::memory_estimate) is above it, and the
    /// parts of a group job that are only known while running (the stabiliser chain, the
    /// enumeration) are charged against what is left of it, so the sum of the running jobs'
    /// budgets bounds what the solvers hold.
    pub max_job_memory: u64,
    /// Moves in one principal variation (a game's `line`): longer lines are cut and say so.
    pub max_line: u64,
    /// Moves and line steps one game answer may report in all (its witnesses); beyond it the job
    /// gets RESOURCE_EXHAUSTED naming this limit.
    pub max_reported_moves: u64,
    /// Letters (the sum of the exponents' absolute values) of the words one group answer may
    /// report in all; beyond it the job gets RESOURCE_EXHAUSTED naming this limit. Words are
    /// off unless asked for; a word of Sym(1000) from two random generators has about 3 million.
    pub max_word_letters: u64,
    /// Moves of the token puzzle one job may report in all (the move sequences a `puzzle` job
    /// asks for); beyond it the job gets RESOURCE_EXHAUSTED naming this limit.
    pub max_puzzle_moves: u64,
    /// Threads one job may use inside its solver (solvers that parallelise, e.g. the
    /// policeman-and-thief game). Not a size limit, but a resource cap set by the server.
    pub threads_per_job: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_vertices: 20_000_000,
            max_edges: 100_000_000,
            max_states: 400_000_000,
            max_degree: 100_000,
            max_group_elements: 100_000_000,
            max_permutation_entries: 50_000_000,
            max_group_chain_bytes: 1 << 30,
            max_job_memory: DEFAULT_MAX_JOB_MEMORY,
            max_line: 10_000,
            max_reported_moves: 10_000_000,
            max_word_letters: 10_000_000,
            max_puzzle_moves: 100_000_000,
            threads_per_job: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
        }
    }
}
