package search

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// PlanPhases are the phases of a trial whose durations the runner stores
// (Outcome.Phases, seconds), in order.
var planPhases = []string{"restore", "start", "warmup", "measure", "stop"}

// PlanInput is what a budget plan is made from.
type PlanInput struct {
	// Budget is the study's wall-clock budget (0: none).
	Budget time.Duration
	// Spent is the budget used so far, across runs (setup included).
	Spent time.Duration
	// MaxTrials caps the finished trials of the study (0: none).
	MaxTrials int
	// Trials is the study's history; the cost of a trial is estimated from
	// its finished trials.
	Trials []Trial
	// PriorCost is the cost of a trial assumed before any trial finished
	// (e.g. warm-up + measurement + 5 s).
	PriorCost time.Duration
	// ConfirmRuns is how many trials the confirmation phase needs (see
	// ConfirmRuns); their time is held back from the search.
	ConfirmRuns int
}

// Plan is the budget plan of a study: what a trial costs and how many the
// budget and the trial cap still allow.
type Plan struct {
	// TrialCost is the estimated wall-clock cost of one trial: the sum of
	// the median duration of each phase (restore, start, warm-up, measure,
	// stop) plus the median of what a trial took beyond its phases
	// (bookkeeping), over the finished trials (complete ones when any).
	TrialCost time.Duration
	// Phases holds the median seconds of each phase.
	Phases map[string]float64
	// From is the number of trials the estimate is based on (0: PriorCost).
	From int
	// Finished is the number of finished (complete or failed) trials.
	Finished int
	// Search is how many more search trials fit.
	Search int
	// Reserve is the number of trials, and ReserveTime their time, held
	// back for confirmation (budget only; at most a quarter of the budget).
	Reserve     int
	ReserveTime time.Duration
	// Total is the planned number of finished trials at the end:
	// Finished + Search.
	Total int
	// LimitedBy names what bounds Total: "budget", "trials" or "none".
	LimitedBy string
	// Left is the budget not used yet (0 without a budget).
	Left time.Duration
}

// ConfirmRuns returns the trials a confirmation phase needs for a search of
// n trials: confirm re-measures of each new best configuration, whose
// expected count is the harmonic number H(n) ≈ ln n + 0.58 (the expected
// number of records in n exchangeable draws), plus final interleaved runs
// of best and baseline.
func ConfirmRuns(n, confirm, final int) int {
	if n < 1 || (confirm <= 0 && final <= 0) {
		return max(0, final)
	}
	records := math.Ceil(math.Log(float64(n)) + 0.5772)
	return max(0, confirm)*int(records) + max(0, final)
}

// MakePlan estimates a trial's cost from the finished trials and returns
// how many trials the budget and the cap allow.
func MakePlan(in PlanInput) Plan {
	p := Plan{Phases: map[string]float64{}, LimitedBy: "none"}
	var done, complete []Trial
	for _, t := range in.Trials {
		if t.State == Complete || t.State == Failed {
			done = append(done, t)
			if t.State == Complete {
				complete = append(complete, t)
			}
		}
	}
	p.Finished = len(done)
	base := complete
	if len(base) == 0 {
		base = done
	}
	if len(base) > 0 {
		p.From = len(base)
		sum := 0.0
		for _, ph := range planPhases {
			var xs []float64
			for _, t := range base {
				xs = append(xs, t.Phases[ph])
			}
			p.Phases[ph] = medianOf(xs)
			sum += p.Phases[ph]
		}
		var extra []float64
		for _, t := range base {
			ps := 0.0
			for _, ph := range planPhases {
				ps += t.Phases[ph]
			}
			extra = append(extra, math.Max(0, t.Duration().Seconds()-ps))
		}
		sum += medianOf(extra)
		p.TrialCost = time.Duration(sum * float64(time.Second))
	}
	if p.TrialCost <= 0 {
		p.TrialCost = in.PriorCost
	}
	if p.TrialCost <= 0 {
		p.TrialCost = time.Minute
	}
	search := math.MaxInt
	if in.Budget > 0 {
		p.Left = max(0, in.Budget-in.Spent)
		p.Reserve = in.ConfirmRuns
		p.ReserveTime = time.Duration(p.Reserve) * p.TrialCost
		if cap := in.Budget / 4; p.ReserveTime > cap {
			p.Reserve = int(cap / p.TrialCost)
			p.ReserveTime = time.Duration(p.Reserve) * p.TrialCost
		}
		search = int(max(0, p.Left-p.ReserveTime) / p.TrialCost)
		p.LimitedBy = "budget"
	}
	if in.MaxTrials > 0 && in.MaxTrials-p.Finished < search {
		search = max(0, in.MaxTrials-p.Finished)
		p.LimitedBy = "trials"
	}
	if search == math.MaxInt {
		search = 0
	}
	p.Search = search
	p.Total = p.Finished + search
	return p
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// String renders the plan in two lines for the terminal.
func (p Plan) String() string {
	var b strings.Builder
	src := "assumed (no trial finished yet)"
	if p.From > 0 {
		var parts []string
		for _, ph := range planPhases {
			parts = append(parts, fmt.Sprintf("%s %.1fs", ph, p.Phases[ph]))
		}
		src = fmt.Sprintf("median of %d trials: %s", p.From, strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "plan: a trial costs %s (%s)\n", p.TrialCost.Round(100*time.Millisecond), src)
	switch p.LimitedBy {
	case "budget":
		fmt.Fprintf(&b, "plan: %s of budget left: %d more search trials (%d planned in all), %d trials (%s) reserved for confirmation",
			p.Left.Round(time.Second), p.Search, p.Total, p.Reserve, p.ReserveTime.Round(time.Second))
	case "trials":
		fmt.Fprintf(&b, "plan: the trial cap allows %d more trials (%d in all)", p.Search, p.Total)
		if p.Left > 0 {
			fmt.Fprintf(&b, "; the budget (%s left) would allow more", p.Left.Round(time.Second))
		}
	default:
		fmt.Fprintf(&b, "plan: no budget or trial cap")
	}
	return b.String()
}
