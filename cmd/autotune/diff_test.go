package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
