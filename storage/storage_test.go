package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

var ctx = context.Background()

// open opens a fresh trials.db in a temporary directory and closes it when
// the test ends.
func open(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// withStudy opens a fresh database holding a study called "s".
func withStudy(t *testing.T) *DB {
	t.Helper()
	db, _ := open(t)
	createStudyS(t, db)
	return db
}

// createStudyS creates a study called "s" in db.
func createStudyS(t *testing.T, db *DB) {
	t.Helper()
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenMigratesAndReopens(t *testing.T) {
	db, path := open(t)
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest := latestVersion(sqliteDialect.migrationsDir()); v != latest || latest < 1 {
		t.Fatalf("schema version %d, latest %d", v, latest)
	}
	for _, table := range []string{"studies", "trials", "samples", "goose_db_version"} {
		if n := count(t, db, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table); n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'samples_study_trial'`); n != 1 {
		t.Error("index samples_study_trial missing")
	}
	var mode string
	if err := db.sql.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v", mode, err)
	}
	var timeout int
	if err := db.sql.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != 5000 {
		t.Errorf("busy_timeout %d, %v", timeout, err)
	}
	versions := count(t, db, `SELECT count(*) FROM goose_db_version`)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "kept"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for i := 0; i < 2; i++ {
		db2, err := Open(path)
		if err != nil {
			t.Fatalf("re-open %d: %v", i, err)
		}
		if n := count(t, db2, `SELECT count(*) FROM goose_db_version`); n != versions {
			t.Errorf("re-open %d: %d version rows, want %d (migrations ran again)", i, n, versions)
		}
		if _, found, err := db2.Study(ctx, "kept"); err != nil || !found {
			t.Errorf("re-open %d: study lost: %v", i, err)
		}
		db2.Close()
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
	}{
		{"missing directory", filepath.Join(dir, "no", "such", "dir", "trials.db")},
		{"not a database", garbage},
		{"a directory", dir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(tc.path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q does not name the path", err)
			}
		})
	}
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}

func TestOpenSchemaTooNew(t *testing.T) {
	db, path := open(t)
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (999999, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db2, err := Open(path)
	if err == nil {
		db2.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want ErrSchemaTooNew naming the path", err)
	}
}

func TestOpenSpecialPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my study?v=1#x%41 b.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("file not created under its exact name: %v", err)
	}
}

func TestOpenMemory(t *testing.T) {
	db, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateStudy(ctx, StudyRecord{Name: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := db.Study(ctx, "m"); !found || err != nil {
		t.Errorf("study in memory: %v %v", found, err)
	}
}

// Several processes (here: pools) opening a fresh file at once all succeed
// and the migrations are applied once.
func TestOpenConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trials.db")
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	dbs := make([]*DB, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = Open(path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
			continue
		}
		defer dbs[i].Close()
	}
	if t.Failed() {
		return
	}
	// One row per migration file (numbers may have gaps while branches
	// are merged), plus goose's version 0.
	files, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	want := len(files) + 1
	if got := count(t, dbs[0], `SELECT count(*) FROM goose_db_version`); got != want {
		t.Errorf("%d version rows, want %d", got, want)
	}
	for i, db := range dbs {
		if err := db.CreateStudy(ctx, StudyRecord{Name: string(rune('a' + i))}); err != nil {
			t.Errorf("write through pool %d: %v", i, err)
		}
	}
}

func testStudies(t *testing.T, db *DB) {
	zone := time.FixedZone("X", 5*3600+1800)
	a := StudyRecord{
		Name:          "alpha",
		Settings:      `{"benchmark":{"tool":"sysbench","threads":16},"search":{"strategy":"tpe","trials":50},"password_env":"MYSQL_PWD","password":""}`,
		Seed:          -42,
		ServerVersion: "8.0.36",
		Cores:         8,
		RAMBytes:      32 << 30,
		Created:       time.Date(2024, 3, 1, 12, 30, 45, 123456789, zone),
		Spent:         90*time.Minute + 1500*time.Millisecond,
	}
	b := StudyRecord{Name: "beta", Created: a.Created.Add(time.Nanosecond)}
	for _, s := range []StudyRecord{b, a} {
		if err := db.CreateStudy(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	got, found, err := db.Study(ctx, "alpha")
	if err != nil || !found {
		t.Fatalf("Study: %v %v", found, err)
	}
	assertStudy(t, got, a)

	if _, found, err := db.Study(ctx, "nope"); found || err != nil {
		t.Errorf("missing study: found %v, err %v", found, err)
	}

	list, err := db.Studies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "beta" {
		t.Fatalf("Studies = %+v, want alpha then beta (by created)", list)
	}
	assertStudy(t, list[1], b)

	// Update changes server version, settings and seed only.
	u := a
	u.ServerVersion, u.Settings, u.Seed = "8.0.37", `{"search":{"trials":80}}`, 7
	u.Cores, u.RAMBytes, u.Spent, u.Created = 1, 1, time.Hour, time.Now()
	if err := db.UpdateStudy(ctx, u); err != nil {
		t.Fatal(err)
	}
	want := a
	want.ServerVersion, want.Settings, want.Seed = u.ServerVersion, u.Settings, u.Seed
	got, _, _ = db.Study(ctx, "alpha")
	assertStudy(t, got, want)

	// A zero Created is set to now.
	before := time.Now()
	if err := db.CreateStudy(ctx, StudyRecord{Name: "now"}); err != nil {
		t.Fatal(err)
	}
	got, _, _ = db.Study(ctx, "now")
	if got.Created.Before(before) || got.Created.After(time.Now()) {
		t.Errorf("created %v not now", got.Created)
	}

	errTests := []struct {
		name string
		op   func() error
		is   error
	}{
		{"duplicate", func() error { return db.CreateStudy(ctx, StudyRecord{Name: "alpha"}) }, ErrStudyExists},
		{"update missing", func() error { return db.UpdateStudy(ctx, StudyRecord{Name: "nope"}) }, ErrNoStudy},
		{"empty name", func() error { return db.CreateStudy(ctx, StudyRecord{}) }, nil},
		{"settings not JSON", func() error { return db.CreateStudy(ctx, StudyRecord{Name: "x", Settings: "{"}) }, nil},
		{"password", func() error { return db.CreateStudy(ctx, StudyRecord{Name: "x", Settings: `{"password":"hunter2"}`}) }, nil},
		{"nested password", func() error {
			return db.CreateStudy(ctx, StudyRecord{Name: "x", Settings: `{"servers":[{"DB_Password":"hunter2"}]}`})
		}, nil},
		{"update with password", func() error {
			return db.UpdateStudy(ctx, StudyRecord{Name: "alpha", Settings: `{"mysql":{"passwd":"x"}}`})
		}, nil},
		{"negative cores", func() error { return db.CreateStudy(ctx, StudyRecord{Name: "x", Cores: -1}) }, nil},
		{"negative spent", func() error { return db.CreateStudy(ctx, StudyRecord{Name: "x", Spent: -1}) }, nil},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q repeats the password", err)
			}
		})
	}
	if _, found, _ := db.Study(ctx, "x"); found {
		t.Error("a refused study was stored")
	}
}

func assertStudy(t *testing.T, got, want StudyRecord) {
	t.Helper()
	if !got.Created.Equal(want.Created) {
		t.Errorf("study %s: created %v, want %v", want.Name, got.Created, want.Created)
	}
	if got.Created.Location() != time.UTC {
		t.Errorf("study %s: created not in UTC: %v", want.Name, got.Created)
	}
	got.Created, want.Created = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("study:\n got %+v\nwant %+v", got, want)
	}
}

// assertTrial compares trials field by field; times by instant.
func assertTrial(t *testing.T, got, want search.Trial) {
	t.Helper()
	if !got.Started.Equal(want.Started) || !got.Ended.Equal(want.Ended) {
		t.Errorf("trial %d: times %v..%v, want %v..%v", want.Number, got.Started, got.Ended, want.Started, want.Ended)
	}
	got.Started, got.Ended, want.Started, want.Ended = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trial %d:\n got %+v\nwant %+v", want.Number, got, want)
	}
}

func trials(t *testing.T, db *DB, study string) []search.Trial {
	t.Helper()
	ts, err := db.Trials(ctx, study)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func testBeginFinishRoundTrip(t *testing.T, db *DB) {
	createStudyS(t, db)
	zone := time.FixedZone("Y", -7*3600)
	begun := search.Trial{
		Study:   "s",
		Number:  3,
		State:   search.Complete, // BeginTrial stores Running whatever this says
		Kind:    search.Sampled,
		Params:  space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0"},
		Started: time.Date(2024, 5, 6, 7, 8, 9, 987654321, zone),
	}
	if err := db.BeginTrial(ctx, begun); err != nil {
		t.Fatal(err)
	}
	running := begun
	running.State = search.Running
	ts := trials(t, db, "s")
	if len(ts) != 1 {
		t.Fatalf("%d trials after Begin", len(ts))
	}
	assertTrial(t, ts[0], running)
	if ts[0].Duration() != 0 {
		t.Errorf("running trial has duration %v", ts[0].Duration())
	}

	done := running
	done.State = search.Complete
	done.Ended = done.Started.Add(95*time.Second + 1)
	done.Outcome = measure.Outcome{
		Score:   1234.5678901234,
		MeanTPS: 1234.5678901234,
		StdTPS:  12.25,
		P95MS:   8.43,
		Samples: []measure.Sample{
			{T: 1, Warmup: true, TPS: 900.5, QPS: 18010, Reads: 12607, Writes: 3602, Other: 1801, LatPct: 95, LatMS: 9.91, ErrPS: 0, ReconnPS: 0},
			{T: 2, Warmup: false, TPS: 1230.25, QPS: 24605, Reads: 17223.5, Writes: 4921, Other: 2460.5, LatPct: 95, LatMS: 8.43, ErrPS: 0.5, ReconnPS: 0.25},
			{T: 3, TPS: 1e-300, QPS: math.MaxFloat64, Reads: math.Inf(1), Writes: -0.125},
			{T: 2.5}, // out of order: kept in given order
		},
		Summary:       `{"transactions":123456,"queries":{"read":1,"write":2}}`,
		ServerVersion: "8.0.36-log",
		Restarted:     true,
		Phases:        map[string]float64{"restore": 12.5, "start": 3.25, "warmup": 10, "measure": 60, "stop": 1.125},
	}
	if err := db.FinishTrial(ctx, done, 96*time.Second); err != nil {
		t.Fatal(err)
	}

	ts = trials(t, db, "s")
	if len(ts) != 1 {
		t.Fatalf("%d trials after Finish", len(ts))
	}
	want := done
	want.Samples = nil // Trials never returns samples
	assertTrial(t, ts[0], want)
	if d := ts[0].Duration(); d != 95*time.Second+1 {
		t.Errorf("duration %v", d)
	}
	one, found, err := db.Trial(ctx, "s", 3)
	if err != nil || !found {
		t.Fatalf("Trial: %v %v", found, err)
	}
	assertTrial(t, one, want)
	if _, found, err := db.Trial(ctx, "s", 4); found || err != nil {
		t.Errorf("missing trial: %v %v", found, err)
	}

	samples, err := db.Samples(ctx, "s", 3)
	if err != nil {
		t.Fatal(err)
	}
	// An infinite value is no measurement: stored as NULL, read as NaN
	// (MySQL's DOUBLE cannot hold it).
	wantSamples := slices.Clone(done.Samples)
	wantSamples[2].Reads = math.NaN()
	if fmt.Sprintf("%+v", samples) != fmt.Sprintf("%+v", wantSamples) {
		t.Errorf("samples:\n got %+v\nwant %+v", samples, wantSamples)
	}
	if s, err := db.Samples(ctx, "s", 99); err != nil || len(s) != 0 {
		t.Errorf("samples of a missing trial: %v, %v", s, err)
	}
}

func testFinishNaNAndEmptyValues(t *testing.T, db *DB) {
	createStudyS(t, db)
	tr := search.Trial{
		Study: "s", Number: 0, State: search.Complete, Kind: search.Baseline,
		Started: time.Now(), Ended: time.Now(),
		Outcome: measure.Outcome{
			Score: math.NaN(), StdTPS: math.NaN(),
			Samples: []measure.Sample{{T: 1, TPS: math.NaN(), LatMS: math.NaN()}},
		},
	}
	if err := db.FinishTrial(ctx, tr, 0); err != nil {
		t.Fatal(err)
	}
	got := trials(t, db, "s")[0]
	if !math.IsNaN(got.Score) || !math.IsNaN(got.StdTPS) || got.MeanTPS != 0 {
		t.Errorf("NaN round trip: score %v std %v mean %v", got.Score, got.StdTPS, got.MeanTPS)
	}
	// Nil params come back as an empty (writable) config, nil phases as nil.
	if got.Params == nil || len(got.Params) != 0 || got.Phases != nil {
		t.Errorf("params %#v, phases %#v", got.Params, got.Phases)
	}
	s, err := db.Samples(ctx, "s", 0)
	if err != nil || len(s) != 1 || !math.IsNaN(s[0].TPS) || !math.IsNaN(s[0].LatMS) || s[0].T != 1 {
		t.Errorf("samples %+v, %v", s, err)
	}

	// NaN in a phase cannot be stored as JSON: refused, nothing changed.
	tr.Number = 1
	tr.Phases = map[string]float64{"measure": math.NaN()}
	if err := db.FinishTrial(ctx, tr, time.Second); err == nil {
		t.Error("NaN phase accepted")
	}
	if n := len(trials(t, db, "s")); n != 1 {
		t.Errorf("%d trials after refused finish", n)
	}
}

func testFinishFailedTrialNullScore(t *testing.T, db *DB) {
	createStudyS(t, db)
	start := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	tr := search.Trial{Study: "s", Number: 1, Kind: search.Sampled, Params: space.Config{"max_connections": "5"}, Started: start}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.State = search.Failed
	tr.Ended = start.Add(4 * time.Second)
	tr.Score = 99 // ignored: only complete trials keep a score
	tr.Failure = "server refused the config: unknown variable"
	tr.ErrorLog = "2024-01-02T03:04:07 [ERROR] [MY-000067] [Server] unknown variable 'foo=1'.\n2024-01-02T03:04:07 [ERROR] Aborting"
	tr.Phases = map[string]float64{"restore": 1.5, "start": 2}
	if err := db.FinishTrial(ctx, tr, 4*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM trials WHERE number = 1 AND score IS NULL`); n != 1 {
		t.Error("failed trial's score is not NULL")
	}
	want := tr
	want.Score = 0
	assertTrial(t, trials(t, db, "s")[0], want)
	if s, err := db.Samples(ctx, "s", 1); err != nil || len(s) != 0 {
		t.Errorf("samples %v, %v", s, err)
	}
}

func testFinishWithoutBegin(t *testing.T, db *DB) {
	createStudyS(t, db)
	tr := search.Trial{
		Study: "s", Number: 7, State: search.Failed, Kind: search.Retry,
		Params:  space.Config{"a": "1"},
		Started: time.Unix(1700000000, 5), Ended: time.Unix(1700000010, 0),
		Outcome: measure.Outcome{Failure: "benchmark: exit status 1", Samples: []measure.Sample{{T: 1, TPS: 3}}},
	}
	if err := db.FinishTrial(ctx, tr, time.Second); err != nil {
		t.Fatal(err)
	}
	want := tr
	want.Samples = nil
	assertTrial(t, trials(t, db, "s")[0], want)
	if s, _ := db.Samples(ctx, "s", 7); len(s) != 1 {
		t.Errorf("%d samples", len(s))
	}
	// Finishing again replaces the samples rather than adding to them.
	tr.Samples = []measure.Sample{{T: 1}, {T: 2}}
	if err := db.FinishTrial(ctx, tr, 0); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.Samples(ctx, "s", 7); len(s) != 2 {
		t.Errorf("%d samples after a second finish, want 2", len(s))
	}
}

func testTrialErrors(t *testing.T, db *DB) {
	createStudyS(t, db)
	ok := search.Trial{Study: "s", Number: 0, Kind: search.Baseline, Started: time.Now()}
	if err := db.BeginTrial(ctx, ok); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*search.Trial)) search.Trial {
		tr := ok
		tr.State = search.Complete
		f(&tr)
		return tr
	}
	tests := []struct {
		name string
		op   func() error
		is   error
	}{
		{"begin twice", func() error { return db.BeginTrial(ctx, ok) }, ErrTrialExists},
		{"begin unknown study", func() error { return db.BeginTrial(ctx, with(func(t *search.Trial) { t.Study = "x" })) }, ErrNoStudy},
		{"begin unknown kind", func() error { return db.BeginTrial(ctx, with(func(t *search.Trial) { t.Number, t.Kind = 5, "odd" })) }, nil},
		{"begin negative number", func() error { return db.BeginTrial(ctx, with(func(t *search.Trial) { t.Number = -1 })) }, nil},
		{"finish unknown study", func() error {
			return db.FinishTrial(ctx, with(func(t *search.Trial) { t.Study = "x" }), 0)
		}, ErrNoStudy},
		{"finish running", func() error {
			return db.FinishTrial(ctx, with(func(t *search.Trial) { t.State = search.Running }), 0)
		}, nil},
		{"finish empty state", func() error { return db.FinishTrial(ctx, with(func(t *search.Trial) { t.State = "" }), 0) }, nil},
		{"finish negative spent", func() error { return db.FinishTrial(ctx, with(func(*search.Trial) {}), -time.Second) }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
		})
	}
	ts := trials(t, db, "s")
	if len(ts) != 1 || ts[0].State != search.Running {
		t.Errorf("trials changed by refused calls: %+v", ts)
	}
}

func testMarkInterrupted(t *testing.T, db *DB) {
	createStudyS(t, db)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	begin := func(study string, n int, params space.Config) {
		t.Helper()
		if err := db.BeginTrial(ctx, search.Trial{Study: study, Number: n, Kind: search.Sampled, Params: params, Started: now}); err != nil {
			t.Fatal(err)
		}
	}
	finish := func(n int, state search.State) {
		t.Helper()
		tr := search.Trial{Study: "s", Number: n, State: state, Kind: search.Sampled, Params: space.Config{}, Started: now, Ended: now}
		if err := db.FinishTrial(ctx, tr, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	begin("s", 0, nil)
	finish(0, search.Complete)
	begin("s", 2, space.Config{"b": "2"})
	begin("s", 1, space.Config{"a": "1"})
	begin("s", 3, nil)
	finish(3, search.Failed)
	begin("other", 0, space.Config{"c": "3"})

	got, err := db.MarkInterrupted(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("MarkInterrupted returned %d trials, want 2: %+v", len(got), got)
	}
	for i, want := range []space.Config{{"a": "1"}, {"b": "2"}} {
		if got[i].Number != i+1 || got[i].State != search.Interrupted || !reflect.DeepEqual(got[i].Params, want) ||
			!got[i].Started.Equal(now) || got[i].Study != "s" {
			t.Errorf("interrupted[%d] = %+v", i, got[i])
		}
	}
	states := map[int]search.State{}
	for _, tr := range trials(t, db, "s") {
		states[tr.Number] = tr.State
	}
	wantStates := map[int]search.State{0: search.Complete, 1: search.Interrupted, 2: search.Interrupted, 3: search.Failed}
	if !reflect.DeepEqual(states, wantStates) {
		t.Errorf("states %v, want %v", states, wantStates)
	}
	if o := trials(t, db, "other"); o[0].State != search.Running {
		t.Errorf("other study's trial changed to %s", o[0].State)
	}
	again, err := db.MarkInterrupted(ctx, "s")
	if err != nil || len(again) != 0 {
		t.Errorf("second MarkInterrupted: %+v, %v", again, err)
	}

	// An interrupted trial can be finished later (e.g. Ctrl-C recorded).
	if err := db.FinishTrial(ctx, got[0], 0); err != nil {
		t.Errorf("finish interrupted: %v", err)
	}
}

func testSpentAccumulates(t *testing.T, db *DB) {
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s", Spent: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		state search.State
		spent time.Duration
		want  time.Duration
	}{
		{search.Complete, 90 * time.Second, 100 * time.Second},
		{search.Failed, 1500 * time.Millisecond, 101500 * time.Millisecond},
		{search.Interrupted, 0, 101500 * time.Millisecond},
		{search.Complete, 123456789 * time.Microsecond, 101500*time.Millisecond + 123456789*time.Microsecond},
	}
	for i, st := range steps {
		tr := search.Trial{Study: "s", Number: i, State: st.state, Kind: search.Sampled, Started: time.Now(), Ended: time.Now()}
		if err := db.FinishTrial(ctx, tr, st.spent); err != nil {
			t.Fatal(err)
		}
		s, _, err := db.Study(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Spent - st.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("after trial %d: spent %v, want %v", i, s.Spent, st.want)
		}
	}
}

func TestFinishTrialIsAtomic(t *testing.T) {
	db := withStudy(t)
	// A trigger makes the third sample's insert fail, after the trial row
	// was updated and two samples inserted.
	if _, err := db.sql.ExecContext(ctx, `CREATE TEMP TRIGGER fail_sample BEFORE INSERT ON samples
		WHEN NEW.tps < 0 BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	tr := search.Trial{Study: "s", Number: 0, Kind: search.Baseline, Started: time.Now()}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.State, tr.Ended, tr.Score, tr.MeanTPS = search.Complete, time.Now(), 10, 10
	tr.Samples = []measure.Sample{{T: 1, TPS: 10}, {T: 2, TPS: 10}, {T: 3, TPS: -1}}

	check := func(label string) {
		t.Helper()
		ts := trials(t, db, "s")
		if len(ts) != 1 || ts[0].State != search.Running || ts[0].MeanTPS != 0 || !ts[0].Ended.IsZero() {
			t.Errorf("%s: trial changed: %+v", label, ts)
		}
		if n := count(t, db, `SELECT count(*) FROM samples`); n != 0 {
			t.Errorf("%s: %d samples kept", label, n)
		}
		if s, _, _ := db.Study(ctx, "s"); s.Spent != 0 {
			t.Errorf("%s: spent %v", label, s.Spent)
		}
	}

	err := db.FinishTrial(ctx, tr, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("FinishTrial error %v, want the injected failure", err)
	}
	check("sample insert failed")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tr.Samples = tr.Samples[:2]
	if err := db.FinishTrial(cancelled, tr, time.Minute); err == nil {
		t.Fatal("FinishTrial with a cancelled context succeeded")
	}
	check("context cancelled")

	// The connection is still usable, and the whole finish goes through.
	if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ts := trials(t, db, "s"); ts[0].State != search.Complete {
		t.Errorf("state %s after a good finish", ts[0].State)
	}
}

func testNextTrialNumber(t *testing.T, db *DB) {
	createStudyS(t, db)
	steps := []struct {
		begin int // -1: none
		want  int
	}{
		{-1, 0}, {0, 1}, {1, 2}, {5, 6}, {3, 6},
	}
	for _, st := range steps {
		if st.begin >= 0 {
			if err := db.BeginTrial(ctx, search.Trial{Study: "s", Number: st.begin, Kind: search.Sampled}); err != nil {
				t.Fatal(err)
			}
		}
		n, err := db.NextTrialNumber(ctx, "s")
		if err != nil || n != st.want {
			t.Errorf("after trial %d: next %d, %v; want %d", st.begin, n, err, st.want)
		}
	}
	if n, err := db.NextTrialNumber(ctx, "unknown"); n != 0 || err != nil {
		t.Errorf("unknown study: %d, %v", n, err)
	}
}

func TestClosedDB(t *testing.T) {
	db, _ := open(t)
	db.Close()
	if _, err := db.Trials(ctx, "s"); err == nil {
		t.Error("Trials after Close succeeded")
	}
}

// childEnv makes the test binary act as a tuning process that is killed in
// the middle of a trial (see TestKilledProcessLeavesRunningTrial).
const childEnv = "STORAGE_TEST_KILLED_CHILD_DB"

// A process killed mid-trial (SIGKILL: no Close, WAL not checkpointed)
// leaves the trial Running; the next Open sees it and MarkInterrupted picks
// it up.
func TestKilledProcessLeavesRunningTrial(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		db, err := Open(path)
		if err != nil {
			os.Exit(3)
		}
		tr := search.Trial{Study: "s", Number: 1, Kind: search.Sampled, Params: space.Config{"sort_buffer_size": "262144"}, Started: time.Unix(1700000000, 42)}
		if err := db.BeginTrial(ctx, tr); err != nil {
			os.Exit(4)
		}
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		time.Sleep(time.Minute)
		os.Exit(5)
	}

	db, path := open(t)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	base := search.Trial{Study: "s", Number: 0, State: search.Complete, Kind: search.Baseline, Params: space.Config{}, Started: time.Now(), Ended: time.Now()}
	if err := db.FinishTrial(ctx, base, time.Second); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcessLeavesRunningTrial$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Exited() {
		t.Fatalf("child was not killed: %v\n%s", err, out)
	}

	db2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ts := trials(t, db2, "s")
	if len(ts) != 2 || ts[1].State != search.Running {
		t.Fatalf("after the kill: %+v", ts)
	}
	got, err := db2.MarkInterrupted(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := search.Trial{Study: "s", Number: 1, State: search.Interrupted, Kind: search.Sampled,
		Params: space.Config{"sort_buffer_size": "262144"}, Started: time.Unix(1700000000, 42)}
	if len(got) != 1 {
		t.Fatalf("MarkInterrupted returned %+v", got)
	}
	assertTrial(t, got[0], want)
	if n, _ := db2.NextTrialNumber(ctx, "s"); n != 2 {
		t.Errorf("next trial number %d, want 2", n)
	}
}

// The open database satisfies search.Store.
func TestStoreInterface(t *testing.T) {
	var store search.Store
	store, _ = open(t)
	if ts, err := store.Trials(ctx, "none"); err != nil || len(ts) != 0 {
		t.Errorf("Trials of an unknown study: %v, %v", ts, err)
	}
}
