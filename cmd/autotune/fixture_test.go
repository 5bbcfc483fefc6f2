package main

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	goldenpkg "github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) { goldenpkg.Check(t, name, got) }

// fixtureT0 is when the fixture study starts.
var fixtureT0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// fixtureSettings are the fixture study's settings (as runSearch stores them).
const fixtureSettings = `{"workload":"oltp_read_write","threads":16,"tables":8,"table_size":500000,"warmup_s":4,"duration_s":10,"lambda":0.5}`

// fixtureDB writes a trials.db holding three studies and returns its path:
//
//   - "fix": 14 trials of a made-up but realistic landscape (the buffer
//     pool and flush_log_at_trx_commit matter, everything else is noise):
//     the baseline, sampled trials, one failed (server refused the config),
//     one interrupted and its retry; every finished trial has per-second
//     samples (4 warm-up + 10 measured) from a seeded generator, scored
//     with the variance-only score rule.
//   - "small": a baseline and one sampled trial.
//   - "empty": no trials.
func fixtureDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, name := range []string{"fix", "small", "empty"} {
		st := storage.StudyRecord{Name: name, Settings: fixtureSettings, Seed: 42, ServerVersion: "10.11.19-MariaDB-0+deb12u1",
			Cores: 2, RAMBytes: 24 << 30, Created: fixtureT0.Add(time.Duration(i) * time.Hour)}
		if err := db.CreateStudy(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	// The fixture searches the first space's twelve knobs, durability
	// included, so its goldens stay readable.
	var knobs []space.Knob
	for _, k := range space.Lookup().All() {
		switch k.Name {
		case "innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size", "innodb_flush_log_at_trx_commit",
			"innodb_flush_method", "innodb_io_capacity", "innodb_doublewrite", "innodb_adaptive_hash_index",
			"innodb_change_buffering", "innodb_max_dirty_pages_pct", "innodb_purge_threads", "innodb_flush_neighbors":
			knobs = append(knobs, k)
		}
	}
	sp, err := space.New(knobs)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(k space.Knob) string {
		switch k.Kind {
		case space.Enum, space.Bool:
			o := k.Options()
			return o[rng.IntN(len(o))]
		}
		x := k.Min + rng.Float64()*(k.Max-k.Min)
		if k.Scale == space.Log {
			x = math.Exp(math.Log(k.Min) + rng.Float64()*(math.Log(k.Max)-math.Log(k.Min)))
		}
		step := float64(max(k.Step, 1))
		if k.Kind == space.Float {
			step = 0.001
		}
		v, err := k.FromFloat(math.Min(math.Max(math.Round(x/step)*step, k.Min), k.Max))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// level is the made-up mean tps of a config.
	level := func(c space.Config) float64 {
		bp := 128.0 * (1 << 20)
		if v, ok := c["innodb_buffer_pool_size"]; ok {
			bp, _ = (space.Knob{Kind: space.Bytes}).Float(v)
		}
		tps := 500 * math.Min(1+0.4*math.Log2(bp/(128<<20)), 2.2)
		if v, ok := c["innodb_flush_log_at_trx_commit"]; ok && v != "1" {
			tps *= 1.35
		}
		return tps
	}
	samplesOf := func(mean float64) []measure.Sample {
		var out []measure.Sample
		for i := 1; i <= 14; i++ {
			tps := mean * (1 + 0.08*rng.NormFloat64())
			if i <= 4 {
				tps *= 0.4 + 0.15*float64(i)
			}
			tps = math.Round(tps*100) / 100
			out = append(out, measure.Sample{T: float64(i), Warmup: i <= 4, TPS: tps, QPS: math.Round(tps*2000) / 100,
				Reads: math.Round(tps*1400) / 100, Writes: math.Round(tps*400) / 100, Other: math.Round(tps*200) / 100,
				LatPct: 95, LatMS: math.Round(16000000/tps) / 1000})
		}
		return out
	}
	save := func(study string, tr search.Trial, spent time.Duration) {
		t.Helper()
		tr.Study = study
		begin := tr
		begin.Outcome = measure.Outcome{}
		if err := db.BeginTrial(ctx, begin); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishTrial(ctx, tr, spent); err != nil {
			t.Fatal(err)
		}
	}
	measured := func(n int, kind search.Kind, cfg space.Config, start time.Time) search.Trial {
		tr := search.Trial{Number: n, Kind: kind, State: search.Complete, Params: cfg, Started: start, Ended: start.Add(19 * time.Second)}
		tr.Samples = samplesOf(level(cfg))
		var window []measure.Sample
		for _, s := range tr.Samples {
			if !s.Warmup {
				window = append(window, s)
			}
		}
		ev, err := measure.ScoreRule{Goal: measure.GoalTPS, Lambda: 0.5}.Evaluate(window)
		if err != nil {
			t.Fatal(err)
		}
		mean, p95 := ev.MeanTPS, ev.P95MS
		tr.Score, tr.MeanTPS, tr.StdTPS, tr.P95MS = ev.Score, mean, ev.StdTPS, p95
		tr.ServerVersion = "10.11.19-MariaDB-0+deb12u1"
		tr.Restarted = true
		tr.Phases = map[string]float64{"restore": 1.9, "start": 2.1, "warmup": 4, "measure": 10.1, "stop": 0.9}
		tr.Summary = `{"transactions":` + strconv.FormatInt(int64(mean*14), 10) + `,"tps":` + strconv.FormatFloat(mean, 'f', 1, 64) + `,"lat_pct":95,"lat_pct_ms":` + strconv.FormatFloat(p95, 'f', 1, 64) + `,"reconnects":0}`
		return tr
	}

	start := fixtureT0.Add(time.Minute)
	var interruptedCfg space.Config
	for n := 0; n < 14; n++ {
		cfg := space.Config{}
		kind := search.Sampled
		switch {
		case n == 0:
			kind = search.Baseline
		case n == 10:
			kind = search.Retry
			cfg = interruptedCfg.Clone()
		default:
			for _, k := range sp.Knobs() {
				cfg[k.Name] = pick(k)
			}
		}
		switch n {
		case 5: // the server refuses the config
			tr := search.Trial{Number: n, Kind: kind, State: search.Failed, Params: cfg, Started: start, Ended: start.Add(3 * time.Second)}
			tr.Failure = "server exited during start-up (exit status 1): [ERROR] InnoDB: innodb_log_buffer_size is too small for innodb_log_file_size"
			tr.ErrorLog = "2025-01-02  3:06:00 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision\n" +
				"2025-01-02  3:06:00 0 [ERROR] InnoDB: innodb_log_buffer_size is too small for innodb_log_file_size\n" +
				"2025-01-02  3:06:00 0 [ERROR] Plugin 'InnoDB' init function returned error.\n" +
				"2025-01-02  3:06:00 0 [ERROR] Aborting"
			tr.Phases = map[string]float64{"restore": 1.8}
			save("fix", tr, 3*time.Second)
			start = tr.Ended.Add(time.Second)
			continue
		case 9: // Ctrl-C in the middle of the benchmark
			tr := search.Trial{Number: n, Kind: kind, State: search.Interrupted, Params: cfg, Started: start, Ended: start.Add(8 * time.Second)}
			tr.Failure = "context canceled"
			interruptedCfg = cfg
			save("fix", tr, 8*time.Second)
			start = tr.Ended.Add(time.Minute)
			continue
		}
		tr := measured(n, kind, cfg, start)
		save("fix", tr, 20*time.Second)
		start = tr.Ended.Add(time.Second)
	}

	s0 := fixtureT0.Add(time.Hour + time.Minute)
	save("small", measured(0, search.Baseline, space.Config{}, s0), 20*time.Second)
	save("small", measured(1, search.Sampled, space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_log_at_trx_commit": "2"}, s0.Add(20*time.Second)), 20*time.Second)
	return path
}
