//! Structured fuzz inputs: `arbitrary`-derived shapes of each protobuf job kind, biased towards
//! small numbers and valid permutations so the fuzzer reaches validation's inner checks and the
//! solvers, while still producing any value a caller could send.

use arbitrary::Arbitrary;
use orbit_api::v1 as pb;

/// A `u32` that is usually small: vertex numbers, degrees and tokens must be near each other to
/// be valid, which uniform 32-bit values almost never are.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Num32 {
    Tiny(u8),
    Small(u16),
    Any(u32),
}

impl Num32 {
    /// The value.
    pub fn get(self) -> u32 {
        match self {
            Num32::Tiny(x) => u32::from(x % 16),
            Num32::Small(x) => u32::from(x),
            Num32::Any(x) => x,
        }
    }
}

/// A `u64` that is usually small (counting parameters).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Num64 {
    Tiny(u8),
    Small(u16),
    Any(u64),
}

impl Num64 {
    /// The value.
    pub fn get(self) -> u64 {
        match self {
            Num64::Tiny(x) => u64::from(x % 16),
            Num64::Small(x) => u64::from(x),
            Num64::Any(x) => x,
        }
    }
}

/// `JobOptions`, or none.
#[derive(Debug, Arbitrary)]
pub struct OptionsInput {
    pub id: String,
    pub options: Option<(u64, bool)>,
}

impl OptionsInput {
    /// A job with these options and `kind`.
    pub fn job(&self, kind: Option<pb::job::Kind>) -> pb::Job {
        pb::Job {
            id: self.id.clone(),
            options: self.options.map(|(deadline_ms, progress)| pb::JobOptions {
                deadline_ms,
                progress,
            }),
            kind,
        }
    }
}

fn edges(list: &[(Num32, Num32)]) -> Vec<pb::Edge> {
    list.iter()
        .map(|&(from, to)| pb::Edge {
            from: from.get(),
            to: to.get(),
        })
        .collect()
}

/// A `game` job.
#[derive(Debug, Arbitrary)]
pub struct GameInput {
    pub options: OptionsInput,
    pub vertices: Num32,
    pub edges: Vec<(Num32, Num32)>,
    pub query: Vec<Num32>,
    /// Ask for every move's value.
    pub moves: bool,
    /// Ask for the principal variations.
    pub line: bool,
}

impl GameInput {
    /// The protobuf job.
    pub fn job(&self) -> pb::Job {
        self.options.job(Some(pb::job::Kind::Game(pb::GameGraphJob {
            vertices: self.vertices.get(),
            edges: edges(&self.edges),
            query: self.query.iter().map(|q| q.get()).collect(),
            moves: self.moves,
            line: self.line,
        })))
    }
}

/// One permutation as a caller may send it: images, cycles (well-formed GAP text built from
/// point lists, or any text), both, or neither.
#[derive(Debug, Arbitrary)]
pub enum PermInput {
    Images(Vec<Num32>),
    /// Each inner list is one cycle of 1-based points.
    Cycles(Vec<Vec<Num32>>),
    /// Images `0..degree` shuffled by these swap indices: a valid permutation of any degree.
    Shuffled(Vec<u16>),
    Text(String),
    Both(Vec<Num32>, String),
    Neither,
}

impl PermInput {
    /// The protobuf permutation for a group of `degree` points.
    pub fn proto(&self, degree: u32) -> pb::Permutation {
        let images = |list: &[Num32]| list.iter().map(|x| x.get()).collect();
        match self {
            PermInput::Images(list) => pb::Permutation {
                images: images(list),
                cycles: String::new(),
            },
            PermInput::Cycles(cycles) => pb::Permutation {
                images: Vec::new(),
                cycles: cycles
                    .iter()
                    .map(|c| {
                        let points: Vec<String> = c.iter().map(|x| x.get().to_string()).collect();
                        format!("({})", points.join(","))
                    })
                    .collect(),
            },
            PermInput::Shuffled(swaps) => pb::Permutation {
                images: shuffled(degree, swaps),
                cycles: String::new(),
            },
            PermInput::Text(text) => pb::Permutation {
                images: Vec::new(),
                cycles: text.clone(),
            },
            PermInput::Both(list, text) => pb::Permutation {
                images: images(list),
                cycles: text.clone(),
            },
            PermInput::Neither => pb::Permutation::default(),
        }
    }
}

/// `0..n` permuted by Fisher–Yates with `swaps` as the random choices (n capped at 4096 so a
/// huge claimed degree does not make the harness itself allocate).
fn shuffled(n: u32, swaps: &[u16]) -> Vec<u32> {
    let n = n.min(4096);
    let mut out: Vec<u32> = (0..n).collect();
    for (i, &s) in swaps.iter().enumerate().take(n as usize) {
        let j = i + usize::from(s) % (n as usize - i);
        out.swap(i, j);
    }
    out
}

/// A `group` job.
#[derive(Debug, Arbitrary)]
pub struct GroupInput {
    pub options: OptionsInput,
    pub degree: Num32,
    pub generators: Vec<PermInput>,
    pub candidates: Vec<PermInput>,
    /// Words for the members, and their effort (any value, so that the bound is tried).
    pub words: bool,
    pub word_effort: Option<u32>,
}

impl GroupInput {
    /// The protobuf job.
    pub fn job(&self) -> pb::Job {
        let degree = self.degree.get();
        self.options.job(Some(pb::job::Kind::Group(pb::GroupJob {
            degree,
            generators: self.generators.iter().map(|p| p.proto(degree)).collect(),
            candidates: self.candidates.iter().map(|p| p.proto(degree)).collect(),
            words: self.words,
            word_effort: self.word_effort,
        })))
    }
}

/// The family of a `count` job.
#[derive(Debug, Arbitrary)]
pub enum FamilyInput {
    Necklace(Num64, Num64),
    Bracelet(Num64, Num64),
    Torus {
        rows: Num64,
        cols: Num64,
        k: Num64,
        no_rotation: bool,
    },
    Cube(i32, Num64),
    Graphs(Num64),
    BinaryTree(Num64, Num64),
    Group {
        degree: Num32,
        generators: Vec<PermInput>,
        k: Num64,
        content: Vec<Num64>,
        cycle_index: bool,
    },
    Unset,
}

/// The modulus of a `count` job: none, a number, or any text.
#[derive(Debug, Arbitrary)]
pub enum ModulusInput {
    None,
    Number(Num64),
    Text(String),
}

/// A `count` job.
#[derive(Debug, Arbitrary)]
pub struct CountInput {
    pub options: OptionsInput,
    pub family: FamilyInput,
    pub modulus: ModulusInput,
}

impl CountInput {
    /// The protobuf job.
    pub fn job(&self) -> pb::Job {
        use pb::count_job::Family as F;
        let necklace = |n: Num64, k: Num64| pb::NecklaceCount {
            n: n.get(),
            k: k.get(),
        };
        let family = match &self.family {
            FamilyInput::Necklace(n, k) => Some(F::Necklace(necklace(*n, *k))),
            FamilyInput::Bracelet(n, k) => Some(F::Bracelet(necklace(*n, *k))),
            FamilyInput::Torus {
                rows,
                cols,
                k,
                no_rotation,
            } => Some(F::Torus(pb::TorusCount {
                rows: rows.get(),
                cols: cols.get(),
                k: k.get(),
                no_rotation: *no_rotation,
            })),
            FamilyInput::Cube(part, k) => Some(F::Cube(pb::CubeCount {
                part: *part,
                k: k.get(),
            })),
            FamilyInput::Graphs(n) => Some(F::Graphs(pb::GraphsCount { n: n.get() })),
            FamilyInput::BinaryTree(depth, k) => Some(F::BinaryTree(pb::BinaryTreeCount {
                depth: depth.get(),
                k: k.get(),
            })),
            FamilyInput::Group {
                degree,
                generators,
                k,
                content,
                cycle_index,
            } => {
                let degree = degree.get();
                Some(F::Group(pb::GroupCount {
                    degree,
                    generators: generators.iter().map(|p| p.proto(degree)).collect(),
                    k: k.get(),
                    content: content.iter().map(|c| c.get()).collect(),
                    cycle_index: *cycle_index,
                }))
            }
            FamilyInput::Unset => None,
        };
        let modulus = match &self.modulus {
            ModulusInput::None => String::new(),
            ModulusInput::Number(m) => m.get().to_string(),
            ModulusInput::Text(t) => t.clone(),
        };
        self.options
            .job(Some(pb::job::Kind::Count(pb::CountJob { family, modulus })))
    }
}

/// One arrangement of a puzzle: a valid shuffle of `0..n`, or any list.
#[derive(Debug, Arbitrary)]
pub enum ArrangementInput {
    Shuffled(Vec<u16>),
    Raw(Vec<Num32>),
}

impl ArrangementInput {
    fn proto(&self, n: u32) -> pb::Arrangement {
        pb::Arrangement {
            tokens: match self {
                ArrangementInput::Shuffled(swaps) => shuffled(n, swaps),
                ArrangementInput::Raw(list) => list.iter().map(|x| x.get()).collect(),
            },
        }
    }
}

/// A `puzzle` job.
#[derive(Debug, Arbitrary)]
pub struct PuzzleInput {
    pub options: OptionsInput,
    pub n: Num32,
    pub edges: Vec<(Num32, Num32)>,
    pub start: Option<ArrangementInput>,
    pub targets: Vec<ArrangementInput>,
    /// `targets_packed`, usually empty (both set is an error).
    pub targets_packed: Vec<u8>,
    /// Ask for the move sequences too.
    pub moves: bool,
}

impl PuzzleInput {
    /// The protobuf job.
    pub fn job(&self) -> pb::Job {
        let n = self.n.get();
        self.options.job(Some(pb::job::Kind::Puzzle(pb::PuzzleJob {
            n,
            edges: edges(&self.edges),
            start: self.start.as_ref().map(|a| a.proto(n)),
            targets: self.targets.iter().map(|a| a.proto(n)).collect(),
            targets_packed: self.targets_packed.clone(),
            moves: self.moves,
        })))
    }
}

/// One grid cell of a policeman-and-thief job.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum CellInput {
    Free,
    Wall,
    Cop,
    Thief,
    Exit,
    Other(char),
}

impl CellInput {
    fn char(self) -> char {
        match self {
            CellInput::Free => '.',
            CellInput::Wall => '*',
            CellInput::Cop => 'C',
            CellInput::Thief => 'T',
            CellInput::Exit => 'E',
            CellInput::Other(c) => c,
        }
    }
}

/// A queried state; a missing cell is sent as such.
#[derive(Debug, Arbitrary)]
pub struct StateInput {
    pub cop: Option<(Num32, Num32)>,
    pub thief: Option<(Num32, Num32)>,
    pub thief_to_move: bool,
}

/// A `cop_thief` job: rows of cells, and queried states.
#[derive(Debug, Arbitrary)]
pub struct CopThiefInput {
    pub options: OptionsInput,
    pub rows: Vec<Vec<CellInput>>,
    pub queries: Vec<StateInput>,
    /// Ask for every move's value.
    pub moves: bool,
    /// Ask for the optimal chases.
    pub line: bool,
}

impl CopThiefInput {
    /// The protobuf job.
    pub fn job(&self) -> pb::Job {
        let cell = |c: Option<(Num32, Num32)>| {
            c.map(|(row, col)| pb::GridCell {
                row: row.get(),
                col: col.get(),
            })
        };
        self.options
            .job(Some(pb::job::Kind::CopThief(pb::CopThiefJob {
                rows: self
                    .rows
                    .iter()
                    .map(|r| r.iter().map(|c| c.char()).collect())
                    .collect(),
                queries: self
                    .queries
                    .iter()
                    .map(|q| pb::CopThiefState {
                        cop: cell(q.cop),
                        thief: cell(q.thief),
                        thief_to_move: q.thief_to_move,
                    })
                    .collect(),
                moves: self.moves,
                line: self.line,
            })))
    }
}
