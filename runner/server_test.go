package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

func TestLogExcerptFirstError(t *testing.T) {
	// Error logs of servers that refused an option, seen in the field
	// (testdata/errlog: MySQL 8.0 aborting on query_cache_size, MySQL 8.3 on
	// master-info-repository, MariaDB 10.2 on a removed InnoDB option; a
	// MariaDB 10.11 start that only warns about a removed one): the first
	// [ERROR] line names the option the server refused.
	tests := []struct{ file, want string }{
		{"a-mysql80-query-cache.err", "unknown variable 'query_cache_size=512M'"},
		{"b-mysql83-master-info.err", "unknown variable 'master-info-repository=TABLE'"},
		{"c-mariadb102-removed-innodb-option.err", "unknown variable 'innodb_additional_mem_pool_size=20M'"},
		{"d-mariadb1011-removed-but-accepted.err", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ex := LogExcerpt(filepath.Join("testdata", "errlog", tc.file))
			if ex == "" {
				t.Fatal("empty excerpt")
			}
			got := (&StartError{Reason: "exited", Excerpt: ex}).Error()
			if tc.want == "" {
				if strings.Contains(got, "unknown variable") {
					t.Fatalf("no error expected in %s, got %q", tc.file, got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("StartError = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestOpenSandboxRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "precious.ibd"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenSandbox(dir, Binary{})
	if err == nil || !strings.Contains(err.Error(), "did not create") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	// A new directory is created 0700 and reopens fine.
	nd := filepath.Join(dir, "new")
	if _, err := OpenSandbox(nd, Binary{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(nd); st.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	if _, err := OpenSandbox(nd, Binary{}); err != nil {
		t.Fatalf("reopen: %v", err)
	}
}

// realSandbox builds a sandbox of server s with a tiny snapshot (one
// table).
func realSandbox(t *testing.T, s realtest.Server) *Sandbox {
	t.Helper()
	ctx := context.Background()
	bin, err := FindServer(ctx, s.Mysqld)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sb, err := OpenSandbox(filepath.Join(dir, "sb"), bin)
	if err != nil {
		t.Fatal(err)
	}
	load := func(ctx context.Context, s *Server) error {
		return s.Exec(ctx, "CREATE TABLE sbtest.t (id INT PRIMARY KEY)", "INSERT INTO sbtest.t VALUES (1),(2),(3)")
	}
	if err := sb.BuildSnapshot(ctx, Dataset{Workload: "x", Tables: 1, TableSize: 3}, 20, load, t.Logf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if pids := realtest.ServerProcesses(sb.Dir); len(pids) > 0 {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Errorf("test left server processes: %v", pids)
		}
	})
	return sb
}

func TestRealStartReadyStop(t *testing.T) { realtest.EachServer(t, testRealStartReadyStop) }

func testRealStartReadyStop(t *testing.T, s realtest.Server) {
	sb := realSandbox(t, s)
	ctx := context.Background()
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(ctx, sb.Server, sb.Options(data, "innodb_buffer_pool_size = 256M\n", "t.err", 20))
	if err != nil {
		t.Fatal(err)
	}
	if !pidFileIs(filepath.Join(sb.Dir, "run", "mysqld.pid"), srv.Pid()) {
		t.Fatal("ready server's pid file does not hold its pid")
	}
	if !strings.Contains(strings.ToLower(srv.Version), "mariadb") && sb.Server.Flavor == MariaDB {
		t.Fatalf("version %q", srv.Version)
	}
	v, err := srv.query(ctx, "SELECT @@innodb_buffer_pool_size")
	if err != nil || v != "268435456" {
		t.Fatalf("buffer pool = %q, %v", v, err)
	}
	n, err := srv.query(ctx, "SELECT COUNT(*) FROM sbtest.t")
	if err != nil || n != "3" {
		t.Fatalf("snapshot rows = %q, %v", n, err)
	}
	if bind, err := srv.query(ctx, "SELECT @@bind_address"); err != nil || bind != "127.0.0.1" {
		t.Fatalf("bind_address = %q, %v; the sandbox listens on loopback only", bind, err)
	}
	for _, p := range []string{srv.ErrorLog, filepath.Join(sb.Dir, "my.cnf"), filepath.Join(data, "ibdata1")} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want no group/other access", p, st.Mode().Perm())
		}
	}
	cnf, _ := os.ReadFile(filepath.Join(sb.Dir, "my.cnf"))
	if !strings.Contains(string(cnf), "bind-address = 127.0.0.1") {
		t.Fatalf("generated my.cnf does not bind to loopback:\n%s", cnf)
	}
	if err := srv.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	if !srv.Exited() {
		t.Fatal("server still running after Stop")
	}
}

func TestRealRefusedOptionIsStartError(t *testing.T) {
	realtest.EachServer(t, testRealRefusedOptionIsStartError)
}

func testRealRefusedOptionIsStartError(t *testing.T, s realtest.Server) {
	sb := realSandbox(t, s)
	ctx := context.Background()
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(ctx, sb.Server, sb.Options(data, "innodb_no_such_knob = 1\n", "bad.err", 20))
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *StartError", err)
	}
	if !strings.Contains(se.Error(), "unknown variable") || !strings.Contains(se.Excerpt, "innodb") {
		t.Fatalf("StartError %q lacks the server's message; excerpt:\n%s", se.Error(), se.Excerpt)
	}
}

func TestRealStaleServerIsStopped(t *testing.T) { realtest.EachServer(t, testRealStaleServerIsStopped) }

func testRealStaleServerIsStopped(t *testing.T, s realtest.Server) {
	sb := realSandbox(t, s)
	ctx := context.Background()
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A server left by a killed autotune: started outside Start, not our
	// child's child, same pid file and socket.
	first, err := Start(ctx, sb.Server, sb.Options(data, "", "first.err", 20))
	if err != nil {
		t.Fatal(err)
	}
	argv := sb.Server.Argv("--defaults-file=" + filepath.Join(sb.Dir, "my.cnf"))
	stale := sb.Server.Isolate(exec.Command(argv[0], argv[1:]...))
	// Reuse the generated config for an independent process: stop the
	// first server (it was only needed to write the config) and launch.
	if err := first.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := stale.Start(); err != nil {
		t.Fatal(err)
	}
	go stale.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for !pidFileIs(filepath.Join(sb.Dir, "run", "mysqld.pid"), stale.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("stale server never wrote its pid file")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Wait until the stale server is fully up (a server still starting may
	// take its time to act on SIGTERM).
	probe := &Server{Socket: filepath.Join(sb.Dir, "run", "mysqld.sock")}
	for {
		if _, err := probe.query(ctx, "SELECT 1"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("stale server never became ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv, err := Start(ctx, sb.Server, sb.Options(data, "", "second.err", 20))
	if err != nil {
		_ = stale.Process.Kill()
		t.Fatalf("start after a stale server: %v", err)
	}
	defer srv.Stop(time.Minute)
	if alive(stale.Process.Pid) {
		t.Fatal("stale server still alive: two servers on one datadir")
	}
}

func TestDiskFull(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"[ERROR] InnoDB: preallocating 254803968 bytes for file ./ib_logfile101 failed with error 28", true},
		{`[Warning] mariadbd: Disk is full writing './binlog.000001' (Errcode: 28 "No space left on device")`, true},
		{"cp: error writing 'data/ibdata1': No space left on device", true},
		{"[ERROR] InnoDB: failed with error 280", false},
		{"[ERROR] mariadbd: unknown variable 'innodb-x=1'", false},
	} {
		if got := DiskFull(tc.line); got != tc.want {
			t.Errorf("DiskFull(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
