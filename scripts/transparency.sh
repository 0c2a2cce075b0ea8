#!/usr/bin/env bash
# transparency.sh: the transparency oracle. Runs OpenCombine 0.14.0's own XCTest suite (1,486
# tests) with Lifeline recording every pipeline in the process, and compares each test's outcome
# with its outcome under a no-op `_Introspection` handler (scripts/transparency-baseline.txt).
# Recording must change no outcome.
#
# Usage: scripts/transparency.sh [--snapshots | --baseline] [-o RESULTS]
#
#   (default)    record in automatic mode, compare with the baseline
#   --snapshots  the same with per-call automatic snapshots (RecordingOptions(snapshots: .everyCall))
#   --baseline   run under the no-op handler and rewrite scripts/transparency-baseline.txt
#   -o RESULTS   where to write the results, one `Suite.test passed|failed|skipped` line per
#                test (default: .build/transparency/results-MODE.txt); the raw XCTest log is
#                written beside it (*.log)
#
# Why against a no-op handler and not against a clean pass: any enabled handler makes OpenCombine
# wrap subscribers and subscriptions in its SubscriberTap/SubscriptionTap proxies, and about 200
# of its tests cast, reflect or weakly hold the objects those proxies replace, so they fail under
# any hook (1,285 pass, 201 fail, 10 skipped). Two of them,
# PublisherConcurrencyTests.test{NonThrowing,Throwing}CancelAlreadyCancelled, hang under any hook:
# the test process is killed when one of them has run for 15 s without output, or when any other
# test has run for TRANSPARENCY_STALL_SECONDS (default 120; the slowest test takes 12 s
# unrecorded, RetryTests' 10,000 re-subscriptions take longer recorded); the test in flight is
# reported failed, and the tests not yet run are run again in a new process. The same happens to
# a test that crashes the process.
#
# The harness is a package generated in .build/transparency (reused between runs): it depends on
# OpenCombine by URL at the exact tag and on this package by path, and compiles OpenCombine's test
# sources as its own test target. A C constructor starts the recording before XCTest runs a test
# and an atexit handler stops it. FoundationTests/NotificationCenterTests.swift is excluded (it
# does not compile with Swift 6's Foundation); its tests are reported skipped. The logs of every
# test process (the suite starts ~45 child processes on purpose, which crash) are checked to be
# readable and non-empty, then deleted.
#
# Environment:
#   OPENCOMBINE_REPO    a git repository of OpenCombine holding the tag (default: the copy SwiftPM
#                       keeps in .build/repositories after `swift build`, else where git's
#                       url.*.insteadOf maps https://github.com/)
#   OPENCOMBINE_TAG     default 0.14.0
#   TRANSPARENCY_STALL_SECONDS  default 120
#
# A test whose outcome differs from the baseline is run again alone, 3 times, under the same
# handler; if every one of those runs gives the baseline outcome, the change was one of timing (a
# few of OpenCombine's tests race real timers against the test thread): it is reported and not
# counted.
#
# Exit status: 0 when every outcome matches the baseline, 3 when some differ, 1 on a build or
# usage error. The last line is `transparency: N passed, M failed`: N tests whose outcome matched
# the baseline, M whose outcome differed.

set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

die() { echo "transparency: $*" >&2; exit 1; }
note() { echo "transparency: $*" >&2; }

MODE=record
OUT=""
while (($#)); do
  case $1 in
    --snapshots) MODE=snapshots; shift ;;
    --baseline) MODE=noop; shift ;;
    -o) OUT=${2:?-o needs a path}; shift 2 ;;
    -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done

BASELINE=$ROOT/scripts/transparency-baseline.txt
WORK=$ROOT/.build/transparency
PKG=$WORK/harness
LOGS=$WORK/logs
mkdir -p "$WORK" || die "cannot create $WORK"
OUT=${OUT:-$WORK/results-$MODE.txt}
mkdir -p "$(dirname "$OUT")" && OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
STALL=${TRANSPARENCY_STALL_SECONDS:-120}
# The tests that hang under any `_Introspection` handler, and how long they are given.
HANGING_TESTS=" PublisherConcurrencyTests.testNonThrowingCancelAlreadyCancelled PublisherConcurrencyTests.testThrowingCancelAlreadyCancelled "
HANG=15
# How many times a test that changed outcome is run again alone (see below).
RERUNS=3
TAG=${OPENCOMBINE_TAG:-0.14.0}
URL=https://github.com/OpenCombine/OpenCombine
# The suite crashes ~45 child processes on purpose; the backtracer adds ~0.35 s to each.
export SWIFT_BACKTRACE=enable=no

if [[ -z ${OPENCOMBINE_REPO:-} ]]; then
  for candidate in "$ROOT"/.build/repositories/OpenCombine-*; do
    [[ -d $candidate ]] && OPENCOMBINE_REPO=$candidate && break
  done
fi
if [[ -z ${OPENCOMBINE_REPO:-} ]]; then
  github=$(git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null \
    | awk '$2 == "https://github.com/" {print $1; exit}' | sed 's/^url\.//; s/\.insteadof$//')
  [[ -n $github ]] && OPENCOMBINE_REPO=${github%/}/OpenCombine/OpenCombine.git
fi
[[ -n ${OPENCOMBINE_REPO:-} ]] || die "no OpenCombine repository found; run swift build first or set OPENCOMBINE_REPO"
git --git-dir="$OPENCOMBINE_REPO" rev-parse --verify -q "$TAG^{commit}" >/dev/null 2>&1 \
  || die "no tag $TAG in $OPENCOMBINE_REPO (set OPENCOMBINE_REPO / OPENCOMBINE_TAG)"
OPENCOMBINE_REPO=$(cd "$OPENCOMBINE_REPO" && pwd)

# -------------------------------------------------------------------------------------------
# The harness package.
# -------------------------------------------------------------------------------------------
write_package() {
  rm -rf "$PKG/Tests" "$PKG/Sources"
  mkdir -p "$PKG/Sources/TransparencyHookC/include" "$PKG/Tests/OpenCombineTests/_Transparency"
  git --git-dir="$OPENCOMBINE_REPO" archive --format=tar "$TAG" Tests/OpenCombineTests | tar -x -C "$PKG" \
    || die "git archive of OpenCombine $TAG failed"

  cat > "$PKG/Package.swift.new" <<EOF
// swift-tools-version:5.9
// Generated by scripts/transparency.sh: OpenCombine's test sources, compiled against OpenCombine
// (by URL, one copy shared with Lifeline) with Lifeline's recorder linked in.
import PackageDescription

let package = Package(
    name: "TransparencyHarness",
    dependencies: [
        .package(url: "$URL", exact: "$TAG"),
        .package(path: "$ROOT"),
    ],
    targets: [
        .target(name: "TransparencyHookC"),
        .testTarget(
            name: "OpenCombineTests",
            dependencies: [
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
                .product(name: "Lifeline", package: "$(basename "$ROOT")"),
                "TransparencyHookC",
            ],
            exclude: ["FoundationTests/NotificationCenterTests.swift"]
        ),
    ]
)
EOF
  # Rewrite the manifest only when it changes, so SwiftPM keeps its resolution.
  cmp -s "$PKG/Package.swift.new" "$PKG/Package.swift" 2>/dev/null && rm "$PKG/Package.swift.new" \
    || mv "$PKG/Package.swift.new" "$PKG/Package.swift"

  cat > "$PKG/Sources/TransparencyHookC/include/TransparencyHookC.h" <<'EOF'
#ifndef TRANSPARENCY_HOOK_C_H
#define TRANSPARENCY_HOOK_C_H
/// Defined in Swift (`@_cdecl`) in the test target; called once before main().
void transparency_install_hook(void);
#endif
EOF
  cat > "$PKG/Sources/TransparencyHookC/hook.c" <<'EOF'
#include "TransparencyHookC.h"

/* Runs before main(), so before XCTest starts any test. A constructor without a priority runs
   after the Swift runtime's own image constructor, so the Swift code it calls can use dynamic
   casts and conformance lookups. */
__attribute__((constructor)) static void transparency_hook_constructor(void) {
    transparency_install_hook();
}
EOF
  cat > "$PKG/Tests/OpenCombineTests/_Transparency/TransparencyHook.swift" <<'EOF'
// Generated by scripts/transparency.sh; not part of OpenCombine. Enables, before any test runs,
// the handler TRANSPARENCY_HOOK names: `noop` (the protocol's empty methods) or `record` /
// `snapshots` (Lifeline in automatic mode, without or with per-call snapshots), writing to
// TRANSPARENCY_LOGS/suite-PID.jsonl.
import Foundation
import Lifeline
import OpenCombine

final class TransparencyNoopIntrospection: _Introspection {}

private var transparencyHandler: _Introspection?

@_cdecl("transparency_install_hook")
public func transparencyInstallHook() {
    let environment = ProcessInfo.processInfo.environment
    switch environment["TRANSPARENCY_HOOK"] {
    case "noop"?:
        let handler = TransparencyNoopIntrospection()
        handler.enable()
        transparencyHandler = handler
    case let mode? where mode == "record" || mode == "snapshots":
        let folder = environment["TRANSPARENCY_LOGS"] ?? FileManager.default.temporaryDirectory.path
        let path = "\(folder)/suite-\(getpid()).jsonl"
        do {
            try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: mode == "snapshots" ? .everyCall : .atStop))
        } catch {
            // Running the suite unrecorded would compare nothing: end before any test.
            fputs("transparency: cannot record to \(path): \(error)\n", stderr)
            exit(2)
        }
        atexit { Lifeline.stop() }
    case nil:
        return  // listing the tests
    default:
        fputs("transparency: TRANSPARENCY_HOOK must be noop, record or snapshots\n", stderr)
        exit(2)
    }
}
EOF
}

build() {
  mkdir -p "$PKG"
  write_package
  (cd "$PKG" && for original in "$URL" "$URL.git"; do
     swift package config set-mirror --original "$original" --mirror "$OPENCOMBINE_REPO" >/dev/null 2>&1 \
       || swift package config set-mirror --original-url "$original" --mirror-url "$OPENCOMBINE_REPO" >/dev/null 2>&1
   done)
  note "building the harness in $PKG (log: $WORK/build.log)"
  local start=$SECONDS
  # SwiftPM keeps its build plan of a path dependency across builds and misses source files
  # added to Lifeline since; dropping the plan makes it plan again (compiled files are kept).
  rm -f "$PKG"/.build/*/debug/description.json
  if ! (cd "$PKG" && swift build --build-tests) > "$WORK/build.log" 2>&1; then
    grep -E 'error:' "$WORK/build.log" | sort -u | head -20 >&2
    tail -n 5 "$WORK/build.log" >&2
    die "the harness did not build (log: $WORK/build.log)"
  fi
  BIN=$(cd "$PKG" && swift build --build-tests --show-bin-path)/TransparencyHarnessPackageTests.xctest
  [[ -x $BIN ]] || die "no test binary at $BIN"
  note "built in $((SECONDS - start)) s"
  "$BIN" --list-tests 2>/dev/null | grep -E '^OpenCombineTests\.[A-Za-z0-9_]+/[A-Za-z0-9_]+$' \
    | sed 's/^OpenCombineTests\.//; s#/#.#' | LC_ALL=C sort -u > "$WORK/all-tests.txt"
  [[ -s $WORK/all-tests.txt ]] || die "the test binary lists no tests"
  git --git-dir="$OPENCOMBINE_REPO" show "$TAG:Tests/OpenCombineTests/FoundationTests/NotificationCenterTests.swift" \
    | grep -oE 'func test[A-Za-z0-9_]*' | sed 's/^func /NotificationCenterTests./' | LC_ALL=C sort -u > "$WORK/excluded-tests.txt"
}

# -------------------------------------------------------------------------------------------
# One run. XCTest stops at the first crash of its process, so a test that crashes or stalls
# the process is reported failed and the tests not run yet are run in a new process.
# -------------------------------------------------------------------------------------------
finished_tests() {  # XCTest log -> "Suite.test outcome" lines (the last outcome wins)
  sed -nE "s/^Test Case '([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)' (passed|failed|skipped) \(.*/\1.\2 \3/p" "$1" \
    | awk '{o[$1] = $2} END {for (t in o) print t, o[t]}' | LC_ALL=C sort
}

in_flight() {  # XCTest log -> the last test started ("Suite.test")
  tail -n 20 "$1" | sed -nE "s/^Test Case '([A-Za-z0-9_]+\.[A-Za-z0-9_]+)' started.*/\1/p" | tail -n 1
}

run_suite() {
  local log=${OUT%.txt}.log outcomes=$WORK/outcomes.txt extra=$WORK/extra.txt
  : > "$log"; : > "$extra"
  rm -rf "$LOGS"; mkdir -p "$LOGS"
  local attempt=0 args=() pid rc size last still remaining culprit
  RUN_START=$SECONDS
  note "running the suite under the $MODE handler (log: $log)"
  while :; do
    attempt=$((attempt + 1))
    echo "=== transparency: attempt $attempt ===" >> "$log"
    TRANSPARENCY_HOOK=$MODE TRANSPARENCY_LOGS=$LOGS "$BIN" "${args[@]}" >> "$log" 2>&1 &
    pid=$!; last=-1; still=0
    while kill -0 "$pid" 2>/dev/null; do
      sleep 1
      size=$(stat -c %s "$log")
      if [[ $size == "$last" ]]; then still=$((still + 1)); else still=0; last=$size; fi
      if ((still >= STALL)) || { ((still >= HANG)) && [[ $HANGING_TESTS == *" $(in_flight "$log") "* ]]; }; then
        echo "=== transparency: no output for ${still} s, killing the test process ===" >> "$log"
        pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
        break
      fi
    done
    { wait "$pid"; } 2>/dev/null; rc=$?
    finished_tests "$log" > "$outcomes"
    remaining=$(cat "$outcomes" "$extra" | sed 's/ .*//' | LC_ALL=C sort -u | LC_ALL=C comm -23 "$WORK/all-tests.txt" -)
    [[ -z $remaining ]] && break
    culprit=$(sed -nE "s/^Test Case '([A-Za-z0-9_]+\.[A-Za-z0-9_]+)' started.*/\1/p" "$log" | tail -n 1)
    if [[ -z $culprit ]] || cat "$outcomes" "$extra" | awk -v t="$culprit" '$1 == t {f = 1} END {exit !f}'; then
      note "the test process ended (status $rc) outside a test; $(wc -l <<< "$remaining") tests not run"
      sed 's/$/ failed/' <<< "$remaining" >> "$extra"
      break
    fi
    echo "$culprit failed" >> "$extra"
    note "$culprit ended the test process (status $rc); running the tests after it"
    remaining=$(grep -v -x -F "$culprit" <<< "$remaining")
    [[ -z $remaining ]] && break
    args=("$(sed 's/^/OpenCombineTests./; s/\./\//2' <<< "$remaining" | paste -sd,)")
  done
  { cat "$outcomes" "$extra"; sed 's/$/ skipped/' "$WORK/excluded-tests.txt"; } \
    | awk '{o[$1] = $2} END {for (t in o) print t, o[t]}' | LC_ALL=C sort > "$OUT"
  RUN_SECONDS=$((SECONDS - RUN_START))
  ATTEMPTS=$attempt
}

# Every log a test process left must be readable: a header, and either an end record or (for
# the child processes the suite crashes on purpose) lines up to where it died.
check_logs() {
  local count events
  count=$(find "$LOGS" -name 'suite-*.jsonl' | wc -l)
  ((count > 0)) || die "the recording left no log in $LOGS"
  events=$(cat "$LOGS"/suite-*.jsonl | sed -nE 's/^\{"kind":"end","events":([0-9]+),.*/\1/p' | awk '{n += $1} END {print n + 0}')
  ((events > 0)) || die "the recordings' end records count no event: nothing was recorded"
  local unreadable
  unreadable=$(for f in "$LOGS"/suite-*.jsonl; do head -c 200 "$f" | grep -q '"format":"lifeline-trace"' || echo "$f"; done)
  [[ -z $unreadable ]] || die "logs without a Lifeline header: $unreadable"
  LOG_SUMMARY="$count logs, $events events in the stopped ones, $(du -sh "$LOGS" | cut -f1)"
  rm -rf "$LOGS"
}

build
run_suite
p=$(grep -c ' passed$' "$OUT"); f=$(grep -c ' failed$' "$OUT"); s=$(grep -c ' skipped$' "$OUT")
note "$MODE: $p pass, $f fail, $s skipped in $RUN_SECONDS s ($ATTEMPTS test processes)"
if [[ $MODE == noop ]]; then
  cp "$OUT" "$BASELINE"
  note "baseline written to $BASELINE"
  exit 0
fi
check_logs
note "recorded: $LOG_SUMMARY"
differences=$(LC_ALL=C join -a1 -a2 -e missing -o 0,1.2,2.2 "$BASELINE" "$OUT" | awk '$2 != $3 {print "  " $1 ": " $2 " -> " $3}')
total=$(wc -l < "$BASELINE")

# A test that changed outcome is run again alone, RERUNS times, under the same handler. One that
# gives its baseline outcome every time changed for timing alone (OpenCombine's suite has tests
# that race real timers against the test thread, such as OperationQueueSchedulerTests'
# repeating schedule, which counts the queue's operations right after cancelling): it is
# reported, and not counted. One that differs in any of the runs alone is counted.
rerun_outcome() {  # TEST (Suite.test): passed or failed, run alone under $MODE
  local test=$1 out
  out=$(TRANSPARENCY_HOOK=$MODE TRANSPARENCY_LOGS=$RERUN_LOGS timeout "$STALL" "$BIN" \
    "OpenCombineTests.${test/./\/}" 2>&1 || true)
  if grep -q "^Test Case '$test' passed" <<< "$out"; then echo passed; else echo failed; fi
}
if [[ -n $differences ]]; then
  RERUN_LOGS=$(mktemp -d)
  kept=""
  while IFS= read -r line; do
    read -r test before _ after <<< "${line/:/}"
    matched=0
    if [[ $before == passed || $before == failed ]]; then
      for ((run = 1; run <= RERUNS; run++)); do
        [[ $(rerun_outcome "$test") == "$before" ]] && matched=$((matched + 1))
      done
    fi
    if ((matched == RERUNS)); then
      note "$test: $before -> $after in the suite run, $before in $RERUNS of $RERUNS runs alone: timing, not counted"
    else
      kept+="$line"$'\n'
    fi
  done <<< "$differences"
  rm -rf "$RERUN_LOGS"
  differences=${kept%$'\n'}
fi
changed=$(grep -c . <<< "$differences")
if ((changed > 0)); then
  echo "transparency: $changed of $total tests changed outcome when recorded ($MODE), against the no-op hook:"
  echo "$differences"
fi
echo "transparency: $((total - changed)) passed, $changed failed"
((changed == 0)) || exit 3
