// oneDNN's bf16 matmul as a peer of tl_matmul_bf16: the library PyTorch's CPU
// bf16 matmul calls (through its mkldnn matmul) where the CPU has AVX512_BF16.
// Built when libdnnl-dev is installed (KONFORM_BENCH_ONEDNN); plain layouts,
// W as N rows of K (oneDNN's "ba" weights), y in bf16, as a framework hands
// them over, so any reordering oneDNN does is part of its time.
#pragma once

#include <cstdint>
#include <functional>

#ifdef KONFORM_BENCH_ONEDNN
#include <dlfcn.h>

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace konform::bench {

// y = x @ W^T by oneDNN on `threads` OpenMP threads; nullptr where the bench
// was built without oneDNN.
inline std::function<void()> onednn_bf16_matmul(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,
                                                int64_t K, int threads) {
#ifdef KONFORM_BENCH_ONEDNN
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  struct Call {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::memory src, weights, dst;
    dnnl::matmul prim;
  };
  auto call = std::make_shared<Call>();
  const dnnl::memory::desc src_md({M, K}, dt::bf16, tag::ab), w_md({K, N}, dt::bf16, tag::ba),
      dst_md({M, N}, dt::bf16, tag::ab);
  call->src = dnnl::memory(src_md, call->engine, const_cast<uint16_t*>(x));
  call->weights = dnnl::memory(w_md, call->engine, const_cast<uint16_t*>(w));
  call->dst = dnnl::memory(dst_md, call->engine, y);
  call->prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, w_md, dst_md), call->engine));
  // libdnnl's OpenMP runtime, asked for the thread count of the comparison.
  using SetThreads = void (*)(int);
  const auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  return [call, set_threads, threads] {
    if (set_threads != nullptr) set_threads(threads);
    call->prim.execute(call->stream,
                       {{DNNL_ARG_SRC, call->src}, {DNNL_ARG_WEIGHTS, call->weights}, {DNNL_ARG_DST, call->dst}});
    call->stream.wait();
  };
#else
  (void)x, (void)w, (void)y, (void)M, (void)N, (void)K, (void)threads;
  return nullptr;
#endif
}

}  // namespace konform::bench
