#!/usr/bin/python3
"""Checks a tpbench results file the way a user's script would read it (h5py,
no tpbench code): the complete flag, scheduler metadata in /meta, the rank map's
nodes, and that TP groups of consecutive ranks stay within a node.

Prints one line per check and exits 1 when any fails, 2 on bad usage.
Run with /usr/bin/python3: Debian's python3-h5py is installed for it only.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from h5_open import open_when_unlocked  # noqa: E402


def read_text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--complete", type=int, choices=(0, 1), help="required value of /meta complete")
    parser.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE",
                        help="a /meta attribute that must have exactly this value")
    parser.add_argument("--attr-present", action="append", default=[], metavar="NAME",
                        help="a /meta attribute that must exist and be non-empty")
    parser.add_argument("--nodes", type=int, help="distinct nodes the rank map must show")
    parser.add_argument("--tp-within-nodes", default="", metavar="K,K",
                        help="TP degrees whose groups of k consecutive ranks must each sit on one node")
    parser.add_argument("--group", action="append", default=[], metavar="PATH",
                        help="an HDF5 group or dataset that must exist")
    return parser.parse_args()


def main():
    args = parse_args()
    failures = []

    def check(ok, what):
        print(("ok      " if ok else "FAILED  ") + what)
        if not ok:
            failures.append(what)

    try:
        handle = open_when_unlocked(args.file)
    except OSError as error:
        print(f"FAILED  {args.file} is not a readable HDF5 file: {error}")
        return 1
    with handle:
        if "meta" not in handle:
            print(f"FAILED  {args.file} has no /meta")
            return 1
        meta = handle["meta"].attrs
        if args.complete is not None:
            value = int(meta.get("complete", -1))
            check(value == args.complete, f"/meta complete = {value} (want {args.complete})")
        for pair in args.attr:
            name, _, want = pair.partition("=")
            got = read_text(meta[name]) if name in meta else None
            check(got == want, f"/meta {name} = {got!r} (want {want!r})")
        for name in args.attr_present:
            got = read_text(meta[name]) if name in meta else ""
            check(got != "", f"/meta {name} present: {got!r}")
        for path in args.group:
            check(path in handle, f"{path} exists")

        rank_map = [json.loads(read_text(row)) for row in meta.get("rank_map", [])]
        node_of = {row["rank"]: row["node"] for row in rank_map}
        if args.nodes is not None:
            nodes = sorted(set(node_of.values()))
            check(len(nodes) == args.nodes, f"rank map shows {len(nodes)} nodes {nodes} (want {args.nodes})")
        for k in [int(text) for text in args.tp_within_nodes.split(",") if text]:
            ranks = len(node_of)
            if k < 1 or ranks % k != 0:
                check(False, f"TP-{k} does not divide the {ranks} ranks")
                continue
            groups = [[node_of[rank] for rank in range(start, start + k)] for start in range(0, ranks, k)]
            straddling = [index for index, nodes in enumerate(groups) if len(set(nodes)) > 1]
            check(not straddling, f"TP-{k}: {len(groups)} groups, each on one node"
                  + (f" (groups {straddling} straddle nodes)" if straddling else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
