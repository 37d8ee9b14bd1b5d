// The command lines that replay a finding, as konform prints them and writes
// them into reports and reproducers: the running konform's absolute path
// first, and every file they name (a backend's library, a tolerance table, a
// reproducer) absolute too, so that a line pasted into a shell works from
// any directory, whether konform is on PATH or not.
#pragma once

#include <cstdint>
#include <string>

namespace konform {

class Backend;

// The path of the running program (/proc/self/exe), "" where it is unknown.
std::string running_program();

// The program every replay line starts with. `konform` until set; the
// konform command sets it to its own absolute path (running_program(), else
// argv[0] made absolute when it names a path). Programs that are not konform
// (the fuzzers, the tests) keep the word.
void set_replay_program(const std::string& path);

// A word for a shell command line: as it is when it holds nothing the shell
// would read specially, else in single quotes.
std::string shell_word(const std::string& word);

// `path` from the root ("/a/b/../c" as "/a/c"), without resolving symbolic
// links: what the user named, from any directory.
std::string absolute_path(const std::string& path);

// The --backend value that names b from any directory: a built-in name
// (scalar, simd:AVX2, cuda) as it is, a library's absolute path otherwise
// (with its ":TARGET").
std::string replay_backend(const Backend& b);

// Replays case `index` of `op`'s sweep on b, judged by the table in
// tolerances_file ("" for the built-in one).
std::string replay_command(const Backend& b, const std::string& op, uint64_t seed, int64_t index,
                           const std::string& tolerances_file = "");
// Reruns one property of `op` on b.
std::string property_command(const Backend& b, const std::string& op, const std::string& property, uint64_t seed,
                             const std::string& tolerances_file = "");
// property_command as a property's finding has it: with --profile strict for
// a property of the strict profile (profile not ""), and RapidCheck's shrunk
// counterexample (RC_PARAMS) when there is one.
std::string property_replay(const Backend& b, const std::string& op, const std::string& property, uint64_t seed,
                            const std::string& tolerances_file, const std::string& profile,
                            const std::string& rapidcheck_reproduce);
// Replays a reproducer file; on `backend` (--backend) where one is given.
std::string repro_command(const std::string& file, const std::string& tolerances_file = "",
                          const Backend* backend = nullptr);

// What a finding's replay line adds about its reproducer file:
// "   (or: KONFORM repro FILE)", or why none was written,
// "   (no reproducer: WHY)". has_reproducer_note: the line has either.
std::string reproducer_note(const std::string& file, const std::string& tolerances_file = "");
std::string no_reproducer_note(const std::string& why);
bool has_reproducer_note(const std::string& reproduce);
// The reproducer's path in a replay line's "(or: KONFORM repro PATH ...)",
// "" where it names none.
std::string reproducer_path(const std::string& reproduce);

}  // namespace konform
