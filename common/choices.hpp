#pragma once
// The two run-time choices every command spells the same way:
//   --backend cpu|cuda      the decoder backend (tp_decoder/)
//   --collective mpi|nccl|oneshot   the communicator (collectives/)
// Names, parsing and defaults live here once. A new communicator is one enum
// value and one row in kCollectiveNames.
#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace tpb {

enum class BackendKind { cpu, cuda };
enum class CollectiveKind { mpi, nccl, oneshot };

inline constexpr std::array<std::pair<BackendKind, std::string_view>, 2> kBackendNames{
    {{BackendKind::cpu, "cpu"}, {BackendKind::cuda, "cuda"}}};
inline constexpr std::array<std::pair<CollectiveKind, std::string_view>, 3> kCollectiveNames{
    {{CollectiveKind::mpi, "mpi"}, {CollectiveKind::nccl, "nccl"}, {CollectiveKind::oneshot, "oneshot"}}};

std::string_view to_string(BackendKind kind);
std::string_view to_string(CollectiveKind kind);

// UsageError "{flag}: invalid value '{text}' (expected cpu or cuda)", the
// valid names listed as "a, b or c".
BackendKind parse_backend_kind(std::string_view flag, std::string_view text);
CollectiveKind parse_collective_kind(std::string_view flag, std::string_view text);

// cuda when this build has the CUDA backend and a GPU is visible, else cpu.
BackendKind default_backend_kind();
// The communicator that works on the backend's memory: nccl for cuda, mpi for cpu.
CollectiveKind default_collective_kind(BackendKind backend);

}  // namespace tpb
