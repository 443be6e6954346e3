// BLIS, oneDNN and libxsmm, each compiled in only when CMake found it
// (TPB_BENCH_HAVE_*). Native APIs only: their BLAS-named symbols could
// otherwise take the place of OpenBLAS's.
#include <algorithm>

#include "tp_decoder/cpu/gemm_bench/candidates.hpp"

#if TPB_BENCH_HAVE_BLIS
#include <blis.h>
#include <dlfcn.h>
#endif
#if TPB_BENCH_HAVE_DNNL
#include <dnnl.hpp>
#endif
#if TPB_BENCH_HAVE_XSMM
#include <libxsmm.h>
#endif

namespace tpb::gemm_bench {
namespace {

#if TPB_BENCH_HAVE_BLIS
// Opened with RTLD_LOCAL rather than linked: BLIS also exports cblas_sgemm and
// sgemm_, which would otherwise answer the backend's OpenBLAS calls.
void add_blis_candidate(std::vector<Candidate>& list, std::vector<std::string>& notes) {
  void* library = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL);
  const auto gemm = library ? reinterpret_cast<decltype(&bli_sgemm)>(dlsym(library, "bli_sgemm")) : nullptr;
  const auto threads = library ? reinterpret_cast<decltype(&bli_thread_set_num_threads)>(
                                     dlsym(library, "bli_thread_set_num_threads"))
                               : nullptr;
  if (!gemm || !threads) {
    notes.push_back(std::string("blis: libblis.so.4 not loadable: ") + dlerror());
    return;
  }
  threads(1);
  list.push_back(make_candidate("blis", [gemm](const Workload& w, int m, std::size_t copy) {
    float one = 1.0f, zero = 0.0f;
    // b = wᵀ (k, n): element (p, j) is w[j * k + p].
    gemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, w.n, w.k, &one, const_cast<float*>(w.x), w.k, 1,
         const_cast<float*>(w.weights[copy]), 1, w.k, &zero, w.y, w.n, 1);
  }));
}
#endif

#if TPB_BENCH_HAVE_DNNL
struct DnnlState {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul primitive;
  std::vector<dnnl::memory> packed;  // the weight copies in the primitive's chosen layout
  dnnl::memory src, dst;
};

void add_dnnl_candidates(std::vector<Candidate>& list) {
  list.push_back(make_candidate("onednn_sgemm", [](const Workload& w, int m, std::size_t copy) {
    dnnl_sgemm('N', 'T', m, w.n, w.k, 1.0f, w.x, w.k, w.weights[copy], w.k, 0.0f, w.y, w.n);
  }));
  // The matmul primitive with the weight's layout left to oneDNN (format any)
  // and every copy reordered into it before timing, as a load-time repack.
  auto state = std::make_shared<DnnlState>();
  const auto prepare = [state](const Workload& w, int m) {
    using dnnl::memory;
    using tag = memory::format_tag;
    const memory::desc src_md({m, w.k}, memory::data_type::f32, tag::ab);
    const memory::desc any_md({w.k, w.n}, memory::data_type::f32, tag::any);
    const memory::desc user_md({w.k, w.n}, memory::data_type::f32, tag::ba);  // w (n, k) row-major is wᵀ
    const memory::desc dst_md({m, w.n}, memory::data_type::f32, tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, any_md, dst_md), state->engine);
    state->primitive = dnnl::matmul(pd);
    state->packed.clear();
    for (const float* copy : w.weights) {
      memory user(user_md, state->engine, const_cast<float*>(copy));
      memory packed(pd.weights_desc(), state->engine);
      dnnl::reorder(user, packed).execute(state->stream, user, packed);
      state->packed.push_back(packed);
    }
    state->stream.wait();
    state->src = memory(src_md, state->engine, const_cast<float*>(w.x));
    state->dst = memory(dst_md, state->engine, w.y);
    return true;
  };
  list.push_back({"onednn_matmul_packed", prepare, [state](const Workload&, int, std::size_t copy) {
                    state->primitive.execute(state->stream, {{DNNL_ARG_SRC, state->src},
                                                             {DNNL_ARG_WEIGHTS, state->packed[copy]},
                                                             {DNNL_ARG_DST, state->dst}});
                    state->stream.wait();
                  }});
}
#endif

#if TPB_BENCH_HAVE_XSMM
// libxsmm's JIT kernels are column-major C = A · B. yᵀ (n, m) = w · xᵀ takes A =
// w as column-major (n, k), so each copy is transposed once before timing; the
// kernel covers kBlock rows of w at a time with the whole k.
constexpr libxsmm_blasint kBlock = 64;
struct XsmmState {
  std::vector<std::vector<float>> transposed;  // per copy: w column-major, (n, k) with leading dimension n
  const float* source = nullptr;                // the workload the copies were made from
  std::int64_t n = 0, k = 0;
  libxsmm_smmfunction full = nullptr, tail = nullptr;
};

Candidate xsmm_candidate(std::vector<std::string>& notes) {
  libxsmm_init();
  auto state = std::make_shared<XsmmState>();
  const auto prepare = [state](const Workload& w, int m) {
    if (state->source != w.weights.front() || state->n != w.n || state->k != w.k) {
      state->source = w.weights.front();
      state->n = w.n;
      state->k = w.k;
      state->transposed.assign(w.weights.size(), std::vector<float>(static_cast<std::size_t>(w.n * w.k)));
      constexpr std::int64_t tile = 64;  // transposed in tiles, so both sides stay in cache
      for (std::size_t c = 0; c < w.weights.size(); ++c)
        for (std::int64_t j0 = 0; j0 < w.n; j0 += tile)
          for (std::int64_t p0 = 0; p0 < w.k; p0 += tile)
            for (std::int64_t j = j0; j < std::min(j0 + tile, w.n); ++j)
              for (std::int64_t p = p0; p < std::min(p0 + tile, w.k); ++p)
                state->transposed[c][static_cast<std::size_t>(p * w.n + j)] = w.weights[c][j * w.k + p];
    }
    const libxsmm_blasint lda = w.n, ldb = w.k, ldc = w.n, k = w.k, mm = m;
    const float one = 1.0f, zero = 0.0f;
    state->full = libxsmm_smmdispatch(kBlock, mm, k, &lda, &ldb, &ldc, &one, &zero, nullptr, nullptr);
    const libxsmm_blasint rest = w.n % kBlock;
    state->tail = rest ? libxsmm_smmdispatch(rest, mm, k, &lda, &ldb, &ldc, &one, &zero, nullptr, nullptr) : nullptr;
    return state->full != nullptr && (rest == 0 || state->tail != nullptr);
  };
  notes.push_back("libxsmm: JIT kernels of 64 weight rows x m x k on a transposed copy of the weight, "
                  "writing y in place (yᵀ column-major is y row-major); a shape with no JIT kernel prints -");
  return {"libxsmm", prepare, [state](const Workload& w, int, std::size_t copy) {
            const float* a = state->transposed[copy].data();
            const std::int64_t blocks = w.n / kBlock;
            for (std::int64_t b = 0; b < blocks; ++b) state->full(a + b * kBlock, w.x, w.y + b * kBlock);
            if (state->tail) state->tail(a + blocks * kBlock, w.x, w.y + blocks * kBlock);
          }};
}
#endif

}  // namespace

std::vector<Candidate> optional_candidates(std::vector<std::string>& notes) {
  std::vector<Candidate> list;
#if TPB_BENCH_HAVE_BLIS
  add_blis_candidate(list, notes);
#else
  notes.push_back("blis: not found at build time (libblis-dev)");
#endif
#if TPB_BENCH_HAVE_DNNL
  add_dnnl_candidates(list);
#else
  notes.push_back("onednn: not found at build time (libdnnl-dev)");
#endif
#if TPB_BENCH_HAVE_XSMM
  list.push_back(xsmm_candidate(notes));
#else
  notes.push_back("libxsmm: not found at build time (libxsmm-dev)");
#endif
  return list;
}

}  // namespace tpb::gemm_bench
