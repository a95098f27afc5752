#!/bin/sh
# run.sh HARNESS ARGS... — run one fuzz harness (libFuzzer or driver.c) with a
# fresh temporary directory as its first corpus directory, where libFuzzer
# writes the inputs it finds; the directories in ARGS are only read. The
# suite uses it so that each run starts from the repository's corpus alone
# (what a long `deploy/dev fuzz` run gathers in build-fuzz/ is not replayed
# by every test run).
exe=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapis-fuzz.XXXXXX") || exit 1
"$exe" "$tmp" "$@"
rc=$?
rm -rf "$tmp"
exit $rc
