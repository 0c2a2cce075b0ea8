# The two commands a fresh machine needs: `make demo` runs the main job (the sample gallery
# in output/), `make test` passes the tests. Both install what they need first.

.PHONY: setup demo test transparency benchmark

setup:
	scripts/setup.sh

demo: setup
	swift run lifeline samples --output output

# Recording is process-wide, so the tests run one at a time.
test: setup
	swift build --build-tests
	swift test --no-parallel
	scripts/transparency.sh

# OpenCombine's own suite run with Lifeline recording gives exactly the outcomes of a no-op hook
# (scripts/transparency.sh; `--snapshots` for per-call snapshots).
transparency: setup
	swift package resolve
	scripts/transparency.sh

# The benchmark runs the release `lifeline` binary on million-event logs, so it builds it first.
benchmark: setup
	swift build -c release --product lifeline
	swift run -c release lifeline-benchmarks
