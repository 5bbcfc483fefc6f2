package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// logged is a Progress that keeps its log lines.
type logged struct {
	silent
	lines []string
}

func (l *logged) Emit(e result.Event) {
	if e, ok := e.(result.Log); ok {
		l.lines = append(l.lines, e.Message)
	}
}

// seedDB writes a trials.db with study "old", run on a host with 64 GiB
// and 16 cores, whose best trial (1) sets params.
func seedDB(t *testing.T, dir string, params space.Config) string {
	return seedDBOn(t, dir, params, 16, 64<<30)
}

// seedDBOn is seedDB on a host with cores and ram bytes.
func seedDBOn(t *testing.T, dir string, params space.Config, cores int, ram int64) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "old.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "old", Settings: `{"workload":"oltp_read_write","threads":16,"tables":8,"table_size":500000}`,
		ServerVersion: "10.11.19-MariaDB", Cores: cores, RAMBytes: ram}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for i, p := range []space.Config{{}, params} {
		tr := search.Trial{Study: "old", Number: i, State: search.Complete, Kind: search.Baseline, Params: p,
			Started: t0.Add(time.Duration(i) * time.Minute), Ended: t0.Add(time.Duration(i)*time.Minute + 50*time.Second),
			Outcome: measure.Outcome{Score: 500 + 300*float64(i), MeanTPS: 510 + 300*float64(i)}}
		if i > 0 {
			tr.Kind = search.Sampled
		}
		if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// seedRun is a run on a 2-core, 8 GiB host with a 6 GiB memory budget
// over MariaDB 10.11's space (durability strict), as onSandbox leaves it.
func seedRun(t *testing.T, dir string, from ...string) (*run, *logged) {
	t.Helper()
	sp := space.Default()
	if err := sp.Limit("innodb_buffer_pool_size", 4<<30); err != nil {
		t.Fatal(err)
	}
	prog := &logged{}
	return &run{cfg: Config{Study: "new", DB: filepath.Join(dir, "new.db"), SeedFrom: from}, prog: prog, sp: sp, base: sp.Fixed(),
		host: runner.Host{Cores: 2, RAMBytes: 8 << 30}, engine: &engine.Engine{MemoryBudget: 6 << 30}}, prog
}

func TestParseSeedFrom(t *testing.T) {
	dir := t.TempDir()
	cnf := filepath.Join(dir, "prod.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_io_capacity = 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := seedDB(t, dir, space.Config{})
	for _, tc := range []struct {
		arg  string
		want SeedSource
		err  string
	}{
		{arg: cnf, want: SeedSource{Cnf: cnf}},
		{arg: cnf + ":ram=64G,cores=16", want: SeedSource{Cnf: cnf, From: space.HostSize{RAMBytes: 64 << 30, Cores: 16}}},
		{arg: cnf + ":cores=8", want: SeedSource{Cnf: cnf, From: space.HostSize{Cores: 8}}},
		{arg: db + ":old", want: SeedSource{DB: db, Study: "old"}},
		{arg: "mysql://u@127.0.0.1:3306/at:old", want: SeedSource{DB: "mysql://u@127.0.0.1:3306/at", Study: "old"}},
		{arg: db, err: "is a trials.db: name the study"},
		{arg: "", err: "empty"},
		{arg: filepath.Join(dir, "none.cnf"), err: "no such file"},
		{arg: filepath.Join(dir, "none.db") + ":old", err: "no such file"},
		{arg: cnf + ":ram=lots", err: "ram=lots: want a size"},
		{arg: cnf + ":cores=0", err: "cores=0: want a positive count"},
		{arg: cnf + ":old", err: `"old" after the file is neither`},
		{arg: dir, err: "not a regular file"},
		// A store URL with a password: refused, and no message quotes it.
		{arg: "mysql://tuner:s3cret@db1/autotune", err: `"mysql://tuner:xxx@db1/autotune" holds a password`},
		{arg: "mysql://tuner:s3cret@db1/autotune:old", err: "holds a password"},
	} {
		got, err := ParseSeedFrom(tc.arg)
		if tc.err != "" {
			if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--seed-from") {
				t.Errorf("%q: err %v, want a usage error with %q", tc.arg, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%q: the error shows the password: %v", tc.arg, err)
			}
			continue
		}
		tc.want.Arg = tc.arg
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.arg, got, err, tc.want)
		}
	}
}

// A study from a bigger host seeds this one with its best configuration,
// the buffer pool and the thread counts rescaled to this host and listed,
// a pinned durability knob left out with a line.
func TestStudySeedRescaledFromAnotherHost(t *testing.T) {
	dir := t.TempDir()
	db := seedDB(t, dir, space.Config{"innodb_buffer_pool_size": fmt.Sprint(16 << 30), "innodb_purge_threads": "8",
		"innodb_io_capacity": "3000", "innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "ON"})
	r, prog := seedRun(t, dir, db+":old")
	seeds, err := r.loadSeeds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := space.Config{"innodb_buffer_pool_size": fmt.Sprint(2 << 30), "innodb_purge_threads": "1", "innodb_io_capacity": "3000"}
	if len(seeds) != 1 || seeds[0].Kind != search.Seed || seeds[0].Source != db+":old" || seeds[0].Config.Key() != want.Key() {
		t.Fatalf("seeds %+v, want one seed %v from %s", seeds, want, db+":old")
	}
	log := strings.Join(prog.lines, "\n")
	t.Logf("printed:\n%s", log)
	for _, frag := range []string{
		"seed " + db + ":old (measured right after the baseline): innodb_purge_threads=1 innodb_io_capacity=3000 innodb_buffer_pool_size=2G",
		"rescaled for this host: innodb_buffer_pool_size 16G -> 2G (RAM 64.0G -> 8.0G (x0.125))",
		"rescaled for this host: innodb_purge_threads 8 -> 1 (cores 16 -> 2 (x0.125))",
		"left out: innodb_flush_log_at_trx_commit=2: pinned to 1",
		`best of study "old": trial 1 (sampled, estimate 800.0 over 1 run) on mariadb 10.11.19, 16 cores, 64.0G RAM`,
	} {
		if !strings.Contains(log, frag) {
			t.Errorf("log lacks %q:\n%s", frag, log)
		}
	}
	if strings.Contains(log, "innodb_doublewrite") {
		t.Errorf("the doublewrite value the study pins anyway is listed:\n%s", log)
	}
}

// A seed the space rejects is refused with a usage error naming the seed
// and the knob.
func TestSeedRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		params space.Config
		want   string
	}{
		"unknown knob": {space.Config{"innodb_bufer_pool_size": "1G"}, `knob "innodb_bufer_pool_size": not a knob autotune knows`},
		"out of range": {space.Config{"innodb_io_capacity": "50000"}, "knob innodb_io_capacity: value"},
		"bad value":    {space.Config{"innodb_flush_method": "O_FAST"}, "knob innodb_flush_method: value \"O_FAST\""},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := seedDB(t, dir, tc.params)
			r, _ := seedRun(t, dir, db+":old")
			_, err := r.loadSeeds(context.Background())
			if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--seed-from \""+db+":old\"") {
				t.Fatalf("err %v, want a usage error naming the seed and %q", err, tc.want)
			}
		})
	}
	dir := t.TempDir()
	db := seedDB(t, dir, space.Config{})
	for arg, want := range map[string]string{
		db + ":nope": `no study "nope"`,
	} {
		r, _ := seedRun(t, dir, arg)
		if _, err := r.loadSeeds(context.Background()); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", arg, err, want)
		}
	}
	cnf := filepath.Join(dir, "prod.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_io_capacity = 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := seedRun(t, dir, cnf)
	r.cfg.Existing = &ExistingServer{DSN: "root@tcp(127.0.0.1:3306)/"}
	if _, err := r.loadSeeds(context.Background()); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "with --dsn seed from an earlier study") {
		t.Errorf("my.cnf seed with --dsn: err %v", err)
	}
	r, _ = seedRun(t, dir, db+":old")
	r.cfg.DB, r.cfg.Study = db, "old"
	if _, err := r.loadSeeds(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot seed itself") {
		t.Errorf("self seed: err %v", err)
	}
}

func TestSplitSeedList(t *testing.T) {
	got := SplitSeedList([]string{"a.cnf,old.db:s1", "prod.cnf:ram=64G,cores=16,b.cnf", "c.cnf"})
	want := []string{"a.cnf", "old.db:s1", "prod.cnf:ram=64G,cores=16", "b.cnf", "c.cnf"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q, want %q", got, want)
	}
}

// A seed with nothing left to measure (its only change is a pinned knob)
// is skipped with a line, not measured as a copy of the baseline.
func TestSeedWithNothingLeft(t *testing.T) {
	dir := t.TempDir()
	db := seedDB(t, dir, space.Config{"innodb_flush_log_at_trx_commit": "0"})
	r, prog := seedRun(t, dir, db+":old")
	seeds, err := r.loadSeeds(context.Background())
	if err != nil || len(seeds) != 0 {
		t.Fatalf("seeds %v, err %v; want none", seeds, err)
	}
	if log := strings.Join(prog.lines, "\n"); !strings.Contains(log, "nothing to measure") || !strings.Contains(log, "left out: innodb_flush_log_at_trx_commit=0") {
		t.Errorf("log:\n%s", log)
	}
}

// A study resumed under other conditions seeds from the trials of its
// latest conditions only: the better trial of the earlier fingerprint
// is not its best, and the seed line says what was left out.
func TestStudySeedTakesTheLatestSegment(t *testing.T) {
	dir := t.TempDir()
	path := seedDBOn(t, dir, space.Config{"innodb_io_capacity": "3000"}, 2, 8<<30) // trials 0, 1 (estimate 800)
	ctx := context.Background()
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StampFingerprint(ctx, "old", "", "earlier000000000"); err != nil {
		t.Fatal(err)
	}
	st, _, err := db.Study(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	fp, err := storage.StudyFingerprint(st)
	if err != nil {
		t.Fatal(err)
	}
	seg := storage.SegmentStore{DB: db, Key: fp.Key()}
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	for i, p := range []space.Config{{}, {"innodb_io_capacity": "1500"}} {
		tr := search.Trial{Study: "old", Number: 2 + i, State: search.Complete, Kind: search.Baseline, Params: p,
			Started: t0, Ended: t0.Add(50 * time.Second), Outcome: measure.Outcome{Score: 400 + 100*float64(i), MeanTPS: 400 + 100*float64(i)}}
		if i > 0 {
			tr.Kind = search.Sampled
		}
		if err := seg.FinishTrial(ctx, tr, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	r, prog := seedRun(t, dir, path+":old")
	seeds, err := r.loadSeeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 1 || seeds[0].Config["innodb_io_capacity"] != "1500" {
		t.Fatalf("seeds %+v, want the latest segment's best (innodb_io_capacity=1500), not the earlier 3000", seeds)
	}
	log := strings.Join(prog.lines, "\n")
	for _, frag := range []string{`best of study "old": trial 3 (sampled, estimate 500.0 over 1 run)`,
		"chosen among the 2 trial(s) measured under its latest conditions (fingerprint " + fp.Key() + "), not its 2 earlier one(s) under others"} {
		if !strings.Contains(log, frag) {
			t.Errorf("log lacks %q:\n%s", frag, log)
		}
	}
}
