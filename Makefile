# The two commands: `make run` and `make test` do all the set-up they need.
SWIFT ?= swift
SOURCES := Package.swift Sources Tests Fuzz/Sources

.PHONY: run samples test build release bench bench-baseline fuzz format lint bootstrap dist install uninstall deb

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

## The release `collage` and, beside it, the subject-lifting library it loads when it needs it.
release: bootstrap
	$(SWIFT) build -c release --product collage
	$(SWIFT) build -c release --product CollageSegment
	$(SWIFT) build -c release --product CollageMotion

PORT ?= 8080
LIBRARY ?= out/sample-library
# More options for `make run`'s editor, e.g. ARGS=--lan to open it on your phone too.
ARGS ?=

## Builds in release, seeds a sample library on first run, and starts the editor (Ctrl-C stops it).
run: release
	@mkdir -p out
	scripts/seed-sample-library $(LIBRARY)
	.build/release/collage serve --port $(PORT) --library $(LIBRARY) $(ARGS)

## Renders sample collages and a sticker from the sample photos into out/, without the editor.
samples: release
	@mkdir -p out
	.build/release/collage make --layout strip --aspect 3:2 --radius 12 --background '#fdf6ec' \
		samples/astronaut.png samples/coffee.png samples/chelsea.png -o out/sample-collage.jpg
	.build/release/collage make --layout auto --aspect 4:5 --title 'Summer 2026 ☀️' --title-font 'Lobster Two' \
		samples/coffee.png samples/chelsea.png samples/rocket.jpg samples/astronaut.png samples/horse.png \
		-o out/titled-collage.jpg
	.build/release/collage render Examples/scrapbook.json -o out/scrapbook.png
	.build/release/collage render Examples/frames.json -o out/frames.jpg
	.build/release/collage sticker samples/chelsea.png --outline 10 --shadow -o out/cat-sticker.png

## Builds, runs every test (Swift, the browser tests, the API fuzzer, a short run of every fuzz
## target with its kept inputs, the Debian package installed in a clean tree), then checks formatting.
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/browser-tests
	scripts/api-fuzz
	scripts/fuzz --replay
	scripts/fuzz --seconds $(FUZZ_TEST_SECONDS)
	$(MAKE) --no-print-directory deb
	scripts/package-test
	$(MAKE) --no-print-directory lint

## Coverage-guided fuzzing of every parser of untrusted bytes (libFuzzer, address and undefined
## behaviour sanitizers), FUZZ_SECONDS per target; `make test` runs each for FUZZ_TEST_SECONDS.
FUZZ_SECONDS ?= 120
FUZZ_TEST_SECONDS ?= 8
fuzz: bootstrap
	scripts/fuzz --seconds $(FUZZ_SECONDS)

## Side-by-side benchmarks against the tools a user would pick instead (not part of `make test`);
## fails when any benchmark script fails, or when a measure is more than 25 % worse than
## bench/baseline.json in the better of two runs of its benchmark (`make bench-baseline`
## records a run as the new baseline).
bench: bootstrap
	@rm -f "$${COLLAGE_BENCH_RESULTS:-.build/bench/results.jsonl}"
	@status=0; for script in bench/*/run; do [ -x "$$script" ] || continue; "$$script" || { echo "bench: $$script failed" >&2; status=1; }; done; \
	for name in $$(bench/check --regressed); do \
		echo "bench: bench/$$name measured worse than its baseline; running it once more (the better of its two runs counts)"; \
		COLLAGE_BENCH_AGAIN=1 bench/$$name/run || { echo "bench: bench/$$name/run failed" >&2; status=1; }; \
	done; \
	bench/check || status=1; exit $$status

bench-baseline:
	bench/check --update

# Installing: `collage` with the Swift runtime linked in, so it runs where no toolchain is.
# Layout: $(PREFIX)/lib/collage holds the binary, the subject-lifting library it loads from
# beside itself and the editor's files; $(PREFIX)/bin/collage links to it. Man pages and
# bash, zsh and fish completions are written by the binary from its own command table.
PREFIX ?= /usr/local
DESTDIR ?=
DIST := .build/dist/release
CXX ?= g++
CC ?= gcc

## The files `install` and `deb` copy: a release build with the Swift runtime linked statically,
## and the OpenCV shim built as plain C++ (SwiftPM would tie it to the toolchain's runtime).
## Its sources are every .cpp in Sources/CSegment, as SwiftPM takes them for the development
## build: the folder is the one list, so a new source cannot be left out of the shipped library.
SEGMENT_SOURCES := $(sort $(wildcard Sources/CSegment/*.cpp))
dist: bootstrap
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/dist --product collage
	$(CXX) -std=c++17 -O2 -fPIC -shared -Wl,--no-undefined -ISources/CSegment/include \
		-ISources/CSegmentInterface/include -I/usr/include/opencv4 $(SEGMENT_SOURCES) \
		-o $(DIST)/libCollageSegment.so -lopencv_dnn -lopencv_imgproc -lopencv_core
	$(CC) -std=c11 -O2 -fPIC -shared -Wl,--no-undefined -ISources/CMotion/include -ISources/CMotionInterface/include \
		Sources/CMotion/cmotion.c -o $(DIST)/libCollageMotion.so -lavformat -lavcodec -lswscale -lavutil
	rm -rf $(DIST)/man $(DIST)/completions && mkdir -p $(DIST)/completions
	$(DIST)/collage man --output $(DIST)/man >/dev/null
	for shell in bash zsh fish; do $(DIST)/collage completion $$shell > $(DIST)/completions/$$shell; done

## Installs into $(DESTDIR)$(PREFIX) (default /usr/local).
install: dist
	scripts/install-tree $(DIST) "$(DESTDIR)" "$(PREFIX)"

## Removes what `install` put in $(DESTDIR)$(PREFIX).
uninstall:
	rm -rf "$(DESTDIR)$(PREFIX)/lib/collage"
	rm -f "$(DESTDIR)$(PREFIX)/bin/collage" "$(DESTDIR)$(PREFIX)/share/man/man1/collage.1"* \
		"$(DESTDIR)$(PREFIX)"/share/man/man1/collage-*.1* \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/collage" \
		"$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_collage" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/collage.fish"

## A Debian package of the installed tree, in out/ (checked with lintian when it is installed).
deb: dist
	scripts/make-deb $(DIST) out

format:
	$(SWIFT) format format --in-place --recursive $(SOURCES)

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)
