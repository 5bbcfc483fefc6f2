package search

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

func TestPlan(t *testing.T) {
	trial := func(state State, restore, window, extra float64) Trial {
		ph := map[string]float64{"restore": restore, "start": 0.5, "warmup": 10, "measure": window, "stop": 0.5}
		d := restore + 1 + 10 + window + extra
		start := time.Unix(1000, 0)
		return Trial{State: state, Started: start, Ended: start.Add(time.Duration(d * float64(time.Second))), Outcome: measure.Outcome{Phases: ph}}
	}
	// Two complete trials of 2+0.5+10+20+0.5 s phases and 1 s bookkeeping; a
	// short failed one is not used for the cost.
	trials := []Trial{trial(Complete, 2, 20, 1), trial(Complete, 2, 20, 1), trial(Failed, 1, 0, 0)}
	p := MakePlan(PlanInput{Budget: time.Hour, Spent: 10 * time.Minute, Trials: trials, ConfirmRuns: 10})
	if p.TrialCost != 34*time.Second || p.From != 2 || p.Finished != 3 {
		t.Fatalf("cost %s from %d, finished %d; want 34s from 2, 3", p.TrialCost, p.From, p.Finished)
	}
	// 50 min left, 10 × 34 s reserved: (3000 − 340) / 34 = 78 search trials.
	if p.Reserve != 10 || p.ReserveTime != 340*time.Second || p.Search != 78 || p.Total != 81 || p.LimitedBy != "budget" {
		t.Fatalf("plan %+v", p)
	}
	if s := p.String(); !strings.Contains(s, "78 more search trials") || !strings.Contains(s, "10 trials (5m40s) reserved") {
		t.Fatalf("plan text:\n%s", s)
	}
	// The trial cap wins when it is smaller.
	p = MakePlan(PlanInput{Budget: time.Hour, MaxTrials: 20, Trials: trials})
	if p.Search != 17 || p.LimitedBy != "trials" {
		t.Fatalf("capped plan %+v", p)
	}
	// Before any trial: the prior cost; the reserve is at most a quarter.
	p = MakePlan(PlanInput{Budget: 10 * time.Minute, PriorCost: time.Minute, ConfirmRuns: 8})
	if p.TrialCost != time.Minute || p.Reserve != 2 || p.Search != 8 {
		t.Fatalf("prior plan %+v", p)
	}
	// The final A/B runs are reserved even beyond a quarter of the budget.
	p = MakePlan(PlanInput{Budget: 10 * time.Minute, PriorCost: time.Minute, ConfirmRuns: 8, FinalRuns: 6})
	if p.Reserve != 6 || p.Search != 4 {
		t.Fatalf("plan with final runs %+v", p)
	}
	// Rejected trials count as finished but not for the cost; the
	// re-measurements cost like trials but do not count towards the cap.
	rej := trial(Rejected, 0, 0, 0)
	conf := trial(Complete, 2, 20, 1)
	conf.Kind = Confirm
	p = MakePlan(PlanInput{MaxTrials: 10, Trials: append(trials, rej, conf)})
	if p.Finished != 4 || p.From != 3 || p.TrialCost != 34*time.Second || p.Search != 6 {
		t.Fatalf("plan %+v", p)
	}
}

// clockStudy returns a study over the scripted configurations cfgs whose
// trials each take cost on a fake clock, measured by values (see measured);
// plans passes every plan reported through OnPlan.
func clockStudy(cfgs []space.Config, values map[string][]float64, cost, budget time.Duration, c *Confirmation, plans *[]Plan) *Loop {
	now := time.Unix(0, 0)
	obj, _ := measured(values)
	return &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Store: newMemStore(), Budget: budget, Confirm: c,
		PriorCost: cost,
		Objective: func(ctx context.Context, tr Trial) (measure.Outcome, error) {
			now = now.Add(cost)
			return obj(ctx, tr)
		},
		Now:    func() time.Time { return now },
		OnPlan: func(p Plan) { *plans = append(*plans, p) },
	}
}

// timed makes s measure values (as measured does) on a fake clock from
// the Unix epoch, the n-th run (from 1) taking dur(n, trial); it returns
// the clock.
func timed(s *Loop, values map[string][]float64, dur func(n int, tr Trial) time.Duration) *time.Time {
	obj, _ := measured(values)
	now := new(time.Time)
	*now = time.Unix(0, 0)
	n := 0
	s.Now = func() time.Time { return *now }
	s.Objective = func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		n++
		*now = now.Add(dur(n, tr))
		return obj(ctx, tr)
	}
	return now
}

// abCount returns how many of trials are final A/B runs (either side).
func abCount(trials []Trial) int {
	n := 0
	for _, tr := range trials {
		if tr.Kind == ABBest || tr.Kind == ABBase {
			n++
		}
	}
	return n
}

func repeat(c space.Config, n int) []space.Config {
	var out []space.Config
	for i := 0; i < n; i++ {
		out = append(out, c)
	}
	return out
}

// Without a confirmation policy nothing is reserved: the search uses the
// whole budget and never stops for a reserve.
func TestStudyWithoutConfirmationReservesNothing(t *testing.T) {
	var plans []Plan
	s := clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, 10*time.Minute, time.Hour, nil, &plans)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason == StopReserve || res.Reason != StopBudget || len(res.Trials) != 6 {
		t.Fatalf("reason %q after %d trials, want the whole budget used: 6 trials of 10 min", res.Reason, len(res.Trials))
	}
	if len(plans) == 0 {
		t.Fatal("no plan reported")
	}
	for _, p := range plans {
		if p.Reserve != 0 || p.ReserveTime != 0 {
			t.Fatalf("plan %+v reserves without a confirmation policy", p)
		}
	}
}

// The reserve follows the study's own confirmation settings: more
// re-measurements of each new best reserve more, and the final A/B pairs
// are reserved (even beyond a quarter of the budget) once there is a best
// to compare, and stop the search short of the budget.
func TestStudyReserveFollowsTheConfirmation(t *testing.T) {
	firstPlan := func(c *Confirmation) Plan {
		t.Helper()
		var plans []Plan
		// Nothing beats the baseline: no candidate, no A/B phase.
		s := clockStudy(repeat(cfg("1"), 50), map[string][]float64{"base": {500}, "1": {400}}, 10*time.Minute, 10*time.Hour, c, &plans)
		s.MaxTrials = 3
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(plans) == 0 {
			t.Fatal("no plan reported")
		}
		return plans[0]
	}
	p0 := firstPlan(&Confirmation{Repeats: 0})
	p3 := firstPlan(&Confirmation{Repeats: 3})
	p6 := firstPlan(&Confirmation{Repeats: 6})
	if p0.Reserve != 0 || p3.Reserve <= 0 || p6.Reserve <= p3.Reserve {
		t.Fatalf("reserves %d, %d, %d runs for Repeats 0, 3, 6: want 0 and growing", p0.Reserve, p3.Reserve, p6.Reserve)
	}
	if p3.ReserveTime != time.Duration(p3.Reserve)*p3.TrialCost {
		t.Fatalf("plan %+v: reserve time is not runs × cost", p3)
	}
	// Confirm runs are made during the search (after each new best): their
	// share of the reserve plans for them but does not stop the search.
	var plans []Plan
	s := clockStudy(repeat(cfg("1"), 50), map[string][]float64{"base": {500}, "1": {400}}, 10*time.Minute, time.Hour,
		&Confirmation{Repeats: 3}, &plans)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != StopBudget || len(res.Trials) != 6 {
		t.Fatalf("reason %q after %d trials, want the whole budget searched", res.Reason, len(res.Trials))
	}

	// A/B pairs: config "2" beats the baseline; 3 pairs of 10 min
	// (60 min) are held back from a 3 h budget, above its quarter.
	plans = nil
	s = clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, 10*time.Minute, 3*time.Hour,
		&Confirmation{ABPairs: 3}, &plans)
	res, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last := plans[len(plans)-1]
	if last.ReserveTime <= 0 {
		t.Fatalf("last plan %+v reserves nothing", last)
	}
	search, ab := 0, 0
	for _, tr := range res.Trials {
		switch {
		case tr.Kind == ABBest || tr.Kind == ABBase:
			ab++
		case !tr.Kind.Extra():
			search++
		}
	}
	// 18 trials of 10 min fit; 6 go to the A/B phase.
	if search != 12 || ab != 6 {
		t.Fatalf("%d search trials and %d A/B runs (%s), want 12 and 6", search, ab, res.Reason)
	}
	for _, p := range plans {
		if p.Reserve > 0 && p.ReserveTime > 3*time.Hour/4 && p.Reserve != 6 {
			t.Fatalf("plan %+v: over a quarter of the budget beyond the A/B runs", p)
		}
	}
}

// The search stops with StopReserve when the final A/B phase gives up
// (its runs keep failing) with the reserve not used up.
func TestStudyStopsForTheReserve(t *testing.T) {
	var plans []Plan
	s := clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, 10*time.Minute, 2*time.Hour,
		&Confirmation{ABPairs: 2}, &plans)
	objective := s.Objective
	s.Objective = func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		out, err := objective(ctx, tr)
		if tr.Kind == ABBest || tr.Kind == ABBase {
			out = measure.Outcome{Failure: "server crashed"}
		}
		return out, err
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ab := abCount(res.Trials)
	// 12 trials fit: 8 search trials, 4 held for the A/B phase, which
	// gives up after 3 failed runs.
	if res.Reason != StopReserve || len(res.Trials) != 11 || ab != 3 {
		t.Fatalf("reason %q after %d trials (%d A/B)", res.Reason, len(res.Trials), ab)
	}
}

// OnPlan is called not before a new study's first trial, once two trials
// give a cost estimate, again
// when the planned total moves by more than a fifth; a resumed study
// reports its plan at once. A Horizoner strategy learns the planned total.
func TestStudyReportsItsPlan(t *testing.T) {
	store := newMemStore()
	now := time.Unix(0, 0)
	obj := landscape(3)
	phases := map[string]float64{"restore": 2, "start": 0.5, "warmup": 10, "measure": 20, "stop": 0.5}
	h := newUniform(testspace.First(t), 1)
	var plans []Plan
	var reportedAt []int
	s := &Loop{Name: "s", Strategy: h, Store: store, Budget: time.Hour, PriorCost: 35 * time.Second,
		Confirm: &Confirmation{Repeats: 2, ABPairs: 2}, MaxTrials: 4,
		Objective: func(ctx context.Context, tr Trial) (measure.Outcome, error) {
			now = now.Add(36 * time.Second)
			out, err := obj(ctx, tr)
			out.Phases = phases
			return out, err
		},
		Now: func() time.Time { return now },
	}
	n := 0
	s.OnTrial = func(Standing) { n++ }
	s.OnPlan = func(p Plan) { plans = append(plans, p); reportedAt = append(reportedAt, n) }
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(plans) == 0 || reportedAt[0] != 2 {
		t.Fatalf("plans reported after trials %v, want the first after 2", reportedAt)
	}
	p := plans[0]
	if p.TrialCost != 36*time.Second || p.From != 2 || p.LimitedBy != "trials" || p.Total != 4 {
		t.Fatalf("first plan %+v", p)
	}
	if s := p.String(); !strings.Contains(s, "a trial costs 36s") {
		t.Fatalf("plan text %q", s)
	}
	if h.horizon != 4 {
		t.Fatalf("strategy horizon %d, want the planned 4", h.horizon)
	}

	// Resumed with a larger cap: the plan is known at once, and reported
	// before the first trial of the run.
	plans, reportedAt, n = nil, nil, 0
	s.MaxTrials = 40
	s.Strategy = newUniform(testspace.First(t), 2)
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(plans) == 0 || reportedAt[0] != 0 || plans[0].From < 2 {
		t.Fatalf("resumed study: plans %+v reported after %v trials", plans, reportedAt)
	}
	// Printed again only when the total moves by more than a fifth.
	for i := 1; i < len(plans); i++ {
		if d := abs(plans[i].Total - plans[i-1].Total); d*5 <= max(1, plans[i-1].Total) {
			t.Fatalf("plan %d reported although the total moved %d → %d", i, plans[i-1].Total, plans[i].Total)
		}
	}
}

// The final A/B runs get the time held back for them: the reserve holds
// the runs at the upper quartile of the trials' durations, not their
// median (a 16-minute study whose warm-ups varied from 5 to 30 s ran one
// A/B run short of its second pair).
func TestStudyKeepsTheReserveForTheABRuns(t *testing.T) {
	var plans []Plan
	s := clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, 10*time.Minute, 3*time.Hour,
		&Confirmation{ABPairs: 2, RecheckEvery: 4}, &plans)
	// Trials take 10, 10 and 14 minutes in turn: median 10, upper
	// quartile 14.
	timed(s, map[string][]float64{"base": {500}, "2": {600}}, func(n int, _ Trial) time.Duration {
		if n%3 == 0 {
			return 14 * time.Minute
		}
		return 10 * time.Minute
	})
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ab, abStarted := 0, false
	var kinds []Kind
	for _, tr := range res.Trials {
		kinds = append(kinds, tr.Kind)
		switch {
		case tr.Kind == ABBest || tr.Kind == ABBase:
			ab++
			abStarted = true
		case abStarted:
			t.Fatalf("trial %d (%s) after the A/B phase began: %v", tr.Number, tr.Kind, kinds)
		}
	}
	if ab != 4 {
		t.Fatalf("%d A/B runs (%s), want 2 pairs; trials %v", ab, res.Reason, kinds)
	}
	var lastSearch time.Time
	for _, tr := range res.Trials {
		if !tr.Kind.Extra() || tr.Kind == Recheck {
			lastSearch = tr.Ended
		}
	}
	if left := 3*time.Hour - lastSearch.Sub(time.Unix(0, 0)); left < 4*14*time.Minute {
		t.Fatalf("the search stopped with %s left for 4 A/B runs of up to 14 min; trials %v", left, kinds)
	}
}

// A recheck owed when the search stops for the reserve is not measured:
// every run before the A/B phase starts with room for itself and the four
// A/B runs, whichever trial the recheck falls due after.
func TestStudyOwedRecheckLeavesTheReserve(t *testing.T) {
	for every := 2; every <= 6; every++ {
		var plans []Plan
		cost, budget := 10*time.Minute, 3*time.Hour
		s := clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, cost, budget,
			&Confirmation{ABPairs: 2, RecheckEvery: every}, &plans)
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ab := 0
		for _, tr := range res.Trials {
			if tr.Kind == ABBest || tr.Kind == ABBase {
				ab++
				continue
			}
			if start := tr.Started.Sub(time.Unix(0, 0)); start+5*cost > budget {
				t.Fatalf("recheck every %d: trial %d (%s) started at %s, into the A/B runs' reserve", every, tr.Number, tr.Kind, start)
			}
		}
		if ab != 4 {
			t.Fatalf("recheck every %d: %d A/B runs, want 4", every, ab)
		}
	}
}

// Every search trial beats the best here, so the last one owes its
// confirmations when the search stops: the reserve holds room for them,
// and the A/B phase still gets its two pairs.
func TestStudyConfirmsTheLastSearchTrialWithinTheReserve(t *testing.T) {
	var cfgs []space.Config
	for i := 1; i <= 50; i++ {
		cfgs = append(cfgs, space.Config{"innodb_io_capacity": strconv.Itoa(200 + 10*i)})
	}
	var plans []Plan
	s := clockStudy(cfgs, nil, 10*time.Minute, 3*time.Hour, &Confirmation{Repeats: 2, ABPairs: 2}, &plans)
	now := time.Unix(0, 0)
	s.Now = func() time.Time { return now }
	s.Objective = func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		now = now.Add(10 * time.Minute)
		v := 500.0
		if io, err := strconv.Atoi(tr.Params["innodb_io_capacity"]); err == nil && tr.Kind != Baseline && tr.Kind != ABBase {
			v = float64(400 + io)
		}
		return measure.Outcome{Score: v, MeanTPS: v, Restarted: true}, nil
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last, ab := -1, 0
	confirms := map[int]int{}
	var kinds []Kind
	for _, tr := range res.Trials {
		kinds = append(kinds, tr.Kind)
		switch {
		case tr.Kind == ABBest || tr.Kind == ABBase:
			ab++
		case tr.Kind == Confirm:
			confirms[tr.RepeatLink.RepeatOf]++
		case !tr.Kind.Extra() && tr.Kind != Baseline:
			last = tr.Number
		}
	}
	if last < 0 || confirms[last] != 2 || ab != 4 {
		t.Fatalf("last search trial %d confirmed %d times, %d A/B runs; want 2 and 4; trials %v", last, confirms[last], ab, kinds)
	}
}

// The A/B phase spends what its pessimistic reserve leaves on more whole
// pairs when the search stopped for the reserve, never beyond the budget;
// when the trial cap stopped it, it runs its pairs only.
func TestStudyABPhaseUsesTheRestOfTheBudget(t *testing.T) {
	run := func(maxTrials int) (int, StopReason, time.Duration) {
		var plans []Plan
		s := clockStudy(repeat(cfg("2"), 50), map[string][]float64{"base": {500}, "2": {600}}, 10*time.Minute, 3*time.Hour,
			&Confirmation{ABPairs: 2}, &plans)
		s.MaxTrials = maxTrials
		// Search trials take 10 or 20 minutes (upper quartile 20), the
		// A/B runs 10.
		now := timed(s, map[string][]float64{"base": {500}, "2": {600}}, func(n int, tr Trial) time.Duration {
			if n%2 == 0 && tr.Kind != ABBest && tr.Kind != ABBase {
				return 20 * time.Minute
			}
			return 10 * time.Minute
		})
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return abCount(res.Trials), res.Reason, now.Sub(time.Unix(0, 0))
	}
	if ab, reason, end := run(0); ab <= 4 || ab%2 != 0 || end > 3*time.Hour {
		t.Fatalf("budget stop: %d A/B runs (%s), ended at %s; want more than 2 whole pairs within 3h", ab, reason, end)
	}
	if ab, reason, _ := run(4); ab != 4 || reason != StopTrials {
		t.Fatalf("trial cap: %d A/B runs (%s); want the 2 pairs only", ab, reason)
	}
}

// When the minimisation was planned but the A/B runs cost more than the
// trial cost its runs were reserved at, its first step and final check no
// longer fit after the A/B phase: the A/B phase then runs more rounds in
// the rest of the budget instead of leaving it unused, and no
// minimisation run begins.
func TestStudyABPhaseTakesTheRestWhenTheMinimisationNoLongerFits(t *testing.T) {
	var plans []Plan
	values := map[string][]float64{"base": {500}, "2": {600}}
	s := clockStudy(repeat(cfg("2"), 50), values, 10*time.Minute, 4*time.Hour, &Confirmation{ABPairs: 2}, &plans)
	s.Minimize = &Minimization{Pairs: 2, Share: 0.4, Space: space.Default()}
	// Search trials take 10 minutes, the A/B runs 20.
	now := timed(s, values, func(n int, tr Trial) time.Duration {
		if tr.Kind == ABBest || tr.Kind == ABBase {
			return 20 * time.Minute
		}
		return 10 * time.Minute
	})
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	planned := false
	for _, p := range plans {
		planned = planned || (p.Minimize != nil && p.Minimize.On)
	}
	if !planned {
		t.Fatalf("the minimisation was never planned: %+v", plans)
	}
	mins := 0
	for _, tr := range res.Trials {
		if tr.Kind.Minimizing() {
			mins++
		}
	}
	end := now.Sub(time.Unix(0, 0))
	if ab := abCount(res.Trials); ab <= 4 || ab%2 != 0 || mins != 0 || end > 4*time.Hour || 4*time.Hour-end >= 50*time.Minute {
		t.Fatalf("%d A/B runs, %d minimisation runs, ended at %s (%s); want more than 2 whole pairs, no minimisation, less than a pair of the 4h budget unused",
			ab, mins, end, res.Reason)
	}
}
