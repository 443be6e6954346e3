"""A results file's copy with one edit, for the tests that show what a command makes of such a file."""
import shutil

import h5py


def edited_copy(source, target, edit):
    """Copies `source` to `target`, applies `edit` to the copy open for writing (h5py), returns `target`."""
    shutil.copyfile(source, target)
    with h5py.File(target, "r+") as f:
        edit(f)
    return target
