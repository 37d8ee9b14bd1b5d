// The threads of one emulated CUDA block as fibers on the calling thread
// (runtime.hpp). A switch saves the callee-saved registers and the stack
// pointer and loads another's: no system call, unlike swapcontext, whose
// signal-mask call made up most of an emulated attention check's time.
// Other architectures than x86-64 take ucontext.
#include "runtime.hpp"

#include <sys/mman.h>

#include <new>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace konform::cuda {
namespace {

constexpr size_t kStackBytes = size_t{256} << 10;

struct Fiber {
  void* sp = nullptr;  // saved stack pointer while switched out (x86-64)
#if !defined(__x86_64__)
  ucontext_t context;
#endif
  bool done = false;
};

struct Block {
  void (*body)(void*) = nullptr;
  void* arg = nullptr;
  std::vector<Fiber> fibers;
  Fiber* running = nullptr;
  void* scheduler_sp = nullptr;
#if !defined(__x86_64__)
  ucontext_t scheduler;
#endif
};
Block g_block;  // launch() lets one block run at a time

// The stacks, mapped once and kept: pages a kernel never touches cost nothing.
char* stacks(unsigned count) {
  static char* base = nullptr;
  static unsigned mapped = 0;
  if (count > mapped) {
    if (base != nullptr) munmap(base, mapped * kStackBytes);
    void* p =
        mmap(nullptr, count * kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base = static_cast<char*>(p);
    mapped = count;
  }
  return base;
}

}  // namespace
}  // namespace konform::cuda

#if defined(__x86_64__)
extern "C" void konform_fiber_switch(void** save_sp, void* load_sp);
extern "C" void konform_fiber_start();
extern "C" [[noreturn]] void konform_fiber_main(void* fiber);

// konform_fiber_switch: push the callee-saved registers, store the stack
// pointer, load the other's and pop its registers; `ret` resumes it.
// konform_fiber_start: a new fiber's first resumption, its Fiber* in rbx.
asm(R"(
  .text
  .globl konform_fiber_switch
  .hidden konform_fiber_switch
  .type konform_fiber_switch, @function
konform_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size konform_fiber_switch, .-konform_fiber_switch

  .globl konform_fiber_start
  .hidden konform_fiber_start
  .type konform_fiber_start, @function
konform_fiber_start:
  movq %rbx, %rdi
  call konform_fiber_main
  ud2
  .size konform_fiber_start, .-konform_fiber_start
)");

extern "C" void konform_fiber_main(void* fiber) {
  auto* f = static_cast<konform::cuda::Fiber*>(fiber);
  auto& block = konform::cuda::g_block;
  block.body(block.arg);
  f->done = true;
  konform_fiber_switch(&f->sp, block.scheduler_sp);
  __builtin_unreachable();
}
#else
namespace {
void fiber_main() {
  auto& block = konform::cuda::g_block;
  block.body(block.arg);
  block.running->done = true;  // uc_link: back to the scheduler
}
}  // namespace
#endif

namespace konform::cuda {

void emulated_sync() {
  Fiber* f = g_block.running;
#if defined(__x86_64__)
  konform_fiber_switch(&f->sp, g_block.scheduler_sp);
#else
  swapcontext(&f->context, &g_block.scheduler);
#endif
}

void emulated_run_block(unsigned threads, void (*body)(void*), void* arg) {
  Block& block = g_block;
  block.body = body;
  block.arg = arg;
  block.fibers.assign(threads, Fiber{});
  char* stack = stacks(threads);
  for (unsigned t = 0; t < threads; ++t) {
    Fiber& f = block.fibers[t];
    char* top = stack + (size_t{t} + 1) * kStackBytes;
#if defined(__x86_64__)
    // What konform_fiber_switch pops: six registers (rbx = the fiber), then
    // the address it returns to. The start routine then runs with the stack
    // pointer at `top`, 16-byte aligned, as before a call.
    auto* slots = reinterpret_cast<void**>(top) - 7;
    for (int i = 0; i < 6; ++i) slots[i] = nullptr;
    slots[4] = &f;  // rbx
    slots[6] = reinterpret_cast<void*>(&konform_fiber_start);
    f.sp = slots;
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = top - kStackBytes;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &block.scheduler;
    makecontext(&f.context, &fiber_main, 0);
#endif
  }
  // Rounds: each live thread runs until it reaches __syncthreads or returns,
  // so none passes a barrier before every thread has reached it.
  for (bool live = true; live;) {
    live = false;
    for (unsigned t = 0; t < threads; ++t) {
      Fiber& f = block.fibers[t];
      if (f.done) continue;
      threadIdx.x = t;
      block.running = &f;
#if defined(__x86_64__)
      konform_fiber_switch(&block.scheduler_sp, f.sp);
#else
      swapcontext(&block.scheduler, &f.context);
#endif
      live = live || !f.done;
    }
  }
  block.running = nullptr;
}

}  // namespace konform::cuda
