#pragma once
// Communicators chosen at run time by backend name, and the tensor-parallel
// groups a launch is split into.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "common/choices.hpp"

namespace tpb {

// The communicator of `kind`; collective over `comm`. UsageError for nccl in a
// build without CUDA/NCCL, and for oneshot (host memory) on ranks spanning
// nodes, at its first collective call. The caller selects each rank's GPU first.
std::unique_ptr<Communicator> make_communicator(CollectiveKind kind, MPI_Comm comm);
// The same by name as --collective spells it; UsageError for an unknown name.
std::unique_ptr<Communicator> make_communicator(const std::string& name, MPI_Comm comm);

// UsageError naming `flag` unless this build has the communicator of `kind`.
void require_built(CollectiveKind kind, std::string_view flag = "--collective");

// Splits `world` into size/k groups of k consecutive ranks (ranks 0..k-1,
// k..2k-1, ...), so that with ranks placed by node a group stays within a
// node. Collective over `world`. UsageError unless 1 <= k <= size and k divides size.
std::unique_ptr<Communicator> split_into_tp_groups(Communicator& world, int k);

// Index of the TP group of size k that `world_rank` belongs to.
inline int tp_group_of(int world_rank, int k) { return world_rank / k; }

// Every k that divides `world_size`, ascending: the TP degrees one launch can study.
std::vector<int> tp_degrees_for(int world_size);

}  // namespace tpb
