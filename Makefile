# autotune: `make demo` installs what is missing, builds, and runs a short
# real study on a sandboxed MariaDB ending in an export; `make test` runs
# every test, the real-server ones included.
export PATH := $(PATH):/usr/local/go/bin

GO ?= go
BIN := bin/autotune
LAB := bin/autotune-lab
DEMO_DB := demo.db

# SERVER picks the server of `make demo`: mariadb-10.11 (the host's, the
# default), mariadb-11.8 or mysql-9.7 (root file systems that
# scripts/install-servers.sh builds from Debian's packages).
SERVER ?= mariadb-10.11
ifeq ($(SERVER),mariadb-10.11)
SERVER_FLAG :=
DEMO_STUDY := demo
else
SERVER_FLAG = --mysqld "$$(./scripts/install-servers.sh --path $(SERVER))" --workdir autotune-sandbox-$(SERVER)
DEMO_STUDY := demo-$(SERVER)
endif

.PHONY: all build lab deps servers demo test clean

all: build

deps:
	./scripts/install-deps.sh

# The root file systems of MariaDB 11.8 and MySQL 9.7 (cached; seconds
# when present).
servers:
	./scripts/install-servers.sh

build:
	$(GO) build -o $(BIN) ./cmd/autotune

# The strategy lab (autotune-lab bench-search, docs/development.md), built
# apart from autotune; make test runs its tests with the rest.
lab:
	$(GO) build -o $(LAB) ./cmd/autotune-lab

# A short study: 8 x 500k rows (1.1 GB, prepared and warmed once, about a
# minute), then the baseline and 4 more trials (each loads the warm buffer
# pool, warm-up detected within 10-30 s, 20 s measurement), one
# re-measurement to confirm a new best, and 3 final interleaved best/baseline
# pairs that give the gain with its interval and the conclusion.
demo: deps build
	if [ "$(SERVER)" != mariadb-10.11 ]; then ./scripts/install-servers.sh $(SERVER); fi
	./$(BIN) search $(SERVER_FLAG) --study $(DEMO_STUDY) --db $(DEMO_DB) --trials 5 --warmup 10s --duration 20s --confirm 1 --ab-pairs 3 --minimize=false
	./$(BIN) trials --study $(DEMO_STUDY) --db $(DEMO_DB)
	./$(BIN) export --study $(DEMO_STUDY) --db $(DEMO_DB) -o best.cnf
	cat best.cnf
	./$(BIN) report --study $(DEMO_STUDY) --db $(DEMO_DB) --out demo-report

# AUTOTUNE_REQUIRE_REAL=1 turns a missing server or sysbench into a test
# failure instead of a skip.
test: deps servers
	./scripts/test.sh

clean:
	rm -rf bin autotune-sandbox autotune-sandbox-* $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm best.cnf demo-report $(DEMO_DB).*.lock
