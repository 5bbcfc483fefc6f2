package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// WriteApplyPlan renders what `autotune apply` would do: the server, each
// setting that differs with its class, the memory check, where the watch
// reads statistics and how a pass is persisted, the watch's windows, and
// why it will not go on (refusals).
func WriteApplyPlan(w io.Writer, p result.ApplyPlan) {
	fmt.Fprintf(w, "apply plan for %s (%s, %s)\n", p.Server, p.Version, p.Identity)
	fmt.Fprintf(w, "  applying %s\n", p.Against)
	if len(p.Changes) == 0 {
		fmt.Fprintf(w, "  nothing differs (%d settings already hold)\n", p.Unchanged)
	}
	for _, c := range p.Changes {
		line := fmt.Sprintf("  %-13s %s: %s -> %s", c.Class, c.Variable, c.Old, c.New)
		if c.Why != "" {
			line += " (" + c.Why + ")"
		}
		fmt.Fprintln(w, line)
	}
	if p.Unchanged > 0 && len(p.Changes) > 0 {
		fmt.Fprintf(w, "  %d settings already hold\n", p.Unchanged)
	}
	for _, n := range p.NotCompared {
		fmt.Fprintf(w, "  not applied: %s\n", n)
	}
	fmt.Fprintf(w, "  memory: %s\n", p.Memory)
	fmt.Fprintf(w, "  watch: %d pairs of old and new windows of %s, %s of burn-in after each switch (--watch %s), judged from %s; a pass tolerates %.0f %% slower\n",
		p.Pairs, p.Window, p.BurnIn, p.Watch, p.Statistics, 100*p.Margin)
	fmt.Fprintf(w, "  on a pass: persisted with %s; otherwise the old settings go back\n", p.Persist)
	for _, r := range p.Refusals {
		fmt.Fprintf(w, "  refused: %s\n", r)
	}
}

// ApplyProgress prints an apply's events as they come, one line each.
type ApplyProgress struct {
	mu sync.Mutex
	W  io.Writer
}

// Emit implements study.Progress for apply's events (result.Apply*) and
// Log lines; others are ignored.
func (p *ApplyProgress) Emit(e result.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case result.ApplyPlanned:
		WriteApplyPlan(p.W, e.Plan)
	case result.ApplyStep:
		if e.Kind != "window" {
			fmt.Fprintf(p.W, "%s: %s\n", e.Kind, e.Message)
		}
	case result.ApplyWindowEnded:
		fmt.Fprintf(p.W, "window: %s\n", ApplyWindowText(e.Window))
	case result.ApplyTripped:
		fmt.Fprintf(p.W, "TRIPWIRE %s: %s (limit %s)\n", e.Name, e.Value, e.Limit)
	case result.ApplyJudged:
		fmt.Fprintf(p.W, "verdict: %s: %s\n", strings.ToUpper(e.Verdict.Verdict), e.Verdict.Reason)
	case result.Log:
		fmt.Fprintln(p.W, e.Message)
	}
}

// ApplyWindowText renders a window: "pair 2 new: 1234 statements,
// 41.1/s, mean 2.345 ms".
func ApplyWindowText(w result.ApplyWindow) string {
	s := fmt.Sprintf("pair %d %-3s: %d statements, %.1f/s", w.Pair, w.Arm, w.Calls, w.PerSecond)
	if w.MeanMS > 0 {
		s += fmt.Sprintf(", mean %.3f ms", w.MeanMS)
	}
	return s
}

// WriteApplied renders how an apply ended.
func WriteApplied(w io.Writer, a result.Applied) {
	for _, r := range a.Recovered {
		fmt.Fprintf(w, "recovered: %s\n", r)
	}
	if a.ID == 0 {
		return
	}
	v := a.Verdict
	switch {
	case len(a.Persisted) > 0:
		fmt.Fprintf(w, "apply %d: PASS, the new settings run and are persisted: %s\n", a.ID, strings.Join(a.Persisted, ", "))
	case a.Reverted:
		fmt.Fprintf(w, "apply %d: %s, the original settings run again (%s)\n", a.ID, strings.ToUpper(orNone(v.Verdict)), v.Reason)
	}
	for _, c := range a.RestartLater {
		fmt.Fprintf(w, "for the next planned restart: %s = %s (now %s)\n", c.Option, c.New, c.Old)
	}
}

func orNone(s string) string {
	if s == "" {
		return "stopped"
	}
	return s
}

// WriteApplies renders the store's applies, one line each: number,
// server, what was applied, when, how it ended.
func WriteApplies(w io.Writer, as []storage.ApplyRecord) {
	if len(as) == 0 {
		fmt.Fprintln(w, "no applies recorded")
		return
	}
	fmt.Fprintf(w, "%4s  %-20s  %-10s  %-12s  %s\n", "#", "started", "phase", "verdict", "server / applied")
	for _, a := range as {
		fmt.Fprintf(w, "%4d  %-20s  %-10s  %-12s  %s (%s): %s\n", a.ID, a.Started.Local().Format(time.DateTime), a.Phase, orDash(a.Verdict), a.DSN, a.Server, a.Source)
		if a.Reason != "" {
			fmt.Fprintf(w, "      %s\n", a.Reason)
		}
	}
}

// WriteApplyTrail renders one apply and its steps.
func WriteApplyTrail(w io.Writer, a storage.ApplyRecord, events []storage.ApplyEvent) {
	fmt.Fprintf(w, "apply %d: %s (%s), %s\n", a.ID, a.DSN, a.Server, a.Source)
	end := "running"
	if !a.Ended.IsZero() {
		end = "ended " + a.Ended.Local().Format(time.DateTime)
	}
	fmt.Fprintf(w, "started %s, %s; phase %s, verdict %s\n", a.Started.Local().Format(time.DateTime), end, a.Phase, orDash(a.Verdict))
	if a.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", a.Reason)
	}
	for _, e := range events {
		fmt.Fprintf(w, "  %s  %-10s %s\n", e.At.Local().Format("15:04:05"), e.Kind, e.Detail)
	}
}
