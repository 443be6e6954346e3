"""Opening a results file that a failed job may still hold.

mpiexec (and srun, scancel) can return while the ranks it killed or aborted are
still exiting, and until the last of them has closed its descriptors HDF5's
flock() on the results file is held: h5py then fails with "unable to lock
file, errno = 11". Checks wait for the file itself, not for processes: the
open is retried while HDF5 reports that lock error, with backoff, up to a
bound. Any other error, or the lock still held past the bound, is returned.
"""
import errno
import time

import h5py

LOCK_WAIT_S = 30.0


def is_lock_error(error):
    text = str(error)
    return "unable to lock file" in text and (f"errno = {errno.EAGAIN}" in text or
                                              f"errno = {errno.EWOULDBLOCK}" in text)


def open_when_unlocked(path, mode="r", bound_s=LOCK_WAIT_S):
    """h5py.File(path, mode) once no other process holds the file's lock."""
    deadline = time.monotonic() + bound_s
    pause = 0.01
    while True:
        try:
            return h5py.File(path, mode)
        except OSError as error:
            if not is_lock_error(error) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)
