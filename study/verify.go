package study

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// NotVerified is Verify's verdict when the configuration's gain is not
// shown: its 95 % interval does not lie above zero, or too few pairs
// completed for an interval. The command line exits with code 3 for it,
// so that a script can gate a rollout on the verdict.
type NotVerified struct {
	// Reason says why ("the interval includes 0", ...).
	Reason string
}

func (e NotVerified) Error() string { return "not verified: " + e.Reason }

// Verify re-measures the configuration of the option file file against
// the baseline (the server defaults, or cfg.Space.BaselineCnf with the
// file's settings on top of it) on the sandbox: pairs interleaved pairs
// (file first, then baseline; baseline first, then file; ...), each run a
// full trial of the engine. It prints every run and the paired gain on
// the objective (search.PairedGain) to out, and returns the gain. It
// returns NotVerified when the interval's lower bound is not above zero,
// fewer than 2 pairs completed, or any run of the file's configuration
// exceeded cfg.Measure.MaxP95 (such a run's pair is not counted, as in a
// study's final A/B runs: search.ABPairs), a UsageError for a file the server
// would refuse or that sets nothing autotune can measure, and other
// errors when the sandbox fails. Nothing is written to a study database.
func Verify(ctx context.Context, cfg Config, file string, pairs int, prog Progress, out io.Writer) (g search.Gain, err error) {
	if pairs < 2 {
		return g, Usagef("--pairs %d: want at least 2 (an interval needs two pairs)", pairs)
	}
	// The file's syntax first, before the sandbox and its dataset; its
	// options are checked against the server below.
	if _, err := readOptionFileFor(file, space.Version{Flavor: space.MariaDB}); err != nil {
		return g, Usagef("verify %s: %v", file, err)
	}
	r, err := newRun(ctx, cfg, prog, "verify")
	defer r.closeInto(&err)
	if err != nil {
		return g, r.interrupted(ctx, err)
	}
	what := "verify " + file
	fc, err := loadOptionFile(ctx, what, file, r.sp, r.info, r.bin)
	if err != nil {
		return g, err
	}
	env, envNotes, err := exportEnvironment(file, r.sp)
	if err != nil {
		return g, Usagef("%s: %v", what, err)
	}
	fc.Config = fc.Config.Merge(env)
	for _, n := range append(fc.Notes, envNotes...) {
		r.logf("%s: %s", what, n)
	}
	base := r.base
	cand := base.Merge(fc.Config)
	if cand.Key() == base.Key() {
		return g, Usagef("%s: sets nothing that differs from the baseline (no knob autotune measures); nothing to verify", what)
	}
	if _, err := r.sp.Validate(cand); err != nil {
		return g, Usagef("%s: %v", what, err)
	}
	goal := search.Goal(cfg.Measure.Objective)
	r.logf("verifying %s: %d interleaved pairs against %s; %s, threads %v, warm-up up to %s + %s window, objective %s",
		file, pairs, baselineName(cfg), cfg.Bench.Workload, r.cfg.Bench.Threads, cfg.Measure.Warmup, cfg.Measure.Duration, goal)
	for _, c := range r.sp.ChangesFrom(base, cand) {
		r.logf("  %s", c)
	}
	var runs []report.VerifyRun
	var measured []search.Pair
	n, overLimit := 0, 0
	for i := 0; i < pairs; i++ {
		order := []bool{true, false} // true: the file's configuration (A)
		if i%2 == 1 {
			order = []bool{false, true}
		}
		var a, b float64
		var pair [2]search.Trial // the file's run, the baseline's
		for _, isA := range order {
			n++
			kind, params := search.ABBase, base
			if isA {
				kind, params = search.ABBest, cand
			}
			t0 := time.Now()
			oc, err := r.engine.Run(ctx, search.Trial{Number: n, Kind: kind, Params: params})
			if err != nil {
				return g, r.interrupted(ctx, err)
			}
			vr := report.VerifyRun{Pair: i + 1, File: isA, Outcome: oc, Took: time.Since(t0)}
			runs = append(runs, vr)
			r.logf("%s", report.VerifyLine(vr, goal))
			if oc.Failure != "" {
				continue
			}
			if oc.Infeasible {
				// As the study's A/B pairs (search.ABPairs): a run over
				// --max-p95 does not count.
				if isA {
					overLimit++
				}
				continue
			}
			v := search.ObjectiveValue(goal, search.Trial{Outcome: oc})
			if isA {
				a, pair[0] = v, search.Trial{Number: n, Kind: kind, State: search.Complete, Outcome: oc}
			} else {
				b, pair[1] = v, search.Trial{Number: n, Kind: search.Baseline, State: search.Complete, Outcome: oc}
			}
		}
		// The file's run is compared with its pair's baseline run, as a
		// study's trials are with its baseline (search.ErrorShift).
		if lim := r.errorShiftLimit(); lim > 0 && a > 0 && b > 0 {
			if why := search.ErrorShift(pair[1:], pair[0], lim); why != "" {
				r.logf("pair %d not counted: the file's run is %s", i+1, why)
				continue
			}
		}
		if a > 0 && b > 0 {
			measured = append(measured, search.Pair{A: a, B: b})
		}
	}
	g, gerr := search.PairedGain(goal, measured)
	report.WriteVerify(out, file, goal, g, gerr, len(measured), pairs, overLimit)
	switch {
	case overLimit > 0:
		return g, NotVerified{Reason: fmt.Sprintf("the file's p95 latency exceeded --max-p95 %g ms in %d of %d runs", cfg.Measure.MaxP95, overLimit, pairs)}
	case gerr != nil:
		return g, NotVerified{Reason: gerr.Error()}
	case !(g.LoPct > 0):
		return g, NotVerified{Reason: fmt.Sprintf("the 95 %% interval of the gain (%+.1f .. %+.1f %%) does not lie above 0", g.LoPct, g.HiPct)}
	}
	return g, nil
}

// baselineName says what the baseline of a run is.
func baselineName(cfg Config) string {
	if cfg.Space.BaselineCnf != "" {
		return cfg.Space.BaselineCnf + " (--baseline-cnf)"
	}
	return "the server defaults"
}

// exportLine matches the header line `autotune export` writes for a knob
// that is not a my.cnf option (report.environmentNotes):
// "# not an option: allocator=tcmalloc (start the server with ...)".
var exportLine = regexp.MustCompile(`^#\s*` + regexp.QuoteMeta(strings.TrimSpace(report.NotAnOption)) + `\s*([a-z_]+)=([^\s(]+)`)

// exportEnvironment returns the runtime knobs (allocator, CPU placement,
// connection, builds) that the header of a file written by `autotune
// export` names, so that verify measures the trial's configuration and
// not only its my.cnf part; the notes say what it applies and what this
// host's space does not offer, or a value it does not take (left out).
// A file without such lines gives none. Errors: the file cannot be read.
func exportEnvironment(path string, sp *space.Space) (space.Config, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	cfg := space.Config{}
	var notes []string
	for i, line := range strings.Split(string(data), "\n") {
		m := exportLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		k, ok := sp.Knob(m[1])
		if !ok || k.Layer == space.LayerServer {
			notes = append(notes, fmt.Sprintf("line %d: %s=%s left out: not a runtime knob this host's space offers", i+1, m[1], m[2]))
			continue
		}
		v, err := k.Normalize(m[2])
		if err != nil {
			notes = append(notes, fmt.Sprintf("line %d: %s=%s left out: %v", i+1, m[1], m[2], err))
			continue
		}
		cfg[k.Name] = v
		notes = append(notes, fmt.Sprintf("line %d: applies %s=%s as the trial ran (not a my.cnf option: the export's header says how it was set)", i+1, k.Name, v))
	}
	return cfg, notes, nil
}
