package dashboard

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

var ctx = context.Background()

// t0 is the fixture's clock.
var t0 = time.Date(2025, 3, 1, 22, 0, 0, 0, time.UTC)

// fixtureKnobs are the knobs the synthetic study varies.
var fixtureKnobs = []string{"innodb_buffer_pool_size", "innodb_io_capacity", "innodb_log_file_size", "innodb_flush_neighbors"}

// synthStudy writes a study of n trials (n >= 10) to db as a search
// would: a baseline, sampled trials whose score rises with the buffer
// pool (seeded noise), a failed, a pruned and a not-steady trial, and
// final A/B pairs of the best against the baseline. It returns the
// trials as written.
func synthStudy(tb testing.TB, db *storage.DB, name string, n int) []search.Trial {
	tb.Helper()
	sp := space.Lookup()
	man := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 100000}
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: name, Settings: man.JSON(), Seed: 7, ServerVersion: "11.4.2-MariaDB",
		Cores: 8, RAMBytes: 16 << 30, Created: t0, Spent: 3 * time.Hour}); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	params := func(u float64) space.Config {
		c := space.Config{}
		for i, kn := range fixtureKnobs {
			k, ok := sp.Knob(kn)
			if !ok {
				tb.Fatalf("no knob %s", kn)
			}
			x := u
			if i > 0 {
				x = rng.Float64()
			}
			v, err := k.FromFloat(k.Min + x*(k.Max-k.Min))
			if k.Scale == space.Log {
				v, err = k.FromFloat(math.Exp(math.Log(k.Min) + x*(math.Log(k.Max)-math.Log(k.Min))))
			}
			if k.Kind == space.Enum || k.Kind == space.Bool {
				opts := k.Options()
				v, err = opts[int(x*float64(len(opts)))%len(opts)], nil
			}
			if err != nil {
				tb.Fatalf("%s: %v", kn, err)
			}
			c[kn] = v
		}
		return c
	}
	var out []search.Trial
	put := func(t search.Trial) {
		t.Study = name
		t.Started = t0.Add(time.Duration(t.Number) * time.Minute)
		t.Ended = t.Started.Add(50 * time.Second)
		if err := db.BeginTrial(ctx, t); err != nil {
			tb.Fatal(err)
		}
		if err := db.FinishTrial(ctx, t, time.Minute); err != nil {
			tb.Fatal(err)
		}
		out = append(out, t)
	}
	outcome := func(u float64) measure.Outcome {
		mean := 1000 + 800*u + rng.NormFloat64()*20
		o := measure.Outcome{MeanTPS: mean, StdTPS: 15, P95MS: 20, Score: mean - 30}
		o.WarmupS = 12
		o.Levels = []measure.Level{{Threads: 16, WarmupS: 12, Eval: measure.Eval{MeanTPS: mean, Score: o.Score}}}
		for s := 1; s <= 30; s++ {
			o.Samples = append(o.Samples, measure.Sample{T: float64(s), Warmup: s <= 12, TPS: mean + rng.NormFloat64()*15, Threads: 16})
		}
		return o
	}
	base := params(0.3)
	put(search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: base, Outcome: outcome(0.3)})
	ab := 6
	bestN, bestScore := 0, math.Inf(-1)
	for i := 1; i < n-ab; i++ {
		u := rng.Float64()
		t := search.Trial{Number: i, Kind: search.Sampled, State: search.Complete, Params: params(u), Outcome: outcome(u)}
		switch i {
		case 3:
			t.State, t.Outcome = search.Failed, measure.Outcome{Failure: "server refused the configuration: [ERROR] InnoDB: cannot allocate"}
		case 4:
			t.State, t.Pruned = search.Pruned, true
		case 5:
			t.WarmupCapped = true
			t.Levels[0].WarmupCapped = true
		}
		if t.State == search.Complete && t.Score > bestScore {
			bestN, bestScore = i, t.Score
		}
		put(t)
	}
	for r := 0; r < ab/2; r++ {
		a := search.Trial{Number: n - ab + 2*r, Kind: search.ABBest, State: search.Complete, Params: out[bestN].Params, Outcome: outcome(1)}
		a.RepeatOf = bestN
		b := search.Trial{Number: n - ab + 2*r + 1, Kind: search.ABBase, State: search.Complete, Params: base, Outcome: outcome(0.3)}
		b.RepeatOf = bestN
		put(a)
		put(b)
	}
	return out
}

// openStore creates an SQLite store in a temporary directory and returns
// it with its path.
func openStore(tb testing.TB) (*storage.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, path
}

// synthApplies writes two applies to db as autotune apply would: apply 1
// passed on db1 (two pairs of windows, persisted), apply 2 is watching
// on db2 (its first pair's old window measured). It returns their IDs.
func synthApplies(tb testing.TB, db *storage.DB) (passed, running int64) {
	tb.Helper()
	changes := `[{"Variable":"innodb_io_capacity","Option":"innodb-io-capacity","Knob":"innodb_io_capacity","Old":"200","New":"2000","Value":"2000","Class":"dynamic","Why":""}]`
	create := func(server, dsn, source string, started time.Time) int64 {
		id, err := db.CreateApply(ctx, storage.ApplyRecord{Server: server, DSN: dsn, Source: source, Started: started, Phase: storage.ApplyPlanned, Changes: changes})
		if err != nil {
			tb.Fatal(err)
		}
		return id
	}
	event := func(id int64, at time.Time, kind, detail string) {
		if err := db.AddApplyEvent(ctx, storage.ApplyEvent{Apply: id, At: at, Kind: kind, Detail: detail}); err != nil {
			tb.Fatal(err)
		}
	}
	phase := func(id int64, phase, verdict, reason string) {
		if err := db.SetApplyPhase(ctx, id, phase, verdict, reason); err != nil {
			tb.Fatal(err)
		}
	}
	passed = create("db1:3306, uuid 1111", "tuner@tcp(db1:3306)/", "trial 7 of study demo", t0)
	phase(passed, storage.ApplyApplying, "", "")
	event(passed, t0.Add(time.Second), "statistics", "judging from information_schema.query_response_time")
	event(passed, t0.Add(2*time.Second), "set", "new settings: innodb_io_capacity=2000")
	phase(passed, storage.ApplyWatching, "", "")
	for i, w := range []string{
		"pair 1 old: 1200 statements, 40.0/s, mean 2.500 ms",
		"pair 1 new: 1260 statements, 42.0/s, mean 2.000 ms",
		"pair 2 old: 1230 statements, 41.0/s, mean 2.400 ms",
		"pair 2 new: 1290 statements, 43.0/s, mean 2.100 ms",
	} {
		event(passed, t0.Add(time.Duration(60*(i+1))*time.Second), "window", w)
	}
	phase(passed, storage.ApplyPersisting, "pass", "new settings 16.0 % faster (95 % interval 10.0 .. 22.0 %)")
	event(passed, t0.Add(5*time.Minute), "persist", "persisted: innodb_io_capacity")
	phase(passed, storage.ApplyPassed, "pass", "new settings 16.0 % faster (95 % interval 10.0 .. 22.0 %)")

	running = create("db2:3306, uuid 2222", "tuner@tcp(db2:3306)/", "tuned.cnf", t0.Add(time.Hour))
	phase(running, storage.ApplyApplying, "", "")
	event(running, t0.Add(time.Hour+time.Second), "set", "new settings: innodb_io_capacity=2000")
	phase(running, storage.ApplyWatching, "", "")
	event(running, t0.Add(time.Hour+2*time.Second), "switch", "pair 1: old settings")
	event(running, t0.Add(time.Hour+62*time.Second), "window", "pair 1 old: 900 statements, 30.0/s, mean 3.000 ms")
	return passed, running
}
