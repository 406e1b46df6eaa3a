#!/usr/bin/env python3
"""Generates the Python gRPC stubs for orbit.v1 from the repository's proto/.

Writes build/orbit/v1/orbit_pb2.py (messages) and build/orbit/v1/orbit_pb2_grpc.py (the
OrbitStub client) next to this script. The stubs are build output, not sources: regenerate them
whenever proto/orbit/v1/orbit.proto changes (build/ is gitignored).

The same as, from this directory (after `mkdir -p build`):
    python -m grpc_tools.protoc -I ../../proto --python_out=build --grpc_python_out=build \
        ../../proto/orbit/v1/orbit.proto
"""

import pathlib
import sys

from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent.parent / "proto"
PROTO_FILE = "orbit/v1/orbit.proto"
BUILD_DIR = HERE / "build"


def main() -> int:
    BUILD_DIR.mkdir(exist_ok=True)
    # grpc_tools ships protoc and the well-known types (google/protobuf/*.proto); its own include
    # directory must be on the path for any import of them.
    well_known = pathlib.Path(protoc.__file__).resolve().parent / "_proto"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"--proto_path={PROTO_ROOT}",
            f"--proto_path={well_known}",
            f"--python_out={BUILD_DIR}",
            f"--grpc_python_out={BUILD_DIR}",
            str(PROTO_ROOT / PROTO_FILE),
        ]
    )
    if status != 0:
        print(f"generate_stubs.py: protoc failed on {PROTO_ROOT / PROTO_FILE}", file=sys.stderr)
        return 1
    print(f"generated stubs for {PROTO_FILE} in {BUILD_DIR}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
