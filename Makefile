# The two commands a fresh machine needs: `make demo` runs the main job (the sample gallery
# in output/), `make test` passes the tests. Both install what they need first.

.PHONY: setup demo test fuzz benchmark

setup:
	scripts/setup.sh

demo: setup
	swift run lifeline samples --output output

# Recording is process-wide, so the tests run one at a time. The bounded fuzz run comes last.
test: setup
	swift build --build-tests
	swift test --no-parallel
	$(MAKE) fuzz

# A bounded, deterministic fuzz run of the log reader and every output: the reproducers in
# Fuzz/Corpus and the sample logs first, then mutations of them. Fails on a crash or a hang and
# saves the input in .build/fuzz-crashes. FUZZ_EXECUTIONS and FUZZ_SEED change the run.
FUZZ_EXECUTIONS ?= 3000
FUZZ_SEED ?= 1
fuzz: setup
	swift build --product lifeline-fuzz
	"$$(swift build --show-bin-path)/lifeline-fuzz" --seed $(FUZZ_SEED) --executions $(FUZZ_EXECUTIONS) \
		Fuzz/Corpus Tests/LifelineRenderTests/Fixtures

benchmark: setup
	swift run -c release lifeline-benchmarks
