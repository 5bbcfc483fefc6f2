package exportfile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// ThroughputOf returns the name and value of a trial's throughput as the
// trial lines and the trials table show it: "tpmC" and 60 × MeanTPS for a
// TPC-C trial (its benchmark summary says "workload":"tpcc", and its tps
// are New-Order transactions per second, runner/tpcc), else "tps" and
// MeanTPS.
func ThroughputOf(t search.Trial) (unit string, value float64) {
	if isTPCC(t) {
		return "tpmC", 60 * t.MeanTPS
	}
	return "tps", t.MeanTPS
}

// isTPCC reports whether t's benchmark summary is a TPC-C run's.
func isTPCC(t search.Trial) bool {
	if !strings.Contains(t.Summary, `"tpcc"`) {
		return false
	}
	var s struct {
		Workload string `json:"workload"`
	}
	return json.Unmarshal([]byte(t.Summary), &s) == nil && s.Workload == "tpcc"
}

// GainText is the one headline gain of a study: the paired A/B comparison
// of the best trial with the baseline on the objective (search.ABGain),
// or why there is none. ok is false when there is no interval.
func GainText(goal measure.Goal, trials []search.Trial, best search.Trial) (text string, ok bool) {
	if best.Number < 0 || best.Kind == search.Baseline {
		return "none: the baseline is the best configuration", false
	}
	g, ok := search.ABGain(goal, trials, best.Number)
	if !ok {
		return abShortfall(trials, best.Number), false
	}
	g.Unit = GainUnit(goal, best)
	return g.String(), true
}

// GainUnit names goal in a gain's text as the trial lines name best's
// throughput: "tpmC" for a TPC-C trial's tps (ThroughputOf), else "" (the
// goal's name).
func GainUnit(goal measure.Goal, best search.Trial) string {
	if u, _ := ThroughputOf(best); goal == measure.GoalTPS && u != "tps" {
		return u
	}
	return ""
}

// RulesText is the best's gain over the study's expert warm start (the
// rules: search.WarmStartGain) from the rounds of the final A/B phase, or
// why there is none: the study had no warm start, it failed, it is the
// best itself, or too few rounds measured it. ok is false when there is
// no interval.
func RulesText(goal measure.Goal, trials []search.Trial, best search.Trial) (text string, ok bool) {
	if best.Number < 0 {
		return "none: no trial completed", false
	}
	r := search.WarmStartGain(goal, trials, best)
	r.Gain.Unit = GainUnit(goal, best)
	switch r.Status {
	case search.RulesNone:
		return "none: the study measured no expert warm start (--warm-start=false, or no rule applied to this host and dataset): it has no rules to compare with", false
	case search.RulesFailed:
		return fmt.Sprintf("none: the expert warm start (trial %d) %s, so the rules gave no configuration to compare with", r.Warm.Number, failedHow(r.Warm)), false
	case search.RulesAreBest:
		if sb, _ := search.Best(trials); sb.Number >= 0 && sb.Number != best.Number {
			// A chosen trial (export --trial), not the study's best.
			return fmt.Sprintf("none: trial %d is the expert warm start itself", best.Number), false
		}
		return fmt.Sprintf("none: the best is the expert warm start itself (trial %d): the search found nothing better than the rules", r.Warm.Number), false
	}
	if best.Kind == search.Baseline {
		return fmt.Sprintf("none: the baseline is the best configuration; the expert warm start (trial %d) did not beat it", r.Warm.Number), false
	}
	switch r.Status {
	case search.RulesAreBaseline:
		if r.Rounds < 2 {
			return fmt.Sprintf("the gain over the baseline (the expert warm start, trial %d, is the baseline's configuration): %s", r.Warm.Number, abShortfall(trials, best.Number)), false
		}
		return r.Gain.String() + fmt.Sprintf(" (the expert warm start, trial %d, is the baseline's configuration)", r.Warm.Number), true
	case search.RulesShort:
		if !r.Warm.State.Finished() {
			return fmt.Sprintf("not measured yet: the expert warm start (trial %d) has not finished", r.Warm.Number), false
		}
		if r.Rounds == 0 && abPairsRan(trials, best.Number) {
			return fmt.Sprintf("not measured: the final A/B phase ran in pairs of the best and the baseline, without the expert warm start (trial %d): the rest of the budget did not hold a third arm, or its runs failed; autotune verify measures them side by side", r.Warm.Number), false
		}
		if r.Rounds == 0 {
			return fmt.Sprintf("not measured: the expert warm start (trial %d) is measured in the rounds of the final A/B phase (at the end of the budget or trial cap)", r.Warm.Number), false
		}
		return fmt.Sprintf("only %d complete rounds measured the best and the expert warm start (trial %d), too few for a confidence interval (2 needed)", r.Rounds, r.Warm.Number), false
	}
	return r.Gain.String(), true
}

// abPairsRan reports whether the final A/B phase of trial best measured
// the best and the baseline at least once each.
func abPairsRan(trials []search.Trial, best int) bool {
	var a, b bool
	for _, t := range trials {
		if t.RepeatLink.RepeatOf == best && t.State.Finished() {
			a = a || t.Kind == search.ABBest
			b = b || t.Kind == search.ABBase
		}
	}
	return a && b
}

// failedHow says how a finished trial that gave no usable measurement
// ended: "was rejected", "was pruned", "was infeasible" or "failed".
func failedHow(t search.Trial) string {
	switch {
	case t.State == search.Rejected:
		return "was rejected"
	case t.State == search.Pruned:
		return "was pruned (stopped early, clearly below the best)"
	case t.State == search.Complete && t.Infeasible:
		return "was infeasible"
	}
	return "failed"
}

// SteadyNote says how the windows that found no steady start entered
// estimate e (search.Estimate.NotSteadyLeft, NotSteadyKept): "; 1 more
// measurement left out: its window was NOT STEADY", "; its windows were
// all NOT STEADY", or "" when every window was steady.
func SteadyNote(e search.Estimate) string {
	switch {
	case e.NotSteadyLeft > 0:
		return fmt.Sprintf("; %d more measurement(s) left out: window NOT STEADY", e.NotSteadyLeft)
	case e.NotSteadyKept > 0:
		return fmt.Sprintf("; %d of them NOT STEADY (no steady window to prefer)", e.NotSteadyKept)
	}
	return ""
}

// writeGainComment writes the final A/B result of the best trial as my.cnf
// comments: the gain over the baseline with its 95 % interval, plainly
// whether it is significant, and the gain over the expert warm start
// (RulesText).
func writeGainComment(w io.Writer, goal measure.Goal, trials []search.Trial, best search.Trial) {
	if best.Number < 0 || best.Kind == search.Baseline {
		return
	}
	if e := search.EstimateOf(trials, best); e.N > 1 {
		unit, _ := ThroughputOf(best)
		fmt.Fprintf(w, "# estimate from %d measurements of this configuration (score and %s above are their mean)%s\n", e.N, unit, SteadyNote(e))
	}
	switch g, ok := search.ABGain(goal, trials, best.Number); {
	case !ok:
		fmt.Fprintf(w, "# %s%s; no gain is claimed\n", gainPrefix, abShortfall(trials, best.Number))
	default:
		g.Unit = GainUnit(goal, best)
		fmt.Fprintf(w, "# %s%s\n", gainPrefix, g)
		if !g.Significant {
			fmt.Fprintln(w, "# WARNING: this gain is NOT statistically significant; the configuration may be no better than the defaults")
		}
	}
	text, _ := RulesText(goal, trials, best)
	fmt.Fprintf(w, "# gain over the expert warm start: %s\n", text)
	for _, l := range SkewLines(goal, trials, best) {
		fmt.Fprintf(w, "# %s\n", l)
	}
}

// skewChecks returns the skew checks trials hold for best
// (search.SkewOf of each label, search.SkewLabels), with the unit of the
// best's throughput.
func skewChecks(goal measure.Goal, trials []search.Trial, best search.Trial) []search.Skew {
	if best.Number < 0 || best.Kind == search.Baseline {
		return nil
	}
	var out []search.Skew
	for _, l := range search.SkewLabels(trials, best.Number) {
		k := search.SkewOf(goal, trials, best.Number, l)
		k.Gain.Unit = GainUnit(goal, best)
		out = append(out, k)
	}
	return out
}

// SkewLines are the lines that say what the skew checks of best found,
// one per variant: "skew check under --rand-type=uniform: +12.0 % tps
// (95 % CI ...): significant", each followed, when it found the
// configuration workload-fragile, by a WORKLOAD-FRAGILE line saying so;
// none without a skew check.
func SkewLines(goal measure.Goal, trials []search.Trial, best search.Trial) []string {
	var out []string
	for _, k := range skewChecks(goal, trials, best) {
		out = append(out, "skew check "+strings.SplitN(k.String(), "; WORKLOAD-FRAGILE", 2)[0])
		if k.Fragile {
			out = append(out, fmt.Sprintf("WORKLOAD-FRAGILE: the gain of %+.1f %% over the baseline is not shown under %s (its 95 %% interval includes 0 or lies below it): it holds for the study's access pattern only; measure it under your production's before relying on it (autotune verify)", k.Primary.Pct, k.Label))
		}
	}
	return out
}

// abShortfall says why there is no A/B interval for the best trial.
func abShortfall(trials []search.Trial, best int) string {
	a, b := 0, 0
	for _, t := range trials {
		if t.RepeatOf != best || t.State != search.Complete {
			continue
		}
		switch t.Kind {
		case search.ABBest:
			a++
		case search.ABBase:
			b++
		}
	}
	if a+b == 0 {
		return "not measured by interleaved A/B runs (they run at the end of the budget or trial cap)"
	}
	return fmt.Sprintf("only %d vs %d interleaved A/B runs, too few for a confidence interval (2 complete pairs needed, --ab-pairs 2)", a, b)
}

// KeptChange is one change of a minimal configuration with its measured
// contribution.
type KeptChange struct {
	// Name is the knob, Value its value as written to my.cnf.
	Name, Value string
	// Comment is the contribution as an export comment: "+48 % tps
	// (±6 %)", the ± the half-width of the step's 95 % interval; for the
	// knobs of a dependency group other than its lead (MinStep.Lead) "reverts together with
	// innodb_io_capacity (one contribution)"; for a change not tried or
	// not measured, why it was kept.
	Comment string
	// Step is the minimisation step that decided it.
	Step search.MinStep
}

// KeptChanges returns the changes the minimal configuration of m keeps,
// in the order of the steps that kept them, each with its contribution.
// A group's contribution is written on its lead knob (MinStep.Lead); the
// others say they revert together with it.
func KeptChanges(sp *space.Space, m search.Minimized) []KeptChange {
	var out []KeptChange
	for _, s := range m.KeptSteps() {
		lead := cmp.Or(s.Lead, s.Knobs[0])
		var others []string
		for _, n := range s.Knobs {
			if n != lead {
				others = append(others, n)
			}
		}
		for _, n := range s.Knobs {
			v := s.Values[n]
			if k, ok := sp.Knob(n); ok {
				v = space.FormatOptionValue(k.Render(v))
			}
			c := KeptChange{Name: n, Value: v, Step: s, Comment: Contribution(s, m.Goal)}
			if n != lead {
				c.Comment = "reverts together with " + lead + " (one contribution)"
			} else if len(others) > 0 && s.Status == search.MinKept {
				c.Comment += ", with " + strings.Join(others, ", ")
			}
			out = append(out, c)
		}
	}
	return out
}

// Contribution renders what a kept step's changes are worth: "+48 % tps
// (±6 %)", the ± the half-width of the 95 % interval (rounded to whole
// percent; the interval is symmetric in log-ratio, so nearly so in
// percent); for a step without measurement, why its changes were kept.
func Contribution(s search.MinStep, goal measure.Goal) string {
	switch s.Status {
	case search.MinUntested:
		return "kept untried: the minimisation's budget ran out"
	case search.MinUnmeasured:
		return "kept: the configuration without it could not be measured"
	}
	what := string(goal)
	if goal == measure.GoalP95 {
		what = "lower p95 latency"
	}
	return fmt.Sprintf("%+.0f %% %s (±%.0f %%)", s.Pct, what, (s.HiPct-s.LoPct)/2)
}

// round1 rounds v to one decimal.
func round1(v float64) float64 { return math.Round(v*10) / 10 }
