//! `orbit cop-thief`: the policeman-and-thief grid game, from its text format `n m`, then n rows
//! of `. * C T E`.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::witness::check_cop_thief_witness;
use orbit_worker::SolveError;
use orbit_worker::cop_thief::{CopThiefValue, parse_grid_text};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit cop-thief`: `n m`, then n rows of `. * C T E` → a policeman-and-thief job (no queries).
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: a second exit ...`.
///
/// ```
/// let job = orbit_cli::text_formats::cop_thief_job("1 3\nC.T\n").unwrap();
/// assert_eq!(job.rows, vec!["C.T"]);
/// ```
pub fn cop_thief_job(text: &str) -> Result<pb::CopThiefJob, SolveError> {
    let grid = parse_grid_text(text)?;
    Ok(pb::CopThiefJob {
        rows: grid.row_strings(),
        queries: Vec::new(),
        ..Default::default()
    })
}

/// proto → domain for a policeman-and-thief answer (the CLI prints the domain's `Display`).
pub fn cop_thief_from_proto(result: &pb::CopThiefResult) -> Option<CopThiefValue> {
    match (pb::Winner::try_from(result.winner).ok()?, result.half_moves) {
        (pb::Winner::Cop, Some(n)) => Some(CopThiefValue::Cop(n)),
        (pb::Winner::Thief, Some(n)) => Some(CopThiefValue::Thief(n)),
        (pb::Winner::Draw, _) => Some(CopThiefValue::Draw),
        _ => None,
    }
}

/// Parses the grid (for line-numbered errors before anything is sent), solves it over gRPC and
/// prints `cop N`, `thief N` or `draw`; with `play`, then the optimal chase, checked first.
pub async fn run(
    endpoints: &[BatchEndpoint],
    file: Option<&Path>,
    play: bool,
) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let mut job = cop_thief_job(&text)?;
    job.line = play;
    let pb::job_result::Result::CopThief(answer) =
        solve_one(endpoints, "cop-thief", pb::job::Kind::CopThief(job.clone())).await?
    else {
        anyhow::bail!("the server answered a cop-thief job with another kind of result");
    };
    let value = cop_thief_from_proto(&answer)
        .ok_or_else(|| anyhow::anyhow!("malformed cop-thief answer {answer:?}"))?;
    if let Err(wrong) = check_cop_thief_witness(&job, &answer) {
        anyhow::bail!("the server's answer does not check out: {wrong}");
    }
    println!("{value}");
    if play {
        show_chase(&job.rows, &answer)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Pause between frames on a terminal, so that a person can follow the chase.
const FRAME_PAUSE: std::time::Duration = std::time::Duration::from_millis(250);

/// Prints the start and every state of the answer's line as frames; on a terminal each frame
/// replaces the last.
fn show_chase(rows: &[String], answer: &pb::CopThiefResult) -> anyhow::Result<()> {
    let start = pb::CopThiefState {
        cop: find(rows, 'C'),
        thief: find(rows, 'T'),
        thief_to_move: false,
    };
    let terminal = std::io::stdout().is_terminal();
    let mut out = std::io::stdout().lock();
    for (played, state) in std::iter::once(&start).chain(&answer.line).enumerate() {
        if terminal && played > 0 {
            std::thread::sleep(FRAME_PAUSE);
            // Back to the previous frame's header: the rows, the header, the blank line.
            write!(out, "\x1b[{}A", rows.len() + 2)?;
        }
        write!(out, "{}", frame(rows, played, state))?;
        out.flush()?;
    }
    if answer.line_truncated {
        writeln!(out, "(the chase goes on: cut at the server's max_line)")?;
    }
    Ok(())
}

/// One frame: `K cop|thief`, the rows with `C` and `T` where they stand (`C` alone when they
/// share a cell), a blank line.
///
/// ```
/// use orbit_client::pb;
/// let rows = vec!["C.T".to_string()];
/// let state = pb::CopThiefState {
///     cop: Some(pb::GridCell { row: 0, col: 1 }),
///     thief: Some(pb::GridCell { row: 0, col: 2 }),
///     thief_to_move: true,
/// };
/// assert_eq!(orbit_cli::kinds::cop_thief::frame(&rows, 1, &state), "1 thief\n.CT\n\n");
/// ```
pub fn frame(rows: &[String], played: usize, state: &pb::CopThiefState) -> String {
    let at = |c: &Option<pb::GridCell>| c.as_ref().map(|c| (c.row as usize, c.col as usize));
    let (cop, thief) = (at(&state.cop), at(&state.thief));
    let mover = if state.thief_to_move { "thief" } else { "cop" };
    let mut text = format!("{played} {mover}\n");
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let shown = if cop == Some((r, c)) {
                'C'
            } else if thief == Some((r, c)) {
                'T'
            } else if ch == 'C' || ch == 'T' {
                '.'
            } else {
                ch
            };
            text.push(shown);
        }
        text.push('\n');
    }
    text.push('\n');
    text
}

fn find(rows: &[String], wanted: char) -> Option<pb::GridCell> {
    rows.iter().enumerate().find_map(|(r, row)| {
        row.chars()
            .position(|ch| ch == wanted)
            .map(|c| pb::GridCell {
                row: r as u32,
                col: c as u32,
            })
    })
}
