package exportfile

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// durabilityCase is the field case durability-tier-confound, copied
// unchanged from the shared cases: a strict baseline and a "best" that
// differs from it only in three durability knobs.
const durabilityCase = "testdata/durability-tier-confound"

// readCaseCnf returns the [mysqld] options of a case's option file as a
// configuration in canonical form.
func readCaseCnf(t *testing.T, name string) space.Config {
	t.Helper()
	v := space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11}
	of, err := space.ReadOptionFile(filepath.Join(durabilityCase, name), space.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := space.Config{}
	for _, o := range of.Effective(space.ServerGroups(v)) {
		k, ok := space.Lookup().Knob(o.Name)
		if !ok {
			t.Fatalf("%s: %s is not in the catalogue", name, o.Name)
		}
		c, err := k.Canonical(o.Value)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg[k.Name] = c
	}
	return cfg
}

// TestDurabilityTierConfound is what the case's expected.md asks of an
// export: the header is derived from the trial's own values (a strict
// label over relaxed values is refused), a relaxed export names each
// durability knob's loss window, and where the study measured the
// configuration with those knobs reset, how much of the gain came from
// giving up durability (here all of it: the reset configuration is the
// baseline).
func TestDurabilityTierConfound(t *testing.T) {
	base, best := readCaseCnf(t, "baseline.cnf"), readCaseCnf(t, "best-trial.cnf")
	run := func(n int, kind search.Kind, p space.Config, tps float64, of int) search.Trial {
		t := search.Trial{Number: n, Kind: kind, State: search.Complete, Params: p, Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
		t.RepeatOf = of
		return t
	}
	trials := []search.Trial{run(0, search.Baseline, base, 1000, 0), run(1, search.Sampled, best, 1650, 0),
		run(2, search.Confirm, best, 1600, 1), run(3, search.Recheck, base, 1010, 0)}
	study := func(policy string) storage.StudyRecord {
		m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60, Lambda: 0.5,
			Space: &storage.SpaceManifest{Durability: policy}}
		return storage.StudyRecord{Name: "tiers", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: m.JSON()}
	}
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)

	// A strict study's export of these values is refused, in every format.
	for _, f := range Formats {
		err := Write(new(bytes.Buffer), f, space.Lookup(), study("strict"), trials[1], trials[0], trials, now)
		if err == nil {
			t.Fatalf("--format %s: a strict study exported innodb_doublewrite=OFF", f)
		}
		for _, want := range []string{"innodb_doublewrite=OFF", "innodb_flush_log_at_trx_commit=0", "sync_binlog=0", "--durability strict"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("--format %s: refusal %q does not name %s", f, err, want)
			}
		}
	}

	// Relaxed: each knob's loss window and the share of the gain.
	var out bytes.Buffer
	if err := Write(&out, "cnf", space.Lookup(), study("relaxed"), trials[1], trials[0], trials, now); err != nil {
		t.Fatal(err)
	}
	cnf := out.String()
	for _, want := range []string{
		"# durability: RELAXED: this configuration trades crash safety for speed",
		"#   innodb_doublewrite = OFF (crash-safe: ON): a power loss or OS crash during a page write can leave a torn page",
		"#   innodb_flush_log_at_trx_commit = 0 (crash-safe: 1): the commits of about the last second are lost when mysqld alone crashes",
		"#   sync_binlog = 0 (crash-safe: 1): with binary logging on",
		"with these knobs at their crash-safe values (trial 0): score 1005.0 (mean of 2) against 1625.0 (mean of 2) as written, over the baseline's 1005.0: 100 % of the gain comes from giving up durability",
	} {
		if !strings.Contains(cnf, want) {
			t.Errorf("relaxed export lacks %q:\n%s", want, cnf)
		}
	}
	if strings.Contains(cnf, "crash-safe as the defaults") {
		t.Errorf("relaxed export says it is as crash-safe as the defaults:\n%s", cnf)
	}

	// Without the reset configuration measured, the export says so.
	out.Reset()
	if err := Write(&out, "sql", space.Lookup(), study("relaxed"), trials[1], trials[0], trials[1:3], now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "-- the gain with these knobs at their crash-safe values was not measured") {
		t.Errorf("sql export without the reset measured:\n%s", out.String())
	}

	out.Reset()
	if err := Write(&out, "json", space.Lookup(), study("relaxed"), trials[1], trials[0], trials, now); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Durability exportDurabilityDoc `json:"durability"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Durability
	if d.Tier != "relaxed" || len(d.Relaxed) != 3 || d.SafeTrial == nil || *d.SafeTrial != 0 || d.DurabilitySharePct == nil || *d.DurabilitySharePct != 100 {
		t.Errorf("json durability: %+v", d)
	}

	// A relaxed study whose best kept the crash-safe values is labelled
	// strict, from its values.
	out.Reset()
	if err := Write(&out, "cnf", space.Lookup(), study("relaxed"), trials[0], trials[0], trials, now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "# durability: strict: ") || !strings.Contains(out.String(), "the relaxed search kept them") {
		t.Errorf("relaxed study, crash-safe values:\n%s", out.String())
	}
}
