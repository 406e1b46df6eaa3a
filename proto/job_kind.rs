//! The job kinds, named once for both sides of the wire.
//!
//! Every layer keys its per-kind code on [`JobKind`]: the server's conversions
//! (`server/src/kinds/`), the CLI's commands (`client/cli/src/commands/`), the kind list that
//! `ServerInfo.job_kinds` reports, the metrics labels and the tests that walk every kind. Matches
//! over it are exhaustive, so a kind added here is a compile error everywhere it still needs code.

use crate::v1::{job, job_result};

/// One kind of solve job: one field of the `Job.kind` oneof and of the `JobResult.result` oneof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobKind {
    /// Win/lose/draw on an explicit directed game graph (`GameGraphJob`).
    Game,
    /// The policeman-and-thief game on a grid (`CopThiefJob`).
    CopThief,
    /// Order, base, orbits and membership for a permutation group (`GroupJob`).
    Group,
    /// Counting colourings up to symmetry, Burnside / Pólya (`CountJob`).
    Count,
    /// Reachability in the token-swapping puzzle on a graph (`PuzzleJob`).
    Puzzle,
}

impl JobKind {
    /// Every kind, in the order of the `Job.kind` oneof's field numbers.
    pub const ALL: [JobKind; 5] = [
        JobKind::Game,
        JobKind::Group,
        JobKind::Count,
        JobKind::Puzzle,
        JobKind::CopThief,
    ];

    /// The kind's field name in the `Job.kind` oneof (`"cop_thief"`): what `ServerInfo.job_kinds`
    /// lists, what the metrics label, and what errors name.
    pub const fn name(self) -> &'static str {
        match self {
            JobKind::Game => "game",
            JobKind::CopThief => "cop_thief",
            JobKind::Group => "group",
            JobKind::Count => "count",
            JobKind::Puzzle => "puzzle",
        }
    }

    /// The `orbit` CLI's command for the kind (`"cop-thief"`).
    pub const fn cli_command(self) -> &'static str {
        match self {
            JobKind::Game => "game",
            JobKind::CopThief => "cop-thief",
            JobKind::Group => "group",
            JobKind::Count => "count",
            JobKind::Puzzle => "puzzle",
        }
    }

    /// The kind of a job's payload.
    pub const fn of_job(kind: &job::Kind) -> JobKind {
        match kind {
            job::Kind::Game(_) => JobKind::Game,
            job::Kind::CopThief(_) => JobKind::CopThief,
            job::Kind::Group(_) => JobKind::Group,
            job::Kind::Count(_) => JobKind::Count,
            job::Kind::Puzzle(_) => JobKind::Puzzle,
        }
    }

    /// The kind of a result's payload.
    pub const fn of_result(result: &job_result::Result) -> JobKind {
        match result {
            job_result::Result::Game(_) => JobKind::Game,
            job_result::Result::CopThief(_) => JobKind::CopThief,
            job_result::Result::Group(_) => JobKind::Group,
            job_result::Result::Count(_) => JobKind::Count,
            job_result::Result::Puzzle(_) => JobKind::Puzzle,
        }
    }

    /// The kind named `name` (a `Job.kind` field name), if there is one.
    pub fn from_name(name: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind names, comma-separated, for error messages ("expected one of: ...").
    pub fn names() -> String {
        JobKind::ALL.map(JobKind::name).join(", ")
    }
}

impl std::fmt::Display for JobKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use prost_types::FileDescriptorSet;

    use super::JobKind;

    /// The oneof fields of `message` in `orbit.v1`, as (number, name), in declaration order.
    fn oneof_fields(message: &str, oneof: &str) -> Vec<(i32, String)> {
        let set = FileDescriptorSet::decode(crate::FILE_DESCRIPTOR_SET).expect("descriptor set");
        let file = set
            .file
            .iter()
            .find(|f| f.package() == "orbit.v1")
            .expect("orbit.v1");
        let message = file
            .message_type
            .iter()
            .find(|m| m.name() == message)
            .expect("message");
        let index = message
            .oneof_decl
            .iter()
            .position(|o| o.name() == oneof)
            .expect("oneof") as i32;
        message
            .field
            .iter()
            .filter(|f| f.oneof_index == Some(index))
            .map(|f| (f.number(), f.name().to_string()))
            .collect()
    }

    /// The registry is the proto's oneofs, read from the compiled descriptor (an oracle
    /// independent of the hand-written names): same names, in field-number order, for both the
    /// job and the result.
    #[test]
    fn all_is_the_oneof_of_job_and_result() {
        let listed: Vec<&str> = JobKind::ALL.iter().map(|k| k.name()).collect();
        for (message, oneof) in [("Job", "kind"), ("JobResult", "result")] {
            let mut fields = oneof_fields(message, oneof);
            fields.sort();
            let names: Vec<&str> = fields.iter().map(|(_, n)| n.as_str()).collect();
            assert_eq!(names, listed, "{message}.{oneof}");
        }
    }

    #[test]
    fn names_round_trip_and_commands_are_kebab_case() {
        for kind in JobKind::ALL {
            assert_eq!(JobKind::from_name(kind.name()), Some(kind));
            assert_eq!(kind.cli_command(), kind.name().replace('_', "-"));
        }
        assert_eq!(JobKind::from_name("chess"), None);
        assert_eq!(JobKind::names(), "game, group, count, puzzle, cop_thief");
    }
}
