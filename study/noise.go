package study

import (
	"context"
	"strings"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// Noise measures one fixed configuration (set: knob=value pairs, none for
// the server defaults) repeats times on the sandbox, each a full trial of
// the engine, emits each run (result.NoiseRunEnded) and returns the runs
// that completed, for their spread (report.WriteNoiseSummary). Nothing is
// stored. A bad knob=value is a UsageError naming it.
func Noise(ctx context.Context, cfg Config, set []string, repeats int, prog Progress) (runs []result.NoiseRun, err error) {
	conf := space.Config{}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, Usagef("--set %q: want knob=value", kv)
		}
		k = strings.TrimSpace(k)
		// Names first, before the sandbox and its dataset: a typo costs
		// nothing. Values are checked against the host's space below.
		if _, ok := space.Lookup().Knob(k); !ok {
			return nil, Usagef("--set %q: no knob %q (autotune knobs lists them)", kv, k)
		}
		conf[k] = strings.TrimSpace(v)
	}
	r, err := newRun(ctx, cfg, prog, "noise")
	defer r.closeInto(&err)
	if err != nil {
		return nil, r.interrupted(ctx, err)
	}
	conf, err = r.sp.Validate(conf)
	if err != nil {
		return nil, Usagef("--set: %v", err)
	}
	desc := "server defaults"
	if ch := r.sp.Changes(conf); len(ch) > 0 {
		desc = strings.Join(ch, " ")
	}
	r.logf("measuring %s %d times: %s, threads %v, warm-up cap %s + %s window, objective %s",
		desc, repeats, cfg.Bench.Workload, r.cfg.Bench.Threads, cfg.Measure.Warmup, cfg.Measure.Duration, cfg.Measure.Objective)
	for i := 1; i <= repeats; i++ {
		t0 := time.Now()
		oc, err := r.engine.Run(ctx, search.Trial{Number: i, Kind: search.Sampled, Params: conf})
		if err != nil {
			return runs, r.interrupted(ctx, err)
		}
		if oc.Failure != "" {
			r.logf("run %d failed: %s", i, oc.Failure)
			continue
		}
		nr := result.NoiseRun{Outcome: oc}
		if len(oc.Levels) > 0 {
			m := oc.Levels[0].Metrics
			nr.Steal, nr.Idle, nr.Load1 = m["cpu_steal"], m["cpu_idle"], m["load1"]
		}
		runs = append(runs, nr)
		r.prog.Emit(result.NoiseRunEnded{Index: i, Run: nr, Took: time.Since(t0)})
	}
	return runs, nil
}
