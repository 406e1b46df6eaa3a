"""Checks a client's output on examples/batch.jsonl: one final line per job, each a result.

    python .ci/check_batch_answers.py BATCH.jsonl OUTPUT

The expected ids are read from the batch itself; a few answers are checked against values known
independently of Orbit (OEIS, the group's literature, the puzzle's published sample).
"""

import json
import sys

# id -> (path into the result, expected value)
KNOWN_ANSWERS = {
    "necklaces": (("count", "count"), "14"),  # binary necklaces of length 6 (OEIS A000031)
    "graphs-11": (("count", "count"), "1018997864"),  # graphs on 11 vertices (OEIS A000088)
    "m11": (("group", "order"), "7920"),  # the Mathieu group M11
    "puzzle-sample": (("puzzle", "reachable"), [True, True, False]),  # the sample's Yes Yes No
    "petersen": (("graph", "order"), "120"),  # |Aut| of the Petersen graph (S5)
}


def main() -> int:
    batch_path, output_path = sys.argv[1:]
    with open(batch_path, encoding="utf-8") as f:
        expected_ids = sorted(json.loads(line)["id"] for line in f if line.strip())
    with open(output_path, encoding="utf-8") as f:
        events = [json.loads(line) for line in f if line.strip()]
    problems = []
    got_ids = sorted(event["id"] for event in events)
    if got_ids != expected_ids:
        problems.append(f"final lines for ids {got_ids}, expected one for each of {expected_ids}")
    for event in events:
        if "result" not in event:
            problems.append(f"{event['id']}: not a result: {event}")
            continue
        known = KNOWN_ANSWERS.get(event["id"])
        if known is not None:
            path, want = known
            value = event["result"]
            for key in path:
                value = value[key]
            if value != want:
                problems.append(f"{event['id']}: {'.'.join(path)} = {value!r}, expected {want!r}")
    for problem in problems:
        print(f"check_batch_answers: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
