package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// WriteShow prints one trial of a study (d), its knobs in space sp.
func WriteShow(out io.Writer, sp *space.Space, d result.TrialDetail) {
	study, t, base, best, trials, samples, withSamples := d.Study, d.Trial, d.Baseline, d.Best, d.Trials, d.Samples, d.WithSamples
	tag := ""
	switch {
	case t.Number == best.Number && t.State == search.Complete:
		tag = ", the best of the study"
	case t.Number == base.Number:
		tag = ", the baseline"
	}
	fmt.Fprintf(out, "study %s, trial %d (%s%s): %s\n", study, t.Number, t.Kind, tag, t.State)
	if !t.Started.IsZero() {
		fmt.Fprintf(out, "started %s", t.Started.UTC().Format(time.RFC3339))
		if !t.Ended.IsZero() {
			fmt.Fprintf(out, ", took %s", t.Duration().Round(time.Second))
		}
		fmt.Fprintln(out)
	}
	if ph := phaseList(t.Phases); ph != "" {
		fmt.Fprintf(out, "phases: %s\n", ph)
	}
	if t.ServerVersion != "" {
		fmt.Fprintf(out, "server: %s\n", t.ServerVersion)
	}

	fmt.Fprintln(out, "\nmetrics:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if t.State == search.Complete || t.State == search.Pruned {
		what := "(mean tps − penalties: variance, dips, stalls, errors, purge lag)"
		if t.State == search.Pruned {
			what = "(of the partial window: pruned, clearly below the best)"
		}
		fmt.Fprintf(tw, "  score\t%s\t%s\n", f1(t.Score), what)
		if e := search.EstimateOf(trials, t); t.State == search.Complete && e.N > 1 {
			fmt.Fprintf(tw, "  configuration estimate\t%s\t(score, mean of %d measurements of this configuration, standard error %s%s)\n", f1(e.Score), e.N, f1(e.SE), exportfile.SteadyNote(e))
		}
		vs := ""
		if base.Number >= 0 && base.Number != t.Number {
			// Not a gain: measured at another time (the gain is the
			// paired A/B comparison).
			vs = fmt.Sprintf("(the baseline's estimate: %s tps; the gain is the paired A/B in autotune trials)", f1(base.MeanTPS))
		}
		fmt.Fprintf(tw, "  mean tps\t%s\t%s\n", f1(t.MeanTPS), vs)
		fmt.Fprintf(tw, "  sd tps\t%s\t(sample standard deviation of the per-second tps)\n", f1(t.StdTPS))
		fmt.Fprintf(tw, "  p95 latency ms\t%s\t(median of the per-second values)\n", f1(t.P95MS))
	}
	tw.Flush()
	if t.State != search.Complete {
		fmt.Fprintf(out, "  none: the trial is %s\n", t.State)
	}
	if lines := SummaryLines(t.Summary); len(lines) > 0 {
		fmt.Fprintln(out, "\nbenchmark summary:")
		for _, l := range lines {
			fmt.Fprintln(out, "  "+l)
		}
	}

	fmt.Fprintln(out, "\nparams (* = changed from the server default):")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tknob\tvalue\tdefault\tdynamic")
	for _, k := range sp.All() {
		v, ok := t.Params[k.Name]
		if !ok {
			continue // stored trials are rendered against the whole catalogue
		}
		mark := " "
		if v != k.Default {
			mark = "*"
		}
		dyn := "no (restart)"
		if k.Dynamic {
			dyn = "yes"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", mark, k.Name, k.Render(v), k.Render(k.Default), dyn)
	}
	for _, n := range t.Params.Names() {
		if _, ok := sp.Knob(n); !ok {
			fmt.Fprintf(tw, "  ?\t%s\t%s\t(not in the knob catalogue)\t\n", n, t.Params[n])
		}
	}
	tw.Flush()

	if t.Failure != "" {
		fmt.Fprintf(out, "\nfailure: %s\n", t.Failure)
	}
	if strings.TrimSpace(t.ErrorLog) != "" {
		fmt.Fprintln(out, "\nerror log excerpt:")
		for _, l := range strings.Split(strings.TrimRight(t.ErrorLog, "\n"), "\n") {
			fmt.Fprintln(out, "  "+l)
		}
	}

	if !withSamples {
		return
	}
	if len(samples) == 0 {
		fmt.Fprintln(out, "\nno per-second samples stored")
		return
	}
	fmt.Fprintf(out, "\nper-second samples (%d):\n", len(samples))
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "t\twindow\ttps\tqps\treads\twrites\tother\tlat ms\terr/s\treconn/s\t")
	for _, s := range samples {
		win := "measure"
		if s.Warmup {
			win = "warm-up"
		}
		lat := "-"
		if s.LatPct > 0 {
			lat = fmt.Sprintf("%.2f (p%g)", s.LatMS, s.LatPct)
		}
		fmt.Fprintf(tw, "%g\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.2f\t%.2f\t\n", s.T, win, s.TPS, s.QPS, s.Reads, s.Writes, s.Other, lat, s.ErrPS, s.ReconnPS)
	}
	tw.Flush()
}

// phaseList renders phase durations in the order a trial runs them, then
// any others by name: "restore 1.9s, start 2.1s, ...".
func phaseList(ph map[string]float64) string {
	order := []string{"restore", "start", "preload", "apply", "warmup", "measure", "stop"}
	var parts []string
	seen := map[string]bool{}
	for _, n := range order {
		if v, ok := ph[n]; ok {
			parts = append(parts, fmt.Sprintf("%s %.1fs", n, v))
			seen[n] = true
		}
	}
	var rest []string
	for n := range ph {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range rest {
		parts = append(parts, fmt.Sprintf("%s %.1fs", n, ph[n]))
	}
	return strings.Join(parts, ", ")
}

// SummaryLines renders the benchmark's summary JSON as "key: value" lines,
// non-zero values only, keys sorted, nested objects flattened with dots;
// text that is not JSON is returned as is.
func SummaryLines(summary string) []string {
	if strings.TrimSpace(summary) == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(summary), &m); err != nil {
		return []string{summary}
	}
	var out []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x[k])
			}
		case float64:
			if x != 0 {
				out = append(out, fmt.Sprintf("%s: %s", prefix, strconv.FormatFloat(x, 'f', -1, 64)))
			}
		case nil:
		case bool:
			if x {
				out = append(out, prefix+": true")
			}
		case string:
			if x != "" {
				out = append(out, prefix+": "+x)
			}
		default:
			b, _ := json.Marshal(x)
			if s := string(b); s != "[]" && s != "null" {
				out = append(out, prefix+": "+s)
			}
		}
	}
	walk("", m)
	return out
}
