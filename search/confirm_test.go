package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// script is a Strategy that proposes fixed configurations in order.
type script struct {
	cfgs []space.Config
	next int
	told map[string][]float64
}

func (s *script) Ask(ctx context.Context) (Proposal, error) {
	if s.next >= len(s.cfgs) {
		return Proposal{}, errors.New("script exhausted")
	}
	p := Proposal{Config: s.cfgs[s.next], Kind: Sampled, Handle: -1}
	s.next++
	return p, nil
}

func (s *script) Tell(ctx context.Context, p Proposal, v float64) error {
	if s.told == nil {
		s.told = map[string][]float64{}
	}
	s.told[p.Config.Key()] = append(s.told[p.Config.Key()], v)
	return nil
}

// collectNotes returns an OnTrial callback that appends each event's
// note (what a re-measurement settled) to notes.
func collectNotes(notes *[]string) func(Standing) {
	return func(e Standing) {
		if e.Note != "" {
			*notes = append(*notes, e.Note)
		}
	}
}

// measured returns an Objective whose scores come, per configuration, from
// a list consumed in order (the last value repeats).
func measured(values map[string][]float64) (Objective, map[string]int) {
	calls := map[string]int{}
	return func(ctx context.Context, t Trial) (measure.Outcome, error) {
		if err := ctx.Err(); err != nil {
			return measure.Outcome{}, err
		}
		name := t.Params["innodb_flush_log_at_trx_commit"]
		if name == "" {
			name = "base"
		}
		vs := values[name]
		i := calls[name]
		calls[name]++
		v := vs[min(i, len(vs)-1)]
		return measure.Outcome{Score: v, MeanTPS: v, Restarted: true}, nil
	}, calls
}

func cfg(v string) space.Config { return space.Config{"innodb_flush_log_at_trx_commit": v} }

// TestConfirmationDemotesLuckyTrial is the synthetic demonstration: config
// "0" is no better than the baseline but measures lucky once (+20 %); its
// two re-measurements fall back to baseline level and it is demoted, while
// config "2", truly +10 %, is confirmed and becomes the best. Without
// confirmation the lucky config would have been exported.
func TestConfirmationDemotesLuckyTrial(t *testing.T) {
	values := map[string][]float64{
		"base": {500, 505, 495, 502, 498, 503, 497, 501},
		"0":    {600, 496, 499},           // lucky first measurement
		"2":    {560, 548, 556, 551, 553}, // truly better
		"1":    {480},
	}
	run := func(c *Confirmation) (Result, []Standing, map[string]int) {
		obj, calls := measured(values)
		var events []Standing
		s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("0"), cfg("2"), cfg("1")}},
			Objective: obj, Store: newMemStore(), MaxTrials: 4, Confirm: c,
			OnTrial: func(e Standing) { events = append(events, e) }}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res, events, calls
	}

	// Without confirmation the lucky trial wins.
	res, _, _ := run(nil)
	if res.Best.Params["innodb_flush_log_at_trx_commit"] != "0" {
		t.Fatalf("without confirmation best = %v, expected the lucky config", res.Best.Params)
	}

	res, events, calls := run(&Confirmation{Repeats: 2, ABPairs: 3})
	if got := res.Best.Params["innodb_flush_log_at_trx_commit"]; got != "2" {
		t.Fatalf("best = %v (score %g), want config 2", res.Best.Params, res.Best.Score)
	}
	if math.Abs(res.Best.Score-552) > 1e-9 {
		t.Fatalf("best estimate %g, want 552 (mean of its 2 re-measurements, first 560 left out)", res.Best.Score)
	}
	var notes []string
	for _, e := range events {
		if e.Note != "" {
			notes = append(notes, e.Note)
		}
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "trial 1 demoted: first measured 600.0, re-measured 497.5") ||
		!strings.Contains(joined, "trial 4 confirmed") {
		t.Fatalf("notes:\n%s", joined)
	}
	// Kinds in order: baseline, lucky + 2 confirms, better + 2 confirms,
	// worse (no confirmation: below the incumbent), then A B A B A B.
	var kinds []string
	for _, tr := range res.Trials {
		kinds = append(kinds, string(tr.Kind))
	}
	want := "baseline sampled confirm confirm sampled confirm confirm sampled ab-best ab-base ab-base ab-best ab-best ab-base"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("kinds:\n%s\nwant\n%s", strings.Join(kinds, " "), want)
	}
	if calls["0"] != 3 || calls["1"] != 1 {
		t.Fatalf("calls %v", calls)
	}
	for _, tr := range res.Trials[2:4] {
		if tr.ConfirmNeeded != 0 {
			t.Fatal("re-measurements need no confirmation themselves")
		}
	}
	if res.Trials[1].ConfirmNeeded != 2 || res.Trials[2].RepeatOf != 1 || res.Trials[8].RepeatOf != 4 {
		t.Fatalf("links: %+v %+v %+v", res.Trials[1].RepeatLink, res.Trials[2].RepeatLink, res.Trials[8].RepeatLink)
	}
	g, ok := ABGain(measure.GoalTPS, res.Trials, res.Best.Number)
	if !ok || !g.Significant || g.Pairs != 3 || g.Pct < 5 {
		t.Fatalf("A/B gain %+v ok=%v", g, ok)
	}
}

func TestRecheckEveryAndDrift(t *testing.T) {
	values := map[string][]float64{"base": {500, 450, 400}, "1": {300}}
	obj, calls := measured(values)
	var cfgs []space.Config
	for i := 0; i < 6; i++ {
		cfgs = append(cfgs, cfg("1"))
	}
	var notes []string
	s := &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Objective: obj, Store: newMemStore(), MaxTrials: 7,
		Confirm: &Confirmation{Repeats: 2, RecheckEvery: 3},
		OnTrial: collectNotes(&notes)}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls["base"] != 3 {
		t.Fatalf("baseline measured %d times, want 3 (first + 2 rechecks after 3 and 6 trials)", calls["base"])
	}
	if res.Baseline.Score != 450 || res.Baseline.Number != 0 {
		t.Fatalf("baseline estimate %g (#%d), want 450, the mean of all its runs", res.Baseline.Score, res.Baseline.Number)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "-20.0 % drift") {
		t.Fatalf("notes %q", notes)
	}
	if res.Reason != StopTrials {
		t.Fatal(res.Reason)
	}
}

// A study killed during a confirmation resumes by re-measuring the same
// candidate as a confirmation again, not as a counted retry.
func TestConfirmationResume(t *testing.T) {
	store := newMemStore()
	values := map[string][]float64{"base": {500}, "2": {600, 590, 580}}
	obj, _ := measured(values)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	killer := func(c context.Context, tr Trial) (measure.Outcome, error) {
		n++
		if tr.Kind == Confirm {
			cancel()
			return measure.Outcome{}, c.Err()
		}
		return obj(c, tr)
	}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2")}}, Objective: killer, Store: store, MaxTrials: 2,
		Confirm: &Confirmation{Repeats: 2}}
	if _, err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	obj2, _ := measured(map[string][]float64{"base": {500}, "2": {590, 580}})
	s2 := &Loop{Name: "s", Strategy: &script{}, Objective: obj2, Store: store, MaxTrials: 2, Confirm: &Confirmation{Repeats: 2}}
	res, err := s2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tr := range res.Trials {
		kinds = append(kinds, string(tr.Kind)+"/"+string(tr.State))
	}
	want := "baseline/complete sampled/complete confirm/interrupted confirm/complete confirm/complete"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("trials %s, want %s", strings.Join(kinds, " "), want)
	}
	if res.Best.Number != 1 || res.Best.Score != 585 {
		t.Fatalf("best #%d %g", res.Best.Number, res.Best.Score)
	}
}

// A confirmation run that fails disqualifies the candidate.
func TestConfirmationFailureDisqualifies(t *testing.T) {
	values := map[string][]float64{"base": {500}, "2": {600}}
	obj, _ := measured(values)
	wrapped := func(c context.Context, tr Trial) (measure.Outcome, error) {
		if tr.Kind == Confirm {
			return measure.Outcome{Failure: "server crashed"}, nil
		}
		return obj(c, tr)
	}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2")}}, Objective: wrapped, Store: newMemStore(), MaxTrials: 2,
		Confirm: &Confirmation{Repeats: 2}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 3 || res.Best.Number != 0 {
		t.Fatalf("%d trials, best #%d; want one failed confirmation and the baseline as best", len(res.Trials), res.Best.Number)
	}
}

func TestInfeasibleNeverBest(t *testing.T) {
	obj := func(c context.Context, tr Trial) (measure.Outcome, error) {
		o := measure.Outcome{Score: 500, MeanTPS: 500}
		if len(tr.Params) > 0 {
			o.Score, o.Infeasible = 900, true
		}
		return o, nil
	}
	st := &script{cfgs: []space.Config{cfg("2")}}
	s := &Loop{Name: "s", Strategy: st, Objective: obj, Store: newMemStore(), MaxTrials: 2, Confirm: &Confirmation{Repeats: 2}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Number != 0 || len(res.Trials) != 2 {
		t.Fatalf("best #%d of %d trials: an infeasible trial is neither best nor confirmed", res.Best.Number, len(res.Trials))
	}
	if v := st.told[cfg("2").Key()]; len(v) != 1 || v[0] != 250 {
		t.Fatalf("strategy told %v for the infeasible trial, want the failure penalty 250", v)
	}
}

func TestABBudgetReserve(t *testing.T) {
	now := time.Unix(0, 0)
	values := map[string][]float64{"base": {500, 490, 510, 505, 495}, "2": {600, 590, 610, 605, 600, 595}}
	obj, _ := measured(values)
	var cfgs []space.Config
	for i := 0; i < 100; i++ {
		cfgs = append(cfgs, cfg("1"), cfg("2"))
	}
	values["1"] = []float64{100}
	s := &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Store: newMemStore(), Budget: 20 * time.Hour,
		Confirm: &Confirmation{Repeats: 1, ABPairs: 2, ABShare: 0.1},
		Objective: func(c context.Context, tr Trial) (measure.Outcome, error) {
			now = now.Add(time.Hour)
			return obj(c, tr)
		}}
	s.Now = func() time.Time { return now }
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ab := abCount(res.Trials)
	// 20 h budget, 1 h trials: 10 % is 2 h = 1 pair, so ABPairs = 2 wins:
	// 4 h reserved and used by the A/B phase at the end, and 1 h held for
	// the confirmation the last search trial may owe (unused here: the
	// last search trial does not beat the best; too short for a pair).
	if ab != 4 || res.Reason != StopReserve || len(res.Trials) != 19 {
		t.Fatalf("%d A/B runs of %d trials (%s)", ab, len(res.Trials), res.Reason)
	}
	// Pairs A B, B A: the last run is the best's.
	last := res.Trials[len(res.Trials)-1]
	if last.Kind != ABBest || res.Trials[len(res.Trials)-2].Kind != ABBase {
		t.Fatalf("last trials %s %s", res.Trials[len(res.Trials)-2].Kind, last.Kind)
	}
}

// A configuration the strategy proposes again is measured again and
// pooled into one estimate with its earlier measurements: one group, one
// estimate, never a second candidate with its own confirmations.
func TestSameConfigProposedTwiceIsOneEstimate(t *testing.T) {
	obj, calls := measured(map[string][]float64{"base": {500}, "2": {560, 540, 550, 530}, "1": {400}})
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2"), cfg("1"), cfg("2"), cfg("2")}}, Objective: obj,
		Store: newMemStore(), MaxTrials: 5, Confirm: &Confirmation{Repeats: 1}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tr := range res.Trials {
		kinds = append(kinds, string(tr.Kind))
	}
	// baseline, "2" (560) + its confirmation (540), "1", "2" again (550),
	// "2" again (530): no further confirmations.
	if got := strings.Join(kinds, " "); got != "baseline sampled confirm sampled sampled sampled" {
		t.Fatalf("kinds %s", got)
	}
	if calls["2"] != 4 {
		t.Fatalf("calls %v", calls)
	}
	best, _ := Best(res.Trials)
	e := EstimateOf(res.Trials, res.Trials[4])
	// The first measurement (560, selected because it was high) is left
	// out: (540 + 550 + 530) / 3.
	if best.Number != 1 || e.Trial != 1 || e.N != 3 || math.Abs(e.Score-540) > 1e-9 || math.Abs(best.Score-540) > 1e-9 {
		t.Fatalf("best #%d %.1f, estimate %+v", best.Number, best.Score, e)
	}
	if !(e.SE > 0) {
		t.Fatalf("standard error %v", e.SE)
	}
}

func TestPairedGainKnownValues(t *testing.T) {
	// Ratios 1.10, 1.20, 1.15: mean log-ratio 0.139131, sd 0.043509,
	// t(0.975, 2) = 4.302653 (R: qt(0.975, 2)); the interval is
	// exp(0.139131 ± 4.302653·0.043509/√3) − 1 = +3.15 .. +28.05 %.
	g, err := PairedGain(measure.GoalTPS, []Pair{{A: 110, B: 100}, {A: 240, B: 200}, {A: 115, B: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(g.Pct-14.9275) > 1e-3 || math.Abs(g.LoPct-3.1536) > 1e-3 || math.Abs(g.HiPct-28.0453) > 1e-3 || !g.Significant {
		t.Fatalf("%+v", g)
	}
	if !strings.Contains(g.String(), "+14.9 % tps (95 % CI +3.2 .. +28.0 %, 3 interleaved pairs") || strings.Contains(g.String(), "NOT") {
		t.Fatal(g.String())
	}
	// p95: lower is better, so the same ratios the other way are a gain.
	g, _ = PairedGain(measure.GoalP95, []Pair{{A: 100, B: 110}, {A: 200, B: 240}, {A: 100, B: 115}})
	if math.Abs(g.Pct-14.9275) > 1e-3 {
		t.Fatalf("p95 %+v", g)
	}
	// A drift that moves both members of every pair cancels: pairs at
	// 400, 500 and 600 tps, each +5 % (±1 %), give +5 % with a narrow
	// interval, although the unpaired means overlap widely.
	g, _ = PairedGain(measure.GoalTPS, []Pair{{A: 420, B: 400}, {A: 530, B: 500}, {A: 624, B: 600}, {A: 441, B: 420}})
	if !g.Significant || g.LoPct < 2 || g.HiPct > 8 {
		t.Fatalf("drift %+v", g)
	}
	g, _ = PairedGain(measure.GoalTPS, []Pair{{A: 100, B: 100}, {A: 90, B: 100}, {A: 112, B: 100}})
	if g.Significant || !strings.Contains(g.String(), "NOT significant") {
		t.Fatal(g.String())
	}
	for _, bad := range [][]Pair{{{A: 1, B: 1}}, {{A: 1, B: 1}, {A: 2, B: 2}}, {{A: 0, B: 1}, {A: 1, B: 1}}} {
		if _, err := PairedGain(measure.GoalTPS, bad); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
	if hw := HalfWidthPct(0.08, 5); math.Abs(hw-10.45) > 0.1 {
		t.Errorf("half-width for sd 0.08, 5 pairs: %.2f %%", hw)
	}
}

// A recheck that fails (server trouble) is not retried in a loop.
func TestRecheckFailureNoLoop(t *testing.T) {
	obj, _ := measured(map[string][]float64{"base": {500}, "1": {300}})
	runs := 0
	wrapped := func(c context.Context, tr Trial) (measure.Outcome, error) {
		runs++
		if tr.Kind == Recheck {
			return measure.Outcome{Failure: "server crashed"}, nil
		}
		return obj(c, tr)
	}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("1"), cfg("1"), cfg("1")}}, Objective: wrapped, Store: newMemStore(),
		MaxTrials: 4, Confirm: &Confirmation{RecheckEvery: 1}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if runs != 7 || len(res.Trials) != 7 {
		t.Fatalf("%d runs, want 4 trials and 3 (failed) rechecks", runs)
	}
}

// TestConfirmationAndABOnFlatLandscape: on a flat landscape (every
// config, the baseline included, is truly 500 with 8 % measurement noise,
// the between-run CV measured here) the best of single measurements claims
// a large gain that does not exist (winner's curse). --confirm 2 shrinks
// the claimed gain of the exported best (its estimate leaves out the
// measurement that selected it) but cannot remove the selection among
// confirmed candidates; the final interleaved A/B phase is unbiased and
// rarely calls the non-existent gain significant.
func TestConfirmationAndABOnFlatLandscape(t *testing.T) {
	type result struct {
		claimed float64
		ab      Gain
		abOK    bool
	}
	run := func(c *Confirmation, seed uint64) result {
		rng := rand.New(rand.NewPCG(seed, 99))
		obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
			v := 500 * (1 + 0.08*rng.NormFloat64())
			return measure.Outcome{Score: v, MeanTPS: v}, nil
		}
		var cfgs []space.Config
		for i := 0; i < 12; i++ {
			cfgs = append(cfgs, space.Config{"innodb_io_capacity": strconv.Itoa(200 + i)})
		}
		s := &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Objective: obj, Store: newMemStore(), MaxTrials: 13, Confirm: c}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		g, ok := ABGain(measure.GoalTPS, res.Trials, res.Best.Number)
		return result{claimed: res.Best.Score/500 - 1, ab: g, abOK: ok}
	}
	const studies = 300
	var without, with, abGain float64
	nAB, significant := 0, 0
	for i := uint64(0); i < studies; i++ {
		without += run(nil, i).claimed / studies
		r := run(&Confirmation{Repeats: 2, ABPairs: 5}, i)
		with += r.claimed / studies
		if r.abOK {
			nAB++
			abGain += r.ab.Pct
			if r.ab.Significant {
				significant++
			}
		}
	}
	abGain /= float64(nAB)
	t.Logf("mean claimed gain of the best: %.1f %% without confirmation, %.1f %% with --confirm 2; "+
		"A/B (5 pairs) in %d studies: mean gain %+.1f %%, called significant in %d", without*100, with*100, nAB, abGain, significant)
	if without < 0.10 || with > 0.6*without {
		t.Errorf("claimed gain %.3f without, %.3f with confirmation", without, with)
	}
	if nAB < studies/4 || math.Abs(abGain) > 3 || float64(significant) > 0.12*float64(nAB) {
		t.Errorf("A/B: %d studies, mean gain %.2f %%, %d significant", nAB, abGain, significant)
	}
}

// Rechecks and the A/B phase's baseline runs measure the baseline trial's
// own configuration: the server defaults under the study's base (pinned
// knobs, --baseline-cnf), not the bare defaults.
func TestRemeasuredBaselineKeepsTheBase(t *testing.T) {
	obj, _ := measured(map[string][]float64{"base": {500}, "2": {600}})
	base := space.Config{"innodb_doublewrite": "ON"}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2"), cfg("2"), cfg("2")}}, Objective: obj, Store: newMemStore(),
		MaxTrials: 3, Base: base, Confirm: &Confirmation{RecheckEvery: 1, ABPairs: 1}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]int{}
	for _, tr := range res.Trials {
		kinds[tr.Kind]++
		if (tr.Kind == Recheck || tr.Kind == ABBase) && tr.Params.Key() != base.Key() {
			t.Errorf("trial %d (%s) measures %v, want the baseline's %v", tr.Number, tr.Kind, tr.Params, base)
		}
	}
	if kinds[Recheck] == 0 || kinds[ABBase] == 0 {
		t.Fatalf("kinds %v: want rechecks and A/B baseline runs", kinds)
	}
}

// TestIncumbentsFollowBest: after every trial of random histories
// (configurations proposed once or again, with or without confirmation,
// confirm runs, baseline rechecks and final A/B runs that complete, fail,
// are interrupted or infeasible), Incumbents gives the trial, estimate and
// penalties that Best gives for that prefix.
func TestIncumbentsFollowBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	states := []State{Complete, Complete, Complete, Failed, Rejected, Interrupted}
	configs := []space.Config{{}, cfg("0"), cfg("1"), cfg("2"), {"innodb_io_capacity": "1000"}, {"innodb_io_capacity": "2000"}}
	for h := 0; h < 200; h++ {
		var trials []Trial
		for n := 0; n < 40; n++ {
			tr := Trial{Number: n, Kind: Sampled, State: states[rng.IntN(len(states))], Params: configs[1+rng.IntN(len(configs)-1)]}
			tr.Infeasible = rng.IntN(10) == 0
			tr.Score, tr.MeanTPS = 100+rng.Float64()*50, 110+rng.Float64()*50
			tr.Penalties = measure.Penalties{Variance: rng.Float64() * 10, Dips: rng.Float64(), DipSeconds: rng.IntN(3), HLLGrowthPS: math.NaN()}
			if rng.IntN(2) == 0 {
				tr.HLLGrowthPS = rng.Float64()
			}
			switch r := rng.IntN(12); {
			case n == 0:
				tr.Kind, tr.State, tr.Infeasible, tr.Params = Baseline, Complete, false, configs[0]
			case r < 3:
				of := trials[rng.IntN(n)]
				tr.Kind, tr.RepeatOf, tr.Params = Confirm, of.Number, of.Params
			case r < 4:
				tr.Kind, tr.RepeatOf, tr.Params = Recheck, 0, configs[0]
			case r < 5:
				tr.Kind, tr.RepeatOf = ABBest, rng.IntN(n)
			default:
				tr.ConfirmNeeded = rng.IntN(3)
			}
			trials = append(trials, tr)
		}
		inc := Incumbents(trials)
		for i := range trials {
			want, _ := Best(trials[:i+1])
			got := inc[i]
			same := got.Number == want.Number && got.Score == want.Score && got.MeanTPS == want.MeanTPS &&
				got.Variance == want.Variance && got.DipSeconds == want.DipSeconds &&
				(got.HLLGrowthPS == want.HLLGrowthPS || math.IsNaN(got.HLLGrowthPS) && math.IsNaN(want.HLLGrowthPS))
			if !same {
				t.Fatalf("history %d after trial %d: Incumbents gives #%d (%v, %v, %+v), Best #%d (%v, %v, %+v)", h, i,
					got.Number, got.Score, got.MeanTPS, got.Penalties, want.Number, want.Score, want.MeanTPS, want.Penalties)
			}
		}
	}
}

// TestBestCarriesTheEstimatedPenalties: a confirmed best and a rechecked
// baseline report the mean penalties of the runs that count, not those of
// their first measurement.
func TestBestCarriesTheEstimatedPenalties(t *testing.T) {
	run := func(n int, k Kind, of int, score, variance float64) Trial {
		p := space.Config{}
		if of > 0 {
			p = cfg("2")
		}
		return Trial{Number: n, Kind: k, State: Complete, Params: p, RepeatLink: RepeatLink{RepeatOf: of},
			Outcome: measure.Outcome{Score: score, MeanTPS: score + variance, Measurement: measure.Measurement{Penalties: measure.Penalties{Variance: variance, HLLGrowthPS: math.NaN()}}}}
	}
	cand := run(1, Sampled, 1, 900, 5)
	cand.ConfirmNeeded = 2
	trials := []Trial{run(0, Baseline, 0, 500, 100), cand, run(2, Confirm, 1, 800, 10), run(3, Confirm, 1, 820, 20), run(4, Recheck, 0, 520, 60)}
	best, base := Best(trials)
	if best.Number != 1 || best.Score != 810 || best.Variance != 15 {
		t.Errorf("best #%d score %v variance %v; want #1, 810, 15 (the confirmations' means)", best.Number, best.Score, best.Variance)
	}
	if base.Score != 510 || base.Variance != 80 {
		t.Errorf("baseline score %v variance %v; want 510, 80 (baseline and recheck means)", base.Score, base.Variance)
	}
}

// The pruning threshold is never within 20 % of the incumbent, moves
// further down with the measured noise, and a configuration measured
// before (a repeat, a re-proposal) is never pruned.
func TestPruneThreshold(t *testing.T) {
	obj, _ := measured(map[string][]float64{"base": {500, 500}, "2": {1000, 1000, 1000}, "0": {300}})
	var thresholds []float64
	wrapped := func(c context.Context, tr Trial) (measure.Outcome, error) {
		thresholds = append(thresholds, tr.PruneBelow)
		return obj(c, tr)
	}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2"), cfg("0"), cfg("2")}}, Objective: wrapped, Store: newMemStore(),
		MaxTrials: 4, Confirm: &Confirmation{Repeats: 1}, Prune: true}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// baseline (never), "2" (incumbent: the baseline, 500 -> 400), its
	// confirmation (never), "0" (incumbent 1000 -> 800), "2" again
	// (measured before: never).
	want := []float64{0, 400, 0, 800, 0}
	if len(thresholds) != len(want) {
		t.Fatalf("thresholds %v for %d trials", thresholds, len(res.Trials))
	}
	for i := range want {
		if math.Abs(thresholds[i]-want[i]) > 1e-9 {
			t.Fatalf("thresholds %v, want %v", thresholds, want)
		}
	}
	// Noise of 10 % between repeated runs: three times that, 30 %, is
	// further than 20 %.
	noisy := []Trial{
		{Number: 0, Kind: Baseline, State: Complete, Params: space.Config{}, Outcome: measure.Outcome{Score: 1000, MeanTPS: 1000}},
		{Number: 1, Kind: Recheck, State: Complete, Params: space.Config{}, Outcome: measure.Outcome{Score: 1000 * math.Exp(0.1414), MeanTPS: 1000 * math.Exp(0.1414)}, RepeatLink: RepeatLink{RepeatOf: 0}},
	}
	if got := PruneThreshold(measure.GoalTPS, noisy); !(got > 0 && got < 0.75*1000*math.Exp(0.0707)) {
		t.Fatalf("noisy threshold %.1f", got)
	}
	if got := PruneThreshold(measure.GoalP95, noisy); got != 0 {
		t.Fatalf("p95: threshold %.1f, want none", got)
	}
}

// TestBestIsNotTheLuckiestOfAPlateau: among configurations that are alike
// within the noise, one confirmed on two lucky runs a few per cent above
// the best measured ten times does not become the best (shrunk estimates:
// the winner's curse across configurations), the verdict says so, and a
// configuration far ahead does become the best.
func TestBestIsNotTheLuckiestOfAPlateau(t *testing.T) {
	n := 0
	run := func(k Kind, p space.Config, of int, score float64) Trial {
		tr := Trial{Number: n, Kind: k, State: Complete, Params: p, RepeatLink: RepeatLink{RepeatOf: of},
			Outcome: measure.Outcome{Score: score, MeanTPS: score}}
		if k == Sampled {
			tr.ConfirmNeeded = 2
		}
		n++
		return tr
	}
	io := func(v int) space.Config { return space.Config{"innodb_io_capacity": strconv.Itoa(v)} }
	trials := []Trial{run(Baseline, space.Config{}, 0, 1000), run(Recheck, space.Config{}, 0, 950), run(Recheck, space.Config{}, 0, 1050)}
	a := len(trials)
	trials = append(trials, run(Sampled, io(100), 0, 1200))
	for _, v := range []float64{1100, 1000, 1150, 950, 1050, 1050, 1100, 1000, 1080, 1020} {
		trials = append(trials, run(Confirm, io(100), a, v)) // 1050 over 10 runs
	}
	for i, vs := range [][2]float64{{900, 1000}, {1000, 950}, {1050, 950}, {980, 1000}, {1010, 960}} {
		at := len(trials)
		trials = append(trials, run(Sampled, io(200+100*i), 0, 1100), run(Confirm, io(200+100*i), at, vs[0]), run(Confirm, io(200+100*i), at, vs[1]))
	}
	if best, _ := Best(trials); best.Number != a {
		t.Fatalf("best #%d; want #%d", best.Number, a)
	}
	lucky := len(trials)
	trials = append(trials, run(Sampled, io(900), 0, 1250), run(Confirm, io(900), lucky, 1120), run(Confirm, io(900), lucky, 1080)) // 1100 over 2
	if best, _ := Best(trials); best.Number != a {
		t.Errorf("a lucky 1100 over 2 runs replaced 1050 over 10 among alike configurations: best #%d; want #%d", best.Number, a)
	}
	if v := Verdict(trials, trials[len(trials)-1]); !strings.Contains(v, fmt.Sprintf("trial %d not taken", lucky)) || !strings.Contains(v, fmt.Sprintf("#%d stays the best", a)) {
		t.Errorf("verdict %q; want not taken", v)
	}
	far := len(trials)
	trials = append(trials, run(Sampled, io(1000), 0, 1600), run(Confirm, io(1000), far, 1500), run(Confirm, io(1000), far, 1450))
	if best, _ := Best(trials); best.Number != far {
		t.Errorf("best #%d; want #%d (1475, far ahead)", best.Number, far)
	}
	if v := Verdict(trials, trials[len(trials)-1]); !strings.Contains(v, fmt.Sprintf("trial %d confirmed", far)) || !strings.Contains(v, "new best") {
		t.Errorf("verdict %q; want confirmed as the new best", v)
	}
	// Without shrinkage (too few configurations) the higher estimate wins.
	few := []Trial{trials[0], trials[1], trials[2]}
	few = append(few, trials[lucky:lucky+3]...)
	if best, _ := Best(few); best.Number != lucky {
		t.Errorf("two configurations: best #%d; want #%d", best.Number, lucky)
	}
}

// TestExpertWarmStartIsAlwaysConfirmed: the expert warm start whose first
// run falls below a lucky baseline is still confirmed, so it can become the
// best on its re-measurements (before, it stayed unconfirmed and never
// eligible for the rest of the study).
func TestExpertWarmStartIsAlwaysConfirmed(t *testing.T) {
	values := map[string][]float64{"base": {1000, 800}, "0": {900, 1100, 1120}, "1": {700}}
	obj, calls := measured(values)
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("1")}}, Objective: obj, Store: newMemStore(),
		MaxTrials: 3, Confirm: &Confirmation{Repeats: 2}, WarmStart: []Proposal{{Config: cfg("0"), Kind: Expert, Handle: -1}}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls["0"] != 3 {
		t.Fatalf("the warm start was measured %d times; want 3 (its first run and 2 confirmations)", calls["0"])
	}
	if res.Best.Params.Key() != cfg("0").Key() || res.Best.Score != 1110 {
		t.Fatalf("best %v at %v; want the warm start at 1110", res.Best.Params, res.Best.Score)
	}
}

// TestCloseRaceIsMeasuredBeforeTheBestChanges: among configurations alike
// within the noise, a candidate whose two confirmations were lucky leads
// the expert warm start by less than two standard errors; both are
// measured again, one run at a time, until each has four, the lead
// vanishes and the warm start stays the best (the progress line says
// "close race"). A candidate far ahead is taken on its confirmations.
func TestCloseRaceIsMeasuredBeforeTheBestChanges(t *testing.T) {
	io := func(v int) space.Config { return space.Config{"innodb_io_capacity": strconv.Itoa(v)} }
	run := func(challenger []float64) (Result, map[string]int, []string) {
		values := map[string][]float64{
			io(500).Key(): {1050, 1100, 1000, 1060, 1040}, // the warm start
			io(200).Key(): {1100, 1000, 980},
			io(300).Key(): {1080, 990, 1010},
			io(400).Key(): {1090, 1020, 970},
			io(600).Key(): {1070, 1000, 1000},
			io(900).Key(): challenger,
		}
		calls := map[string]int{}
		obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
			k := tr.Params.Key()
			vs, ok := values[k]
			if !ok {
				vs = []float64{1000} // the baseline
			}
			v := vs[min(calls[k], len(vs)-1)]
			calls[k]++
			return measure.Outcome{Score: v, MeanTPS: v}, nil
		}
		var notes []string
		s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{io(200), io(300), io(400), io(600), io(900)}},
			Objective: obj, Store: newMemStore(), MaxTrials: 7, Confirm: &Confirmation{Repeats: 2},
			WarmStart: []Proposal{{Config: io(500), Kind: Expert, Handle: -1}},
			OnTrial:   collectNotes(&notes)}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res, calls, notes
	}

	res, calls, notes := run([]float64{1200, 1130, 1110, 960, 980})
	if got := calls[io(900).Key()]; got != 5 {
		t.Errorf("the lucky candidate was measured %d times; want 5 (its first run, 2 confirmations, 2 runs of the race)", got)
	}
	if got := calls[io(500).Key()]; got != 5 {
		t.Errorf("the warm start was measured %d times; want 5 (its first run, 2 confirmations, 2 runs of the race)", got)
	}
	if res.Best.Params.Key() != io(500).Key() {
		t.Errorf("best %v at %.1f; want the warm start", res.Best.Params, res.Best.Score)
	}
	if joined := strings.Join(notes, "\n"); !strings.Contains(joined, "close race: trial") {
		t.Errorf("no close-race note in:\n%s", joined)
	}

	res, calls, _ = run([]float64{1600, 1500, 1450})
	if got := calls[io(900).Key()]; got != 3 {
		t.Errorf("a candidate far ahead was measured %d times; want 3 (no race)", got)
	}
	if res.Best.Params.Key() != io(900).Key() {
		t.Errorf("best %v; want the candidate far ahead", res.Best.Params)
	}
}

// The final A/B phase runs fewer rounds than ABPairs (never fewer than
// MinABPairs) when the measured noise gives the ±ABTargetPct interval
// with fewer; at unknown or high noise it runs ABPairs, or what ABShare of
// the budget holds.
func TestABPairsFollowTheMeasuredNoise(t *testing.T) {
	c := &Confirmation{ABPairs: 6, ABShare: 0.1}
	for _, tc := range []struct {
		noise  float64
		budget time.Duration
		want   int
	}{
		{0, time.Hour, 6},          // not measured: ABPairs
		{0.005, time.Hour, 3},      // ±3 % at 3 pairs already
		{0.013, time.Hour, 4},      // ±2.9 % at 4
		{0.02, time.Hour, 6},       // ±3 % needs 6
		{0.07, time.Hour, 6},       // never ±3 %: ABPairs
		{0.07, 50 * time.Hour, 25}, // the budget's share holds more
		{0.013, 50 * time.Hour, 4}, // precise enough: the share is not spent
	} {
		if got := c.abPairs(tc.budget, 6*time.Minute, 2, tc.noise); got != tc.want {
			t.Errorf("noise %g, budget %s: %d pairs, want %d", tc.noise, tc.budget, got, tc.want)
		}
	}
	if got := (&Confirmation{ABPairs: 2}).abPairs(time.Hour, time.Minute, 2, 0.005); got != 2 {
		t.Errorf("ABPairs 2 below MinABPairs: %d pairs, want 2", got)
	}
}

// TestStudyRacesTheTwoBest: in the last RaceShare of its horizon, with
// confirmation on, the study re-measures (kind Repeat, counted as a
// search trial) whichever of the two configurations with the best
// estimates has fewer measurements, every other search trial; not
// before the race, not without confirmation, not right after a race run,
// and not when the two are many standard errors apart.
func TestStudyRacesTheTwoBest(t *testing.T) {
	a := space.Config{"innodb_buffer_pool_size": "1073741824"}
	b := space.Config{"innodb_buffer_pool_size": "2147483648"}
	history := func(bRuns []float64, size int) []Trial {
		var ts []Trial
		add := func(k Kind, cfg space.Config, v float64, need int) {
			ts = append(ts, Trial{Number: len(ts), Kind: k, State: Complete, Params: cfg, Outcome: measure.Outcome{Score: v, MeanTPS: v}, RepeatLink: RepeatLink{ConfirmNeeded: need}})
		}
		add(Baseline, space.Config{}, 500, 0)
		for _, v := range []float64{1200, 990, 1000, 1010} {
			add(Sampled, a, v, 0)
		}
		for _, v := range bRuns {
			add(Sampled, b, v, 0)
		}
		for i := 0; countFinished(ts) < size; i++ {
			add(Sampled, space.Config{"innodb_io_capacity": strconv.Itoa(210 + 10*i)}, 400, 0)
		}
		return ts
	}
	c := &Confirmation{Repeats: 2}
	// b (2 runs, estimate 1005) against a (4 runs, 1050): close, b has
	// fewer runs.
	near := history([]float64{1010, 1000}, 85)
	p, rep, ok := c.followUp(near, 100)
	if !ok || p.Kind != Repeat || p.Config.Key() != b.Key() || near[rep.RepeatOf].Params.Key() != b.Key() {
		t.Fatalf("in the race: %v %+v %v; want a repeat of b", p, rep, ok)
	}
	for _, tc := range []struct {
		name    string
		trials  []Trial
		conf    *Confirmation
		horizon int
	}{
		{"before the race", history([]float64{1010, 1000}, 60), c, 100},
		{"after the horizon", history([]float64{1010, 1000}, 100), c, 100},
		{"no confirmation", near, &Confirmation{RecheckEvery: 1000}, 100},
		{"no horizon", near, c, 0},
		{"right after a race run", append(slices.Clone(near), Trial{Number: len(near), Kind: Repeat, State: Complete, Params: b, Outcome: measure.Outcome{Score: 1005, MeanTPS: 1005}}), c, 100},
		// b far below a with the noise known (a's runs, b's runs): decided.
		{"decided", history([]float64{600, 606, 603}, 85), c, 100},
	} {
		if p, _, ok := tc.conf.followUp(tc.trials, tc.horizon); ok {
			t.Errorf("%s: follow-up %s of %v; want none", tc.name, p.Kind, p.Config)
		}
	}
}

// BenchmarkFollowUp is the study's decision of its next re-measurement
// (confirmation, recheck, the final race) over 1000 trials, every other
// one a repeat of an earlier configuration, inside the race.
func BenchmarkFollowUp(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var trials []Trial
	for i := range 1000 {
		cfg := space.Config{"innodb_io_capacity": strconv.Itoa(200 + i/2)}
		kind := Sampled
		if i == 0 {
			kind, cfg = Baseline, space.Config{}
		}
		v := 1000 + 100*rng.NormFloat64()
		trials = append(trials, Trial{Number: i, Kind: kind, State: Complete, Params: cfg, Outcome: measure.Outcome{Score: v, MeanTPS: v}})
	}
	c := &Confirmation{Repeats: 2, RecheckEvery: 10}
	for b.Loop() {
		c.followUp(trials, 1100)
	}
}

// noisyTrials returns complete trials of configs configurations, each
// measured twice at 1000·e^{±d} with d = sd/√2, so that the pooled noise
// of a measurement's log score is sd on configs degrees of freedom.
func noisyTrials(configs int, sd float64) []Trial {
	var out []Trial
	d := sd / math.Sqrt2
	for i := range configs {
		for _, sign := range []float64{1, -1} {
			v := 1000 * math.Exp(sign*d)
			out = append(out, Trial{Number: len(out), State: Complete, Kind: Sampled, Params: cfg(strconv.Itoa(i)), Outcome: measure.Outcome{Score: v, MeanTPS: v}})
		}
	}
	return out
}

func TestAutoConfirmFollowsTheNoise(t *testing.T) {
	auto := &Confirmation{Repeats: ConfirmAuto}
	for _, tc := range []struct {
		name   string
		c      *Confirmation
		trials []Trial
		want   int
	}{
		{"off", nil, noisyTrials(5, 0.01), 0},
		{"a fixed count whatever the noise", &Confirmation{Repeats: 3}, noisyTrials(5, 0.01), 3},
		{"noise not measured", auto, nil, AutoConfirmPrior},
		{"noise on too few degrees of freedom", auto, noisyTrials(AutoConfirmMinDoF-1, 0.01), AutoConfirmPrior},
		{"1 % noise", auto, noisyTrials(5, 0.01), 1},
		{"at the target", auto, noisyTrials(5, AutoConfirmSE), 1},
		{"5 % noise", auto, noisyTrials(5, 0.05), 2},               // (5/4.5)² = 1.23: two
		{"12 % noise", auto, noisyTrials(5, 0.12), AutoConfirmMax}, // 7.1, capped
	} {
		if got := tc.c.Needed(tc.trials); got != tc.want {
			t.Errorf("%s: %d confirmations, want %d", tc.name, got, tc.want)
		}
	}
	if sd, df := ScoreNoise(noisyTrials(5, 0.07)); math.Abs(sd-0.07) > 1e-9 || df != 5 {
		t.Errorf("ScoreNoise = %g on %d df, want 0.07 on 5", sd, df)
	}
}

// TestAutoConfirmIsStoredPerTrial: under ConfirmAuto a study's search
// trials need AutoConfirmPrior confirmations until the noise is measured
// (here by the warm start's confirmations), then what the noise asks for
// (1 at 1 % noise), each stored with its trial.
func TestAutoConfirmIsStoredPerTrial(t *testing.T) {
	vals := map[string][]float64{"base": {1000, 1010, 990}, "0": {1100, 1110, 1090, 1105, 1095}}
	var cfgs []space.Config
	for i := 1; i <= 6; i++ {
		v := float64(1000 + 30*i)
		vals[strconv.Itoa(i)] = []float64{v, v * 1.01, v * 0.99}
		cfgs = append(cfgs, cfg(strconv.Itoa(i)))
	}
	obj, _ := measured(vals)
	store := newMemStore()
	s := &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Objective: obj, Store: store, MaxTrials: 8,
		Confirm: &Confirmation{Repeats: ConfirmAuto}, WarmStart: []Proposal{{Config: cfg("0"), Kind: Expert, Handle: -1}}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sawPrior, sawOne := false, false
	for _, tr := range res.Trials {
		if tr.Kind.Extra() || tr.Kind == Baseline {
			continue
		}
		before := res.Trials[:slices.IndexFunc(res.Trials, func(u Trial) bool { return u.Number == tr.Number })]
		want := (&Confirmation{Repeats: ConfirmAuto}).Needed(before)
		if tr.ConfirmNeeded != want {
			t.Errorf("trial %d (%s) needs %d confirmations, want %d", tr.Number, tr.Kind, tr.ConfirmNeeded, want)
		}
		sawPrior = sawPrior || tr.ConfirmNeeded == AutoConfirmPrior
		sawOne = sawOne || tr.ConfirmNeeded == 1
	}
	var changes []string
	for _, tr := range res.Trials {
		if n := Verdict(res.Trials, tr); strings.HasPrefix(n, "a new best now needs") {
			changes = append(changes, n)
		}
	}
	if len(changes) != 1 || !strings.Contains(changes[0], "needs 1 confirmation(s), was 2: the score's run-to-run noise is 1.") {
		t.Errorf("notes of the change: %q, want one from 2 to 1 at about 1 %% noise", changes)
	}
	if !sawPrior || !sawOne {
		t.Errorf("want trials needing %d (noise not yet measured) and 1 (1 %% noise): %v", AutoConfirmPrior, res.Trials)
	}
}

// A window that found no steady start does not move a gain or an
// estimate where steady windows exist: a pair with one is left out when
// 2 steady pairs remain, and said so; with fewer, every pair counts and
// the gain says how many were not steady. An estimate pools the steady
// measurements of its configuration, and all of them only when none is.
func TestNotSteadyWindowsLeftOutWhereSteadyOnesRemain(t *testing.T) {
	steady := []Pair{{A: 110, B: 100}, {A: 121, B: 110}, {A: 114, B: 100}}
	withDrift := append(slices.Clone(steady), Pair{A: 300, B: 100, NotSteady: true}) // a window still climbing
	g0, err := PairedGain(measure.GoalTPS, steady)
	if err != nil {
		t.Fatal(err)
	}
	g, err := PairedGain(measure.GoalTPS, withDrift)
	if err != nil {
		t.Fatal(err)
	}
	if g.Pct != g0.Pct || g.Pairs != 3 || g.NotSteadyLeft != 1 || !strings.Contains(g.String(), "3 interleaved pairs; 1 pair(s) left out: a window was NOT STEADY") {
		t.Errorf("with one pair not steady: %+v\n%s", g, g)
	}
	few := []Pair{{A: 110, B: 100}, {A: 121, B: 110, NotSteady: true}, {A: 114, B: 100, NotSteady: true}}
	g, err = PairedGain(measure.GoalTPS, few)
	if err != nil {
		t.Fatal(err)
	}
	if g.Pairs != 3 || g.NotSteadyKept != 2 || !strings.Contains(g.String(), "3 interleaved pairs, 2 of them with a window NOT STEADY") {
		t.Errorf("with one steady pair: %+v\n%s", g, g)
	}

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(n int, kind Kind, tps float64, capped bool) Trial {
		tr := Trial{Number: n, Kind: kind, State: Complete, Params: space.Config{"innodb_io_capacity": "2000"}, Started: t0, Ended: t0,
			Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
		tr.WarmupCapped = capped
		if n > 1 {
			tr.RepeatOf = 1
		}
		return tr
	}
	trials := []Trial{run(1, Sampled, 1000, false), run(2, Confirm, 1010, false), run(3, Recheck, 1500, true)}
	e := EstimateOf(trials, trials[0])
	if e.N != 2 || e.MeanTPS != 1005 || e.NotSteadyLeft != 1 {
		t.Errorf("estimate with one window not steady: %+v; want the 2 steady ones (1005 tps)", e)
	}
	trials = []Trial{run(1, Sampled, 1000, true), run(2, Confirm, 1010, true)}
	if e := EstimateOf(trials, trials[0]); e.N != 2 || e.NotSteadyKept != 2 {
		t.Errorf("estimate with none steady: %+v; want both, counted as not steady", e)
	}
}
