//! Inputs shared by the server's integration tests.

/// The rows of an open `n x n` grid with the policeman and the thief in opposite corners and no
/// exit: a cop-and-thief game of 2 n^4 states, long enough at n = 100 to be seen running.
pub fn open_grid_rows(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match (i, j) {
                    (0, 0) => 'C',
                    _ if i == n - 1 && j == n - 1 => 'T',
                    _ => '.',
                })
                .collect()
        })
        .collect()
}
