package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study"
)

// addAB appends final A/B pairs of trial best to study in db: best runs
// at a[i] tps, baseline runs at b[i].
func addAB(t *testing.T, db, name string, best int, a, b []float64) {
	t.Helper()
	ctx := context.Background()
	s, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.NextTrialNumber(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	at := fixtureT0.Add(2 * time.Hour)
	for i := range a {
		for j, kind := range []search.Kind{search.ABBest, search.ABBase} {
			v := []float64{a[i], b[i]}[j]
			tr := search.Trial{Study: name, Number: n, State: search.Complete, Kind: kind, Started: at, Ended: at.Add(time.Minute),
				RepeatLink: search.RepeatLink{RepeatOf: best}, Outcome: measure.Outcome{Score: v - 10, MeanTPS: v}}
			if err := s.FinishTrial(ctx, tr, time.Minute); err != nil {
				t.Fatal(err)
			}
			n++
			at = at.Add(time.Minute)
		}
	}
}

// addMinimal stores an accepted minimisation of trial best of study in
// db that keeps its buffer pool change only, with two final-check pairs.
func addMinimal(t *testing.T, db, name string, best int) {
	t.Helper()
	ctx := context.Background()
	s, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	trials, err := s.Trials(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	full := trials[best].Params
	minimal := space.Config{"innodb_buffer_pool_size": full["innodb_buffer_pool_size"]}
	var reverted []string
	for _, k := range full.Names() {
		if k != "innodb_buffer_pool_size" {
			reverted = append(reverted, k)
		}
	}
	n, err := s.NextTrialNumber(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	at := fixtureT0.Add(3 * time.Hour)
	for i, v := range []float64{2990, 3010, 2970, 3000} {
		kind, p := search.Minimal, minimal
		if i%2 == 1 {
			kind, p = search.MinFull, full
		}
		tr := search.Trial{Study: name, Number: n, State: search.Complete, Kind: kind, Params: p, Started: at, Ended: at.Add(time.Minute),
			RepeatLink: search.RepeatLink{RepeatOf: best}, Outcome: measure.Outcome{Score: v - 10, MeanTPS: v}}
		if err := s.FinishTrial(ctx, tr, time.Minute); err != nil {
			t.Fatal(err)
		}
		n++
		at = at.Add(time.Minute)
	}
	m := search.Minimized{Best: best, Goal: measure.GoalTPS, Changes: len(full), Config: minimal, Done: true, Accepted: true, Runs: 4, Pairs: 2,
		Steps: []search.MinStep{
			{Knobs: reverted, Status: search.MinReverted, Pct: 0.4, LoPct: -3.1, HiPct: 4.0, Pairs: 2},
			{Knobs: []string{"innodb_buffer_pool_size"}, Status: search.MinKept, Pct: 180.2, LoPct: 150.3, HiPct: 211.0, Pairs: 2},
		},
		Check: &search.MinCheck{Pct: -0.7, LoPct: -4.0, HiPct: 2.7, Pairs: 2}}
	if err := s.SaveMinimization(ctx, name, m); err != nil {
		t.Fatal(err)
	}
}

// copyDB copies the fixture trials.db to name next to it (a store of
// another machine of the same kind); with otherHost, its studies are ones
// of a 16-core, 64 GiB host running MariaDB 11.4.
func copyDB(t *testing.T, db, name string, otherHost bool) string {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(db), name)
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if !otherHost {
		return other
	}
	s, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Exec(`UPDATE studies SET host_cores = 16, host_ram_bytes = ?, server_version = '11.4.2-MariaDB'`, int64(64)<<30); err != nil {
		t.Fatal(err)
	}
	return other
}

func compareOut(t *testing.T, args []string, db string) (string, error) {
	t.Helper()
	o := &compareOptions{db: db}
	refs, err := o.refs(args)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	err = runCompare(context.Background(), refs, &out)
	return out.String(), err
}

func TestCompareGolden(t *testing.T) {
	db := fixtureDB(t)
	// fix's best (#10) with 4 final A/B pairs; small without any.
	copyDB(t, db, "other.db", false)
	addAB(t, db, "fix", 10, []float64{1450, 1502, 1471, 1490}, []float64{505, 498, 511, 490})
	addAB(t, filepath.Join(filepath.Dir(db), "other.db"), "fix", 10, []float64{2950, 3020, 2990, 3001}, []float64{1010, 1003, 990, 1012})
	// The other store's study was minimised to its buffer pool change.
	addMinimal(t, filepath.Join(filepath.Dir(db), "other.db"), "fix", 10)
	// Run where the stores are, so the columns name them as a user would
	// (the golden files are checked after the subtest restores the
	// working directory).
	var one, two string
	t.Run("in the stores' directory", func(t *testing.T) {
		t.Chdir(filepath.Dir(db))
		var err error
		if one, err = compareOut(t, []string{"fix", "small"}, "trials.db"); err != nil {
			t.Fatal(err)
		}
		// Two stores: columns are named FILE:STUDY.
		if two, err = compareOut(t, []string{"fix", "other.db:fix"}, "trials.db"); err != nil {
			t.Fatal(err)
		}
	})
	golden(t, "compare.golden", []byte(one))
	golden(t, "compare-two-dbs.golden", []byte(two))
}

// The same study measured on another host with another server is refused
// (exit code 2), naming the server and the host: its scores are another
// machine's.
func TestCompareRefusesOtherHosts(t *testing.T) {
	db := fixtureDB(t)
	far := copyDB(t, db, "far.db", true)
	_, err := compareOut(t, []string{"fix", far + ":fix"}, db)
	if err == nil || !study.IsUsage(err) {
		t.Fatalf("err %v, want a usage error", err)
	}
	for _, want := range []string{"server 10.11.19-MariaDB-0+deb12u1 vs 11.4.2-MariaDB", "host 2 cores, 24.0G RAM vs 16 cores, 64.0G RAM"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal does not name %q:\n%v", want, err)
		}
	}
}

// Studies of different workload definitions are refused with a usage
// error (exit code 2) naming each differing field.
func TestCompareRefusesOtherWorkloads(t *testing.T) {
	ctx := context.Background()
	db := fixtureDB(t)
	ro := filepath.Join(t.TempDir(), "ro.db")
	s, err := storage.Open(ro)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateStudy(ctx, storage.StudyRecord{Name: "ro", Settings: `{"workload":"oltp_read_only","threads":32,"tables":8,"table_size":500000,"lambda":0.5,"measure":{"objective":"qps"}}`,
		ServerVersion: "10.11.19-MariaDB-0+deb12u1", Cores: 2, RAMBytes: 24 << 30, Created: fixtureT0}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = compareOut(t, []string{"fix", "small", ro + ":ro"}, db)
	if err == nil || !study.IsUsage(err) {
		t.Fatalf("err %v, want a usage error", err)
	}
	golden(t, "compare-refused.golden", []byte(strings.NewReplacer(db, "trials.db", ro, "ro.db").Replace(err.Error())+"\n"))

	// The same workload, searched with --durability relaxed: kept apart.
	fdb, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	fix, _, err := fdb.Study(ctx, "fix")
	fdb.Close()
	if err != nil {
		t.Fatal(err)
	}
	m, err := fix.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	m.Space = &storage.SpaceManifest{Durability: "relaxed"}
	rel := filepath.Join(t.TempDir(), "relaxed.db")
	if s, err = storage.Open(rel); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateStudy(ctx, storage.StudyRecord{Name: "fix", Settings: m.JSON(), Cores: 2, RAMBytes: 24 << 30, Created: fixtureT0}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := compareOut(t, []string{"fix", rel + ":fix"}, db); err == nil || !study.IsUsage(err) || !strings.Contains(err.Error(), "durability strict vs relaxed") {
		t.Errorf("strict against relaxed: err %v, want a usage error naming the durability", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fix"}, "want two or more studies"},
		{[]string{"fix", "nope"}, `no study "nope"`},
		{[]string{"fix", db + ".missing:fix"}, `.missing: no such file or directory`}, // meant as a store: named
	} {
		if _, err := compareOut(t, tc.args, db); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := compareOut(t, []string{"fix", "small"}, db+".missing"); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("missing --db: err %v", err)
	}
}

// --db given while every study names its own store would be ignored: it
// is refused with a usage error naming it.
func TestCompareRefusesUnusedDB(t *testing.T) {
	db := fixtureDB(t)
	_, err := runCommand(t.TempDir(), []string{"compare", "--db", "elsewhere.db", db + ":fix", db + ":small"})
	if err == nil || !study.IsUsage(err) || !strings.Contains(err.Error(), "--db elsewhere.db") {
		t.Fatalf("err %v, want a usage error naming --db", err)
	}
	if _, err := runCommand(t.TempDir(), []string{"compare", "--db", db, "fix", db + ":small"}); err != nil {
		t.Fatalf("--db used by one study: %v", err)
	}
}
