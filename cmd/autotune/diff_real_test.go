package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/study"
)

// TestDiffDSNReal compares a real MariaDB, started with two knobs changed
// from their defaults (the buffer pool and innodb_flush_log_at_trx_commit;
// the sandbox also sets max_connections), with an option file and with a
// trial of the fixture study, against golden output (the socket path,
// the server version and the temporary paths masked), and checks that
// the server's settings are unchanged afterwards. Skipped with -short or
// without a server, a failure instead under AUTOTUNE_REQUIRE_REAL=1.
func TestDiffDSNReal(t *testing.T) { realtest.EachServer(t, testDiffDSNReal) }

// testDiffDSNReal runs on server s; its golden files are the host's
// server's, or carry the server's name (diff-dsn-real-mysql-9.7.golden).
func testDiffDSNReal(t *testing.T, s realtest.Server) {
	suffix := ""
	if s != realtest.Host {
		suffix = "-" + s.Name
	}
	srv := teststore.StartOn(t, s, "innodb_buffer_pool_size = 256M\ninnodb_flush_log_at_trx_commit = 2\n")
	// root has no password: neither source may be set.
	t.Setenv(study.PasswordEnv, "")
	os.Unsetenv(study.PasswordEnv)
	dsn := "root@unix(" + srv.Socket + ")/"
	ex, err := runner.OpenExisting(dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	watched := []string{"version", "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_log_buffer_size",
		"max_connections", "innodb_adaptive_hash_index", "innodb_io_capacity", "innodb_change_buffering"}
	// What this server has of them (MariaDB 11 has no change buffer).
	before, err := ex.Variables(context.Background(), watched)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "best.cnf")
	writeTestFile(t, file, `# what a study found, for the server running with 256M and 2
[mysqld]
innodb-buffer-pool-size = 512M        # dashes; differs (SET GLOBAL)
innodb_flush_log_at_trx_commit = 2    # equal
innodb_log_buffer_size = 32M          # 16M running: needs a restart
skip-innodb-adaptive-hash-index       # OFF: equal to the default
loose-innodb_io_capacity = 200        # loose-: equal
innodb_change_buffering = ALL         # enum case; none running
max_connections = 300                 # not a knob of the catalogue; the sandbox runs 200
innodb_flush_method = o_direct        # equal
user = mysql                          # a start-up option, no variable

[client]
innodb_buffer_pool_size = 1G          # not read by the server
`)
	mask := strings.NewReplacer(srv.Socket, "SOCKET", before["version"], "VERSION", dir, "DIR")
	if s != realtest.Host {
		// Paths and versions aside, the output differs by server (its
		// defaults, which knobs it has, which are dynamic).
		mask = strings.NewReplacer(srv.Socket, "SOCKET", before["version"], "VERSION", dir, "DIR", s.Mysqld, "ROOT")
	}
	out, err := diffCLI("--dsn", dsn, file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	golden(t, "diff-dsn-real"+suffix+".golden", []byte(mask.Replace(out)))
	// Whatever the golden file says: the changed knob is read, and on
	// the host's MariaDB the restart knob is the server's READ_ONLY one.
	// MySQL does not say which variables are read-only: the catalogue's
	// flag is shown, and named as such.
	tag := "(server)"
	if strings.HasPrefix(s.Name, "mysql") {
		tag = "(catalogue)"
	}
	rows := [][]string{{"innodb_buffer_pool_size", "256M", "512M", "SET GLOBAL " + tag}}
	if s == realtest.Host {
		rows = append(rows, []string{"innodb_log_buffer_size", "16M", "32M", "restart (server)"})
	}
	for _, want := range rows {
		if !hasRow(out, want) {
			t.Errorf("output lacks the row %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "equal: innodb_flush_log_at_trx_commit = 2") {
		t.Errorf("innodb_flush_log_at_trx_commit = 2 runs and is wanted: not equal?\n%s", out)
	}

	db := fixtureDB(t)
	out, err = diffCLI("--dsn", dsn, "--db", db, "--study", "fix", "--trial", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mask = strings.NewReplacer(srv.Socket, "SOCKET", before["version"], "VERSION", db, "TRIALS.DB")
	golden(t, "diff-dsn-real-trial"+suffix+".golden", []byte(mask.Replace(out)))

	after, err := ex.Variables(context.Background(), watched)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range watched {
		if before[n] != after[n] {
			t.Errorf("diff changed the server: %s = %s, was %s", n, after[n], before[n])
		}
	}
}

// hasRow reports whether out has a line of exactly these fields (blanks
// between them).
func hasRow(out string, fields []string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}
