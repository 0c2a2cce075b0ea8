# The two commands a fresh machine needs: `make demo` runs the main job (the sample gallery
# in output/), `make test` passes the tests. Both install what they need first.
# `make install PREFIX=~/.local` installs the `lifeline` command; `make docs` builds the DocC
# documentation of the Lifeline module.

.PHONY: setup demo test fuzz transparency benchmark install docs

PREFIX ?= /usr/local

setup:
	scripts/setup.sh

# The gallery, and the copies of its pictures that the DocC catalog embeds.
demo: setup
	swift run lifeline samples --output output
	scripts/docs-pictures.sh

# The debug build's prebuilt record path must be what the runtime header compiles to now.
# Recording is process-wide, so the tests run one at a time. The transparency oracle runs
# OpenCombine's suite twice: recording, then recording with per-call snapshots (4 to 6 minutes on
# a loaded 2-core machine). The bounded fuzz run follows; the docs build last: it reuses the
# build, and fails on any DocC warning.
test: setup
	scripts/record-assembly.sh --check
	swift build --build-tests
	swift test --no-parallel
	scripts/transparency.sh
	scripts/transparency.sh --snapshots
	$(MAKE) fuzz
	scripts/docs.sh

# A bounded, deterministic fuzz run of the log reader and every output: the reproducers in
# Fuzz/Corpus and the sample logs first, then mutations of them. Fails on a crash or a hang and
# saves the input in .build/fuzz-crashes. FUZZ_EXECUTIONS and FUZZ_SEED change the run.
FUZZ_EXECUTIONS ?= 3000
FUZZ_SEED ?= 1
fuzz: setup
	swift build --product lifeline-fuzz
	"$$(swift build --show-bin-path)/lifeline-fuzz" --seed $(FUZZ_SEED) --executions $(FUZZ_EXECUTIONS) \
		Fuzz/Corpus Tests/LifelineRenderTests/Fixtures

# The DocC documentation of the Lifeline module, in .build/docs/Lifeline.doccarchive; fails on
# any warning.
docs: setup
	swift build --target Lifeline
	scripts/docs.sh

# OpenCombine's own suite run with Lifeline recording, and with per-call snapshots, gives exactly
# the outcomes of a no-op hook (scripts/transparency.sh).
transparency: setup
	swift package resolve
	scripts/transparency.sh
	scripts/transparency.sh --snapshots

# The benchmark runs the release `lifeline` binary on million-event logs, so it builds it first.
# It starts with the cost table of release and debug side by side: the debug build of the
# benchmark, what `swift test` would build, measures its column in a child process.
benchmark: setup
	swift build --product lifeline-benchmarks
	swift build -c release --product lifeline
	LIFELINE_BENCHMARK_DEBUG_BUILD="$$(swift build --show-bin-path)/lifeline-benchmarks" \
		swift run -c release lifeline-benchmarks

# A release build of the command, copied to $(PREFIX)/bin. On Linux it loads the Swift runtime
# from the toolchain that built it (its run path names the toolchain's lib/swift/linux) and
# Graphviz's shared libraries (libgvc6), so both must stay installed.
install: setup
	swift build -c release --product lifeline
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$$(swift build -c release --show-bin-path)/lifeline" "$(DESTDIR)$(PREFIX)/bin/lifeline"
