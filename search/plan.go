package search

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/autotune/autotune/measure"
)

// PlanPhases are the phases of a trial whose durations the runner stores
// (Outcome.Phases, seconds), in order.
var planPhases = []string{"restore", "start", "preload", "warmup", "measure", "stop"}

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
	// ConfirmRuns is how many re-measurement runs the confirmation policy
	// still needs (Study derives it from its Confirmation,
	// Confirmation.plannedRuns); their time is held back from the search, at most a
	// quarter of the budget unless FinalRuns need more.
	ConfirmRuns int
	// FinalRuns is how many of ConfirmRuns are runs of the final A/B
	// phase, whose share of the budget the user chose (--ab-share): their
	// time is always held back, even beyond a quarter of the budget.
	FinalRuns int
	// FinalExtra is time held back beyond FinalRuns at the trial cost:
	// the final A/B runs are held at a longer cost (finalRunCost).
	FinalExtra time.Duration
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
	// Finished is the number of finished trials that count towards the
	// trial cap (State.Finished, re-measurements left out).
	Finished int
	// Search is how many more search trials fit.
	Search int
	// Reserve is the number of runs, and ReserveTime their time, held
	// back for re-measurements (budget only; at most a quarter of the
	// budget unless the final A/B runs need more).
	Reserve     int
	ReserveTime time.Duration
	// Total is the planned number of finished trials at the end:
	// Finished + Search.
	Total int
	// LimitedBy names what bounds Total: "budget", "trials" or "none".
	LimitedBy string
	// Left is the budget not used yet (0 without a budget).
	Left time.Duration
	// ABPairs is the number of final A/B pairs the study aims for (0:
	// none); ABHalfWidthPct the expected half-width of the paired gain's
	// 95 % interval with that many pairs at the run-to-run noise NoiseSD
	// (a share: 0.07 = 7 %), measured from the study's repeated
	// measurements when NoiseMeasured, else AssumedNoiseSD; PairsFor10 the
	// pairs a half-width under 10 % needs (MaxABPairs+1: more than allowed).
	// ABArms is the number of configurations a round measures: 2 (the
	// best and the baseline) or 3 (and the expert warm start).
	ABPairs        int
	ABArms         int
	ABHalfWidthPct float64
	NoiseSD        float64
	NoiseMeasured  bool
	PairsFor10     int
	// Minimize is the plan of the minimisation (nil: Loop.Minimize is
	// off).
	Minimize *MinimizePlan
	// SkewPairs are the pairs of the skew check under the variant
	// SkewLabel (0: Loop.Skew is off).
	SkewPairs int
	SkewLabel string
}

// MinimizePlan is the budget plan of the minimisation phase.
type MinimizePlan struct {
	// On reports that it runs: without a budget always; with one when its
	// share holds at least Need runs.
	On bool
	// Runs is the number of runs its share of the budget holds (0 without
	// a budget), Share that share.
	Runs  int
	Share float64
	// Need is the fewest runs it needs: one step and the final check, each
	// Pairs pairs.
	Need, Pairs int
}

// String renders the minimisation plan in one line.
func (m MinimizePlan) String() string {
	switch {
	case m.On && m.Runs == 0:
		return fmt.Sprintf("plan: then the best is minimised (--minimize): its changes that do not pay are reverted, %d pairs a step, until every change is decided", m.Pairs)
	case m.On:
		return fmt.Sprintf("plan: then the best is minimised (--minimize): %d runs reserved (--minimize-share %g of the budget), %d pairs (%d runs) a step and %d runs for the final check",
			m.Runs, m.Share, m.Pairs, 2*m.Pairs, 2*m.Pairs)
	}
	return fmt.Sprintf("plan: the best is not minimised: its share of the budget (--minimize-share %g) holds %d runs and it needs at least %d (a step and the final check, %d pairs each); run autotune minimize on the finished study, or give a larger --budget",
		m.Share, m.Runs, m.Need, m.Pairs)
}

// AssumedNoiseSD is the run-to-run noise of one configuration's mean tps
// assumed before a study has measured any configuration twice: 7 %, the
// middle of the 6–9 % coefficient of variation measured on the reference
// 2-core machine (docs/measurement.md).
const AssumedNoiseSD = 0.07

// abPlan fills the A/B part of pl: the pairs, and the half-width of the
// interval they give at the noise of trials (a pair's log-ratio has √2
// times the noise of one run).
func abPlan(pl *Plan, c *Confirmation, goal measure.Goal, trials []Trial, budget, per time.Duration) {
	best, base := Best(trials)
	pl.ABArms = len(abArms(trials, best, base))
	pl.ABPairs = c.abPairs(budget, per, pl.ABArms, abNoise(goal, trials))
	if pl.ABPairs == 0 {
		return
	}
	pl.NoiseSD = NoiseSD(goal, trials)
	pl.NoiseMeasured = pl.NoiseSD > 0
	if !pl.NoiseMeasured {
		pl.NoiseSD = AssumedNoiseSD
	}
	sdLog := pl.NoiseSD * math.Sqrt2
	pl.ABHalfWidthPct = HalfWidthPct(sdLog, pl.ABPairs)
	pl.PairsFor10 = MaxABPairs + 1
	for n := 2; n <= MaxABPairs; n++ {
		if HalfWidthPct(sdLog, n) < 10 {
			pl.PairsFor10 = n
			break
		}
	}
}

// MakePlan estimates a trial's cost from the finished trials and returns
// how many trials the budget and the cap allow.
func MakePlan(in PlanInput) Plan {
	p := Plan{Phases: map[string]float64{}, LimitedBy: "none"}
	// The cost comes from measured trials (re-measurements included);
	// rejected trials never started a server and cost next to nothing.
	var done, complete []Trial
	for _, t := range in.Trials {
		if countsToCap(t) {
			p.Finished++
		}
		if t.State == Complete || t.State == Failed {
			done = append(done, t)
			if t.State == Complete {
				complete = append(complete, t)
			}
		}
	}
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
		p.ReserveTime = time.Duration(p.Reserve)*p.TrialCost + in.FinalExtra
		if cap := max(in.Budget/4, time.Duration(in.FinalRuns)*p.TrialCost+in.FinalExtra); p.ReserveTime > cap {
			p.Reserve = int(cap / p.TrialCost)
			p.ReserveTime = max(time.Duration(p.Reserve)*p.TrialCost, time.Duration(in.FinalRuns)*p.TrialCost+in.FinalExtra)
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
		what := "confirmation"
		if p.Minimize != nil && p.Minimize.On {
			what = "confirmation and minimisation"
		}
		fmt.Fprintf(&b, "plan: %s of budget left: %d more search trials (%d planned in all), %d trials (%s) reserved for %s",
			p.Left.Round(time.Second), p.Search, p.Total, p.Reserve, p.ReserveTime.Round(time.Second), what)
	case "trials":
		fmt.Fprintf(&b, "plan: the trial cap allows %d more trials (%d in all)", p.Search, p.Total)
		if p.Left > 0 {
			fmt.Fprintf(&b, "; the budget (%s left) would allow more", p.Left.Round(time.Second))
		}
	default:
		fmt.Fprintf(&b, "plan: no budget or trial cap")
	}
	if p.ABPairs > 0 {
		src := "assumed"
		if p.NoiseMeasured {
			src = "measured"
		}
		rounds := fmt.Sprintf("%d pairs", p.ABPairs)
		if p.ABArms == 3 {
			rounds = fmt.Sprintf("%d rounds of the best, the baseline and the expert warm start", p.ABPairs)
		}
		fmt.Fprintf(&b, "\nplan: the final A/B phase runs %s: expected 95 %% interval of the gain ±%.0f %% at %.1f %% run-to-run noise (%s)",
			rounds, p.ABHalfWidthPct, p.NoiseSD*100, src)
		if p.ABHalfWidthPct >= 10 {
			if p.PairsFor10 > MaxABPairs {
				fmt.Fprintf(&b, "; no number of pairs up to %d gets it under ±10 %%: longer windows (--duration) would", MaxABPairs)
			} else {
				fmt.Fprintf(&b, "; under ±10 %% needs %d pairs (%s of budget: --ab-pairs %d)", p.PairsFor10,
					(time.Duration(max(2, p.ABArms)*p.PairsFor10) * p.TrialCost).Round(time.Minute), p.PairsFor10)
			}
		}
	}
	if p.SkewPairs > 0 {
		fmt.Fprintf(&b, "\nplan: then the skew check measures the best and the baseline again under %s in %d interleaved pairs (--skew-check)", p.SkewLabel, p.SkewPairs)
	}
	if p.Minimize != nil {
		b.WriteString("\n" + p.Minimize.String())
	}
	return b.String()
}

// studyPlan keeps a running study's budget plan (Loop.Run): it re-plans
// over the trials so far, holds the time the search stops short of,
// hands the planned number of trials to a Horizoner strategy, and reports
// the plan through Loop.OnPlan when it is first known and when it moves.
type studyPlan struct {
	s *Loop
	// final is the time of the final runs still to come (the plan's
	// FinalRuns: the A/B runs at finalRunCost each, the minimisation's at
	// the trial cost) and of the confirmations the last search trial may
	// owe (0 without a budget or final runs): the search stops when only
	// that much budget is left, and an owed Recheck does not run into it.
	// The rest of the plan's reserve, the Confirm runs and Rechecks
	// expected during the search, does not stop it: stopping the search
	// removes them too.
	final time.Duration
	// printed is the planned total at the last OnPlan call (-1: never).
	printed int
	// minimize reports that the minimisation runs (Plan.Minimize.On);
	// minDecided that it is decided for the rest of the run.
	minimize, minDecided bool
	// horizon is the planned number of search trials (Plan.Total, or
	// Loop.MaxTrials before a plan; 0: unknown), for the final race.
	horizon int
}

// plan re-plans over trials with spent of the budget used. The
// re-measurements to reserve for are derived from s.Confirm over the
// search trials the budget allows without a reserve (a first plan), so
// they are a slight overestimate.
func (sp *studyPlan) plan(trials, skewed []Trial, spent time.Duration) Plan {
	s := sp.s
	in := PlanInput{Budget: s.Budget, Spent: spent, MaxTrials: s.MaxTrials, Trials: trials, PriorCost: s.PriorCost}
	pl := MakePlan(in)
	mp, minRuns := sp.minimizePlan(trials, pl.TrialCost, pl.From)
	// The skew check's runs are held back like the minimisation's.
	minRuns += s.skewLeft(trials, skewed)
	if s.Confirm != nil {
		per := estimate(trials)
		if per <= 0 {
			per = pl.TrialCost
		}
		in.ConfirmRuns, in.FinalRuns = s.Confirm.plannedRuns(trials, s.Goal, pl.Finished, pl.Search, s.Budget, per)
	}
	if s.Confirm != nil || minRuns > 0 {
		// The minimisation's runs are held back like the final A/B runs.
		abRuns := in.FinalRuns
		in.ConfirmRuns, in.FinalRuns = in.ConfirmRuns+minRuns, in.FinalRuns+minRuns
		if s.Budget > 0 && in.FinalRuns > 0 {
			// The A/B runs at their longer cost, and room for the
			// confirmations the last search trial may owe (they run
			// before the final phase: without the room they took its
			// time).
			in.FinalExtra = time.Duration(abRuns)*(finalRunCost(trials, pl.TrialCost)-pl.TrialCost) +
				time.Duration(s.Confirm.Needed(trials))*pl.TrialCost
		}
		pl = MakePlan(in)
	}
	per := estimate(trials)
	if per <= 0 {
		per = pl.TrialCost
	}
	abPlan(&pl, s.Confirm, s.Goal, trials, s.Budget, per)
	if s.Skew != nil {
		pl.SkewLabel, pl.SkewPairs = s.Skew.Label, s.skewPairs(trials)
	}
	sp.final = 0
	if s.Budget > 0 && in.FinalRuns > 0 {
		sp.final = time.Duration(in.FinalRuns)*pl.TrialCost + in.FinalExtra
	}
	pl.Minimize, sp.minimize = mp, mp != nil && mp.On
	sp.horizon = s.MaxTrials
	if pl.LimitedBy != "none" && pl.Total > 0 {
		sp.horizon = pl.Total
		if h, ok := s.Strategy.(Horizoner); ok {
			h.SetHorizon(pl.Total)
		}
	}
	return pl
}

// minimizePlan returns the plan of the minimisation (nil when Minimize is
// off or with MinimizeOnly) at cost a trial, measured over from trials,
// and the runs of it the budget must still hold back: its share of the
// budget less the runs already made, none once it is done or without a
// budget.
//
// Whether it runs is decided once per run of the study, by the first
// plan whose cost is measured over two trials or more (the first plan
// printed), and kept: a cost estimate that moves around the threshold
// would otherwise switch the minimisation on and off, and a search
// stopped early for a minimisation that is then dropped leaves the rest
// of the budget unused. A study resumed after its minimisation began
// carries it on.
func (sp *studyPlan) minimizePlan(trials []Trial, cost time.Duration, from int) (*MinimizePlan, int) {
	s := sp.s
	m := s.Minimize
	if m == nil || s.MinimizeOnly {
		return nil, 0
	}
	mp := &MinimizePlan{On: true, Share: m.Share, Pairs: m.pairsPerStep()}
	mp.Need = m.needRuns()
	if s.Budget <= 0 || cost <= 0 {
		return mp, 0
	}
	mp.Runs = int(float64(s.Budget) * m.Share / float64(cost))
	mp.On = mp.Runs >= mp.Need
	switch {
	case sp.minDecided:
		mp.On = sp.minimize
	case minimizationBegun(trials):
		// A resumed study whose minimisation has begun carries it on.
		mp.On, sp.minDecided = true, true
	case from >= 2:
		sp.minDecided = true
	}
	if !mp.On {
		return mp, 0
	}
	held := mp.Runs
	if minimizationBegun(trials) {
		if st := Minimize(trials, m, s.Goal); st.Done {
			held = 0
		} else {
			held -= st.Runs
		}
	}
	return mp, max(0, held)
}

// start plans before the first trial of a run; a resumed study whose
// trials give a cost estimate reports its plan at once.
func (sp *studyPlan) start(trials, skewed []Trial, spent time.Duration) {
	pl := sp.plan(trials, skewed, spent)
	if pl.From > 0 {
		sp.report(pl)
	}
}

// after re-plans after a finished trial; the plan is reported once two
// trials give a cost estimate, and again when the planned total moves by
// more than a fifth.
func (sp *studyPlan) after(trials, skewed []Trial, spent time.Duration) {
	pl := sp.plan(trials, skewed, spent)
	switch {
	case pl.From < 2:
	case sp.printed < 0:
		sp.report(pl)
	case abs(pl.Total-sp.printed)*5 > max(1, sp.printed):
		sp.report(pl)
	}
}

func (sp *studyPlan) report(pl Plan) {
	sp.printed = pl.Total
	if sp.s.OnPlan != nil {
		sp.s.OnPlan(pl)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
