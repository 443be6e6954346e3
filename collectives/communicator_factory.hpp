#pragma once
// Communicators chosen at run time by backend name, and the tensor-parallel
// groups a launch is split into.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"

namespace tpb {

// "mpi" or "nccl"; collective over `comm`. UsageError for an unknown name, and
// for "nccl" in a build without CUDA/NCCL. The caller selects each rank's GPU first.
std::unique_ptr<Communicator> make_communicator(const std::string& backend, MPI_Comm comm);

// UsageError naming the value unless `backend` is one make_communicator accepts in this build.
void check_backend_name(const std::string& backend);

// Splits `world` into size/k groups of k consecutive ranks (ranks 0..k-1,
// k..2k-1, ...), so that with ranks placed by node a group stays within a
// node. Collective over `world`. UsageError unless 1 <= k <= size and k divides size.
std::unique_ptr<Communicator> split_into_tp_groups(Communicator& world, int k);

// Index of the TP group of size k that `world_rank` belongs to.
inline int tp_group_of(int world_rank, int k) { return world_rank / k; }

// Every k that divides `world_size`, ascending: the TP degrees one launch can study.
std::vector<int> tp_degrees_for(int world_size);

}  // namespace tpb
