#include "konform/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace konform {

namespace {

Progress* g_shown = nullptr;

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

// "42 s", "3 min 05 s", "1 h 12 min".
std::string duration_text(double s) {
  const long long whole = static_cast<long long>(s + 0.5);
  char text[48];
  if (whole < 60) std::snprintf(text, sizeof text, "%lld s", whole);
  else if (whole < 3600) std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
  else std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, whole % 3600 / 60);
  return text;
}

// Columns of the terminal on stderr, 80 when it does not say: a longer line
// would wrap, and '\r' would then redraw only its last row.
size_t terminal_width() {
  winsize ws{};
  return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

}  // namespace

Progress::Progress(int64_t ops, bool terminal)
    : ops_(ops),
      terminal_(terminal),
      owner_(getpid()),
      start_(Clock::now()),
      op_start_(start_),
      last_end_(start_),
      next_draw_(start_) {
  g_shown = this;
}

Progress::Progress(std::function<void(const std::string&)> relay, bool terminal) : Progress(0, terminal) {
  relay_ = std::move(relay);
}

Progress::~Progress() {
  clear();
  if (g_shown == this) g_shown = nullptr;
}

Progress* Progress::shown() { return g_shown != nullptr && g_shown->owner_ == getpid() ? g_shown : nullptr; }

void Progress::begin_op() {
  ++begun_;
  op_start_ = Clock::now();
  // A terminal shows each op at once; a log only an op that runs long, as a line every 5 s.
  next_draw_ = terminal_ ? op_start_ : op_start_ + std::chrono::seconds(5);
}

void Progress::end_op() {
  ++done_;
  last_end_ = Clock::now();
}

// From the mean time of the ops done so far, less what the current op has taken.
std::string Progress::eta_text(Clock::time_point now) const {
  if (done_ == 0) return "ETA unknown";
  const double per_op = seconds(last_end_ - start_) / static_cast<double>(done_);
  return "ETA " + duration_text(std::max(0.0, per_op * static_cast<double>(ops_ - done_) - seconds(now - last_end_)));
}

void Progress::child_at(const std::string& what, int64_t case_index, int64_t cases, const std::string& label) {
  const auto now = Clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + (terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000));
  const std::string where =
      case_index >= 0 ? "case " + std::to_string(case_index) + "/" + std::to_string(cases) : label;
  const std::string text = what + ": " + where + ", " + duration_text(seconds(now - op_start_));
  if (relay_) relay_(text);
  else draw(text, now);
}

void Progress::note(const std::string& text) {
  const auto now = Clock::now();
  if (terminal_) {  // several workers: one redraw per 0.25 s
    if (now < next_draw_) return;
    next_draw_ = now + std::chrono::milliseconds(250);
  }
  draw(text, now);
}

void Progress::draw(const std::string& text, Clock::time_point now) {
  std::string line = "  " + text + "  [" + std::to_string(begun_) + "/" + std::to_string(ops_) + " ops, " +
                     duration_text(seconds(now - start_)) + " elapsed, " + eta_text(now) + "]";
  if (!terminal_) {
    std::fprintf(stderr, "%s\n", line.c_str());
    return;
  }
  line.resize(std::min(line.size(), terminal_width() - 1));
  const size_t pad = drawn_ > line.size() ? drawn_ - line.size() : 0;  // what is left of a longer line
  std::fprintf(stderr, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
  drawn_ = line.size() + pad;
}

void Progress::clear() {
  if (drawn_ == 0 || owner_ != getpid()) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  drawn_ = 0;
}

void clear_progress() {
  if (Progress* p = Progress::shown()) p->clear();
}

}  // namespace konform
