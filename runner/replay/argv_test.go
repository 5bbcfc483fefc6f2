package replay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/runner"
)

// The mysql client that loads a dump is given --no-defaults as argv[1]
// (case defaults-file-argv-order, runner.OptionFileFirst): a fake client
// records the argv load runs it with, over the socket and over TCP, and
// it is clientArgs' own.
func TestLoadClientGetsTheOptionFileFirst(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "mariadb")
	rec := filepath.Join(dir, "argv")
	script := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > " + rec + "\ncat > /dev/null\n"
	if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(dir, "dump.sql")
	if err := os.WriteFile(dump, []byte("CREATE DATABASE sbtest;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := &Replay{opts: Options{Dump: dump, Client: client}}
	for _, srv := range []*runner.Server{
		{Socket: filepath.Join(dir, "mysqld.sock")},
		{Host: "127.0.0.1", Port: 3306, User: "bench"},
	} {
		if err := os.Remove(rec); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := r.load(ctx, srv); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if err := runner.OptionFileFirst(got); err != nil {
			t.Error(err)
		}
		if want := append([]string{client}, clientArgs(srv)...); !slices.Equal(got, want) {
			t.Errorf("the client ran as %q, clientArgs says %q", got, want)
		}
	}
}
