package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

// A limit the host sets on the server's process only (here an address
// space of 600 MB, ulimit -v, which the server defaults cannot start
// under either) is a host fault: the study retries it for
// --host-fault-wait, then pauses naming the limit and the fix; no trial
// is recorded failed, nothing is learned; once the limit is gone, the same
// command resumes and runs the trials the pause left. Each trial records
// the AIO backend its server reported.
func TestRealHostLimitOnTheServerPausesAndResumes(t *testing.T) {
	realtest.Require(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	server, err := exec.LookPath("mariadbd")
	if err != nil {
		server = "/usr/sbin/mariadbd"
	}
	// The trial servers (datadir .../data) run under the limit while the
	// file "limit" exists; the probe, the dataset's load and --version
	// never do.
	limit := filepath.Join(dir, "limit")
	mysqld := filepath.Join(dir, "mysqld-wrapper")
	writeScript(t, mysqld, fmt.Sprintf(`case "$1" in --defaults-file=*)
  if [ -e %[1]s ] && grep -q '^datadir = .*/data$' "${1#--defaults-file=}"; then exec %[2]s --as=600000000 -- %[3]s "$@"; fi;;
esac
exec %[3]s "$@"
`, limit, prlimit, server))
	spaceFile := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(spaceFile, []byte("include = [\"innodb_buffer_pool_size\", \"innodb_flush_neighbors\"]\n[knobs.innodb_buffer_pool_size]\nmax = \"256M\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := func(trials string, extra ...string) []string {
		return append([]string{"search", "--minimize=false", "--study", "hostfault", "--db", dbPath, "--workdir", work, "--trials", trials,
			"--tables", "1", "--table-size", "2000", "--threads", "2", "--warmup", "1s", "--duration", "3s", "--seed", "5",
			"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0", "--mysqld", mysqld, "--space", spaceFile}, extra...)
	}
	if code, out := startAutotune(t, bin, args("1")...).wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, out)
	}

	if err := os.WriteFile(limit, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	code, out := startAutotune(t, bin, args("3", "--host-fault-wait", "12s")...).wait(t, 3*time.Minute)
	took := time.Since(t0)
	if code == 0 {
		t.Fatalf("under the limit: exit 0, want the study paused\n%s", out)
	}
	if strings.Contains(out, "trial 1: trial 1:") {
		t.Errorf("the trial named twice:\n%s", out)
	}
	for _, want := range []string{"because of the host, not the configuration", "the server defaults do not start either", "ulimit -v", "It was retried for", "run the same command to resume", "retrying in 5s"} {
		if !strings.Contains(out, want) {
			t.Errorf("under the limit, the output does not say %q:\n%s", want, out)
		}
	}
	t.Logf("paused after %s, exit %d", took.Round(100*time.Millisecond), code)
	if st := trialStates(t, dbPath); st["complete"] != 1 || st["failed"] != 0 || st["rejected"] != 0 || st["running"] != 0 || st["interrupted"] != 1 {
		t.Errorf("after the host fault: trial states %v, want the baseline and the paused trial interrupted (nothing failed, nothing learned)", st)
	}
	assertNoServer(t, work)

	if err := os.Remove(limit); err != nil {
		t.Fatal(err)
	}
	if code, out := startAutotune(t, bin, args("3")...).wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("after the fix: exit %d\n%s", code, out)
	}
	if st := trialStates(t, dbPath); st["complete"] != 3 || st["failed"] != 0 {
		t.Errorf("after the fix: trial states %v, want 3 complete", st)
	}
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT number, state, source, aio_backend, failure FROM trials WHERE study = 'hostfault' ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		var st, src, aio, fail string
		_ = rows.Scan(&n, &st, &src, &aio, &fail)
		t.Logf("trial %d: %s %s aio=%q %s", n, st, src, aio, fail)
	}
	rows.Close()
	var backends string
	if err := db.QueryRow(`SELECT group_concat(DISTINCT aio_backend) FROM trials WHERE study = 'hostfault' AND state = 'complete'`).Scan(&backends); err != nil {
		t.Fatal(err)
	}
	if backends == "" || strings.Contains(backends, ",") {
		t.Errorf("AIO backends recorded: %q, want the one the servers reported", backends)
	}
	t.Logf("AIO backend of the trials: %s", backends)
	assertNoServer(t, work)
}
