package exportfile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// exportCase is a study to export: its manifest, server and two trials.
type exportCase struct {
	name       string
	st         storage.StudyRecord
	best, base search.Trial
}

// exportCases are studies whose exports differ in what the baseline is:
// the user's my.cnf on the catalogue's own server, the server defaults of
// a MySQL server (whose defaults the catalogue does not know), and an
// existing server's own settings.
func exportCases() []exportCase {
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}
	file := space.Config{"innodb_buffer_pool_size": "4294967296", "innodb_io_capacity": "1000", "innodb_flush_neighbors": "0"}
	trialParams := pins.Merge(space.Config{"innodb_buffer_pool_size": "4294967296", "innodb_io_capacity": "2000",
		"innodb_flush_neighbors": "1", "innodb_log_file_size": "100663296", "allocator": "jemalloc"})
	study := func(name, version string, m storage.Manifest) storage.StudyRecord {
		m.Workload, m.Threads, m.Tables, m.TableSize, m.WarmupS, m.DurationS, m.Lambda = "oltp_read_write", 16, 8, 500000, 30, 60, 0.5
		return storage.StudyRecord{Name: name, ServerVersion: version, Settings: m.JSON()}
	}
	run := func(n int, kind search.Kind, p space.Config, tps float64) search.Trial {
		return search.Trial{Number: n, Kind: kind, State: search.Complete, Params: p,
			Outcome: measure.Outcome{Score: tps * 0.95, MeanTPS: tps, P95MS: 12.5}}
	}
	strict := &storage.SpaceManifest{Durability: "strict"}
	withFile := *strict
	withFile.Baseline = &storage.Baseline{File: "/etc/mysql/my.cnf", Config: file}
	return []exportCase{
		{"my.cnf baseline, MariaDB 10.11 sandbox", study("mine", "10.11.19-MariaDB-0+deb12u1", storage.Manifest{Space: &withFile}),
			run(7, search.Sampled, trialParams, 1210), run(0, search.Baseline, file.Merge(pins), 1000)},
		{"server defaults of MySQL 8.0", study("mysql", "8.0.36", storage.Manifest{Space: strict}),
			run(7, search.Sampled, trialParams, 1210), run(0, search.Baseline, pins, 1000)},
		{"existing server", study("live", "10.11.19-MariaDB-0+deb12u1", storage.Manifest{Space: strict, Target: "existing 127.0.0.1:3306"}),
			run(7, search.Sampled, trialParams, 1210), run(0, search.Baseline, pins, 1000)},
	}
}

// TestExportAgainstTheBaselineGolden: the option file holds the options
// that differ from what the user runs (their my.cnf, or the server
// defaults), each under a note on what it is; with a baseline whose values
// autotune does not know, every option.
func TestExportAgainstTheBaselineGolden(t *testing.T) {
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	var out bytes.Buffer
	for i, c := range exportCases() {
		formats := []string{"cnf", "sql", "json"}
		if i > 0 {
			formats = formats[:1] // the same knobs in every format (TestExportReproducesTheTrial)
		}
		for _, f := range formats {
			fmt.Fprintf(&out, "==== %s, --format %s\n", c.name, f)
			if err := Write(&out, f, space.Lookup(), c.st, c.best, c.base, []search.Trial{c.base, c.best}, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden.Check(t, "export-baseline.golden", out.Bytes())
}

// TestExportReproducesTheTrial: applied on top of the baseline, an export
// gives the trial's configuration: every knob the trial set is either
// written with the trial's value, or left out because the baseline has
// that value, known from the my.cnf or (on the catalogue's server) the
// default. Every format writes the same knobs.
func TestExportReproducesTheTrial(t *testing.T) {
	sp := space.Lookup()
	for _, c := range exportCases() {
		bs, err := c.st.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		sel := selectExport(sp, c.st, c.best, c.base)
		written := map[string]string{}
		for _, k := range sel.Knobs {
			written[k.Name] = k.Value
		}
		left := map[string]bool{}
		for _, n := range sel.LeftOut {
			left[n] = true
		}
		for name, v := range c.best.Params {
			k, _ := sp.Knob(name)
			was, inFile := "", false
			if bs.Space.Baseline != nil {
				was, inFile = bs.Space.Baseline.Config[name]
			}
			if !inFile {
				was = k.Default
			}
			switch {
			case written[name] == v && !left[name]:
			case left[name] && written[name] == "" && was == v && (inFile || sel.Unknown == ""):
			default:
				t.Errorf("%s: %s=%s: written %q, left out %v, baseline %q", c.name, name, v, written[name], left[name], was)
			}
		}
		// Every option format carries the same options.
		for _, f := range []string{"cnf", "sql", "json"} {
			var out bytes.Buffer
			if err := Write(&out, f, sp, c.st, c.best, c.base, nil, time.Time{}); err != nil {
				t.Fatal(err)
			}
			v, _ := space.ParseVersion(c.st.ServerVersion, "")
			for _, k := range sel.options() {
				// The json export names the catalogue's knob; the option
				// formats the server's own spelling.
				name := k.Name
				if f != "json" {
					name = space.OptionName(k.Name, v)
				}
				if !strings.Contains(out.String(), name) {
					t.Errorf("%s, --format %s: no %s", c.name, f, name)
				}
			}
			for _, n := range sel.LeftOut {
				if f != "json" && strings.Contains(out.String(), n+" = ") {
					t.Errorf("%s, --format %s: %s is at the baseline's value but written", c.name, f, n)
				}
			}
		}
	}
}

// minimizedCase is a minimised study on a MariaDB 10.11 sandbox with the
// server defaults as the baseline: of the best's five changes, the buffer
// pool and the io capacity pair (one dependency group) were kept,
// innodb_flush_neighbors reverted, the log file size left untried.
func minimizedCase() (exportCase, search.Minimized) {
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}
	best := pins.Merge(space.Config{"innodb_buffer_pool_size": "4294967296", "innodb_io_capacity": "2000", "innodb_io_capacity_max": "4000",
		"innodb_flush_neighbors": "0", "innodb_log_file_size": "268435456"})
	m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60, Lambda: 0.5,
		Space: &storage.SpaceManifest{Durability: "strict"}}
	c := exportCase{name: "minimal", st: storage.StudyRecord{Name: "min", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: m.JSON()},
		best: search.Trial{Number: 7, Kind: search.Sampled, State: search.Complete, Params: best, Outcome: measure.Outcome{Score: 1150, MeanTPS: 1210, P95MS: 12.5}},
		base: search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: pins, Outcome: measure.Outcome{Score: 950, MeanTPS: 1000, P95MS: 20}}}
	cfg := best.Clone()
	delete(cfg, "innodb_flush_neighbors")
	return c, search.Minimized{Best: 7, Goal: measure.GoalTPS, Changes: 5, Config: cfg, Runs: 20, Done: true, Accepted: true,
		Steps: []search.MinStep{
			{Knobs: []string{"innodb_flush_neighbors", "innodb_log_file_size"}, Values: space.Config{"innodb_flush_neighbors": "0", "innodb_log_file_size": "268435456"},
				Status: search.MinSplit, Pct: 9.1, LoPct: 1.2, HiPct: 17.6, Pairs: 2},
			{Knobs: []string{"innodb_flush_neighbors"}, Values: space.Config{"innodb_flush_neighbors": "0"}, Status: search.MinReverted, Pct: 1.4, LoPct: -6.1, HiPct: 9.4, Pairs: 2},
			{Knobs: []string{"innodb_io_capacity", "innodb_io_capacity_max"}, Values: space.Config{"innodb_io_capacity": "2000", "innodb_io_capacity_max": "4000"},
				Status: search.MinKept, Pct: 8.3, LoPct: 1.1, HiPct: 16.0, Pairs: 2},
			{Knobs: []string{"innodb_buffer_pool_size"}, Values: space.Config{"innodb_buffer_pool_size": "4294967296"}, Status: search.MinKept, Pct: 48.2, LoPct: 40.1, HiPct: 56.9, Pairs: 2},
			{Knobs: []string{"innodb_log_file_size"}, Values: space.Config{"innodb_log_file_size": "268435456"}, Status: search.MinUntested},
		},
		Check: &search.MinCheck{Pct: -1.2, LoPct: -8.0, HiPct: 6.1, Pairs: 2}}
}

// TestMinimalExportGolden: by default export writes the minimal
// configuration, one line per kept change with its measured contribution
// and interval as a comment, in every format.
func TestMinimalExportGolden(t *testing.T) {
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	c, m := minimizedCase()
	var out bytes.Buffer
	for _, f := range []string{"cnf", "sql", "json"} {
		fmt.Fprintf(&out, "==== minimal, --format %s\n", f)
		if err := WriteMinimal(&out, f, space.Lookup(), c.st, m, c.best, c.base, []search.Trial{c.base, c.best}, now); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "export-minimal.golden", out.Bytes())
	// Every kept change is written with its contribution; the reverted one
	// is not written.
	txt := out.String()
	for _, want := range []string{"innodb_buffer_pool_size = 4G  # +48 % tps (±8 %)", "innodb_io_capacity = 2000  # +8 % tps (±7 %), with innodb_io_capacity_max",
		"innodb_io_capacity_max = 4000  # reverts together with innodb_io_capacity", "# kept untried"} {
		if !strings.Contains(txt, want) {
			t.Errorf("minimal export lacks %q", want)
		}
	}
	if strings.Contains(txt, "\ninnodb_flush_neighbors =") {
		t.Error("the reverted innodb_flush_neighbors is written")
	}
	// Not a result: refused.
	m.Accepted = false
	if err := WriteMinimal(&out, "cnf", space.Lookup(), c.st, m, c.best, c.base, nil, now); err == nil {
		t.Fatal("a minimisation not accepted must not be exported as the result")
	}
	if _, ok := MinimalResult(m, true, c.best); ok {
		t.Fatal("MinimalResult accepts a rejected minimisation")
	}
}
