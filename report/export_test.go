package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// exportCase is a study to export: its manifest, server and two trials.
type exportCase struct {
	name       string
	st         storage.Study
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
	study := func(name, version string, m storage.Manifest) storage.Study {
		m.Workload, m.Threads, m.Tables, m.TableSize, m.WarmupS, m.DurationS, m.Lambda = "oltp_read_write", 16, 8, 500000, 30, 60, 0.5
		return storage.Study{Name: name, ServerVersion: version, Settings: m.JSON()}
	}
	run := func(n int, kind search.Kind, p space.Config, tps float64) search.Trial {
		return search.Trial{Number: n, Kind: kind, State: search.Complete, Params: p,
			Outcome: search.Outcome{Score: tps * 0.95, MeanTPS: tps, P95MS: 12.5}}
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
			if err := WriteExport(&out, f, space.Lookup(), c.st, c.best, c.base, []search.Trial{c.base, c.best}, now); err != nil {
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
			if err := WriteExport(&out, f, sp, c.st, c.best, c.base, nil, time.Time{}); err != nil {
				t.Fatal(err)
			}
			for _, k := range sel.options() {
				if !strings.Contains(out.String(), k.Name) {
					t.Errorf("%s, --format %s: no %s", c.name, f, k.Name)
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
