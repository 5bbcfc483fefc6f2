package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The long options of recorded help texts (sysbench 1.0.20's general and
// workload help, go-tpc's cobra help with short forms) are read whatever
// the layout, '_' and '-' alike.
func TestLongOptionsOfRecordedHelp(t *testing.T) {
	for file, tc := range map[string]struct{ has, lacks []string }{
		"sysbench-1.0.20-help.txt":                 {has: []string{"rand-spec-iter", "mysql-socket", "report-interval", "histogram", "db-ps-mode", "mysql-ignore-errors", "percentile"}, lacks: []string{"tables", "rand-spec"}},
		"sysbench-1.0.20-oltp_read_write-help.txt": {has: []string{"table-size", "tables", "point-selects", "delete-inserts", "mysql-storage-engine"}, lacks: []string{"threads"}},
		"go-tpc-tpcc-run-help.txt":                 {has: []string{"host", "port", "threads", "warehouses", "weight", "interval", "output", "partition-type", "acThreads"}, lacks: []string{"use-fk"}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata/help", file))
		if err != nil {
			t.Fatal(err)
		}
		got := LongOptions(string(b))
		for _, o := range tc.has {
			if !got[o] {
				t.Errorf("%s: lacks --%s", file, o)
			}
		}
		for _, o := range tc.lacks {
			if got[o] {
				t.Errorf("%s: lists --%s", file, o)
			}
		}
	}
	if got := OptionNames([]string{"run", "--tables=8", "--mysql_db=x", "--threads", "4", "--tables=9"}); !slices.Equal(got, []string{"tables", "mysql-db", "threads"}) {
		t.Errorf("OptionNames: %v", got)
	}
}

// A program whose help lacks options the definition passes is refused,
// naming each option, the program and its version; one that lists them
// all passes; one that lists nothing cannot be judged and says so.
func TestCheckOptions(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "bench")
	script := "#!/bin/sh\nif [ \"$1\" = --help ]; then printf '  --threads=N  threads\\n  --time=N  seconds\\n'; else printf '  --tables=N  tables\\n'; fi\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	help := [][]string{{"--help"}, {"oltp", "help"}}
	if err := CheckOptions(ctx, prog, "bench 0.4", []string{"threads", "tables", "time"}, help...); err != nil {
		t.Errorf("all listed: %v", err)
	}
	err := CheckOptions(ctx, prog, "bench 0.4", []string{"threads", "rand-spec-iter", "tables", "mysql-socket"}, help...)
	if err == nil || !strings.Contains(err.Error(), "(bench 0.4) does not accept --rand-spec-iter, --mysql-socket") || !strings.Contains(err.Error(), prog) {
		t.Errorf("missing options: %v", err)
	}
	mute := filepath.Join(dir, "mute")
	os.WriteFile(mute, []byte("#!/bin/sh\necho usage: mute\n"), 0o755)
	if err := CheckOptions(ctx, mute, "mute 1", []string{"threads"}, []string{"--help"}); err == nil || !strings.Contains(err.Error(), "lists no options") {
		t.Errorf("no options listed: %v", err)
	}
}
