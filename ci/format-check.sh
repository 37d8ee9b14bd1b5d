#!/usr/bin/env bash
# Fails when a tracked C, C++ or CUDA source differs from what clang-format
# makes of it with the project's .clang-format; prints the files and the
# command that fixes them. Formatting differs between clang-format releases,
# so this pins the one Debian 12 ships (clang-format-14).
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${CLANG_FORMAT:-clang-format-14}
command -v "$tool" >/dev/null || { echo "format-check: $tool not found (ci/install-deps.sh installs it)"; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cc' '*.cpp' '*.hpp' '*.cu' '*.cuh')
bad=()
for f in "${files[@]}"; do
  "$tool" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "format-check: ${#bad[@]} of ${#files[@]} files are not formatted:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: $tool -i --style=file ${bad[*]}"
  exit 1
fi
echo "format-check: ${#files[@]} files formatted"
