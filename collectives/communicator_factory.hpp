#pragma once
// Communicators chosen at run time by kind and by the memory the data lives
// in, and the tensor-parallel groups a launch is split into.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "common/choices.hpp"

namespace tpb {

// The memory the decoder of `backend` keeps its tensors in: host for cpu,
// device for cuda (what its Backend::memory_kind() says, known before one exists).
MemoryKind decoder_memory(BackendKind backend);

// The memory a communicator of `kind` works on for the data of `backend`:
// host memory for mpi, device memory for nccl, and the backend's own for
// oneshot, which has both (host for cpu, device for cuda).
MemoryKind collective_memory(CollectiveKind kind, BackendKind backend);

// The one place that picks an implementation: the communicator of `kind` for
// data in `memory`. mpi works on host memory, nccl on device memory; oneshot
// is an MPI-3 shared window on host memory and CUDA IPC on device memory.
// Collective over `comm`; the caller selects each rank's GPU first.
// UsageError when `kind` does not work on `memory`, when this build has no
// CUDA for nccl or device memory, and, at the first collective call, for
// oneshot on ranks spanning nodes.
std::unique_ptr<Communicator> make_communicator(CollectiveKind kind, MemoryKind memory, MPI_Comm comm);
// The same for the data of the cpu backend: oneshot on host memory.
std::unique_ptr<Communicator> make_communicator(CollectiveKind kind, MPI_Comm comm);
// The same by name as --collective spells it; UsageError for an unknown name.
std::unique_ptr<Communicator> make_communicator(const std::string& name, MPI_Comm comm);

// UsageError naming `flag` unless this build has the communicator of `kind`.
void require_built(CollectiveKind kind, std::string_view flag = "--collective");

// UsageError naming `flag` unless a communicator of `kind` works on the
// memory the decoder of `backend` keeps its activations in (whether this build
// has it is require_built's question).
void require_collective_for_backend(CollectiveKind kind, BackendKind backend, std::string_view flag);

// Splits `world` into size/k groups of k consecutive ranks (ranks 0..k-1,
// k..2k-1, ...), so that with ranks placed by node a group stays within a
// node. Collective over `world` for k > 1. For k = 1 every rank is its own
// group, which opens no communicator and issues no collective
// (collectives/solo_group.hpp; valid while `world` lives), and nothing is
// collective. UsageError unless 1 <= k <= size and k divides size.
std::unique_ptr<Communicator> split_into_tp_groups(Communicator& world, int k);

// Communicators this process has opened through the two calls above
// (make_communicator, and split_into_tp_groups for k > 1): each is an MPI
// duplicate, and on nccl an NCCL communicator too. A group of one adds none.
// Read by tests; `mpi_bench step` prints it last.
long communicators_opened();

// Index of the TP group of size k that `world_rank` belongs to.
inline int tp_group_of(int world_rank, int k) { return world_rank / k; }

// Every k that divides `world_size`, ascending: the TP degrees one launch can study.
std::vector<int> tp_degrees_for(int world_size);

// The one check of a --tp degree against a launch: UsageError naming k, the
// ranks and the degrees that would do, when k does not split `world_size`
// ranks into groups of k.
void require_tp_degree(int k, int world_size);

}  // namespace tpb
