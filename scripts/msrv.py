#!/usr/bin/env python3
"""Checks that the declared minimum Rust version (`rust-version`) is true.

For every workspace crate it walks the locked dependency graph (normal and
build dependencies, on every platform) and fails when a dependency declares
a newer `rust-version` than the crate. It prints, for information, the
version the dev-dependencies need (what building the tests takes).

This checks the versions the dependencies declare; clippy's
`incompatible_msrv` lint (run with -D warnings by scripts/test.sh) checks
our own use of the standard library against the declared version.

Usage: scripts/msrv.py   (from anywhere in the repository)
"""
import json
import subprocess
import sys


def version(v):
    """`1.85` and `1.85.0` alike: (1, 85, 0)."""
    parts = [int(x) for x in (v or "0").split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def show(v):
    return ".".join(str(x) for x in (v[:2] if v[2:] == (0,) else v))


def main():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}

    def closure(root, with_dev):
        """Package ids reachable from root through normal and build
        dependencies (and, from root only, dev-dependencies)."""
        seen, stack = set(), [root]
        while stack:
            pid = stack.pop()
            for dep in nodes[pid]["deps"]:
                kinds = {k["kind"] for k in dep["dep_kinds"]}
                wanted = {None, "build"} | ({"dev"} if with_dev and pid == root else set())
                if kinds & wanted and dep["pkg"] not in seen:
                    seen.add(dep["pkg"])
                    stack.append(dep["pkg"])
        return seen

    failed = False
    dev_needs = (0, 0, 0)
    for member in meta["workspace_members"]:
        crate = packages[member]
        declared = version(crate.get("rust_version"))
        if declared == (0, 0, 0):
            print(f"{crate['name']}: no rust-version declared")
            failed = True
            continue
        for pid in closure(member, with_dev=False):
            dep = packages[pid]
            needs = version(dep.get("rust_version"))
            if needs > declared:
                print(
                    f"{crate['name']} declares rust-version {show(declared)}, "
                    f"but its dependency {dep['name']} {dep['version']} needs {show(needs)}"
                )
                failed = True
        for pid in closure(member, with_dev=True):
            dev_needs = max(dev_needs, version(packages[pid].get("rust_version")))
    declared = sorted({packages[m].get("rust_version") for m in meta["workspace_members"]})
    if failed:
        sys.exit(1)
    print(
        f"msrv: rust-version {', '.join(declared)} holds for every crate's dependencies; "
        f"building the tests needs {show(dev_needs)}"
    )


if __name__ == "__main__":
    main()
