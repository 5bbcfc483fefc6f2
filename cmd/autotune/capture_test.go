package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/study"
	"github.com/autotune/autotune/workload"
)

// TestCaptureFromLog runs `autotune capture --from-general-log` and reads
// the file it wrote.
func TestCaptureFromLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.jsonl.gz")
	printed, err := runCommand(t.TempDir(), []string{"capture", "--from-general-log", "../../workload/testdata/mysql-8.0-general.log", "--out", out, "--mask-literals"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrote " + out + ": 10 statements on 3 connections", "mysql 8.0.36", "literals masked"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output\n%s\ndoes not say %q", printed, want)
		}
	}
	w, err := workload.Read(out)
	if err != nil || !w.Masked || w.Source != workload.SourceGeneralLog {
		t.Fatalf("%v %+v", err, w)
	}
}

// TestCaptureFlagErrors: flags that cannot be honoured are usage errors
// (exit 2) naming the flag; a password is never printed.
func TestCaptureFlagErrors(t *testing.T) {
	log := "../../workload/testdata/mysql-8.0-slow.log"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "w"}, "want a source"},
		{[]string{"--from-slow-log", log}, "--out FILE"},
		{[]string{"--from-slow-log", "nonexistent.log", "--out", "w"}, `--from-slow-log "nonexistent.log"`},
		{[]string{"--from-slow-log", log, "--from-general-log", log, "--out", "w"}, "--from-general-log: give one kind"},
		{[]string{"--from-slow-log", log, "--out", "w", "--for", "10s"}, "--for: only with --dsn"},
		{[]string{"--from-slow-log", log, "--out", "w", "--server-log", "/x"}, "--server-log: only with --dsn"},
		{[]string{"--dsn", "root@unix(/s)/", "--out", "w"}, "--dsn needs --for"},
		{[]string{"--dsn", "root@unix(/s)/", "--out", "w", "--for", "-1s"}, "--dsn needs --for"},
		{[]string{"--dsn", "root:hunter2@unix(/s)/", "--for", "1s", "--out", "w"}, "holds a password"},
		{[]string{"--dsn", "root@unix(/s)/", "--for", "1s", "--out", "w", "--from-slow-log", log}, "--dsn and --from-slow-log"},
		{[]string{"--from-slow-log", log, "--out", log}, "is the log it reads"},
		{[]string{"--dsn", "root@unix(/s)/", "--for", "1s", "--out", "w", "--server-log", "slow.log"}, "--server-log \"slow.log\": want an absolute path"},
	} {
		_, err := runCommand(t.TempDir(), append([]string{"capture"}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !study.IsUsage(err) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%v: the error shows the password: %v", tc.args, err)
		}
	}
	// A log that yields no statement: an error (exit 1), no file written.
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(dir, []string{"capture", "--from-slow-log", empty, "--out", filepath.Join(dir, "w.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "no statement found") || study.IsUsage(err) {
		t.Errorf("empty log: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "w.jsonl")); err == nil {
		t.Error("an empty log wrote a workload file")
	}
}
