//! The command line of a bench binary: the names of the cases to run and numeric flags
//! (`--elements 100`). A case name is any argument that is not a flag (`--…`) nor a flag's value;
//! `cargo bench` adds `--bench` at the end, which is skipped like any flag.

pub struct BenchArgs {
    args: Vec<String>,
}

impl BenchArgs {
    /// The process's arguments (without the program name).
    pub fn from_env() -> BenchArgs {
        BenchArgs {
            args: std::env::args().skip(1).collect(),
        }
    }

    /// The value of `--name N`, when given and a number.
    pub fn flag(&self, name: &str) -> Option<u64> {
        self.args
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.args.get(i + 1))
            .and_then(|s| s.parse::<u64>().ok())
    }

    /// The case names asked for (none: every case).
    pub fn wanted(&self) -> Vec<&str> {
        self.args
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                !a.starts_with("--") && (*i == 0 || !self.args[i - 1].starts_with("--"))
            })
            .map(|(_, a)| a.as_str())
            .collect()
    }
}
