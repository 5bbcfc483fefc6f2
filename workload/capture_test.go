package workload

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigCheck(t *testing.T) {
	live := &Live{DSN: "root@unix(/s)/", For: time.Second}
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Out: "w"}, "no source"},
		{Config{SlowLogs: []string{"a"}, GeneralLogs: []string{"b"}, Out: "w"}, "several sources"},
		{Config{SlowLogs: []string{"a"}, Live: live, Out: "w"}, "several sources"},
		{Config{SlowLogs: []string{"a"}}, "no output file"},
		{Config{Live: &Live{For: time.Second}, Out: "w"}, "without a DSN"},
		{Config{Live: &Live{DSN: "root@unix(/s)/"}, Out: "w"}, "want a duration > 0"},
		{Config{GeneralLogs: []string{"./w.log"}, Out: "w.log"}, "is the log it reads"},
	} {
		if err := tc.c.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
	if err := (Config{Live: live, Out: "w"}).Check(); err != nil {
		t.Errorf("live: %v", err)
	}
}

// TestCaptureFromLog: Capture reads, masks, writes; Summarize says what
// the file holds.
func TestCaptureFromLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.jsonl.gz")
	w, err := Capture(context.Background(), Config{GeneralLogs: []string{"testdata/mariadb-10.11-sysbench-general.log"}, MaskLiterals: true, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(out)
	if err != nil || !back.Masked || back.Statements() != w.Statements() {
		t.Fatalf("read back: %v, masked %v, %d statements", err, back.Masked, back.Statements())
	}
	var b bytes.Buffer
	Summarize(&b, out, w)
	for _, want := range []string{"104 statements on 5 connections", "general-log of mariadb 10.11.19", "schemas: sbtest; offsets to 1s",
		"SELECT 70", "not statements, left out: Close stmt 33, Prepare 33, Connect 5, Quit 5", "literals masked", "note: the log's times"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary\n%s\ndoes not say %q", b.String(), want)
		}
	}
}
