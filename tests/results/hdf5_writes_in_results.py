#!/usr/bin/env python3
"""Every HDF5 write goes through results/: fails naming each FILE:LINE of a C++
or CUDA source outside results/ (and tests/) that calls a writing API of
results/h5_file.hpp or of the HDF5 C library.

usage: hdf5_writes_in_results.py SOURCE_DIR
"""
import os
import re
import sys

# results/h5_file.hpp's writing API: attributes, datasets, string lists, groups
# created on demand (H5File::group; CLI11's option->group("") names an option
# group, never a layout path), and a file opened for writing. Then the C
# library's: a file opened for writing, and the calls that create, write, move
# or delete an object or attribute.
WRITES = re.compile(
    r"\bwrite_(attributes?|dataset|strings?)\s*\("
    r"|\.group\(|->group\(\s*[^\s\")]"
    r"|\bH5Mode::(create_new|create_overwrite|read_write)\b|\bH5F_ACC_(RDWR|TRUNC|EXCL)\b"
    r"|\bH5[ADFGLOT](create|write|delete|rename|move|copy|flush|set_extent|commit)\w*\s*\("
    r"|\bH5LT(make|set)_\w*\s*\("
)
SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc")
OWNERS = {"results", "tests"}  # the writer, and the tests that build files to read


def offending_lines(root):
    for top in sorted(os.listdir(root)):
        if top in OWNERS or top.startswith((".", "build", "out")) or not os.path.isdir(os.path.join(root, top)):
            continue
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(f for f in files if f.endswith(SOURCES)):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as source:
                    text = source.read()
                if not WRITES.search(text):
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    if WRITES.search(line.split("//")[0]):
                        yield f"{os.path.relpath(path, root)}:{number}: {line.strip()}"


def main():
    found = list(offending_lines(sys.argv[1]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} HDF5 write(s) outside results/: move each into a writer there (docs/RESULTS_FORMAT.md)")
        return 1
    print("no HDF5 write outside results/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
