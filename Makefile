# The two commands a fresh machine needs: `make demo` runs the main job (the sample gallery
# in output/), `make test` passes the tests. Both install what they need first.
# `make install PREFIX=~/.local` installs the `lifeline` command; `make docs` builds the DocC
# documentation of the Lifeline module.

.PHONY: setup demo test benchmark install docs docs-check

PREFIX ?= /usr/local

setup:
	scripts/setup.sh

demo: setup
	swift run lifeline samples --output output

# Recording is process-wide, so the tests run one at a time.
test: setup
	swift build --build-tests
	swift test --no-parallel

benchmark: setup
	swift run -c release lifeline-benchmarks

# A release build with the Swift runtime linked in, so that the command runs outside the
# toolchain; it still needs Graphviz's shared libraries (libgraphviz-dev, or libgvc6 alone).
install: setup
	swift build -c release --product lifeline --static-swift-stdlib
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$$(swift build -c release --show-bin-path)/lifeline" "$(DESTDIR)$(PREFIX)/bin/lifeline"
