#pragma once
// The one-shot collectives share memory between the ranks of a group, which
// only works when the whole group is on one node.
#include <mpi.h>

#include <string>
#include <vector>

namespace tpb {

// Collective over `comm`: UsageError on every rank, naming `who`, the group
// size and the node count, unless every rank of `comm` is on one node.
void require_one_node(MPI_Comm comm, const std::string& who);

// Collective over `world`: require_one_node for every TP group of every k in
// `tp_degrees` (groups of k consecutive ranks, as split_into_tp_groups makes
// them). Throws only on the ranks of a group that spans nodes: call it inside
// validate_collectively so that every rank agrees.
void require_tp_groups_on_one_node(MPI_Comm world, const std::vector<int>& tp_degrees, const std::string& who);

}  // namespace tpb
