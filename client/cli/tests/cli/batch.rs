//! `orbit batch` as a user runs it, against a server in this process with a SQLite batch store in
//! a temporary directory: submit, results (each job once, the same answers as `orbit solve`),
//! status, list, cancel, delete, the exit codes, and the request-id retry of a create that broke
//! off.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use orbit_cli::embedded::EmbeddedServer;
use orbit_server::ServerConfig;
use serde_json::Value;

/// A server with a batch store, on a runtime of its own (the tests run `orbit` as a process).
struct Server {
    url: String,
    // Dropped in this order: the server task, its runtime, then the store's directory.
    _server: EmbeddedServer,
    _runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
}

impl Server {
    /// Two workers, the store in `DIR/b.db`; `max_batch_jobs` if given.
    fn start(max_batch_jobs: Option<u64>) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let defaults = ServerConfig::default();
        let config = ServerConfig {
            store: Some(format!("sqlite:{}", dir.path().join("b.db").display())),
            workers: Some(2),
            shutdown_grace: 0.0,
            max_batch_jobs: max_batch_jobs.unwrap_or(defaults.max_batch_jobs),
            ..defaults
        };
        let server = runtime
            .block_on(EmbeddedServer::start(config))
            .expect("a server");
        Self {
            url: server.url(),
            _server: server,
            _runtime: runtime,
            dir,
        }
    }

    /// `orbit --server URL ARGS`.
    fn orbit(&self, args: &[&str]) -> Output {
        let mut all = vec!["--server", &self.url];
        all.extend_from_slice(args);
        orbit(&all)
    }

    /// A file in the server's scratch directory.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write a file");
        path
    }
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orbit"));
    command
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("ORBIT_SERVER")
        .env_remove("ORBIT_CA")
        .env_remove("ORBIT_AUTH_TOKEN_FILE")
        .stdin(Stdio::null());
    command
}

/// Runs `orbit ARGS` from the repository root.
fn orbit(args: &[&str]) -> Output {
    command().args(args).output().expect("orbit runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code, with stderr in the message when it is not `expected`.
fn assert_code(output: &Output, expected: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(expected),
        "{what}: stdout {:?}, stderr {:?}",
        stdout(output),
        stderr(output)
    );
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A uint64 field of proto3 JSON (a string), 0 when left out.
fn uint(value: &Value, field: &str) -> u64 {
    match &value[field] {
        Value::Null => 0,
        Value::String(s) => s.parse().expect("a uint64 string"),
        other => other.as_u64().expect("a number"),
    }
}

/// `orbit batch submit`, which must print one batch id (32 hexadecimal digits) and exit 0.
fn submit(server: &Server, file: &Path, extra: &[&str]) -> String {
    let file = file.to_str().expect("a UTF-8 path");
    let mut args = vec!["batch", "submit", file];
    args.extend_from_slice(extra);
    let out = server.orbit(&args);
    assert_code(&out, 0, "submit");
    let text = stdout(&out);
    let id = text.strip_suffix('\n').expect("one line");
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "a batch id: {text:?}"
    );
    id.to_string()
}

/// `orbit batch status ID` as JSON.
fn status(server: &Server, id: &str) -> Value {
    let out = server.orbit(&["batch", "status", id]);
    assert_code(&out, 0, "status");
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 1, "one line");
    lines.into_iter().next().expect("one line")
}

/// The lines of `examples/batch.jsonl`.
fn example_lines() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/batch.jsonl"
    ))
    .expect("examples/batch.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The example jobs, then a second job with the first one's id, a blank line and a line that is
/// not JSON; and the number of job lines.
fn mixed_file(server: &Server) -> (PathBuf, usize) {
    let mut lines = example_lines();
    lines.push(r#"{"id": "triangle", "game": {"vertices": 1}}"#.to_string());
    lines.push(String::new());
    lines.push("this is not json".to_string());
    let jobs = lines.iter().filter(|l| !l.is_empty()).count();
    (
        server.write("mixed.jsonl", &(lines.join("\n") + "\n")),
        jobs,
    )
}

/// Event lines compared as answers: the timing of a result (it differs run to run) and the
/// message and the field violations of the error of the line that is not JSON (the CLI's own for
/// `orbit solve`, naming the line; the server's in a batch, naming `kind`) taken out; sorted.
fn answers(lines: &[Value], bad_line_id: &str) -> Vec<String> {
    let mut answers: Vec<String> = lines
        .iter()
        .map(|line| {
            let mut line = line.clone();
            if let Some(result) = line.get_mut("result").and_then(Value::as_object_mut) {
                result.remove("timing");
            }
            if line["id"] == bad_line_id {
                assert_eq!(line["error"]["codeName"], "INVALID_ARGUMENT", "{line}");
                assert_eq!(line["error"]["reason"], "INVALID_FIELD", "{line}");
                let error = line["error"].as_object_mut().expect("an error");
                error.remove("message");
                error.remove("fieldViolations");
            }
            line.to_string()
        })
        .collect();
    answers.sort();
    answers
}

/// How many times each id occurs.
fn id_counts<S: Into<String>>(ids: impl IntoIterator<Item = S>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for id in ids {
        *counts.entry(id.into()).or_insert(0) += 1;
    }
    counts
}

/// The ids of JSON job lines, counted.
fn file_ids(lines: &[String]) -> HashMap<String, usize> {
    id_counts(lines.iter().map(|l| {
        serde_json::from_str::<Value>(l).expect("a JSON job")["id"]
            .as_str()
            .expect("an id")
            .to_string()
    }))
}

#[test]
fn a_submitted_batch_gets_the_answers_orbit_solve_prints_each_once() {
    let server = Server::start(None);
    let (file, jobs) = mixed_file(&server);
    let id = submit(&server, &file, &["--name", "mixed"]);

    let out = server.orbit(&["batch", "results", &id, "--follow"]);
    // The line that is not JSON failed.
    assert_code(&out, 1, "results --follow");
    let text = stdout(&out);
    let events = json_lines(&text);
    assert_eq!(events.len(), jobs, "{text}");
    let mut want_ids = file_ids(&example_lines());
    *want_ids.get_mut("triangle").expect("triangle") += 1;
    let bad_line_id = format!("line {}", jobs + 1);
    want_ids.insert(bad_line_id.clone(), 1);
    assert_eq!(
        id_counts(events.iter().map(|e| e["id"].as_str().expect("an id"))),
        want_ids,
        "every job exactly once"
    );

    // The same answers as `orbit solve` against the same server.
    let solved = orbit(&[
        "--server",
        &server.url,
        "solve",
        file.to_str().expect("UTF-8"),
    ]);
    assert_code(&solved, 1, "solve");
    assert_eq!(
        answers(&events, &bad_line_id),
        answers(&json_lines(&stdout(&solved)), &bad_line_id)
    );
    let bad = events
        .iter()
        .find(|e| e["id"] == bad_line_id)
        .expect("the bad line's event");
    assert_eq!(bad["error"]["code"], 3, "{bad}");

    // Status: done, with the counts.
    let batch = status(&server, &id);
    assert_eq!(batch["id"], id.as_str());
    assert_eq!(batch["name"], "mixed");
    assert_eq!(batch["state"], "BATCH_STATE_DONE");
    let counts = &batch["counts"];
    let jobs = jobs as u64;
    assert_eq!(
        [
            uint(counts, "jobs"),
            uint(counts, "finished"),
            uint(counts, "ok"),
            uint(counts, "failed"),
            uint(counts, "cancelled"),
        ],
        [jobs, jobs, jobs - 1, 1, 0],
        "{batch}"
    );
    let request_id = batch["requestId"].as_str().expect("a request id");
    assert!(
        request_id.len() == 32 && request_id.chars().all(|c| c.is_ascii_hexdigit()),
        "a random 128-bit request id: {request_id}"
    );

    // The listing holds it, one JSON line per batch.
    let good = submit(&server, Path::new("examples/batch.jsonl"), &[]);
    let out = server.orbit(&["batch", "list"]);
    assert_code(&out, 0, "list");
    let listed = json_lines(&stdout(&out));
    let ids: Vec<&str> = listed
        .iter()
        .map(|b| b["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, [good.as_str(), id.as_str()], "newest first");
    assert_eq!(listed[1], batch);

    // --after N: only the events after the N-th, in the same order.
    let out = server.orbit(&["batch", "results", &id, "--after", "5"]);
    assert_code(&out, 1, "results --after 5");
    let rest = json_lines(&stdout(&out));
    assert_eq!(rest, events[5..], "the events after the fifth");
    let out = server.orbit(&["batch", "results", &id, "--after", &jobs.to_string()]);
    assert_code(&out, 1, "results --after all");
    assert_eq!(stdout(&out), "");

    // A batch of good jobs only: exit 0.
    let out = server.orbit(&["batch", "results", &good, "--follow"]);
    assert_code(&out, 0, "results of the good batch");
    assert_eq!(json_lines(&stdout(&out)).len(), example_lines().len());
}

#[test]
fn every_batch_command_needs_a_server_and_starts_none() {
    for args in [
        &["batch", "submit", "examples/batch.jsonl"][..],
        &["batch", "status", "0123"],
        &["batch", "list"],
        &["batch", "results", "0123", "--follow"],
        &["batch", "cancel", "0123"],
        &["batch", "delete", "0123"],
    ] {
        let out = orbit(args);
        assert_code(&out, 1, &format!("{args:?}"));
        assert_eq!(stdout(&out), "");
        assert_eq!(
            stderr(&out),
            "orbit: orbit batch needs --server URL (or ORBIT_SERVER): batches are kept by an \
             orbit-server with a store; the embedded server this command would start keeps none\n"
        );
    }
    // ORBIT_SERVER serves as --server, and of several servers the first is used.
    let server = Server::start(None);
    let id = submit(&server, Path::new("examples/batch.jsonl"), &[]);
    let out = command()
        .args(["batch", "status", &id])
        .env("ORBIT_SERVER", format!("{},http://127.0.0.1:1", server.url))
        .output()
        .expect("orbit runs");
    assert_code(&out, 0, "status through ORBIT_SERVER");
    assert_eq!(json_lines(&stdout(&out))[0]["id"], id.as_str());
}

#[test]
fn unknown_ids_cancel_and_delete() {
    let server = Server::start(None);
    for args in [
        &["batch", "status", "00000000000000000000000000000000"][..],
        &["batch", "results", "00000000000000000000000000000000"],
        &["batch", "cancel", "00000000000000000000000000000000"],
        &["batch", "delete", "00000000000000000000000000000000"],
    ] {
        let out = server.orbit(args);
        assert_code(&out, 1, &format!("{args:?}"));
        assert_eq!(
            stderr(&out),
            "orbit: NOT_FOUND: no batch 00000000000000000000000000000000\n",
            "{args:?}"
        );
    }

    // Two long jobs (one per worker), then quick ones that wait for a worker.
    let n = 100;
    let rows: Vec<String> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match (i, j) {
                    (0, 0) => 'C',
                    _ if i == n - 1 && j == n - 1 => 'T',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    let long = |id: &str| serde_json::json!({"id": id, "copThief": {"rows": rows}}).to_string();
    let mut lines = vec![long("long-1"), long("long-2")];
    lines.extend(example_lines());
    let file = server.write("slow.jsonl", &(lines.join("\n") + "\n"));
    let id = submit(&server, &file, &[]);

    // Not finished: exit 3, with the events so far.
    let out = server.orbit(&["batch", "results", &id]);
    assert_code(&out, 3, "results of a running batch");

    let out = server.orbit(&["batch", "cancel", &id]);
    assert_code(&out, 0, "cancel");
    let cancelled = json_lines(&stdout(&out));
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["id"], id.as_str());
    assert_eq!(cancelled[0]["state"], "BATCH_STATE_CANCELLED");
    assert!(
        uint(&cancelled[0]["counts"], "cancelled") >= 2,
        "{}",
        cancelled[0]
    );

    // Every job once; the long ones were cancelled; exit 1.
    let out = server.orbit(&["batch", "results", &id, "--follow"]);
    assert_code(&out, 1, "results of a cancelled batch");
    let events = json_lines(&stdout(&out));
    assert_eq!(
        id_counts(events.iter().map(|e| e["id"].as_str().expect("an id"))),
        file_ids(&lines)
    );
    for event in events
        .iter()
        .filter(|e| e["id"] == "long-1" || e["id"] == "long-2")
    {
        assert_eq!(event["error"]["codeName"], "CANCELLED", "{event}");
    }
    // Cancelling again changes nothing.
    let again = server.orbit(&["batch", "cancel", &id]);
    assert_code(&again, 0, "cancel again");
    assert_eq!(
        json_lines(&stdout(&again))[0]["counts"],
        status(&server, &id)["counts"]
    );

    let out = server.orbit(&["batch", "delete", &id]);
    assert_code(&out, 0, "delete");
    assert_eq!(stdout(&out), "");
    for args in [
        &["batch", "status", &id][..],
        &["batch", "delete", &id],
        &["batch", "results", &id],
    ] {
        let out = server.orbit(args);
        assert_code(&out, 1, &format!("{args:?} after delete"));
        assert!(
            stderr(&out).starts_with("orbit: NOT_FOUND: "),
            "{}",
            stderr(&out)
        );
    }
    let out = server.orbit(&["batch", "list"]);
    assert_code(&out, 0, "list");
    assert_eq!(stdout(&out), "");
}

/// The request id in `orbit: batch create broke off (...); finish it with: orbit batch submit
/// FILE --request-id ID`, checking the rest of the line.
fn finish_command_id(stderr: &str, reason: &str, file: &Path) -> String {
    let line = stderr.trim_end();
    assert!(!line.contains('\n'), "one line: {stderr}");
    let prefix = format!("orbit: batch create broke off ({reason}");
    assert!(line.starts_with(&prefix), "{stderr}");
    let command = format!(
        "); finish it with: orbit batch submit {} --request-id ",
        file.display()
    );
    let at = line.find(&command).unwrap_or_else(|| panic!("{stderr}"));
    line[at + command.len()..].to_string()
}

#[test]
fn a_create_refused_over_the_limit_says_how_to_finish_it() {
    let server = Server::start(Some(3));
    let five: Vec<String> = example_lines().into_iter().take(5).collect();
    let file = server.write("five.jsonl", &(five.join("\n") + "\n"));
    let path = file.to_str().expect("UTF-8");

    let out = server.orbit(&["batch", "submit", path]);
    assert_code(&out, 1, "submit over the limit");
    assert_eq!(stdout(&out), "");
    let request_id = finish_command_id(&stderr(&out), "RESOURCE_EXHAUSTED: ", &file);
    assert!(
        request_id.len() == 32 && request_id.chars().all(|c| c.is_ascii_hexdigit()),
        "the random request id: {request_id}"
    );
    // Whole groups of jobs are stored or refused: the batch is sealed with those stored before
    // the refusal (here none: the five came in one group).
    let out = server.orbit(&["batch", "list"]);
    assert_code(&out, 0, "list");
    let listed = json_lines(&stdout(&out));
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["requestId"], request_id.as_str());
    assert_ne!(listed[0]["state"], "BATCH_STATE_OPEN", "{}", listed[0]);
    let stored = uint(&listed[0]["counts"], "jobs");
    assert!(stored <= 3, "{}", listed[0]);
    let id = listed[0]["id"].as_str().expect("an id").to_string();

    // Finishing it as told cannot add what the limit refused: the batch is named and the
    // shortfall said, exit 1.
    let out = server.orbit(&["batch", "submit", path, "--request-id", &request_id]);
    assert_code(&out, 1, "the retry of a sealed batch");
    assert_eq!(stdout(&out), format!("{id}\n"));
    assert!(
        stderr(&out).starts_with(&format!(
            "orbit: batch {id} holds {stored} jobs but {path} has 5: request id {request_id} \
             names a batch that was already sealed"
        )),
        "{}",
        stderr(&out)
    );

    // A request id given: the same one in the message.
    let out = server.orbit(&["batch", "submit", path, "--request-id", "mine-1"]);
    assert_code(&out, 1, "submit over the limit");
    assert_eq!(
        finish_command_id(&stderr(&out), "RESOURCE_EXHAUSTED: ", &file),
        "mine-1"
    );
}

#[test]
fn a_create_finished_with_its_request_id_stores_each_job_once() {
    let server = Server::start(None);
    let (file, jobs) = mixed_file(&server);

    // The same file twice under one request id: one batch.
    let first = submit(&server, &file, &["--request-id", "again-1"]);
    let second = submit(&server, &file, &["--request-id", "again-1"]);
    assert_eq!(first, second);
    let batch = status(&server, &first);
    assert_eq!(uint(&batch["counts"], "jobs"), jobs as u64);
    assert_eq!(batch["requestId"], "again-1");

    // A create cut off by killing `orbit` once the server has committed a group of jobs (it
    // stores what has arrived when the stream pauses; the jobs of a group not yet committed are
    // lost with the stream), then finished from the whole file: the stored ones are skipped,
    // none twice.
    let lines: Vec<String> = (0..1500)
        .map(|i| {
            serde_json::json!({"id": format!("n{i}"), "count": {"necklace": {"n": i % 12 + 1, "k": 2}}})
                .to_string()
        })
        .collect();
    let mut child = command()
        .args([
            "--server",
            &server.url,
            "batch",
            "submit",
            "-",
            "--request-id",
            "cut-1",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn orbit");
    let mut input = child.stdin.take().expect("stdin");
    for line in &lines[..1200] {
        writeln!(input, "{line}").expect("write stdin");
    }
    input.flush().expect("flush stdin");
    let cut = wait_for(&server, "cut-1", |b| uint(&b["counts"], "jobs") >= 1000);
    child.kill().expect("kill orbit");
    let _ = child.wait();
    drop(input);
    assert_eq!(cut["state"], "BATCH_STATE_OPEN", "{cut}");

    let file = server.write("all.jsonl", &(lines.join("\n") + "\n"));
    let id = submit(&server, &file, &["--request-id", "cut-1"]);
    assert_eq!(cut["id"], id.as_str());
    let out = server.orbit(&["batch", "results", &id, "--follow"]);
    assert_code(&out, 0, "results of the finished batch");
    let events = json_lines(&stdout(&out));
    assert_eq!(
        id_counts(events.iter().map(|e| e["id"].as_str().expect("an id"))),
        file_ids(&lines),
        "each job once"
    );
    let batch = status(&server, &id);
    assert_eq!(batch["state"], "BATCH_STATE_DONE");
    assert_eq!(uint(&batch["counts"], "jobs"), lines.len() as u64);
}

/// Polls `orbit batch list` until the batch of `request_id` satisfies `done` (10 s at most).
fn wait_for(server: &Server, request_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let out = server.orbit(&["batch", "list"]);
        assert_code(&out, 0, "list");
        let found = json_lines(&stdout(&out))
            .into_iter()
            .find(|b| b["requestId"] == request_id);
        if let Some(batch) = &found
            && done(batch)
        {
            return found.expect("found");
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the batch of {request_id} as waited for: {found:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
