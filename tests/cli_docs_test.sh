#!/usr/bin/env bash
# Every option `konform --help` names is documented in docs/cli.md, and every
# command it names has a section there.
#   usage: cli_docs_test.sh PATH/TO/konform PATH/TO/docs/cli.md
set -u
konform=${1:?usage: cli_docs_test.sh KONFORM CLI_MD}
doc=${2:?usage: cli_docs_test.sh KONFORM CLI_MD}
failures=0
help=$("$konform" --help)
for flag in $(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
  if ! grep -qF -- "\`$flag" "$doc"; then
    echo "FAIL: $flag (in konform --help) is not documented in $doc"
    failures=$((failures + 1))
  fi
done
for command in $(grep -oE '^  konform [a-z]+' <<<"$help" | awk '{print $2}' | sort -u); do
  if ! grep -q "^## konform $command" "$doc"; then
    echo "FAIL: konform $command has no section in $doc"
    failures=$((failures + 1))
  fi
done
echo "cli docs: $failures problem(s)"
[[ $failures -eq 0 ]]
