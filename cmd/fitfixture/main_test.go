package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// TestFitFixture writes a stored study as a fixture, and refuses what it
// cannot write with the documented exit codes.
func TestFitFixture(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	settings := `{"workload":"oltp_read_write","threads":16,"tables":8,"table_size":500000}`
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "r", Settings: settings, Seed: 1, Cores: 2, RAMBytes: 24 << 30, Created: t0}); err != nil {
		t.Fatal(err)
	}
	for n, bp := range []string{"", "1073741824", "4294967296"} {
		cfg, kind := space.Config{}, search.Sampled
		if bp == "" {
			kind = search.Baseline
		} else {
			cfg["innodb_buffer_pool_size"] = bp
		}
		tr := search.Trial{Study: "r", Number: n, Kind: kind, State: search.Running, Params: cfg, Started: t0.Add(time.Duration(n) * time.Minute)}
		if err := db.BeginTrial(ctx, tr); err != nil {
			t.Fatal(err)
		}
		tr.State, tr.Outcome, tr.Ended = search.Complete, measure.Outcome{Score: 500 + 100*float64(n)}, tr.Started.Add(45*time.Second)
		if err := db.FinishTrial(ctx, tr, 45*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	var out, errs bytes.Buffer
	if code := run(ctx, []string{"-db", path, "-study", "r", "-about", "a test"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var fix lab.FitFixture
	if err := json.Unmarshal(out.Bytes(), &fix); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if fix.About != "a test" || fix.Cores != 2 || fix.Settings != settings || len(fix.Trials) != 3 ||
		fix.Trials[2].Score != 700 || fix.Trials[2].Params["innodb_buffer_pool_size"] != "4294967296" || fix.Trials[0].Kind != search.Baseline {
		t.Errorf("fixture:\n%s", out.String())
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-db", path, "-study", "r"}, 2, "usage: fitfixture"},
		{[]string{"-db", path, "-about", "x", "extra"}, 2, "usage: fitfixture"},
		{[]string{"-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"-h"}, 0, "Usage of fitfixture"},
		{[]string{"-db", path, "-study", "nope", "-about", "x"}, 1, `fitfixture: -study "nope": no such study in ` + path},
		{[]string{"-db", path + ".missing", "-study", "r", "-about", "x"}, 1, `fitfixture: -db "` + path + `.missing": stat`},
	} {
		var out, errs bytes.Buffer
		if code := run(ctx, tc.args, &out, &errs); code != tc.code || !strings.Contains(errs.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d saying %q", tc.args, code, errs.String(), out.String(), tc.code, tc.want)
		}
	}
}
