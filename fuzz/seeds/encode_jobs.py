#!/usr/bin/env python3
"""Writes the job_decode seed corpus: each line of examples/batch.jsonl (and
examples/bad-input.jsonl lines that are JSON jobs) as the protobuf bytes of an orbit.v1.Job.

A small hand-written encoder for the fields these files use (no protobuf package needed); field
numbers follow proto/orbit/v1/orbit.proto. Run from the repository root:
    python3 fuzz/seeds/encode_jobs.py
"""
import json
import pathlib

# message -> json name -> (field number, kind, sub-message); kinds: varint, string, message.
SCHEMA = {
    "Job": {"id": (1, "string", None), "options": (2, "message", "JobOptions"),
            "game": (10, "message", "GameGraphJob"), "group": (11, "message", "GroupJob"),
            "count": (12, "message", "CountJob"), "puzzle": (13, "message", "PuzzleJob"),
            "copThief": (14, "message", "CopThiefJob")},
    "JobOptions": {"deadlineMs": (1, "varint", None), "progress": (2, "varint", None)},
    "Edge": {"from": (1, "varint", None), "to": (2, "varint", None)},
    "GameGraphJob": {"vertices": (1, "varint", None), "edges": (2, "message", "Edge"),
                     "query": (3, "packed", None)},
    "CopThiefJob": {"rows": (1, "string", None), "queries": (2, "message", "CopThiefState")},
    "GridCell": {"row": (1, "varint", None), "col": (2, "varint", None)},
    "CopThiefState": {"cop": (1, "message", "GridCell"), "thief": (2, "message", "GridCell"),
                      "thiefToMove": (3, "varint", None)},
    "Permutation": {"images": (1, "packed", None), "cycles": (2, "string", None)},
    "GroupJob": {"degree": (1, "varint", None), "generators": (2, "message", "Permutation"),
                 "candidates": (3, "message", "Permutation")},
    "CountJob": {"necklace": (1, "message", "NecklaceCount"),
                 "bracelet": (2, "message", "NecklaceCount"),
                 "torus": (3, "message", "TorusCount"), "cube": (4, "message", "CubeCount"),
                 "graphs": (5, "message", "GraphsCount"),
                 "binaryTree": (6, "message", "BinaryTreeCount"),
                 "group": (7, "message", "GroupCount"), "modulus": (10, "string", None)},
    "NecklaceCount": {"n": (1, "varint", None), "k": (2, "varint", None)},
    "TorusCount": {"rows": (1, "varint", None), "cols": (2, "varint", None),
                   "k": (3, "varint", None), "noRotation": (4, "varint", None)},
    "CubeCount": {"part": (1, "enum", None), "k": (2, "varint", None)},
    "GraphsCount": {"n": (1, "varint", None)},
    "BinaryTreeCount": {"depth": (1, "varint", None), "k": (2, "varint", None)},
    "GroupCount": {"degree": (1, "varint", None), "generators": (2, "message", "Permutation"),
                   "k": (3, "varint", None), "content": (4, "packed", None),
                   "cycleIndex": (5, "varint", None)},
    "Arrangement": {"tokens": (1, "packed", None)},
    "PuzzleJob": {"n": (1, "varint", None), "edges": (2, "message", "Edge"),
                  "start": (3, "message", "Arrangement"),
                  "targets": (4, "message", "Arrangement")},
}
CUBE_PARTS = {"CUBE_PART_FACES": 1, "CUBE_PART_VERTICES": 2, "CUBE_PART_EDGES": 3}


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def encode(message, value):
    out = bytearray()
    for name, v in value.items():
        if name not in SCHEMA[message]:
            raise KeyError(f"{message}.{name}")
        number, kind, sub = SCHEMA[message][name]
        values = v if isinstance(v, list) and kind != "packed" else [v]
        for item in values:
            if kind in ("varint", "enum"):
                item = CUBE_PARTS.get(item, item) if kind == "enum" else int(item)
                out += varint(number << 3) + varint(int(item))
            elif kind == "string":
                data = str(item).encode()
                out += varint(number << 3 | 2) + varint(len(data)) + data
            elif kind == "packed":
                data = b"".join(varint(int(x)) for x in item)
                out += varint(number << 3 | 2) + varint(len(data)) + data
            else:
                data = encode(sub, item)
                out += varint(number << 3 | 2) + varint(len(data)) + data
    return bytes(out)


def main():
    root = pathlib.Path(__file__).resolve().parents[2]
    out_dir = root / "fuzz" / "seeds" / "job_decode"
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("batch.jsonl", "bad-input.jsonl"):
        for i, line in enumerate((root / "examples" / name).read_text().splitlines()):
            try:
                job = json.loads(line)
                data = encode("Job", job)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # not a job this encoder can express; the fuzzer does without it
            (out_dir / f"{name.split('.')[0]}-{i + 1}.pb").write_bytes(data)


if __name__ == "__main__":
    main()
