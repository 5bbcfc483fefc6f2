package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// TestMinimizeCommandEndToEnd runs a real 4-trial study without
// minimisation, then autotune minimize on it with the same flags: killed
// in the middle of a run (no server survives), resumed to its end with the
// same command; the stored minimisation is done, its runs repeat the best,
// and export writes the minimal configuration when it was accepted (else
// the full best, and --full is refused). The baseline my.cnf starves the
// buffer pool, so the best changes something worth keeping; the space
// offers innodb_flush_neighbors only values other than the default 1, so
// the best changes two knobs and the minimal configuration, when it drops
// one, is checked against the full best. (Splitting blocks of changes is
// search/minimize_test.go's, on a scripted benchmark.)
func TestMinimizeCommandEndToEnd(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	spaceFile := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(spaceFile, []byte("include = [\"innodb_buffer_pool_size\", \"innodb_flush_neighbors\"]\n[knobs.innodb_buffer_pool_size]\nmin = \"256M\"\nmax = \"512M\"\n[knobs.innodb_flush_neighbors]\nchoices = [\"0\", \"2\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cnf := filepath.Join(dir, "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_buffer_pool_size = 6M\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--study", "min", "--db", dbPath, "--workdir", work, "--space", spaceFile, "--baseline-cnf", cnf,
		"--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "2s", "--duration", "4s", "--steady-block", "1s"}
	// The re-measurement policy is the study's: minimize takes it from
	// the study (and refuses the flags).
	p := startAutotune(t, bin, append([]string{"search", "--minimize=false", "--trials", "4", "--seed", "3", "--prune=false", "--warm-start=false",
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "2"}, common...)...)
	if code, out := p.wait(t, 8*time.Minute); code != 0 {
		t.Fatalf("search exit %d:\n%s", code, out)
	}
	if code, out := startAutotune(t, bin, "minimize", "--study", "nope", "--db", dbPath, "--workdir", work).wait(t, time.Minute); code != 2 || !strings.Contains(out, `--study "nope": no such study`) {
		t.Fatalf("minimize of a missing study: exit %d:\n%s", code, out)
	}

	// Killed during its second minimisation run, then resumed.
	minimize := append([]string{"minimize", "--minimize-pairs", "2"}, common...)
	p = startAutotune(t, bin, minimize...)
	p.waitLine(t, "min-revert#", 5*time.Minute)
	time.Sleep(3 * time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, time.Minute)
	assertNoServer(t, work)
	p = startAutotune(t, bin, minimize...)
	code, out := p.wait(t, 15*time.Minute)
	if code != 0 || !strings.Contains(out, "minimal configuration:") {
		t.Fatalf("resumed minimize exit %d:\n%s", code, out)
	}
	assertNoServer(t, work)

	ctx := context.Background()
	db, err := storage.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	m, found, err := db.Minimization(ctx, "min")
	trials, terr := db.Trials(ctx, "min")
	db.Close()
	if err != nil || terr != nil || !found || !m.Done || m.Runs == 0 || m.Changes != 2 {
		t.Fatalf("stored minimisation %+v found %v: %v %v", m, found, err, terr)
	}
	best, _ := search.Best(trials)
	interrupted := 0
	for _, tr := range trials {
		if tr.Kind.Minimizing() && tr.RepeatOf != best.Number {
			t.Fatalf("trial %d (%s) repeats %d, want the best %d", tr.Number, tr.Kind, tr.RepeatOf, best.Number)
		}
		if tr.Kind.Minimizing() && tr.State == search.Interrupted {
			interrupted++
		}
	}
	if interrupted != 1 || m.Best != best.Number {
		t.Fatalf("%d interrupted minimisation runs (want the killed one); minimised %d, best %d", interrupted, m.Best, best.Number)
	}
	var exp bytes.Buffer
	err = runExport(ctx, &exportOptions{study: "min", db: dbPath, format: "cnf", trial: -1}, &exp, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	full := runExport(ctx, &exportOptions{study: "min", db: dbPath, format: "cnf", trial: -1, full: true}, &bytes.Buffer{}, time.Now())
	if m.Accepted {
		if !strings.Contains(exp.String(), "# autotune: minimal configuration") || full != nil {
			t.Fatalf("accepted minimisation: export\n%s\n--full: %v", exp.String(), full)
		}
	} else if !strings.Contains(exp.String(), "# autotune: best configuration") || full == nil {
		t.Fatalf("rejected minimisation: export\n%s\n--full: %v", exp.String(), full)
	}
	t.Logf("minimisation: %d runs, accepted %v, kept %d of %d changes; timings on a shared machine", m.Runs, m.Accepted, len(m.KeptSteps()), m.Changes)
}
