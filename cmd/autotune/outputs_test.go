package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/exportfile"
)

// exportNow is the fixed export date of the golden files.
var exportNow = time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)

func TestTrialsGolden(t *testing.T) {
	db := fixtureDB(t)
	var out bytes.Buffer
	if err := runTrials(context.Background(), &trialsOptions{study: "fix", db: db}, &out); err != nil {
		t.Fatal(err)
	}
	golden(t, "trials.golden", out.Bytes())
}

func TestStudiesGolden(t *testing.T) {
	db := fixtureDB(t)
	var out bytes.Buffer
	if err := runStudies(context.Background(), &studiesOptions{db: db}, &out); err != nil {
		t.Fatal(err)
	}
	golden(t, "studies.golden", bytes.ReplaceAll(out.Bytes(), []byte(db), []byte("trials.db")))

	if err := runStudies(context.Background(), &studiesOptions{db: db + ".missing"}, &out); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("missing db: err = %v, want one naming --db", err)
	}
}

func TestShowGolden(t *testing.T) {
	db := fixtureDB(t)
	for _, tc := range []struct {
		file    string
		trial   string
		samples bool
	}{
		{"show-best.golden", "best", true},
		{"show-baseline.golden", "baseline", false},
		{"show-failed.golden", "5", true},
		{"show-interrupted.golden", "9", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			o := &showOptions{study: "fix", db: db, samples: tc.samples}
			if err := o.validate([]string{tc.trial}); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := runShow(context.Background(), o, &out); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, out.Bytes())
		})
	}
}

func TestShowErrors(t *testing.T) {
	db := fixtureDB(t)
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{args: nil, usage: true, want: "want one TRIAL"},
		{args: []string{"x"}, usage: true, want: `TRIAL "x": want a trial number`},
		{args: []string{"-1"}, usage: true, want: "want a trial number"},
		{args: []string{"99"}, want: "TRIAL 99: study \"fix\" has no such trial (it has 14 trials)"},
	} {
		o := &showOptions{study: "fix", db: db}
		err := o.validate(tc.args)
		if err == nil {
			err = runShow(context.Background(), o, &bytes.Buffer{})
		}
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage {
			t.Errorf("show %v: err = %v (usage %v), want %q (usage %v)", tc.args, err, errors.As(err, &ue), tc.want, tc.usage)
		}
	}
	o := &showOptions{study: "empty", db: db}
	_ = o.validate([]string{"best"})
	if err := runShow(context.Background(), o, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no complete trial") {
		t.Errorf("show best of an empty study: err = %v", err)
	}
}

func TestExportFormatsGolden(t *testing.T) {
	db := fixtureDB(t)
	for _, f := range exportfile.Formats {
		t.Run(f, func(t *testing.T) {
			var out bytes.Buffer
			if err := runExport(context.Background(), &exportOptions{study: "fix", db: db, format: f, trial: -1}, &out, exportNow); err != nil {
				t.Fatal(err)
			}
			golden(t, "export-"+f+".golden", out.Bytes())
			if f == "json" {
				var doc map[string]any
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("export json is not JSON: %v", err)
				}
				for _, k := range []string{"study", "trial", "params", "knobs", "score", "mean_tps", "baseline"} {
					if _, ok := doc[k]; !ok {
						t.Errorf("export json has no %q", k)
					}
				}
			}
		})
	}
	var out bytes.Buffer
	if err := runExport(context.Background(), &exportOptions{study: "small", db: db, format: "sql", trial: -1}, &out, exportNow); err != nil {
		t.Fatal(err)
	}
	golden(t, "export-small-sql.golden", out.Bytes())

	if err := validateExportFormat("yaml"); err == nil || !strings.Contains(err.Error(), `--format "yaml": want one of cnf, sql, persist, json`) {
		t.Errorf("bad format: err = %v", err)
	}
}

// TestExportSQLStatements checks the SQL form statement by statement:
// every dynamic knob the best trial set away from the baseline becomes one
// SET GLOBAL with a literal the server parses, every static one a comment;
// the knobs it left at the baseline's value are not there.
func TestExportSQLStatements(t *testing.T) {
	db := fixtureDB(t)
	var out bytes.Buffer
	if err := runExport(context.Background(), &exportOptions{study: "fix", db: db, format: "sql", trial: -1}, &out, exportNow); err != nil {
		t.Fatal(err)
	}
	stmt := regexp.MustCompile(`^SET GLOBAL ([a-z_]+) = ([0-9.]+|ON|OFF|'[A-Za-z_]+');$`)
	static := regexp.MustCompile(`^--   ([a-z_]+) = \S+  -- \S.*$`)
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if m := stmt.FindStringSubmatch(l); m != nil {
			seen[m[1]] = true
			continue
		}
		if m := static.FindStringSubmatch(l); m != nil {
			seen["static:"+m[1]] = true
			continue
		}
		if !strings.HasPrefix(l, "-- ") {
			t.Errorf("line is neither a statement nor a comment: %q", l)
		}
	}
	for _, k := range []string{"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_change_buffering", "innodb_max_dirty_pages_pct",
		"static:innodb_log_buffer_size", "static:innodb_flush_method"} {
		if !seen[k] {
			t.Errorf("no line for %s in\n%s", k, out.String())
		}
	}
	// At their defaults in trial 10, as in the baseline.
	for _, k := range []string{"innodb_doublewrite", "innodb_adaptive_hash_index", "innodb_flush_neighbors"} {
		if seen[k] || seen["static:"+k] {
			t.Errorf("%s is at the baseline's value but exported:\n%s", k, out.String())
		}
	}
}

func TestExportTrial(t *testing.T) {
	db := fixtureDB(t)
	var out bytes.Buffer
	if err := runExport(context.Background(), &exportOptions{study: "fix", db: db, format: "cnf", trial: 3}, &out, exportNow); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "# trial 3 (sampled)") || !strings.Contains(out.String(), "innodb_buffer_pool_size = 3178M") {
		t.Errorf("--trial 3 exported:\n%s", out.String())
	}
	for _, tc := range []struct {
		trial int
		want  string
	}{
		{5, "--trial 5: the trial is failed, only a complete trial can be exported"},
		{9, "--trial 9: the trial is interrupted"},
		{99, "--trial 99: no such trial among the study's 14 under its current conditions"},
	} {
		err := runExport(context.Background(), &exportOptions{study: "fix", db: db, format: "cnf", trial: tc.trial}, &bytes.Buffer{}, exportNow)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--trial %d: err = %v, want %q", tc.trial, err, tc.want)
		}
	}
}
