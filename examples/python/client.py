#!/usr/bin/env python3
"""Submits a batch of Orbit jobs through SolveStream and prints each job's final event.

    pip install ./client/python                           # the orbit-grpc package
    python client.py [--server HOST:PORT] BATCH.jsonl     # `-` reads the batch from stdin

BATCH.jsonl holds one `orbit.v1.Job` per line in the proto3 JSON mapping (the format of the
`orbit solve` CLI, e.g. examples/batch.jsonl). Output: one JSON line per job, in completion order,
`{"id":...,"result":{...}}` or `{"id":...,"error":{"code":...,"codeName":...,"message":...}}`,
the same lines `orbit solve` prints.

A line that is not a valid Job is not sent; it gets an INVALID_ARGUMENT error line with the id
`line N`, as in `orbit solve`. Ids need not be unique: each job gets its own final line.

Exit status: 0 if every job got a result; 1 if any job failed or got no final event, a line was
not a valid Job, or the call itself failed (e.g. server unreachable); 2 if the batch file cannot
be read or --server is unusable (nothing is sent then).
"""

import argparse
import json
import pathlib
import sys
from collections import Counter
from typing import Optional

import grpc
from google.protobuf import json_format

try:
    import orbit_grpc
    from orbit_grpc import pb as orbit_pb2
except ImportError as e:  # a setup step missed: say which
    sys.exit(f"client.py: cannot import orbit_grpc ({e}); run `pip install ./client/python` first")

PROG = "client.py"


class BatchError(Exception):
    """The batch cannot be sent at all: the file is unreadable, or --server is unusable."""


def read_batch(path: str) -> tuple[list["orbit_pb2.Job"], list[str]]:
    """Parses every non-blank line of `path` (`-` for stdin) into an orbit.v1.Job.

    Returns the jobs, and one final error line for each line that is not a valid Job (it is not
    sent), in the form and with the id (`line N`) that `orbit solve` uses for such lines.
    """
    try:
        if path == "-":
            lines = sys.stdin.read().splitlines()
        else:
            lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise BatchError(f"{path}: {getattr(e, 'strerror', None) or e}") from e
    jobs = []
    bad_lines = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            jobs.append(json_format.Parse(line, orbit_pb2.Job()))
        except json_format.ParseError as e:
            reason = f"not a valid orbit.v1.Job: {str(e).splitlines()[0]}"
            # INVALID_FIELD naming the line, with the details a server would send (as `orbit
            # solve` does).
            error = orbit_pb2.JobError(
                code=grpc.StatusCode.INVALID_ARGUMENT.value[0],
                code_name="INVALID_ARGUMENT",
                message=f"line {number}: {reason}",
                reason="INVALID_FIELD",
                field_violations=[orbit_pb2.FieldViolation(field=f"line {number}", description=reason)],
            )
            bad_lines.append(final_line(orbit_pb2.JobEvent(id=f"line {number}", error=error)))
    return jobs, bad_lines


def grpc_target(server: str) -> str:
    """`HOST:PORT` for grpc; also accepts the `http://HOST:PORT` form the orbit CLI takes."""
    if server.startswith("https://"):
        raise BatchError(f"--server {server}: this example speaks plaintext only")
    return server.removeprefix("http://").rstrip("/")


def final_line(event: "orbit_pb2.JobEvent") -> str:
    """The event as one compact JSON line, every field printed (as `orbit solve` does)."""
    as_dict = json_format.MessageToDict(event, always_print_fields_with_no_presence=True)
    return json.dumps(as_dict, separators=(",", ":"), ensure_ascii=False)


def run(target: str, jobs: list["orbit_pb2.Job"], timeout: Optional[float]) -> bool:
    """Streams `jobs` to the server and prints each final event; True if all jobs succeeded."""
    # Final events still due per id (a Counter, since ids need not be unique).
    pending = Counter(job.id for job in jobs)
    all_ok = True

    # orbit_grpc raises gRPC Python's 4 MiB message limit to the server's default 64 MiB and
    # keeps at most the server's stream window of jobs in flight.
    with orbit_grpc.connect(target) as client:
        try:
            for event in client.solve_stream(jobs, timeout=timeout):
                kind = event.WhichOneof("event")
                if kind not in ("result", "error"):
                    continue  # queued / progress
                if pending[event.id] == 0:
                    print(f"{PROG}: an extra final event for id {event.id!r}", file=sys.stderr)
                    all_ok = False
                    continue
                pending[event.id] -= 1
                print(final_line(event), flush=True)
                if kind == "error":
                    all_ok = False
        except orbit_grpc.OrbitError as e:
            print(f"{PROG}: SolveStream to {target} failed: {e}", file=sys.stderr)
            all_ok = False
    for job_id, missing in sorted(pending.items()):
        if missing > 0:
            print(f"{PROG}: no final event for job {job_id!r}", file=sys.stderr)
            all_ok = False
    return all_ok


def main() -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--server",
        default="127.0.0.1:50051",
        help="HOST:PORT of orbit-server (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="deadline for the whole batch, seconds (default: none)",
    )
    parser.add_argument("batch", help="JSON lines, one orbit.v1.Job each; - for stdin")
    args = parser.parse_args()
    try:
        target = grpc_target(args.server)
        jobs, bad_lines = read_batch(args.batch)
    except BatchError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    for line in bad_lines:
        print(line, flush=True)
    all_ok = run(target, jobs, args.timeout)
    return 0 if all_ok and not bad_lines else 1


if __name__ == "__main__":
    sys.exit(main())
