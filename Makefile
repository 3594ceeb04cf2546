# The two commands: `make run` and `make test` do all the set-up they need.
SWIFT ?= swift
SOURCES := Package.swift Sources Tests

.PHONY: run samples test build release bench format lint bootstrap

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

## The release `collage` and, beside it, the subject-lifting library it loads when it needs it.
release: bootstrap
	$(SWIFT) build -c release --product collage
	$(SWIFT) build -c release --product CollageSegment

PORT ?= 8080
LIBRARY ?= out/sample-library

## Builds in release, seeds a sample library on first run, and starts the editor (Ctrl-C stops it).
run: release
	@mkdir -p out
	scripts/seed-sample-library $(LIBRARY)
	.build/release/collage serve --port $(PORT) --library $(LIBRARY)

## Renders sample collages and a sticker from the sample photos into out/, without the editor.
samples: release
	@mkdir -p out
	.build/release/collage make --layout magazine --aspect 4:5 --radius 12 --background '#fdf6ec' \
		samples/astronaut.png samples/coffee.png samples/chelsea.png -o out/sample-collage.jpg
	.build/release/collage render Examples/scrapbook.json -o out/scrapbook.png
	.build/release/collage sticker samples/chelsea.png --outline 10 --shadow -o out/cat-sticker.png

## Builds, runs every test (Swift, the browser tests, the API fuzzer), then checks formatting.
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/browser-tests
	scripts/api-fuzz
	$(MAKE) --no-print-directory lint

## Side-by-side benchmarks against the tools a user would pick instead (not part of `make test`).
bench: bootstrap
	@for script in bench/*/run; do [ -x "$$script" ] && "$$script"; done; true

format:
	$(SWIFT) format format --in-place --recursive $(SOURCES)

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)
