//! The `orbit` binary as a user runs it: each command against its embedded server (real gRPC over
//! loopback), checking the exact text output and the exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn orbit(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orbit"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("ORBIT_SERVER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn orbit");
    let mut input = child.stdin.take().expect("piped stdin");
    if let Some(text) = stdin {
        // A command refused by its flags exits before it reads its input: the pipe is then
        // closed, which is not the test's failure.
        match input.write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.expect("write stdin"),
        }
    }
    drop(input);
    child.wait_with_output().expect("orbit runs")
}

fn stdout_of(args: &[&str], stdin: Option<&str>) -> String {
    let out = orbit(args, stdin);
    assert!(
        out.status.success(),
        "orbit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn fails_with(args: &[&str], stdin: Option<&str>, needle: &str) {
    let out = orbit(args, stdin);
    assert!(!out.status.success(), "orbit {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(needle),
        "stderr of {args:?} lacks {needle:?}: {err}"
    );
}

#[test]
fn game_prints_one_line_per_vertex() {
    assert_eq!(
        stdout_of(&["game", "examples/game.txt"], None),
        "draw\ndraw\ndraw\nwin 3\nlose 2\nwin 1\nlose 0\n"
    );
    assert_eq!(
        stdout_of(&["game", "-"], Some("2 1\n1 2\n")),
        "win 1\nlose 0\n"
    );
    assert_eq!(stdout_of(&["game"], Some("1 1\n1 1\n")), "draw\n");
    fails_with(
        &["game"],
        Some("2 1\n1 3\n"),
        "line 2: vertex 3 out of range 1..2",
    );
    fails_with(&["game"], Some("2 2\n1 2\n"), "line");
    fails_with(&["game", "no/such/file"], None, "cannot read no/such/file");
}

#[test]
fn game_moves_and_line_print_every_move_and_the_principal_variation() {
    assert_eq!(
        stdout_of(&["game", "--moves", "examples/game.txt"], None),
        "draw moves 2:draw\n\
         draw moves 3:draw\n\
         draw moves 1:draw,4:win 3\n\
         win 3 moves 5:lose 2\n\
         lose 2 moves 6:win 1\n\
         win 1 moves 7:lose 0,4:win 3\n\
         lose 0 moves\n"
    );
    assert_eq!(
        stdout_of(&["game", "--line", "examples/game.txt"], None),
        "draw line 2 3 1\n\
         draw line 3 1 2\n\
         draw line 1 2 3\n\
         win 3 line 5 6 7\n\
         lose 2 line 6 7\n\
         win 1 line 7\n\
         lose 0 line\n"
    );
    assert_eq!(
        stdout_of(&["game", "--moves", "--line", "-"], Some("2 1\n1 2\n")),
        "win 1 moves 2:lose 0 line 2\nlose 0 moves line\n"
    );
}

#[test]
fn cop_thief_play_prints_the_answer_then_a_frame_per_half_move() {
    assert_eq!(
        stdout_of(&["cop-thief", "--play"], Some("1 3\nC.T\n")),
        "cop 3\n\
         0 cop\nC.T\n\n\
         1 thief\n.CT\n\n\
         2 cop\n.CT\n\n\
         3 thief\n..C\n\n"
    );
    // The published example: the thief reaches the exit in 2 half-moves.
    let frames = stdout_of(&["cop-thief", "--play", "examples/cop-thief.txt"], None);
    assert!(frames.starts_with("thief 2\n0 cop\n"), "{frames}");
    assert!(
        frames.ends_with("2 cop\nC.....\n..**..\n..*...\n......\n....T.\n\n"),
        "{frames}"
    );
}

#[test]
fn cop_thief_prints_the_winner() {
    assert_eq!(
        stdout_of(&["cop-thief", "examples/cop-thief.txt"], None),
        "thief 2\n"
    );
    assert_eq!(stdout_of(&["cop-thief"], Some("1 2\nCT\n")), "cop 1\n");
    assert_eq!(stdout_of(&["cop-thief"], Some("1 3\nC*T\n")), "draw\n");
    fails_with(&["cop-thief"], Some("2 2\nC.\n.\n"), "line 3");
    fails_with(&["cop-thief"], Some("1 3\nC.E\n"), "no thief");
}

/// With stderr not a terminal (a pipe here), a single-job command prints its answer and nothing
/// else: no progress bar, and no word from the embedded server's shutdown, whose drain must find
/// the job answered (it used to find it still counted in flight now and then, and warn that it
/// was cancelling it). Repeated, since that was a race.
#[test]
fn single_job_commands_print_only_the_answer_and_the_embedded_server_stays_quiet() {
    for round in 0..20 {
        let out = orbit(&["cop-thief", "examples/cop-thief.txt"], None);
        assert!(out.status.success(), "round {round}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "thief 2\n");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "round {round}: stderr not empty"
        );
    }
}

#[test]
fn puzzle_answers_the_published_sample() {
    assert_eq!(
        stdout_of(&["puzzle", "examples/puzzle.txt"], None),
        "Yes\nYes\nNo\n"
    );
    assert_eq!(stdout_of(&["puzzle"], Some("1 0 1\n0\n0\n")), "Yes\n");
    fails_with(
        &["puzzle"],
        Some("3 1 1\n1 2\n0 1 1\n0 1 2\n"),
        "appears twice",
    );
}

/// Replays `orbit puzzle --moves` output on the contest-format input `text`: every `Yes` line's
/// 1-based vertices must walk token 0 along edges to its target; `No` lines carry nothing.
/// Returns the verdicts.
fn replay_puzzle_moves(text: &str, out: &str) -> Vec<bool> {
    let mut nums = text
        .split_ascii_whitespace()
        .map(|x| x.parse::<usize>().unwrap());
    let (n, m, q) = (
        nums.next().unwrap(),
        nums.next().unwrap(),
        nums.next().unwrap(),
    );
    let mut adjacent = std::collections::HashSet::new();
    for _ in 0..m {
        let (u, v) = (nums.next().unwrap(), nums.next().unwrap());
        adjacent.insert((u, v));
        adjacent.insert((v, u));
    }
    let start: Vec<usize> = (0..n).map(|_| nums.next().unwrap()).collect();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), q, "{out}");
    let mut verdicts = Vec::new();
    for line in lines {
        let target: Vec<usize> = (0..n).map(|_| nums.next().unwrap()).collect();
        let mut words = line.split(' ');
        match words.next() {
            Some("No") => {
                assert_eq!(line, "No");
                verdicts.push(false);
            }
            Some("Yes") => {
                let mut arr = start.clone();
                let mut blank = 1 + arr.iter().position(|&t| t == 0).unwrap();
                for w in words {
                    let v: usize = w.parse().unwrap();
                    assert!(adjacent.contains(&(blank, v)), "{blank} -> {v} in {line}");
                    arr.swap(blank - 1, v - 1);
                    blank = v;
                }
                assert_eq!(arr, target, "{line}");
                verdicts.push(true);
            }
            _ => panic!("bad line {line:?}"),
        }
    }
    verdicts
}

#[test]
fn puzzle_moves_replay_to_their_targets() {
    let sample = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/puzzle.txt"
    ))
    .unwrap();
    let out = stdout_of(&["puzzle", "--moves", "examples/puzzle.txt"], None);
    assert_eq!(replay_puzzle_moves(&sample, &out), vec![true, true, false]);
    // A target equal to the start: `Yes` alone.
    assert_eq!(
        stdout_of(&["puzzle", "--moves"], Some("2 1 1\n1 2\n0 1\n0 1\n")),
        "Yes\n"
    );
    // A 3x3 grid, every target a walk of the blank or a swap (unreachable), in small chunks.
    let mut text = String::from("9 12 30\n");
    for v in 1..=9usize {
        if v % 3 != 0 {
            text.push_str(&format!("{v} {}\n", v + 1));
        }
        if v + 3 <= 9 {
            text.push_str(&format!("{v} {}\n", v + 3));
        }
    }
    text.push_str("1 2 3 4 0 5 6 7 8\n");
    let mut state: Vec<usize> = vec![1, 2, 3, 4, 0, 5, 6, 7, 8];
    let mut blank = 4usize;
    for i in 0..30usize {
        // A fixed pseudo-random walk, so the test needs no generator.
        for k in 0..(i * 7 % 23) {
            let options: Vec<usize> = [
                blank.wrapping_sub(3),
                blank + 3,
                blank.wrapping_sub(1),
                blank + 1,
            ]
            .into_iter()
            .filter(|&c| c < 9 && (c / 3 == blank / 3 || c % 3 == blank % 3))
            .collect();
            let c = options[(i + k) % options.len()];
            state.swap(blank, c);
            blank = c;
        }
        let mut t = state.clone();
        if i % 3 == 2 {
            let (a, b) = if t[0] != 0 && t[1] != 0 {
                (0, 1)
            } else {
                (7, 8)
            };
            t.swap(a, b);
        }
        text.push_str(
            &t.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        );
        text.push('\n');
    }
    let out = stdout_of(
        &["--max-message-bytes", "4000", "puzzle", "--moves"],
        Some(&text),
    );
    let verdicts = replay_puzzle_moves(&text, &out);
    assert_eq!(verdicts.iter().filter(|&&v| !v).count(), 10, "{out}");
}

#[test]
fn group_prints_the_order_and_memberships() {
    assert_eq!(
        stdout_of(&["group", "examples/group.txt"], None),
        "40320\nYes\nYes\nYes\n"
    );
    // Alt(5) from (1,2,3) and (1,2,3,4,5): a transposition is not a member.
    assert_eq!(
        stdout_of(
            &["group"],
            Some("5 2 2\n(1,2,3)\n(1,2,3,4,5)\n(1,2)\n(1,2)(3,4)\n")
        ),
        "60\nNo\nYes\n"
    );
    fails_with(&["group"], Some("3 1 0\n(1,4)\n"), "line 2");
    fails_with(&["group"], Some("3 1 0\n(1,2,1)\n"), "line 2");
}

#[test]
fn count_prints_the_number_alone() {
    let cases: &[(&[&str], &str)] = &[
        (&["count", "necklace", "--n", "6", "--k", "2"], "14\n"),
        (&["count", "bracelet", "--n", "6", "--k", "2"], "13\n"),
        (
            &["count", "torus", "--rows", "2", "--cols", "2", "--k", "2"],
            "7\n",
        ),
        (
            &["count", "torus", "--rows", "3", "--cols", "3", "--k", "2"],
            "48\n",
        ),
        (
            &[
                "count",
                "torus",
                "--rows",
                "2",
                "--cols",
                "2",
                "--k",
                "2",
                "--no-rotation",
            ],
            "7\n",
        ),
        (&["count", "cube", "faces", "--k", "2"], "10\n"),
        (&["count", "cube", "vertices", "--k", "2"], "23\n"),
        (&["count", "cube", "edges", "--k", "2"], "218\n"),
        (&["count", "graphs", "--n", "11"], "1018997864\n"),
        (&["count", "tree", "--depth", "1", "--k", "2"], "6\n"),
        (
            &[
                "count",
                "necklace",
                "--n",
                "6",
                "--k",
                "2",
                "--modulus",
                "5",
            ],
            "4\n",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(stdout_of(args, None), *want, "orbit {args:?}");
    }
    // The cube's faces as an explicit group (the `orbit group` format), and Pólya's content.
    let cube = "6 2 0\n(1,2,3,4)\n(1,5,3,6)\n";
    let file = std::env::temp_dir().join(format!("orbit-cli-cube-{}.txt", std::process::id()));
    std::fs::write(&file, cube).expect("write temp file");
    let path = file.to_str().expect("utf-8 path");
    assert_eq!(
        stdout_of(&["count", "group", path, "--k", "2"], None),
        "10\n"
    );
    // 3 black and 3 white faces: 2 ways (three around a corner, or a band of three).
    assert_eq!(
        stdout_of(&["count", "group", path, "--content", "3,3"], None),
        "2\n"
    );
    std::fs::remove_file(&file).ok();
    fails_with(
        &["count", "necklace", "--n", "6", "--k", "0"],
        None,
        "INVALID_ARGUMENT",
    );
    fails_with(
        &["count", "cube", "corners", "--k", "2"],
        None,
        "faces, vertices or edges",
    );
}

#[test]
fn solve_prints_one_line_per_job_and_fails_on_bad_ones() {
    let out = stdout_of(&["solve", "examples/batch.jsonl"], None);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let jobs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/batch.jsonl"
    ))
    .expect("batch");
    assert_eq!(
        lines.len(),
        jobs.lines().filter(|l| !l.trim().is_empty()).count()
    );
    assert!(lines.iter().all(|l| l.get("result").is_some()), "{out}");

    let out = orbit(&["solve", "examples/bad-input.jsonl"], None);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    for line in &lines {
        assert_eq!(line["error"]["codeName"], "INVALID_ARGUMENT", "{line}");
        // The google.rpc details as fields: the reason, and the bad field the message starts
        // with (`game.edges[1]`, `kind`, `line 3` for the line that is not a job).
        let error = &line["error"];
        assert_eq!(error["reason"], "INVALID_FIELD", "{line}");
        assert_eq!(error["retryDelayMs"], 0, "{line}");
        assert_eq!(error["metadata"], serde_json::json!({}), "{line}");
        let violations = error["fieldViolations"].as_array().expect("a list");
        assert_eq!(violations.len(), 1, "{line}");
        let field = violations[0]["field"].as_str().expect("field");
        let description = violations[0]["description"].as_str().expect("description");
        assert_eq!(
            error["message"].as_str().expect("message"),
            format!("{field}: {description}"),
            "{line}"
        );
    }
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    assert!(
        ids.contains(&"bad-edge") && ids.contains(&"no-kind") && ids.contains(&"line 3"),
        "{ids:?}"
    );
    let field_of = |id: &str| {
        let line = lines.iter().find(|l| l["id"] == id).expect("the line");
        line["error"]["fieldViolations"][0]["field"].clone()
    };
    assert_eq!(field_of("no-kind"), "kind");
    assert_eq!(field_of("line 3"), "line 3");
}

/// The help text is part of the CLI: moving the binary to its own crate must not change its
/// opening line (clap's `about`) or the version it reports.
#[test]
fn help_and_version_are_unchanged() {
    let help = stdout_of(&["--help"], None);
    assert_eq!(
        help.lines().next(),
        Some(
            "Rust client for Orbit (a wrapper over the generated gRPC client) and the `orbit` CLI."
        )
    );
    assert_eq!(
        stdout_of(&["--version"], None),
        format!("orbit {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn health_and_info_talk_to_a_server() {
    assert_eq!(stdout_of(&["health"], None), "SERVING\n");
    let info: serde_json::Value = serde_json::from_str(&stdout_of(&["info"], None)).expect("JSON");
    let kinds: Vec<&str> = info["jobKinds"]
        .as_array()
        .expect("kinds")
        .iter()
        .filter_map(|k| k.as_str())
        .collect();
    let registry: Vec<&str> = orbit_api::JobKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(kinds, registry);
    fails_with(
        &["--server", "http://127.0.0.1:1", "health"],
        None,
        "cannot connect",
    );
}

#[test]
fn puzzle_targets_are_streamed_in_chunks_when_messages_are_small() {
    // A 60-vertex graph: a 7-cycle with a chord (a Wilson block, non-bipartite: any arrangement
    // of its tokens), then a path (nothing moves there). Targets alternate between arrangements
    // that only permute the block's non-root tokens (reachable) and ones that also swap two path
    // tokens (unreachable).
    let n = 60usize;
    let mut edges: Vec<(usize, usize)> = (0..7).map(|i| (i, (i + 1) % 7)).collect();
    edges.push((0, 3));
    edges.extend((7..n).map(|v| (v - 1, v)));
    let start: Vec<usize> = (0..n).collect();
    let mut text = format!("{n} {} 40\n", edges.len());
    for (u, v) in &edges {
        text.push_str(&format!("{} {}\n", u + 1, v + 1));
    }
    let line = |t: &[usize]| {
        t.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(" ")
            + "\n"
    };
    text.push_str(&line(&start));
    let mut want = String::new();
    for i in 0..40usize {
        let mut t = start.clone();
        t.swap(1 + i % 6, 1 + (i + 1) % 6);
        if i % 2 == 1 {
            t.swap(20, 21);
            want.push_str("No\n");
        } else {
            want.push_str("Yes\n");
        }
        text.push_str(&line(&t));
    }
    assert_eq!(stdout_of(&["puzzle"], Some(&text)), want);
    // 4,000-byte messages: a handful of targets per chunk, answers still in target order.
    assert_eq!(
        stdout_of(&["--max-message-bytes", "4000", "puzzle"], Some(&text)),
        want
    );
}

/// Two servers in this process (a runtime on its own threads), for the multi-endpoint tests.
fn two_servers() -> (
    tokio::runtime::Runtime,
    Vec<orbit_cli::embedded::EmbeddedServer>,
) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let servers = runtime.block_on(async {
        let mut servers = Vec::new();
        for _ in 0..2 {
            let config = orbit_server::ServerConfig {
                workers: Some(1),
                ..orbit_server::ServerConfig::default()
            };
            servers.push(
                orbit_cli::embedded::EmbeddedServer::start(config)
                    .await
                    .expect("a server"),
            );
        }
        servers
    });
    (runtime, servers)
}

/// The ids of JSON event lines, sorted.
fn sorted_ids(lines: &str) -> Vec<String> {
    let mut ids: Vec<String> = lines
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["id"].as_str().expect("an id").to_string()
        })
        .collect();
    ids.sort();
    ids
}

fn batch_ids() -> Vec<String> {
    let batch = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/batch.jsonl"
    ))
    .expect("examples/batch.jsonl");
    sorted_ids(&batch)
}

#[test]
fn solve_spreads_a_batch_over_several_servers_even_with_one_down() {
    let (_runtime, servers) = two_servers();
    // The second address refuses connections: its share goes to the live servers.
    let list = format!("{},{}", servers[0].url(), servers[1].url());
    let out = stdout_of(
        &[
            "--server",
            &list,
            "--server",
            "http://127.0.0.1:1",
            "solve",
            "--window",
            "2",
            "examples/batch.jsonl",
        ],
        None,
    );
    assert_eq!(sorted_ids(&out), batch_ids());
    assert!(!out.contains("\"error\""), "{out}");
}

#[test]
fn solve_resume_finishes_a_cut_off_batch_and_answers_each_job_once() {
    let (_runtime, servers) = two_servers();
    let dir = std::env::temp_dir().join(format!("orbit-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out_path = dir.join("out.jsonl");
    let out = out_path.to_str().expect("utf-8 path");
    // A first run, then cut as a crash would: the first three answers kept, a fourth cut off
    // mid-line, and an UNAVAILABLE error line (a job no server could take) that must be redone.
    let full = stdout_of(
        &[
            "--server",
            &servers[0].url(),
            "solve",
            "examples/batch.jsonl",
        ],
        None,
    );
    let lines: Vec<&str> = full.lines().collect();
    let unavailable = serde_json::json!({
        "id": serde_json::from_str::<serde_json::Value>(lines[4]).expect("JSON")["id"],
        "error": {"code": 14, "codeName": "UNAVAILABLE", "message": "no server"}
    });
    let cut = format!(
        "{}\n{}\n{}\n{unavailable}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..lines[3].len() / 2]
    );
    std::fs::write(&out_path, cut).expect("write OUT");

    let run = orbit(
        &[
            "--server",
            &servers[1].url(),
            "solve",
            "--resume",
            out,
            "examples/batch.jsonl",
        ],
        None,
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.stdout.is_empty(), "answers go to OUT, not stdout");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("3 of 11 jobs already answered"), "{stderr}");
    let resumed = std::fs::read_to_string(&out_path).expect("OUT");
    assert_eq!(sorted_ids(&resumed), batch_ids());
    assert!(resumed.starts_with(&format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2])));
    assert!(!resumed.contains("UNAVAILABLE"), "{resumed}");

    // Resuming a finished batch sends nothing and changes nothing.
    let again = orbit(
        &[
            "--server",
            &servers[1].url(),
            "solve",
            "--resume",
            out,
            "examples/batch.jsonl",
        ],
        None,
    );
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("11 of 11 jobs already answered"));
    assert_eq!(std::fs::read_to_string(&out_path).expect("OUT"), resumed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The exit status and message of each class of failure, as the README's "Errors" table states
/// them: 1 for a parse error, a failed job, unreadable input and an unreachable server; 2 (clap's)
/// for a malformed command line.
#[test]
fn each_failure_class_has_its_exit_status_and_message() {
    let failure = |args: &[&str], stdin: Option<&str>| {
        let out = orbit(args, stdin);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // A parse error names the line; nothing is sent.
    assert_eq!(
        failure(&["game"], Some("2 1\n1 3\n")),
        (
            Some(1),
            "orbit: line 2: vertex 3 out of range 1..2\n".to_string()
        )
    );
    // A job the server refuses: its status, `CODE: message`.
    assert_eq!(
        failure(&["count", "graphs", "--n", "5000"], None),
        (
            Some(1),
            "orbit: RESOURCE_EXHAUSTED: count.n: the cycle types of S_5000 (partitions of 5000) \
             to visit exceeds the limit of 100000000 (max_group_elements)\n"
                .to_string()
        )
    );
    // Input that is not UTF-8, and a missing file.
    let not_utf8 = std::env::temp_dir().join(format!("orbit-cli-{}.txt", std::process::id()));
    std::fs::write(&not_utf8, b"2 1\n1 \xff\n").expect("write a temporary file");
    let path = not_utf8.to_str().expect("a UTF-8 temp path");
    let (code, err) = failure(&["game", path], None);
    let _ = std::fs::remove_file(&not_utf8);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!("orbit: cannot read {path}: stream did not contain valid UTF-8\n")
    );
    let (code, err) = failure(&["game", "no/such/file.txt"], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("orbit: cannot read no/such/file.txt: "),
        "{err}"
    );
    // No server there.
    let (code, err) = failure(&["--server", "http://127.0.0.1:1", "info"], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("orbit: cannot connect to http://127.0.0.1:1: "),
        "{err}"
    );
    // A malformed command line: clap's usage error.
    let (code, err) = failure(&["count", "necklace", "--n", "six", "--k", "2"], None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("invalid value 'six'"), "{err}");
}

/// Found by `fuzz/run.sh` (text_puzzle): a header claiming n = 3,999,999,995 vertices made the
/// parser allocate 16 GB before reading the 5-token start line; now that line is the error.
#[test]
fn puzzle_with_a_huge_claimed_n_fails_on_its_short_line() {
    let text = "3999999995 6 3\n4 1\n4 5\n3 5\n3 4\n2 3\n1 3\n1 2 3 4 0\n0 1 2 3 4\n";
    let out = orbit(&["puzzle"], Some(text));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "orbit: line 8: start: expected n = 3999999995 tokens, found 5\n"
    );
}

/// Every kind of the registry has its `orbit` command, under the name the registry gives it.
#[test]
fn every_job_kind_has_its_command() {
    use clap::CommandFactory;
    let cli = orbit_cli::Cli::command();
    for kind in orbit_api::JobKind::ALL {
        assert!(
            cli.find_subcommand(kind.cli_command()).is_some(),
            "no `orbit {}` command for the {kind} kind",
            kind.cli_command()
        );
    }
}

/// The permutation of `0..d` written in 1-based cycle notation, as image array.
fn cycles_to_images(text: &str, d: usize) -> Vec<usize> {
    let mut images: Vec<usize> = (0..d).collect();
    for cycle in text.split(')').filter(|c| c.len() > 1) {
        let points: Vec<usize> = cycle
            .trim_start_matches('(')
            .split(',')
            .map(|p| p.parse::<usize>().expect("point") - 1)
            .collect();
        for (i, &x) in points.iter().enumerate() {
            images[x] = points[(i + 1) % points.len()];
        }
    }
    images
}

/// A printed word (`g1*g3^-1*g2^2`, `<identity>`) multiplied out left to right over `gens`.
fn multiply_printed_word(word: &str, gens: &[Vec<usize>]) -> Vec<usize> {
    let d = gens[0].len();
    let mut images: Vec<usize> = (0..d).collect();
    if word == "<identity>" {
        return images;
    }
    for letter in word.split('*') {
        let (g, e) = match letter.split_once('^') {
            Some((g, e)) => (g, e.parse::<i64>().expect("exponent")),
            None => (letter, 1),
        };
        let g = &gens[g
            .strip_prefix('g')
            .expect("g")
            .parse::<usize>()
            .expect("index")
            - 1];
        let mut inverse = vec![0; d];
        for (x, &y) in g.iter().enumerate() {
            inverse[y] = x;
        }
        let step = if e > 0 { g } else { &inverse };
        for _ in 0..e.abs() {
            for x in images.iter_mut() {
                *x = step[*x];
            }
        }
    }
    images
}

#[test]
fn group_words_print_a_checked_word_after_each_yes() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/group.txt"
    ))
    .expect("example");
    let lines: Vec<&str> = text.lines().collect();
    let gens: Vec<Vec<usize>> = lines[1..3].iter().map(|l| cycles_to_images(l, 8)).collect();
    let out = stdout_of(&["group", "--words", "examples/group.txt"], None);
    let printed: Vec<&str> = out.lines().collect();
    assert_eq!(printed[0], "40320");
    assert_eq!(printed.len(), 4);
    for (line, candidate) in printed[1..].iter().zip(&lines[3..]) {
        let word = line.strip_prefix("Yes ").expect("a member with its word");
        assert_eq!(
            multiply_printed_word(word, &gens),
            cycles_to_images(candidate, 8),
            "{line} for {candidate}"
        );
    }
    assert_eq!(printed[2], "Yes <identity>");
    // Non-members print `No` alone; a member given by its generator is one letter.
    assert_eq!(
        stdout_of(
            &["group", "--words", "-"],
            Some("4 1 2\n(1,2,3,4)\n(1,2)\n(1,2,3,4)\n")
        ),
        "4\nNo\nYes g1\n"
    );
    fails_with(
        &["group", "--words", "--word-effort", "101", "-"],
        Some("3 1 1\n(1,2)\n()\n"),
        "group.word_effort",
    );
    fails_with(
        &["group", "--word-effort", "3", "-"],
        Some("3 1 1\n(1,2)\n()\n"),
        "--words",
    );
}

/// The edges of a graph file, 1-based, each as (min, max), sorted.
fn graph_edges(text: &str) -> Vec<(usize, usize)> {
    let mut edges: Vec<(usize, usize)> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.starts_with("colours"))
        .map(|l| {
            let v: Vec<usize> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (v[0].min(v[1]), v[0].max(v[1]))
        })
        .collect();
    edges.sort_unstable();
    edges
}

#[test]
fn graph_symmetry_prints_order_orbits_generators_and_labels() {
    let out = stdout_of(&["graph", "symmetry", "examples/graph-petersen.txt"], None);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "120");
    assert_eq!(lines[1], "orbits 1");
    assert_eq!(lines[2], "1 2 3 4 5 6 7 8 9 10");
    let g: usize = lines[3]
        .strip_prefix("generators ")
        .unwrap()
        .parse()
        .unwrap();
    let generators = &lines[4..4 + g];
    assert_eq!(lines[4 + g], "canonical");
    let mut labels: Vec<usize> = lines[5 + g]
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    labels.sort_unstable();
    assert_eq!(labels, (1..=10).collect::<Vec<_>>());
    assert_eq!(lines.len(), 6 + g);
    // The generators with a `d k 0` header are an `orbit group` file of the same order, and
    // each maps the edges onto the edges.
    let group_file = format!("10 {g} 0\n{}\n", generators.join("\n"));
    assert_eq!(stdout_of(&["group"], Some(&group_file)), "120\n");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/graph-petersen.txt"
    ))
    .unwrap();
    let edges = graph_edges(&text);
    for generator in generators {
        let image = cycles_to_images(generator, 10);
        let mut mapped: Vec<(usize, usize)> = edges
            .iter()
            .map(|&(u, v)| {
                let (a, b) = (image[u - 1] + 1, image[v - 1] + 1);
                (a.min(b), a.max(b))
            })
            .collect();
        mapped.sort_unstable();
        assert_eq!(mapped, edges, "{generator}");
    }
    // A coloured path: the colours forbid the flip.
    let out = stdout_of(
        &["graph", "symmetry", "-"],
        Some("3 2\n1 2\n2 3\ncolours 1 2 2\n"),
    );
    assert!(
        out.starts_with("1\norbits 3\n1\n2\n3\ngenerators 0\ncanonical\n"),
        "{out}"
    );
}

#[test]
fn graph_isomorphic_prints_a_checked_map_or_no() {
    let out = stdout_of(
        &["graph", "isomorphic", "examples/graph-petersen.txt", "-"],
        Some(
            "10 15\n1 3\n3 5\n5 2\n2 4\n4 1\n1 6\n2 7\n3 8\n4 9\n5 10\n6 7\n7 8\n8 9\n9 10\n10 6\n",
        ),
    );
    let image: Vec<usize> = out
        .trim_end()
        .strip_prefix("Yes ")
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    let a = graph_edges(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/graph-petersen.txt"
        ))
        .unwrap(),
    );
    let b = graph_edges(
        "10 15\n1 3\n3 5\n5 2\n2 4\n4 1\n1 6\n2 7\n3 8\n4 9\n5 10\n6 7\n7 8\n8 9\n9 10\n10 6\n",
    );
    let mut mapped: Vec<(usize, usize)> = a
        .iter()
        .map(|&(u, v)| {
            (
                image[u - 1].min(image[v - 1]),
                image[u - 1].max(image[v - 1]),
            )
        })
        .collect();
    mapped.sort_unstable();
    assert_eq!(mapped, b);
    // Same degree sequence (cubic, 10 vertices), not isomorphic: exit 0 with `No`.
    assert_eq!(
        stdout_of(
            &[
                "graph",
                "isomorphic",
                "examples/graph-petersen.txt",
                "examples/graph-prism.txt"
            ],
            None
        ),
        "No\n"
    );
    fails_with(
        &["graph", "symmetry", "-"],
        Some("3 2\n1 2\n2 1\n"),
        "line 3: v: the edge 2 1 repeats the edge on line 2",
    );
    fails_with(
        &["graph", "symmetry", "-"],
        Some("3 1\n3 3\n"),
        "line 2: v: a self-loop at vertex 3",
    );
    fails_with(
        &["graph", "isomorphic", "examples/graph-petersen.txt", "-"],
        Some("2 1\n1 5\n"),
        "line 2: v: vertex 5 out of range 1..2",
    );
}

#[test]
fn count_graph_colourings_prints_the_number_alone() {
    // Petersen: 2-colourings of its vertices up to its 120 symmetries (Burnside by hand over
    // S5's classes acting on 2-subsets: (1024 + 10·2^7 + 15·2^6 + 20·2^4 + 20·2^3 + 30·2^3 +
    // 24·2^2) / 120 = 34).
    assert_eq!(
        stdout_of(
            &[
                "count",
                "graph-colourings",
                "examples/graph-petersen.txt",
                "--k",
                "2"
            ],
            None
        ),
        "34\n"
    );
    // The 4-cycle's edges with 2 colours: the square's bracelets, 6.
    assert_eq!(
        stdout_of(
            &["count", "graph-colourings", "-", "--k", "2", "--edges"],
            Some("4 4\n1 2\n2 3\n3 4\n4 1\n")
        ),
        "6\n"
    );
    assert_eq!(
        stdout_of(
            &[
                "count",
                "graph-colourings",
                "-",
                "--content",
                "2,2",
                "--cycle-index"
            ],
            Some("4 4\n1 2\n2 3\n3 4\n4 1\n")
        ),
        "2\n1/8 x1^4\n1/4 x1^2 x2\n3/8 x2^2\n1/4 x4\n"
    );
    fails_with(
        &["count", "graph-colourings", "-", "--k", "2"],
        Some("2 1\n1 1\n"),
        "line 2: v: a self-loop at vertex 1",
    );
}
