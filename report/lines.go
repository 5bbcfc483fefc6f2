package report

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// Gain returns the relative change of best over base in percent.
func Gain(best, base float64) float64 {
	if base == 0 {
		return 0
	}
	return (best - base) / base * 100
}

// PlainWidth is the width, in columns, that the knob line of a trial
// report is cut to when the output is not a terminal (a log file, a pipe).
const PlainWidth = 120

// minWidth is the narrowest width the knob line is cut to, whatever the
// terminal says.
const minWidth = 60

// TrialLine formats the report of a finished trial: a first line with its
// outcome, the best so far and the budget left; a second with the knobs it
// set differently from the baseline, cut to width columns ("… +N more":
// autotune show lists them all), after a line naming a seed's source;
// then, when there is one, the failure
// reason, the thread levels and what a re-measurement settled.
func TrialLine(sp *space.Space, e search.Standing, width int) string {
	t := e.Trial
	var b strings.Builder
	kind := KindText(t)
	if t.Kind == search.Seed {
		kind = string(t.Kind) // its source gets a line of its own
	}
	fmt.Fprintf(&b, "trial %3d %-10s ", t.Number, kind)
	unit, rate := exportfile.ThroughputOf(t)
	switch {
	case t.State == search.Complete && t.WarmupCapped:
		fmt.Fprintf(&b, "%s %8.1f  score %8.1f  NOT STEADY ", unit, rate, t.Score)
	case t.State == search.Complete:
		fmt.Fprintf(&b, "%s %8.1f  score %8.1f  warm-up %2.0fs", unit, rate, t.Score, t.WarmupS)
	case t.State == search.Pruned:
		fmt.Fprintf(&b, "%-41s", fmt.Sprintf("%s %8.1f  PRUNED after %.0fs measured", unit, rate, t.Phases["measure"]))
	default:
		fmt.Fprintf(&b, "%-30s", strings.ToUpper(string(t.State)))
	}
	if e.Best.Number >= 0 {
		fmt.Fprintf(&b, " | best %.1f (#%d", e.Best.Score, e.Best.Number)
		if e.Baseline.Number >= 0 {
			bestUnit, _ := exportfile.ThroughputOf(e.Best)
			fmt.Fprintf(&b, ", %+.1f %% %s vs baseline", Gain(e.Best.MeanTPS, e.Baseline.MeanTPS), bestUnit)
		}
		if why := BestDespiteTPS(e.Best, e.Baseline); why != "" {
			b.WriteString(", " + why)
		}
		b.WriteString(")")
	}
	if e.Budget > 0 {
		left := e.Budget - e.Spent
		if left < 0 {
			left = 0
		}
		fmt.Fprintf(&b, " | budget left %s", left.Round(time.Second))
	}
	if t.Kind == search.Seed && t.Source != "" {
		b.WriteString("\n      seed from " + t.Source)
	}
	b.WriteString("\n" + knobLine(sp, e, width))
	if t.Why != "" {
		b.WriteString("\n      why: " + t.Why)
	}
	if t.State == search.Failed || t.State == search.Rejected {
		b.WriteString("\n      reason: " + t.Failure)
	}
	if lv := LevelsText(t); lv != "" {
		b.WriteString("\n      levels: " + lv)
	}
	if e.Note != "" {
		b.WriteString("\n      " + e.Note)
	}
	return b.String()
}

// knobLine is the second line of a trial report: the knobs the trial set
// differently from the baseline ("vs baseline: name=value ..."); for the
// baseline itself, and when there is no baseline (a worker), the knobs set
// away from the server defaults.
func knobLine(sp *space.Space, e search.Standing, width int) string {
	t := e.Trial
	hint := fmt.Sprintf("autotune show %d", t.Number)
	const indent = "      "
	base := e.Baseline
	isBase := t.Kind == search.Baseline || (base.Number >= 0 && t.Number == base.Number)
	switch {
	case base.Number < 0 || isBase:
		ch := sp.Changes(t.Params)
		if len(ch) == 0 {
			return indent + "server defaults"
		}
		label := indent + "vs defaults:"
		if isBase {
			label = indent + "baseline, vs defaults:"
		}
		return fitList(label, ch, width, hint)
	}
	ch := sp.ChangesFrom(base.Params, t.Params)
	if len(ch) == 0 {
		return indent + "vs baseline: none (the baseline's configuration)"
	}
	return fitList(indent+"vs baseline:", ch, width, hint)
}

// fitList appends items to label, one space before each, as many as fit in
// width columns (at least minWidth); when some do not fit it ends with
// " … +N more (hint)" instead.
func fitList(label string, items []string, width int, hint string) string {
	width = max(width, minWidth)
	cols := utf8.RuneCountInString
	more := func(n int) string { return fmt.Sprintf(" … +%d more (%s)", n, hint) }
	line := label
	for i, it := range items {
		next := line + " " + it
		if i == len(items)-1 && cols(next) <= width {
			return next
		}
		if i == len(items)-1 || cols(next)+cols(more(len(items)-i-1)) > width {
			return line + more(len(items)-i)
		}
		line = next
	}
	return line
}

// WriteOutcome prints the best configuration and its gain over the
// baseline, with the knobs it sets differently from the baseline (from the
// server defaults when the baseline is unknown or is the best).
func WriteOutcome(out io.Writer, sp *space.Space, best, base search.Trial) {
	if best.Number < 0 {
		fmt.Fprintln(out, "no trial completed yet")
		return
	}
	unit, rate := exportfile.ThroughputOf(best)
	fmt.Fprintf(out, "\nbest: trial %d, score %.1f, %.1f %s", best.Number, best.Score, rate, unit)
	if base.Number >= 0 {
		// Not a gain: the two were measured at different times (the gain
		// is the paired A/B comparison, WriteGain).
		_, baseRate := exportfile.ThroughputOf(base)
		fmt.Fprintf(out, "; baseline %.1f %s", baseRate, unit)
	}
	if why := BestDespiteTPS(best, base); why != "" {
		fmt.Fprintf(out, ", %s", why)
	}
	fmt.Fprintln(out)
	ch, none := sp.Changes(best.Params), "  (server defaults)"
	if base.Number >= 0 && best.Number != base.Number {
		ch, none = sp.ChangesFrom(base.Params, best.Params), "  (the baseline's configuration)"
	}
	for _, c := range ch {
		fmt.Fprintln(out, "  "+c)
	}
	if len(ch) == 0 {
		fmt.Fprintln(out, none)
	}
}

// BestDespiteTPS says why best is the best although its mean tps is below
// the baseline's (as printed, to 0.1 %): the score penalty by which the
// baseline lost most more than the best, "but the baseline was penalised
// 96.4 for instability, #3 only 12.0" (in the objective's unit), or, for
// --objective p95, its lower p95 latency. Both trials carry their
// estimates (search.Best): means over the runs that count.
// It returns "" when the best is not below the baseline in tps, or is the
// baseline.
func BestDespiteTPS(best, base search.Trial) string {
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number || round1(Gain(best.MeanTPS, base.MeanTPS)) >= 0 {
		return ""
	}
	if (best.Score < 0 || base.Score < 0) && best.P95MS > 0 && best.P95MS < base.P95MS {
		return fmt.Sprintf("but its p95 latency, the objective, is %.1f ms vs the baseline's %.1f ms", best.P95MS, base.P95MS)
	}
	type penalty struct {
		what       string
		best, base float64
	}
	top := penalty{}
	for _, p := range []penalty{
		{"instability", best.Variance, base.Variance},
		{"throughput dips", best.Dips, base.Dips},
		{"stalls", best.Stalls, base.Stalls},
		{"errors and reconnects", best.Errors, base.Errors},
		{"purge lag", best.Purge, base.Purge},
	} {
		if p.base-p.best > top.base-top.best {
			top = p
		}
	}
	if top.what == "" {
		return fmt.Sprintf("but a higher score than the baseline's %.1f", base.Score)
	}
	return fmt.Sprintf("but the baseline was penalised %.1f for %s, #%d only %.1f", top.base, top.what, best.Number, top.best)
}

// WriteGain prints the final A/B comparison of the best trial with the
// baseline and with the expert warm start (RulesText), saying plainly
// when a gain is not significant.
func WriteGain(out io.Writer, goal measure.Goal, trials []search.Trial, best search.Trial) {
	if best.Number < 0 || best.Kind == search.Baseline {
		return
	}
	text, _ := exportfile.GainText(goal, trials, best)
	fmt.Fprintf(out, "gain over the baseline: %s\n", text)
	text, _ = exportfile.RulesText(goal, trials, best)
	fmt.Fprintf(out, "gain over the expert warm start: %s\n", text)
	for _, l := range exportfile.SkewLines(goal, trials, best) {
		fmt.Fprintln(out, l)
	}
}

// WriteExported prints what autotune export wrote to a file: the file,
// the trial and its throughput, then the paired gains (WriteGain).
func WriteExported(out io.Writer, e result.Exported) {
	what := "trial"
	if e.Minimal {
		what = "the minimal configuration of trial"
	}
	unit, value := exportfile.ThroughputOf(e.Trial)
	fmt.Fprintf(out, "wrote %s: %s %d, %.1f %s\n", e.File, what, e.Trial.Number, value, unit)
	WriteGain(out, e.Goal, e.Trials, e.Trial)
}

// WriteConclusion prints what to do with the study's result, from the
// paired A/B gain: apply the best configuration when its interval lies
// above 0 (saying so when a skew check found it workload-fragile), keep
// the baseline when it lies below, else measure more.
func WriteConclusion(out io.Writer, goal measure.Goal, trials []search.Trial, best search.Trial, exportHint string) {
	if best.Number < 0 {
		return
	}
	if best.Kind == search.Baseline {
		fmt.Fprintln(out, "conclusion: no configuration beat the baseline; keep your current settings (a longer study, --budget 8h, explores more)")
		return
	}
	g, ok := search.ABGain(goal, trials, best.Number)
	switch {
	case !ok:
		fmt.Fprintln(out, "conclusion: no gain was shown (too few interleaved pairs); do not change anything on this result: run a longer study or autotune verify on the export")
	case g.LoPct > 0:
		what := string(g.Goal)
		if u := exportfile.GainUnit(goal, best); u != "" {
			what = u
		}
		fragile := ""
		for _, l := range search.SkewLabels(trials, best.Number) {
			if search.SkewOf(goal, trials, best.Number, l).Fragile {
				fragile += fmt.Sprintf("; but it is WORKLOAD-FRAGILE: under %s its gain is not shown, so check it under your production's access pattern (autotune verify) before applying it", l)
			}
		}
		fmt.Fprintf(out, "conclusion: trial %d is faster than the baseline by %+.1f %% %s (95 %% CI %+.1f .. %+.1f %%): %s%s\n",
			best.Number, g.Pct, what, g.LoPct, g.HiPct, exportHint, fragile)
	case g.HiPct < 0:
		fmt.Fprintf(out, "conclusion: the interleaved pairs measured trial %d slower than the baseline (%+.1f %%): keep your current settings\n", best.Number, g.Pct)
	default:
		fmt.Fprintf(out, "conclusion: trial %d's gain (%+.1f %%, 95 %% CI %+.1f .. %+.1f %%) is not shown; do not change anything on this result: more pairs (--ab-pairs) or a longer study narrow it\n",
			best.Number, g.Pct, g.LoPct, g.HiPct)
	}
}

// LevelsText renders the thread levels of a trial for the trials line:
// "8: 512.0, 32: 840.1".
func LevelsText(t search.Trial) string {
	if len(t.Levels) < 2 {
		return ""
	}
	var parts []string
	for _, l := range t.Levels {
		parts = append(parts, fmt.Sprintf("%d thr %.1f", l.Threads, l.Score))
	}
	return strings.Join(parts, ", ")
}

// KindText is the kind column of a trial line: "confirm#3" for a
// re-measurement of trial 3, "seed(prod.cnf)" for the seed of
// --seed-from prod.cnf.
func KindText(t search.Trial) string {
	if t.Kind.Extra() {
		return fmt.Sprintf("%s#%d", t.Kind, t.RepeatOf)
	}
	if t.Kind == search.Seed && t.Source != "" {
		return fmt.Sprintf("%s(%s)", t.Kind, t.Source)
	}
	return string(t.Kind)
}

// WriteImportance prints the importance ranking of n complete trials
// with a bar per knob, under caveat (search.ImportanceCaveat) when it is
// not "".
func WriteImportance(out io.Writer, imp []search.KnobImportance, n int, caveat string) {
	sum := 0.0
	for _, ki := range imp {
		sum += ki.Importance
	}
	fmt.Fprintf(out, "\nknob importance (share of the score variance, from %d complete trials; the knobs explain %.0f %%):\n", n, sum*100)
	if caveat != "" {
		fmt.Fprintf(out, "  caveat: %s\n", caveat)
	}
	if sum < 0.01 {
		fmt.Fprintln(out, "  no knob's effect stands out from the noise of these trials (more trials, or longer ones, would tell)")
		return
	}
	for _, ki := range imp {
		bar := strings.Repeat("#", int(ki.Importance*40+0.5))
		fmt.Fprintf(out, "  %-32s %5.1f %%  %s\n", ki.Knob, ki.Importance*100, bar)
	}
}
