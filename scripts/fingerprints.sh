#!/usr/bin/env bash
# fingerprints.sh: whether each realistic app's findings keep their fingerprints from run to run.
# Runs each app of Tests/Apps RUNS times (default 10) recorded with the default options and RUNS
# times with a snapshot after every call, diagnoses each log, and prints per app and mode the
# distinct sets of (code, fingerprint) the runs gave and how many runs gave each. One set per
# line of output is the goal: the same bug, the same fingerprint, in every run.
#
# It also compares each run with the first by `lifeline diff`, and prints how many runs gave
# how many new and resolved findings: "0 new, 0 resolved" for every run is the goal, the
# baseline a seeded mutation is measured against (issue 26).
#
# Usage: [MODES="default every-call"] scripts/fingerprints.sh [RUNS] [APP ...]
#        (apps by executable name, default all seven; MODES picks the recording modes)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(news-reader portfolio chat-client photo-backup download-center account-settings grocery-list)
swift build --product lifeline >/dev/null
for app in "${apps[@]}"; do swift build --product "$app" >/dev/null; done
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# How many findings `lifeline diff` calls new and resolved, from its JSON report on stdin.
count_changes='import json,sys; f=json.load(sys.stdin)["findings"]; print(len(f["new"]), "new,", len(f["resolved"]), "resolved")'
for app in "${apps[@]}"; do
    for mode in ${MODES:-default every-call}; do
        options=()
        [ "$mode" = every-call ] && options=(LIFELINE_OPTIONS=snapshots=every-call)
        for run in $(seq "$runs"); do
            log="$work/$app-$mode-$run.lifeline"
            env LIFELINE_TRACE="$log" "${options[@]}" "$bin/$app" >/dev/null 2>&1
            # diagnose exits 1 when it finds an error: the findings are what is compared here.
            { "$bin/lifeline" diagnose "$log" --format json 2>/dev/null || true; } \
                | python3 -c 'import json,sys; print(" ".join(sorted(d["code"]+":"+d.get("fingerprint","") for d in json.load(sys.stdin)["diagnoses"])) or "(none)")' \
                >> "$work/$app-$mode.sets"
            # diff exits 1 when the logs differ: the counts are what is compared here.
            [ "$run" = 1 ] || { "$bin/lifeline" diff "$work/$app-$mode-1.lifeline" "$log" --format json 2>/dev/null || true; } \
                | python3 -c "$count_changes" >> "$work/$app-$mode.changes"
        done
        echo "$app, $mode:"
        sort "$work/$app-$mode.sets" | uniq -c | sed 's/^/  /'
        if [ -s "$work/$app-$mode.changes" ]; then
            echo "  compared with run 1 by lifeline diff:"
            sort "$work/$app-$mode.changes" | uniq -c | sed 's/^/    /'
        fi
    done
done
