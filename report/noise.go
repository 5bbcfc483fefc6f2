package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/study/result"
)

func optF(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

// NoiseLine is one run's line of `autotune noise`.
func NoiseLine(i int, r result.NoiseRun) string {
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
// exceeded --max-p95 (measure.Outcome.Infeasible) when any did.
func WriteNoiseSummary(out io.Writer, runs []result.NoiseRun) {
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

// VerifyLine renders one verify run: "pair 2 baseline: 612.3 tps (score
// 598.1, warm-up 15s, preload 6s) 98s", or the failure.
func VerifyLine(r result.VerifyRun, goal measure.Goal) string {
	who, unitName := "baseline", "pair"
	if r.File {
		who = "file    "
	}
	if r.Arm != "" {
		who, unitName = r.Arm, "round"
	}
	o := r.Outcome
	if o.Failure != "" {
		return fmt.Sprintf("%s %d %s: FAILED: %s", unitName, r.Pair, who, o.Failure)
	}
	v := search.ObjectiveValue(goal, search.Trial{Outcome: o})
	unit := string(goal)
	if goal == measure.GoalP95 {
		unit = "ms p95"
	}
	steady := ""
	if o.WarmupCapped {
		steady = ", NOT STEADY"
	}
	if o.Infeasible {
		steady += fmt.Sprintf(", p95 %.1f ms OVER --max-p95: the pair does not count", o.P95MS)
	}
	return fmt.Sprintf("%s %d %s: %.1f %s (score %.1f, warm-up %.0fs%s, preload %.0fs) %s", unitName, r.Pair, who, v, unit, o.Score,
		o.WarmupS, steady, o.Phases["preload"], r.Took.Round(time.Second))
}

// WriteVerify prints the verdict of `autotune verify`: the paired gain of
// the file's configuration over the baseline with its 95 % interval, or
// why there is none, and what the exit code will say. overLimit is the
// number of the file's runs whose p95 latency exceeded --max-p95: any
// makes the verdict NOT VERIFIED, whatever the gain of the other pairs.
func WriteVerify(out io.Writer, file string, goal measure.Goal, g search.Gain, gerr error, complete, pairs, overLimit int) {
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

// WriteVerification prints what autotune verify measured: the gain and
// verdict of one file (WriteVerify) or the table of several
// (WriteVerifyArms), then what each export's study claimed.
func WriteVerification(out io.Writer, v result.Verification) {
	if v.File != "" {
		var g search.Gain
		if len(v.Gains) > 0 {
			g = v.Gains[0]
		}
		var gerr error
		if v.GainErr != "" {
			gerr = errors.New(v.GainErr)
		}
		WriteVerify(out, v.File, v.Goal, g, gerr, v.Pairs, v.Rounds, v.OverLimit)
	} else {
		WriteVerifyArms(out, v.Goal, v.Arms, v.Failed)
	}
	WriteClaims(out, v.Claims)
}

// WriteClaims prints, under the verified gains, what each export's study
// claimed, where it measured under this run's conditions; where it did
// not, that its claim is not comparable.
func WriteClaims(w io.Writer, claims []result.ExportClaim) {
	for _, c := range claims {
		switch {
		case c.Differs != "":
			fmt.Fprintf(w, "%s: its study's gain was measured under other conditions (%s); not comparable with this verification\n", c.File, c.Differs)
		case c.Gain != "":
			fmt.Fprintf(w, "%s: its study's gain over the baseline, measured under these conditions: %s\n", c.File, c.Gain)
		}
	}
}

// WriteVerifyArms prints the table of a verify run over several files,
// one row per arm (the baseline last): runs counted, the geometric mean,
// the gain over the baseline and over the reference with their 95 %
// intervals; then the verdict, failed listing each file whose gain over
// the baseline is not shown with the reason.
func WriteVerifyArms(out io.Writer, goal measure.Goal, arms []result.VerifyArm, failed []string) {
	var base, ref string
	for _, a := range arms {
		if !a.File {
			base = a.Name
		}
		if a.Reference {
			ref = a.Name
		}
	}
	unit := "mean " + string(goal)
	if goal == measure.GoalP95 {
		unit = "p95 ms"
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "arm\truns\t%s\tvs %s (95 %% CI)\tvs %s (95 %% CI)\n", unit, base, ref)
	for _, a := range arms {
		name := a.Name
		if a.Reference {
			name += " (reference)"
		}
		runs := fmt.Sprintf("%d/%d", a.Runs, a.Rounds)
		if a.OverLimit > 0 {
			runs += fmt.Sprintf(" (%d over --max-p95)", a.OverLimit)
		}
		vsBase, vsRef := "—", "—"
		if a.File {
			vsBase = armGain(a.VsBase, a.VsBaseErr)
		}
		if !a.Reference {
			vsRef = armGain(a.VsRef, a.VsRefErr)
		}
		mean := "—"
		if a.Runs > 0 {
			mean = fmt.Sprintf("%.1f", a.Mean)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, runs, mean, vsBase, vsRef)
	}
	tw.Flush()
	if len(failed) == 0 {
		fmt.Fprintf(out, "verdict: VERIFIED: every file is faster than %s\n", base)
		return
	}
	fmt.Fprintf(out, "verdict: NOT VERIFIED (exit code 3): %s\n", strings.Join(failed, "; "))
}

// armGain renders a gain as "+12.3 % (+4.1 .. +21.2 %, p = 0.01)", or why
// there is none.
func armGain(g search.Gain, err error) string {
	if err != nil {
		return "none: " + err.Error()
	}
	return fmt.Sprintf("%+.1f %% (%+.1f .. %+.1f %%, p = %.2g)", g.Pct, g.LoPct, g.HiPct, g.P)
}
