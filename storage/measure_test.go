package storage

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestMeasurementRoundTrip(t *testing.T) {
	db := withStudy(t)
	f := func(v float64) *float64 { return &v }
	lvl := measure.Level{Threads: 16, WarmupS: 15, WarmupCapped: false,
		Eval: measure.Eval{Score: 480.5, Base: 510, MeanTPS: 510, StdTPS: 40, MeanQPS: 10200, P95MS: 55.5, Seconds: 60,
			Penalties: measure.Penalties{Variance: 20, Dips: 5.1, Stalls: 0, Errors: 1.2, Purge: 3.2, DipSeconds: 1, ErrPS: 1.2, HLLGrowthPS: 12.5}},
		Metrics: measure.Metrics{"rows_read_ps": f(1.5e5), "checkpoint_age_bytes_mean": nil, "cpu_steal": f(3.25)}}
	lvl2 := lvl
	lvl2.Threads, lvl2.HLLGrowthPS, lvl2.P95MS = 32, math.NaN(), math.NaN()
	lvl2.Metrics = measure.Metrics{"cpu_steal": nil}
	tr := search.Trial{Study: "s", Number: 5, State: search.Complete, Kind: search.Confirm, Params: space.Config{"innodb_doublewrite": "OFF"},
		Started: time.Unix(100, 0), Ended: time.Unix(200, 0), RepeatLink: search.RepeatLink{RepeatOf: 2}}
	tr.Outcome = measure.Outcome{Score: 480.5, MeanTPS: 510, StdTPS: 40, P95MS: 55.5, Restarted: true,
		Samples: []measure.Sample{{T: 1, Warmup: true, TPS: 400, Threads: 16, HLL: f(120)}, {T: 2, TPS: 500, Threads: 16}}}
	tr.Measurement = measure.Measurement{WarmupS: 15, WarmupCapped: true, Infeasible: true, Levels: []measure.Level{lvl, lvl2}}
	tr.Penalties = lvl.Penalties
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := trials(t, db, "s")[0]
	if got.RepeatOf != 2 || !got.Infeasible || !got.WarmupCapped || got.WarmupS != 15 || got.Penalties != tr.Penalties {
		t.Fatalf("got %+v", got.Measurement)
	}
	if len(got.Levels) != 2 || got.Levels[1].Threads != 32 || !math.IsNaN(got.Levels[1].HLLGrowthPS) || !math.IsNaN(got.Levels[1].P95MS) {
		t.Fatalf("levels %+v", got.Levels)
	}
	if !reflect.DeepEqual(got.Levels[0].Metrics, lvl.Metrics) || got.Levels[0].Metrics["checkpoint_age_bytes_mean"] != nil {
		t.Fatalf("metrics %v", got.Levels[0].Metrics)
	}
	if got.Levels[0].Eval != lvl.Eval {
		t.Fatalf("eval %+v\nwant %+v", got.Levels[0].Eval, lvl.Eval)
	}
	ss, err := db.Samples(ctx, "s", 5)
	if err != nil || ss[0].Threads != 16 || *ss[0].HLL != 120 || ss[1].HLL != nil {
		t.Fatalf("samples %+v %v", ss, err)
	}
	// A trial kind that repeats nothing stores repeat_of NULL; a trial
	// without levels has NULL components, read back as zero.
	tr2 := search.Trial{Study: "s", Number: 6, State: search.Failed, Kind: search.Sampled, Params: space.Config{},
		RepeatLink: search.RepeatLink{RepeatOf: 3, ConfirmNeeded: 2}, Outcome: measure.Outcome{Failure: "boom"}}
	if err := db.FinishTrial(ctx, tr2, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM trials WHERE number = 6 AND repeat_of IS NULL AND pen_variance IS NULL AND confirm_needed = 2`); n != 1 {
		t.Fatal("trial 6 columns")
	}
	got2 := trials(t, db, "s")[1]
	if got2.ConfirmNeeded != 2 || got2.RepeatOf != 0 || got2.Levels != nil || got2.Penalties != (measure.Penalties{}) {
		t.Fatalf("%+v", got2)
	}
}
