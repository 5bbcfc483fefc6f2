package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/study"
)

func TestDiffGolden(t *testing.T) {
	db := fixtureDB(t)
	var out bytes.Buffer
	in := filepath.Join("testdata", "diff-input.cnf")
	if err := runDiff(context.Background(), &diffOptions{study: "fix", db: db, trial: 3}, in, &out); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.golden", out.Bytes())
	s := out.String()
	// The [mariadb] group wins over [mysqld] (read later), 3178M equals the
	// trial's value; [client] never leaks in; datadir is not a knob.
	for _, want := range []string{"not knobs (left alone): 1 options, e.g. datadir=/var/lib/mysql", "innodb_doublewrite"} {
		if !strings.Contains(s, want) {
			t.Errorf("diff output lacks %q:\n%s", want, s)
		}
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "innodb_buffer_pool_size ") && strings.Contains(l, "differs") {
			t.Errorf("3178M in the file equals the trial's buffer pool: %q", l)
		}
	}
}

func TestDiffErrors(t *testing.T) {
	db := fixtureDB(t)
	bad := filepath.Join(t.TempDir(), "bad.cnf")
	// The server refuses an option before any group ("Found option
	// without preceding group"); an unterminated quote it reads as is.
	writeTestFile(t, bad, "# my.cnf\ninnodb_buffer_pool_size = 1G\n[mysqld]\n")
	err := runDiff(context.Background(), &diffOptions{study: "fix", db: db, trial: -1}, bad, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "bad.cnf") || !strings.Contains(err.Error(), "2") {
		t.Fatalf("malformed file: err = %v, want the file and line", err)
	}
	if err := runDiff(context.Background(), &diffOptions{study: "fix", db: db, trial: -1}, filepath.Join(t.TempDir(), "missing.cnf"), &bytes.Buffer{}); err == nil {
		t.Fatal("missing file accepted")
	}
	// A trial number below -1 is a usage error, not the best.
	err = runDiff(context.Background(), &diffOptions{study: "fix", db: db, trial: -5}, filepath.Join("testdata", "diff-input.cnf"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--trial -5: want a trial number") || exitCode(err) != 2 {
		t.Fatalf("--trial -5: err = %v", err)
	}
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// diffCLI runs `autotune diff` with args in-process and returns its output.
func diffCLI(args ...string) (string, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetArgs(append([]string{"diff"}, args...))
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// Flags of diff that do not go together are usage errors (exit 2) naming
// the flag, refused before any server is asked.
func TestDiffDSNFlags(t *testing.T) {
	db := fixtureDB(t)
	in := filepath.Join("testdata", "diff-input.cnf")
	dsn := "app@tcp(127.0.0.1:1)/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "accepts 1 arg(s), received 0 (usage: autotune diff FILE | --dsn DSN [FILE] [flags])"},
		{[]string{"--timeout", "3s", in}, "--timeout: only with --dsn"},
		{[]string{"--password-file", "pw.cnf", in}, "--password-file: only with --dsn"},
		{[]string{"--dsn", dsn, "--study", "fix", in}, "--study: with --dsn and FILE"},
		{[]string{"--dsn", dsn, "--db", db, in}, "--db: with --dsn and FILE"},
		{[]string{"--dsn", dsn, "--trial", "2", in}, "--trial: with --dsn and FILE"},
		{[]string{"--dsn", dsn, "--timeout", "0s", in}, "--timeout 0s: want a duration > 0"},
		{[]string{"--dsn", "app:s3cret@tcp(127.0.0.1:1)/", in}, `--dsn "app:xxx@tcp(127.0.0.1:1)/" holds a password`},
		{[]string{"--dsn", "@tcp(127.0.0.1:1)/", in}, "no user"},
		{[]string{"--dsn", dsn, filepath.Join(t.TempDir(), "none.cnf")}, "none.cnf"},
		{[]string{"--dsn", dsn, in, in}, "accepts between 0 and 1 arg"},
	} {
		out, err := diffCLI(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != 2 {
			t.Errorf("diff %v: err %v (exit %d), want a usage error with %q", tc.args, err, exitCode(err), tc.want)
		}
		if strings.Contains(out+errText(err), "s3cret") {
			t.Errorf("diff %v: the password is printed", tc.args)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A server that cannot be reached is a clear error naming the DSN
// (redacted) within the deadline: a socket path nobody listens on (no
// file, and a stale socket file), a closed loopback port, and a server
// that accepts but never answers (--timeout).
func TestDiffDSNUnreachable(t *testing.T) {
	t.Setenv(study.PasswordEnv, "s3cret-pw")
	dir, err := os.MkdirTemp("", "at-diff") // short: a socket path must stay under ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	// A listener that accepts connections and never sends the handshake.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	in := filepath.Join("testdata", "diff-input.cnf")
	for _, tc := range []struct {
		dsn, timeout, want string
	}{
		{"app@unix(" + filepath.Join(dir, "none.sock") + ")/", "2s", "no such file or directory"},
		{"app@unix(" + stale + ")/", "2s", "connection refused"},
		{"app@tcp(" + closedAddr + ")/", "2s", "connection refused"},
		{"app@tcp(" + silent.Addr().String() + ")/", "500ms", "no answer within 500ms"},
	} {
		start := time.Now()
		out, err := diffCLI("--dsn", tc.dsn, "--timeout", tc.timeout, in)
		took := time.Since(start)
		d, _ := time.ParseDuration(tc.timeout)
		if err == nil || exitCode(err) != 1 {
			t.Fatalf("%s: err %v, want exit 1", tc.dsn, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "diff --dsn "+tc.dsn+": cannot read the server") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want the DSN and %q", tc.dsn, msg, tc.want)
		}
		if took > d+2*time.Second {
			t.Errorf("%s: failed after %s, deadline %s", tc.dsn, took, tc.timeout)
		}
		if strings.Contains(out+msg, "s3cret-pw") {
			t.Errorf("%s: the password is printed: %s %s", tc.dsn, out, msg)
		}
	}
}
