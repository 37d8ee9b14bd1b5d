#include "konform/isolate.hpp"
#include "konform/fd_io.hpp"
#include "konform/progress.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KONFORM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KONFORM_SANITIZED 1
#endif
#endif

namespace konform {

// Shared memory, written by the child, read by the parent: what the child is
// doing survives its death, whatever it did to its pipe.
struct ChildBoard {
  std::atomic<int64_t> case_index{-1};
  std::atomic<uint64_t> seq{0};         // bumped by each progress(): the deadline's clock restarts
  std::atomic<int64_t> deadline_ms{0};  // of the current piece of work, 0: the child's timeout
  std::atomic<int> channel_lost{0};     // a write to the pipe failed (its descriptor closed?)
  std::atomic<int> fault_set{0};
  char label[400] = {};
  GuardHit fault{};
};

namespace {

using Clock = std::chrono::steady_clock;

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * 0x100000001b3ull;
  return h;
}

// Printable, one line, at most `max` characters.
std::string printable(const std::string& s, size_t max = 300) {
  std::string out;
  for (char c : s.substr(0, max)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  if (s.size() > max) out += "...";
  return out;
}

ChildBoard* g_board = nullptr;            // in the child
volatile sig_atomic_t g_child_group = 0;  // in konform: the running child's process group
char g_remove[8][1024];                   // in konform: files to remove if killed

void on_fault(int sig, siginfo_t* si, void* context) {
  MemoryAccess access = MemoryAccess::unknown;
#if defined(__x86_64__) && defined(REG_ERR)
  // The page fault's error code: bit 1 is set for a write.
  const auto* uc = static_cast<const ucontext_t*>(context);
  access = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? MemoryAccess::write : MemoryAccess::read;
#else
  (void)context;
#endif
  if (g_board != nullptr && si->si_code > 0 && g_board->fault_set.load() == 0) {
    GuardHit hit;
    if (describe_guard_hit(si->si_addr, access, &hit)) {
      g_board->fault = hit;
      g_board->fault_set.store(1);
    }
  }
  // Returning re-runs the faulting access, which now ends the process with
  // this signal; a signal sent (raise, kill) is sent again.
  signal(sig, SIG_DFL);
  if (si->si_code <= 0) raise(sig);
}

void on_terminate(int sig) {
  const pid_t group = g_child_group;
  if (group > 0) kill(-group, SIGKILL);
  for (auto& path : g_remove)
    if (path[0] != '\0') unlink(path);
  signal(sig, SIG_DFL);
  raise(sig);
}

// The tasks (threads included) the user runs now: RLIMIT_NPROC counts them.
rlim_t tasks_of_user() {
  const uid_t uid = getuid();
  rlim_t count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string dir = std::string("/proc/") + e->d_name;
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0 || st.st_uid != uid) continue;
    if (DIR* tasks = opendir((dir + "/task").c_str())) {
      while (const dirent* t = readdir(tasks)) count += t->d_name[0] != '.';
      closedir(tasks);
    }
  }
  closedir(proc);
  return count;
}

void lower_limit(int resource, rlim_t value) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0) return;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < value) value = r.rlim_max;
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < value) return;
  r.rlim_cur = value;
  r.rlim_max = value;
  setrlimit(resource, &r);
}

// The child's own bounds: no core files, a fork bomb stopped at 512 more
// tasks (RLIMIT_NPROC; the root user is exempt), a huge allocation refused
// (RLIMIT_AS), and its own deadline in case konform's is gone (alarm, and
// RLIMIT_CPU for a child that blocks SIGALRM).
void limit_child(const IsolateOptions& o, rlim_t tasks_now) {
  lower_limit(RLIMIT_CORE, 0);
  if (tasks_now > 0) lower_limit(RLIMIT_NPROC, tasks_now + 512);
  const auto seconds = static_cast<unsigned>(std::ceil(o.timeout_s));
  rlimit cpu{seconds + 30, seconds + 60};
  setrlimit(RLIMIT_CPU, &cpu);
  alarm(seconds + 20);
#ifndef KONFORM_SANITIZED
  if (o.limit_address_space) {
    const rlim_t ram = static_cast<rlim_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
    lower_limit(RLIMIT_AS, std::max(ram / 2, rlim_t{8} << 30) + (rlim_t{4} << 30));
  }
#endif
}

void catch_faults() {
  static char stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof stack;
  sigaltstack(&ss, nullptr);  // a stack overflow still runs the handler
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}

// The threads of this process now.
int own_threads() {
  int n = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(tasks)) n += e->d_name[0] != '.';
    closedir(tasks);
  }
  return n;
}

// A backend's thread still running when the work is done may be about to
// write into a released buffer: wait up to 50 ms for it to fault there (or
// end) before the result goes out, or the child's exit would hide it.
void let_stray_threads_fault(int threads_at_start) {
  for (int waited_ms = 0; waited_ms < 50 && own_threads() > threads_at_start; waited_ms += 5) {
    const timespec tick{0, 5'000'000};
    nanosleep(&tick, nullptr);
  }
}

[[noreturn]] void child_main(const std::function<std::string(ChildChannel&)>& work, const IsolateOptions& o,
                             ChildBoard* board, const int msg[2], const int out[2], pid_t parent, rlim_t tasks) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(121);  // konform died before the line above
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  close(msg[0]);
  close(out[0]);
  dup2(out[1], STDOUT_FILENO);
  dup2(out[1], STDERR_FILENO);
  close(out[1]);
  limit_child(o, tasks);
  // The heap keeps what it grows to, large blocks included: a sweep allocates
  // and frees tensors of the same sizes case after case, and handing them
  // back to the system made every case fault their pages in again.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  g_board = board;
  catch_faults();
  ChildChannel channel(msg[1], board);
  const int threads_at_start = own_threads();
  int code = 0;
  try {
    std::string result = work(channel);
    let_stray_threads_fault(threads_at_start);
    channel.send('R', result);
  } catch (const std::exception& e) {
    channel.send('E', e.what());
    code = 3;
  } catch (...) {
    channel.send('E', "an exception that is no std::exception");
    code = 3;
  }
  std::fflush(nullptr);
  _exit(code);
}

// Reads the child's framed messages from `buffer`, leaving an incomplete
// one there. False when the bytes are not a message konform sent; `why`
// says what they were.
bool take_messages(std::string& buffer, ChildOutcome& out, std::string& error, bool& have_payload, std::string& why) {
  for (;;) {
    const size_t nl = buffer.find('\n');
    if (nl == std::string::npos) {
      if (buffer.size() <= 40) return true;
      why = "a header that konform never sends: '" + printable(buffer, 40) + "'";
      return false;
    }
    const std::string header = buffer.substr(0, nl);
    char kind = 0;
    unsigned long long length = 0, sum = 0;
    int used = 0;
    if (std::sscanf(header.c_str(), "%c %llu %16llx%n", &kind, &length, &sum, &used) != 3 ||
        used != static_cast<int>(header.size()) || std::string("RKE").find(kind) == std::string::npos ||
        length > (1ull << 30)) {
      why = "a header that konform never sends: '" + printable(header, 40) + "'";
      return false;
    }
    if (buffer.size() - nl - 1 < length) return true;
    std::string payload = buffer.substr(nl + 1, length);
    if (fnv1a(payload.data(), payload.size()) != sum) {
      why = "a message whose checksum does not match its " + std::to_string(length) + " bytes";
      return false;
    }
    buffer.erase(0, nl + 1 + length);
    if (kind == 'R') {
      out.payload = std::move(payload);
      have_payload = true;
    } else if (kind == 'K') {
      out.checkpoints.push_back(std::move(payload));
    } else {
      error = std::move(payload);
    }
  }
}

// Reads what is there without blocking; false at end of file.
bool drain(int fd, std::string& into) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
      into.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0;  // EAGAIN: open, nothing more now
  }
}

// The child's standard output and error, on konform's standard error, each
// line marked: nothing a kernel prints can pass for konform's own output.
class Relay {
 public:
  explicit Relay(std::string who) : who_(std::move(who)) {}
  void add(const std::string& bytes, bool flush) {
    pending_ += bytes;
    size_t nl;
    while ((nl = pending_.find('\n')) != std::string::npos) {
      line(pending_.substr(0, nl));
      pending_.erase(0, nl + 1);
    }
    if (flush && !pending_.empty()) line(pending_);
    if (flush) pending_.clear();
    if (pending_.size() > 4096) {  // no newline in sight
      line(pending_);
      pending_.clear();
    }
  }
  ~Relay() {
    if (dropped_ > 0)
      clear_progress(), std::fprintf(stderr, "  | %s: %lld more line(s) not shown\n", who_.c_str(), dropped_);
  }

 private:
  void line(const std::string& text) {
    if (++lines_ > 20) {
      ++dropped_;
      return;
    }
    clear_progress();
    std::fprintf(stderr, "  | %s: %s\n", who_.c_str(), printable(text).c_str());
  }
  std::string who_, pending_;
  long long lines_ = 0, dropped_ = 0;
};

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", s);  // 600, 0.5, 10, 1e+06
  return text;
}

std::string label_of(const ChildBoard& b) { return printable(std::string(b.label, strnlen(b.label, sizeof b.label))); }

}  // namespace

ChildChannel::ChildChannel(int fd, ChildBoard* board) : fd_(fd), board_(board) {
  struct stat st {};
  if (fstat(fd, &st) == 0) dev_ = st.st_dev, ino_ = st.st_ino;
}

void ChildChannel::require_intact() {
  struct stat st {};
  if (fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) return;
  board_->channel_lost.store(1);
  _exit(4);
}

void ChildChannel::progress(int64_t index, const std::string& label, double deadline_s) {
  const size_t n = std::min(label.size(), sizeof board_->label - 1);
  std::memcpy(board_->label, label.data(), n);
  board_->label[n] = '\0';
  board_->case_index.store(index);
  board_->deadline_ms.store(deadline_s > 0 ? static_cast<int64_t>(std::ceil(deadline_s * 1000)) : 0);
  board_->seq.fetch_add(1);
  set_guard_case(index);
}

void ChildChannel::send(char kind, const std::string& payload) {
  char header[64];
  std::snprintf(header, sizeof header, "%c %zu %016llx\n", kind, payload.size(),
                static_cast<unsigned long long>(fnv1a(payload.data(), payload.size())));
  const std::string frame = header + payload;
  if (!write_all(fd_, frame.data(), frame.size())) board_->channel_lost.store(1);
}

void ChildChannel::checkpoint(const std::string& payload) { send('K', payload); }

ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, double timeout_s) {
  IsolateOptions o;
  o.timeout_s = timeout_s;
  return run_isolated(work, o);
}

ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, const IsolateOptions& options) {
  const double timeout_s = options.timeout_s;
  if (!(timeout_s > 0 && timeout_s <= kMaxTimeoutSeconds))
    throw std::invalid_argument("timeout " + std::to_string(timeout_s) + " s is not above 0 and at most " +
                                std::to_string(static_cast<int64_t>(kMaxTimeoutSeconds)) + " s");
  static const rlim_t tasks = tasks_of_user();
  void* shared = mmap(nullptr, sizeof(ChildBoard), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
  ChildBoard* board = new (shared) ChildBoard();
  struct Unmap {
    ChildBoard* b;
    ~Unmap() { munmap(b, sizeof(ChildBoard)); }
  } unmap{board};
  int msg[2], out[2];
  if (pipe2(msg, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(msg[0]);
    close(msg[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);  // nothing buffered may be printed twice
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {msg[0], msg[1], out[0], out[1]}) close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) child_main(work, options, board, msg, out, parent, tasks);
  setpgid(pid, pid);  // the child does it too; whichever runs first
  g_child_group = pid;
  close(msg[1]);
  close(out[1]);
  for (int fd : {msg[0], out[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

  ChildOutcome result;
  Relay relay(options.what.empty() ? "child" : options.what);
  std::string buffer, error, relayed, why_corrupt;
  bool have_payload = false, timed_out = false, exited = false, corrupt = false;
  bool msg_open = true, out_open = true;
  int status = 0;
  double deadline_used = timeout_s;
  const auto start = Clock::now();
  const auto ceiling = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  auto piece_start = start;
  uint64_t seen = 0;
  for (;;) {
    const auto now = Clock::now();
    if (const uint64_t seq = board->seq.load(); seq != seen) {
      seen = seq;
      piece_start = now;
    }
    auto deadline = ceiling;
    deadline_used = timeout_s;
    if (const int64_t ms = board->deadline_ms.load(); ms > 0 && piece_start + std::chrono::milliseconds(ms) < ceiling) {
      deadline = piece_start + std::chrono::milliseconds(ms);
      deadline_used = static_cast<double>(ms) / 1000;
    }
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    if (Progress* progress = Progress::shown(); progress != nullptr && !options.what.empty())
      progress->child_at(options.what, board->case_index.load(), options.total,
                         board->seq.load() == 0 ? "starting" : label_of(*board));
    pollfd p[2] = {{msg_open ? msg[0] : -1, POLLIN, 0}, {out_open ? out[0] : -1, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    // Both pipes closed: the child is ending, its exit is a moment away.
    const int64_t wait_ms = msg_open || out_open ? 200 : 1;
    poll(p, 2, static_cast<int>(std::clamp<int64_t>(left, 1, wait_ms)));
    if (msg_open) msg_open = drain(msg[0], buffer);
    if (out_open) {
      relayed.clear();
      out_open = drain(out[0], relayed);
      relay.add(relayed, false);
    }
    if (!take_messages(buffer, result, error, have_payload, why_corrupt)) {
      corrupt = true;
      break;
    }
    // The child's end, not its pipes': anything it started may hold them open.
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      drain(msg[0], buffer);
      relayed.clear();
      drain(out[0], relayed);
      relay.add(relayed, true);
      if (!take_messages(buffer, result, error, have_payload, why_corrupt)) corrupt = true;
      else if (!buffer.empty() && WIFEXITED(status)) {
        corrupt = true;
        why_corrupt = "a message cut short (" + std::to_string(buffer.size()) + " bytes)";
      }
      break;
    }
  }
  if (exited) result.strays = kill(-pid, 0) == 0;
  kill(-pid, SIGKILL);  // the child's group: whatever it started goes too
  if (!exited) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    kill(-pid, SIGKILL);
  }
  g_child_group = 0;
  close(msg[0]);
  close(out[0]);

  result.last_case = board->case_index.load();
  result.last_label = label_of(*board);
  if (board->fault_set.load() != 0) {
    result.fault = board->fault;
    GuardHit& f = *result.fault;  // text from the child: bounded and printable
    f.check[sizeof f.check - 1] = f.arg[sizeof f.arg - 1] = f.message[sizeof f.message - 1] = '\0';
  }
  if (timed_out) {
    result.status = ChildOutcome::timeout;
    result.detail = "no result after " + seconds_text(deadline_used) + " s";
  } else if (corrupt) {
    result.status = ChildOutcome::corrupted;
    result.detail = "the backend corrupted konform's result channel: it carried " + why_corrupt;
  } else if (board->channel_lost.load() != 0 && !WIFSIGNALED(status)) {
    result.status = ChildOutcome::corrupted;
    result.detail =
        "the backend corrupted konform's result channel: the child's descriptor for it was closed "
        "or replaced under it";
  } else if (WIFSIGNALED(status)) {
    result.status = ChildOutcome::crashed;
    result.detail = "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else if (!error.empty()) {
    result.status = ChildOutcome::harness_error;
    result.detail = printable(error, 2000);
  } else if (!have_payload || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.status = ChildOutcome::crashed;
    result.detail = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                    " before reporting a result";
  }
  return result;
}

void end_child_with(const GuardHit& hit) {
  if (g_board == nullptr) throw std::runtime_error(hit.message);
  if (g_board->fault_set.load() == 0) {
    g_board->fault = hit;
    g_board->fault_set.store(1);
  }
  std::fflush(nullptr);
  signal(SIGABRT, SIG_DFL);
  std::abort();
}

void kill_children_on_signal() {
  struct sigaction sa {};
  sa.sa_handler = on_terminate;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void remove_on_signal(int slot, const std::string& path) {
  if (slot < 0 || slot >= 8) return;
  g_remove[slot][0] = '\0';
  if (path.size() >= sizeof g_remove[slot]) return;
  std::memcpy(g_remove[slot], path.c_str(), path.size() + 1);
}

}  // namespace konform
