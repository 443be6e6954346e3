#pragma once
// HDF5 (1.10, sec2 driver) takes an flock() on every file it opens and holds
// it until the file is closed: exclusive for a writer, shared for a reader. A
// results file that a dying job still holds therefore refuses to open for a
// moment after mpiexec has returned. Readers wait for that lock here, with a
// bound, instead of failing with HDF5's "unable to lock file".
#include <string>

namespace tpb {

enum class FileLockState {
  free,         // a reader can open the file now
  held,         // another process holds HDF5's exclusive (writer's) lock
  unsupported,  // the file system has no flock() (NFS without lockd, Lustre without -o flock)
  absent,       // the file cannot be opened at all (the caller reports that)
};

// One non-blocking probe, exactly as HDF5 asks for a reader's lock.
FileLockState probe_file_lock(const std::string& path);

// Waits until `path` is free of a writer's lock, for at most `wait_s` seconds.
// Says once on stderr that it waits; past the bound it throws a UsageError
// naming the file and --lock-wait. Where the file system has no locks it does
// not wait and prints the HDF5_USE_FILE_LOCKING hint instead.
void wait_for_file_lock(const std::string& path, double wait_s);

}  // namespace tpb
