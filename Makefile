# autotune: `make demo` installs what is missing, builds, and runs a short
# real study on a sandboxed MariaDB ending in an export; `make test` runs
# every test, the real-server ones included.
export PATH := $(PATH):/usr/local/go/bin

GO ?= go
BIN := bin/autotune
DEMO_DB := demo.db

.PHONY: all build deps demo test clean

all: build

deps:
	./scripts/install-deps.sh

build:
	$(GO) build -o $(BIN) ./cmd/autotune

# A short study: 8 x 500k rows (1.1 GB, prepared and warmed once, about a
# minute), then the baseline and 4 more trials (each loads the warm buffer
# pool, warm-up detected within 10-30 s, 20 s measurement), one
# re-measurement to confirm a new best, and 3 final interleaved best/baseline
# pairs that give the gain with its interval and the conclusion.
demo: deps build
	./$(BIN) search --study demo --db $(DEMO_DB) --trials 5 --warmup 10s --duration 20s --confirm 1 --ab-pairs 3 --minimize=false
	./$(BIN) trials --study demo --db $(DEMO_DB)
	./$(BIN) export --study demo --db $(DEMO_DB) -o best.cnf
	cat best.cnf
	./$(BIN) report --study demo --db $(DEMO_DB) --out demo-report

# AUTOTUNE_REQUIRE_REAL=1 turns a missing server or sysbench into a test
# failure instead of a skip.
test: deps
	./scripts/test.sh

clean:
	rm -rf bin autotune-sandbox $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm best.cnf demo-report $(DEMO_DB).*.lock
