package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/autotune/autotune/search"
)

// NoiseRun is one measured repeat of `autotune noise`.
type NoiseRun struct {
	// Outcome is the trial's outcome.
	Outcome search.Outcome
	// Steal, Idle (percent of CPU time) and Load1 describe the host during
	// the first level's window; nil when not sampled.
	Steal, Idle, Load1 *float64
}

func optF(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

// NoiseLine is one run's line of `autotune noise`.
func NoiseLine(i int, r NoiseRun) string {
	o := r.Outcome
	capped := ""
	if o.WarmupCapped {
		capped = " (cap)"
	}
	hll := "-"
	if !math.IsNaN(o.HLLGrowthPS) && len(o.Levels) > 0 {
		hll = fmt.Sprintf("%+.1f/s", o.HLLGrowthPS)
	}
	over := ""
	if o.Infeasible {
		over = " (over --max-p95)"
	}
	return fmt.Sprintf("run %d: warm-up %2.0fs%s  mean %7.1f tps  sd %5.1f  score %7.1f  [var %.1f dips %.1f (%ds) stalls %.1f (%ds) errors %.1f purge %.1f, hll %s]  p95 %.1f ms%s  steal %s %%  idle %s %%  load1 %s",
		i, o.WarmupS, capped, o.MeanTPS, o.StdTPS, o.Score, o.Variance, o.Dips, o.DipSeconds, o.Stalls, o.StallSeconds, o.Errors, o.Purge, hll,
		o.P95MS, over, optF(r.Steal, "%.1f"), optF(r.Idle, "%.1f"), optF(r.Load1, "%.1f"))
}

// cv returns the coefficient of variation (sample sd / mean) in percent.
func cv(xs []float64) float64 {
	m, sd := stat.MeanStdDev(xs, nil)
	if m == 0 {
		return math.NaN()
	}
	return sd / math.Abs(m) * 100
}

// WriteNoiseSummary prints the spread of the runs: CV of the mean tps and
// of the score, the warm-ups, CPU steal and load, and how many runs
// exceeded --max-p95 (search.Outcome.Infeasible) when any did.
func WriteNoiseSummary(out io.Writer, runs []NoiseRun) {
	if len(runs) < 2 {
		fmt.Fprintf(out, "only %d successful runs: no spread to report\n", len(runs))
		return
	}
	var tps, varOnly, score, warm, steal, load []float64
	for _, r := range runs {
		tps = append(tps, r.Outcome.MeanTPS)
		varOnly = append(varOnly, r.Outcome.Score+r.Outcome.Dips+r.Outcome.Stalls+r.Outcome.Errors+r.Outcome.Purge)
		score = append(score, r.Outcome.Score)
		warm = append(warm, r.Outcome.WarmupS)
		if r.Steal != nil {
			steal = append(steal, *r.Steal)
		}
		if r.Load1 != nil {
			load = append(load, *r.Load1)
		}
	}
	sort.Float64s(warm)
	mt, _ := stat.MeanStdDev(tps, nil)
	ms, _ := stat.MeanStdDev(score, nil)
	fmt.Fprintf(out, "\n%d runs\n", len(runs))
	fmt.Fprintf(out, "raw mean tps: mean %.1f, CV %.1f %%\n", mt, cv(tps))
	fmt.Fprintf(out, "score:        mean %.1f, CV %.1f %%\n", ms, cv(score))
	fmt.Fprintf(out, "  (variance penalty only: mean %.1f, CV %.1f %%; the rest is dips, stalls, errors and purge lag)\n", stat.Mean(varOnly, nil), cv(varOnly))
	fmt.Fprintf(out, "warm-up:      %v s (median %.0f s)\n", warm, stat.Quantile(0.5, stat.Empirical, warm, nil))
	if len(steal) > 0 {
		m, sd := stat.MeanStdDev(steal, nil)
		fmt.Fprintf(out, "CPU steal:    mean %.1f %% (sd %.1f) of the measurement windows\n", m, sd)
	}
	if len(load) > 0 {
		fmt.Fprintf(out, "load (1 min): mean %.1f, max %.1f at the windows' ends (other work on the machine shows here)\n", stat.Mean(load, nil), slicesMax(load))
	}
	over := 0
	for _, r := range runs {
		if r.Outcome.Infeasible {
			over++
		}
	}
	if over > 0 {
		fmt.Fprintf(out, "p95 over --max-p95: %d of %d runs (a study would keep such a trial but never make it the best)\n", over, len(runs))
	}
}

func slicesMax(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// VerifyRun is one run of `autotune verify`: the file's configuration
// (File) or the baseline, in pair Pair (from 1).
type VerifyRun struct {
	Pair    int
	File    bool
	Outcome search.Outcome
	Took    time.Duration
}

// VerifyLine renders one verify run: "pair 2 baseline: 612.3 tps (score
// 598.1, warm-up 15s, preload 6s) 98s", or the failure.
func VerifyLine(r VerifyRun, goal search.Goal) string {
	who := "baseline"
	if r.File {
		who = "file    "
	}
	o := r.Outcome
	if o.Failure != "" {
		return fmt.Sprintf("pair %d %s: FAILED: %s", r.Pair, who, o.Failure)
	}
	v := search.ObjectiveValue(goal, search.Trial{Outcome: o})
	unit := string(goal)
	if goal == search.GoalP95 {
		unit = "ms p95"
	}
	steady := ""
	if o.WarmupCapped {
		steady = ", NOT STEADY"
	}
	if o.Infeasible {
		steady += fmt.Sprintf(", p95 %.1f ms OVER --max-p95: the pair does not count", o.P95MS)
	}
	return fmt.Sprintf("pair %d %s: %.1f %s (score %.1f, warm-up %.0fs%s, preload %.0fs) %s", r.Pair, who, v, unit, o.Score,
		o.WarmupS, steady, o.Phases["preload"], r.Took.Round(time.Second))
}

// WriteVerify prints the verdict of `autotune verify`: the paired gain of
// the file's configuration over the baseline with its 95 % interval, or
// why there is none, and what the exit code will say. overLimit is the
// number of the file's runs whose p95 latency exceeded --max-p95: any
// makes the verdict NOT VERIFIED, whatever the gain of the other pairs.
func WriteVerify(out io.Writer, file string, goal search.Goal, g search.Gain, gerr error, complete, pairs, overLimit int) {
	fmt.Fprintf(out, "\n%s: %d of %d pairs complete\n", file, complete, pairs)
	if overLimit > 0 {
		if gerr == nil {
			fmt.Fprintf(out, "gain over the baseline (the pairs within --max-p95): %s\n", g)
		}
		fmt.Fprintf(out, "verdict: NOT VERIFIED (exit code 3): the file's p95 latency exceeded --max-p95 in %d of its runs\n", overLimit)
		return
	}
	if gerr != nil {
		fmt.Fprintf(out, "no gain can be stated: %v\nverdict: NOT VERIFIED (exit code 3)\n", gerr)
		return
	}
	fmt.Fprintf(out, "gain over the baseline: %s\n", g)
	if g.LoPct > 0 {
		fmt.Fprintf(out, "verdict: VERIFIED: the configuration is faster than the baseline (lower bound %+.1f %%)\n", g.LoPct)
		return
	}
	fmt.Fprintf(out, "verdict: NOT VERIFIED (exit code 3): the interval does not lie above 0; more pairs (--pairs) or a longer window (--duration) narrow it\n")
}
