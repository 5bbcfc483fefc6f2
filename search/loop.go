package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// Objective measures one trial. It returns an Outcome with Failure set when
// the trial failed (config refused, server crash, benchmark error: the study
// goes on), and an error only when the study must stop (cancellation,
// storage or sandbox trouble).
type Objective func(ctx context.Context, t Trial) (measure.Outcome, error)

// Standing reports a finished trial to the progress display.
type Standing struct {
	// Trial is the finished trial.
	Trial Trial
	// Best is the best complete trial so far (Number −1 when none).
	Best Trial
	// Baseline is the complete baseline trial (Number −1 when none yet).
	Baseline Trial
	// Spent is the budget used so far across all runs of the study.
	Spent time.Duration
	// Budget is the study budget (0 = unlimited).
	Budget time.Duration
	// Note says what a re-measurement settled (see Verdict), or "".
	Note string
}

// Loop runs trials until its budget or trial cap is reached. Fields are
// set by the caller; Strategy, Objective and Store are required (Strategy
// not with MinimizeOnly).
type Loop struct {
	// Name is the study name in the store.
	Name string
	// Strategy proposes sampled configurations.
	Strategy Strategy
	// Objective measures a trial.
	Objective Objective
	// Store persists trials.
	Store Store
	// Budget is the wall-clock budget across all runs (0 = unlimited).
	Budget time.Duration
	// Spent is the budget already used by earlier runs.
	Spent time.Duration
	// Start is when this run began (setup time counts against the budget);
	// zero means the moment Run is called.
	Start time.Time
	// MaxTrials caps the number of finished trials of the study
	// (State.Finished: complete, failed or rejected), across runs (0 = no
	// cap). Re-measurements (Kind.Extra) do not count.
	MaxTrials int
	// Confirm is the re-measurement policy (confirm.go); nil turns it off,
	// and then no budget is reserved for re-measurements.
	Confirm *Confirmation
	// OnTrial, when set, is called after each finished trial.
	OnTrial func(Standing)
	// Base is set under every trial's configuration: the baseline trial
	// measures Base itself, a sampled trial Base with the proposal on top.
	// It holds the pinned knobs (durability policy, space file) and the
	// user's baseline my.cnf (--baseline-cnf); nil is the server defaults.
	Base space.Config
	// Space, when set, shapes every configuration the study records (see
	// Shape): the baseline's (Base, in canonical form) and every
	// proposal's (Base under it, repaired, in canonical form), so a warm
	// start that names three knobs and a strategy's proposal of the same
	// configuration with every knob listed are one configuration.
	// Re-measurements and retries repeat a recorded configuration as it
	// is. Nil records Base with the proposal on top as it is.
	Space *space.Space
	// Verbatim leaves out the canonical form (the knobs at the value the
	// server runs with stay listed): set for an existing server, whose
	// own values are not the catalogue's defaults.
	Verbatim bool
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// StoreRetry is how long recording a finished trial is retried when
	// the store fails (e.g. another process holds a write lock on
	// trials.db) before the study stops; 0 means one minute.
	StoreRetry time.Duration
	// WarmStart lists configurations measured right after the baseline, in
	// order (the seeds of --seed-from, then the expert warm start), each
	// once per study (see warmStart). The strategy is told their values
	// like any trial's.
	WarmStart []Proposal
	// PriorCost is the wall-clock cost of one trial the budget plan
	// assumes before any trial finished (e.g. the warm-up cap plus the
	// measurement window plus 5 s); 0 means one minute. Once trials
	// finish, the plan estimates the cost from them (see MakePlan).
	PriorCost time.Duration
	// OnPlan, when set, is called with the budget plan (see Plan; its
	// String renders it for a terminal): before the first trial of a run
	// when the study's trials already give a cost estimate (a resumed
	// study), after a trial once two trials give one, and again whenever
	// the planned number of trials (Plan.Total) moves by more than a
	// fifth. Run re-plans after every trial either way. The plan's
	// reserve is the time of the re-measurements Confirm still expects:
	// Confirm runs of new bests and Rechecks, made during the search, and
	// the final A/B runs, for whose time the search stops short of the
	// budget (StopReserve). A Strategy that implements Horizoner is told
	// the planned total (with a budget or a trial cap).
	OnPlan func(Plan)
	// Prune lets the measurement stop a new configuration early when it
	// is clearly worse than the incumbent: each such trial gets
	// Trial.PruneBelow = PruneThreshold(Goal, history). Baseline and
	// re-measurements (a configuration with a complete measurement
	// already, however it was proposed) are never pruned.
	Prune bool
	// Goal is the study's objective (for PruneThreshold; tps when empty).
	Goal measure.Goal
	// MaxErrorShift, when > 0, fails a measured trial whose error share
	// (ErrorShare) differs from the baseline's by more than this (a share:
	// 0.01 is one percentage point), with a failure that says the
	// benchmark no longer matches its data (see ErrorShift). Set for the
	// replay driver.
	MaxErrorShift float64
	// FirstNumber is the lowest number a new trial takes (0: after the
	// highest of the trials Store returns). A store that gives the study
	// only some of its trials (one fingerprint's segment) holds lower
	// numbers the study must not reuse.
	FirstNumber int
	// Minimize is the minimisation policy (minimize.go): the last phase,
	// after the final A/B runs, that reverts the best trial's changes that
	// do not pay. Nil turns it off. With a Budget it runs only when its
	// share of the budget fits a step and the final check (see
	// Plan.Minimize); the search stops short of the budget for it as for
	// the A/B runs. Without a budget it runs to its end.
	Minimize *Minimization
	// MinimizeOnly runs nothing but the minimisation of the study's best
	// trial (autotune minimize on a finished study): no search trial, no
	// re-measurement, no A/B run. It needs Minimize.
	MinimizeOnly bool
	// Skew is the skew check (skew.go): the best and the baseline
	// measured again under a second variant of the workload, in
	// interleaved pairs after the final A/B runs and before the
	// minimisation; its runs go through Store like any trial, marked by
	// their kinds (Kind.Skewed), and stay out of the strategy, the
	// estimates and Result.Trials. Nil turns it off. Not with
	// MinimizeOnly.
	Skew *SkewCheck
}

// MinimizationStore is a Store that also keeps the state of a study's
// minimisation (storage.DB), so exports and reports can show each
// change's measured contribution. Study saves it after every
// minimisation run when its Store implements it.
type MinimizationStore interface {
	// SaveMinimization replaces the stored minimisation of study by m.
	SaveMinimization(ctx context.Context, study string, m Minimized) error
}

// StopReason says why Run returned without error.
type StopReason string

const (
	// StopBudget: the next trial would not fit in the budget.
	StopBudget StopReason = "budget used"
	// StopTrials: the trial cap was reached.
	StopTrials StopReason = "trial cap reached"
	// StopReserve: what is left of the budget is reserved for the final
	// A/B runs of the confirmation policy (Loop.Confirm) and the
	// minimisation (Loop.Minimize); never when both are off.
	StopReserve StopReason = "search budget used (the rest is reserved for the final A/B runs and the minimisation)"
	// StopMinimized: Loop.MinimizeOnly ran the minimisation to its end
	// (or there was nothing to minimise).
	StopMinimized StopReason = "minimisation done"
)

// Result sums up a study after Run.
type Result struct {
	// Reason says why the study stopped.
	Reason StopReason
	// Trials is every trial of the study, ordered by number, but the
	// skew check's runs.
	Trials []Trial
	// SkewRuns are the skew check's runs (Kind.Skewed), ordered by
	// number.
	SkewRuns []Trial
	// Best is the best complete trial (Number −1 when none).
	Best Trial
	// Baseline is the complete baseline trial (Number −1 when none).
	Baseline Trial
	// Spent is the budget used across all runs.
	Spent time.Duration
}

// ErrBaselineFailed is returned when the server cannot run its own default
// configuration: no tuning is meaningful then.
var ErrBaselineFailed = errors.New("the baseline trial (server defaults) failed")

// Best returns the best trial (Number −1 when there is none) and the
// complete baseline trial (Number −1 when none). The best is the eligible
// trial with the highest estimate (see EstimateOf: with confirmation on, a
// trial must have been confirmed by re-measurement; infeasible trials never
// count). Both are returned with Score, MeanTPS and Penalties set to their
// estimates, the means over the measurements that count.
func Best(trials []Trial) (best, baseline Trial) {
	best, baseline = incumbent(trials), Trial{Number: -1}
	for _, t := range trials {
		if t.State == Complete && t.Kind == Baseline {
			baseline = withEstimate(t, EstimateOf(trials, t))
			break
		}
	}
	return best, baseline
}

// penalty is the value told to the strategy for a trial without a usable
// score (failed, rejected or infeasible; see valueOf): half the worst
// complete score, so the sampler learns to avoid the region (goptuna's TPE
// learns nothing from FAIL trials).
func penalty(trials []Trial) float64 {
	worst, seen := 0.0, false
	for _, t := range trials {
		if t.State == Complete && !t.Kind.Skewed() && (!seen || t.Score < worst) {
			worst, seen = t.Score, true
		}
	}
	if seen && worst < 0 {
		return worst * 2 // costs (--objective p95): twice the worst cost
	}
	if !seen || worst <= 0 {
		return 0
	}
	return worst / 2
}

// Run resumes or starts the study: it tells the strategy the finished
// trials, then measures what the search phase proposes (the baseline
// when none is complete, the configurations of interrupted trials not
// retried yet, the warm start, then the strategy's) until the budget, the
// trial cap or the plan's reserve stops it, and then the final phases.
// Each trial is recorded Running before it starts and finished in one
// store transaction. The budget plan is made before the first trial and
// again after every trial (see OnPlan).
//
// On cancellation the running trial is recorded Interrupted (not counted)
// and ctx.Err() is returned. A failing baseline returns ErrBaselineFailed.
// Storage errors stop the study.
func (s *Loop) Run(ctx context.Context) (Result, error) {
	r, err := s.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return r.result(""), err
		}
		p, rep, stop, err := r.choose(ctx)
		if err != nil || stop != "" {
			return r.result(stop), err
		}
		t := r.trial(p, rep)
		if err := s.Store.BeginTrial(ctx, t); err != nil {
			return r.result(""), fmt.Errorf("record start of trial %d: %w", t.Number, err)
		}
		objective := s.Objective
		if t.Kind.Skewed() {
			objective = s.Skew.Objective
		}
		out, oerr := objective(ctx, t)
		if err := r.finish(ctx, p, t, out, oerr); err != nil {
			return r.result(""), err
		}
	}
}

// studyRun is the state of one Loop.Run: the study's trials so far, its
// search phase, the budget spent and the plan.
type studyRun struct {
	s       *Loop
	now     func() time.Time
	trials  []Trial // the study's trials but the skew check's runs
	skewed  []Trial // the skew check's runs
	search  searchPhase
	next    int           // the next trial number
	spent   time.Duration // budget used up to mark
	mark    time.Time
	plan    *studyPlan
	inFinal StopReason // why this run began the final phases (A/B, minimisation), "" before
}

// begin loads the study's trials, tells them to the strategy and
// makes the first plan.
func (s *Loop) begin(ctx context.Context) (*studyRun, error) {
	r := &studyRun{s: s, now: s.Now, spent: s.Spent, mark: s.Start}
	if r.now == nil {
		r.now = time.Now
	}
	if r.mark.IsZero() {
		r.mark = r.now()
	}
	trials, err := s.Store.Trials(ctx, s.Name)
	if err != nil {
		return nil, fmt.Errorf("load trials of study %q: %w", s.Name, err)
	}
	r.next = max(nextNumber(trials), s.FirstNumber)
	r.trials, r.skewed = splitSkewed(trials)
	trials = r.trials
	// Replay history into the strategy, so it learns from earlier runs.
	if obs, ok := s.Strategy.(observer); ok {
		if err := tellHistory(obs, trials); err != nil {
			return nil, err
		}
	}
	r.plan = &studyPlan{s: s, printed: -1}
	r.plan.start(trials, r.skewed, r.used())
	r.search = searchPhase{shape: Shape{Space: s.Space, Base: s.Base, Verbatim: s.Verbatim}, warm: s.WarmStart, confirm: s.Confirm, started: r.mark}
	return r, nil
}

// nextNumber returns the number after the highest of trials (0 when none).
func nextNumber(trials []Trial) int {
	next := 0
	for _, t := range trials {
		next = max(next, t.Number+1)
	}
	return next
}

// used returns the budget used so far across all runs.
func (r *studyRun) used() time.Duration { return r.spent + r.now().Sub(r.mark) }

// result sums up the study as Run returns it.
func (r *studyRun) result(reason StopReason) Result {
	best, base := Best(r.trials)
	return Result{Reason: reason, Trials: r.trials, SkewRuns: r.skewed, Best: best, Baseline: base, Spent: r.used()}
}

// choose returns the next run, or why the study stops: at the trial cap,
// the budget or the plan's reserve the final phases (finalRun), then the
// stop; else the search phase's next run. An owed confirmation goes
// before the cap and the reserve; an owed recheck before the cap only.
func (r *studyRun) choose(ctx context.Context) (Proposal, RepeatLink, StopReason, error) {
	s, trials, used := r.s, r.trials, r.used()
	r.search.horizon = r.plan.horizon
	fp, _, follow := s.Confirm.followUp(trials, r.plan.horizon)
	stop := StopReason("")
	switch {
	case s.MinimizeOnly:
		stop = StopMinimized
	case s.Budget > 0 && used+estimate(trials) > s.Budget:
		stop = StopBudget
	case r.inFinal != "":
		// Once the final phases began, the search does not resume when a
		// re-plan finds room again: an A/B pair or a minimisation step is
		// measured without search trials between its runs.
		stop = r.inFinal
	case follow && fp.Kind == Confirm:
		// A confirmation (or a close race's re-measurement) of the last
		// search trial: the reserve holds room for it.
	case s.Budget > 0 && r.plan.final > 0 && used+estimate(trials)+r.plan.final > s.Budget:
		// The rest of the budget is held for the final runs the plan
		// still expects (studyPlan.final); an owed recheck does not take
		// it (the A/B runs measure the baseline anyway).
		stop = StopReserve
	case follow:
	case s.MaxTrials > 0 && countFinished(trials) >= s.MaxTrials:
		stop = StopTrials
	}
	if stop != "" {
		p, rep, ok := s.finalRun(trials, r.skewed, used, r.plan.minimize, stop == StopReserve)
		if !ok || (s.Budget > 0 && used+estimate(trials) > s.Budget) {
			return Proposal{}, RepeatLink{}, stop, nil
		}
		r.inFinal = stop
		return p, rep, "", nil
	}
	p, rep, err := r.search.next(ctx, trials, r.next, func() (Strategy, error) { return s.Strategy, nil })
	return p, rep, "", err
}

// countFinished returns how many of trials count towards the trial cap.
func countFinished(trials []Trial) int {
	n := 0
	for _, t := range trials {
		if countsToCap(t) {
			n++
		}
	}
	return n
}

// trial returns the Running trial of proposal p, numbered next.
func (r *studyRun) trial(p Proposal, rep RepeatLink) Trial {
	s := r.s
	t := newTrial(s.Name, r.next, p, rep, r.now(), s.Confirm.Needed(r.trials))
	// A configuration measured before is being re-measured (a strategy's
	// repeat of its incumbent, a re-proposal): its estimate needs the
	// whole run, or pruning would bias it.
	if s.Prune && !p.Kind.Extra() && p.Kind != Baseline && groupOf(r.trials, t.Params.Key()).all == 0 {
		t.PruneBelow = PruneThreshold(s.Goal, r.trials)
	}
	r.next++
	return t
}

// newTrial returns the Running trial number of study that measures
// proposal p's configuration as it is (shaped already: Shape.Of), started
// at start, linked by rep to the trial it repeats. A search trial needs
// need confirmations (Confirmation.Needed) before it may become the best.
func newTrial(study string, number int, p Proposal, rep RepeatLink, start time.Time, need int) Trial {
	t := Trial{Study: study, Number: number, State: Running, Kind: p.Kind, Source: p.Source, Why: p.Why, Params: p.Config, Started: start, RepeatLink: rep}
	if !p.Kind.Extra() && p.Kind != Baseline {
		t.ConfirmNeeded = need
	}
	return t
}

// finish concludes trial t of proposal p from its measurement, records
// it, tells the strategy, saves the minimisation, reports the trial and
// re-plans. It returns the error that stops the study: the objective's,
// a failed baseline's (ErrBaselineFailed), the store's.
func (r *studyRun) finish(ctx context.Context, p Proposal, t Trial, out measure.Outcome, oerr error) error {
	s := r.s
	maxShift := s.MaxErrorShift
	if t.Kind.Skewed() {
		maxShift = 0 // another workload: its error share is its own
	}
	t = concluded(r.trials, t, out, oerr, r.now(), maxShift)
	d := t.Ended.Sub(r.mark)
	r.mark = t.Ended
	r.spent += d
	// Record the end even when ctx is cancelled: an interrupted trial
	// must not stay Running.
	if err := recordRetried(ctx, s.StoreRetry, func(ctx context.Context) error { return s.Store.FinishTrial(ctx, t, d) }); err != nil {
		return fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	if t.Kind.Skewed() {
		return r.finishSkewed(ctx, t, oerr)
	}
	r.trials = append(r.trials, t)
	if err := stopsStudy(ctx, t, oerr); err != nil {
		return err
	}
	if s.Strategy != nil { // nil with MinimizeOnly: no strategy learns
		if err := s.Strategy.Tell(ctx, measuredAs(p, t), toldValue(r.trials, t)); err != nil {
			return fmt.Errorf("tell trial %d: %w", t.Number, err)
		}
	}
	observeMetrics(s.Strategy, t)
	note := Verdict(r.trials, t)
	if t.Kind.Minimizing() {
		note = minNote(r.trials, t, s.Minimize, s.Goal)
		if ms, ok := s.Store.(MinimizationStore); ok {
			m := Minimize(r.trials, s.Minimize, s.Goal)
			if err := recordRetried(ctx, s.StoreRetry, func(ctx context.Context) error { return ms.SaveMinimization(ctx, s.Name, m) }); err != nil {
				return fmt.Errorf("record the minimisation after trial %d: %w", t.Number, err)
			}
		}
	}
	if s.OnTrial != nil {
		best, base := Best(r.trials)
		s.OnTrial(Standing{Trial: t, Best: best, Baseline: base, Spent: r.spent, Budget: s.Budget, Note: note})
	}
	r.plan.after(r.trials, r.skewed, r.spent)
	return nil
}

// goal is the study's objective, tps when Goal is empty.
func (s *Loop) goal() measure.Goal {
	if s.Goal == "" {
		return measure.GoalTPS
	}
	return s.Goal
}

// finishSkewed concludes recorded run t of the skew check: it joins the
// skew check's runs, not the study's trials (no strategy learns it), is
// reported with what the check found so far, and the plan is made again.
// It returns the error that stops the study (stopsStudy).
func (r *studyRun) finishSkewed(ctx context.Context, t Trial, oerr error) error {
	s := r.s
	r.skewed = append(r.skewed, t)
	if err := stopsStudy(ctx, t, oerr); err != nil {
		return err
	}
	if s.OnTrial != nil {
		best, base := Best(r.trials)
		note := ""
		if k := SkewOf(s.goal(), append(append([]Trial(nil), r.trials...), r.skewed...), t.RepeatOf, s.Skew.Label); k.Measured {
			note = "skew check " + k.String()
		}
		s.OnTrial(Standing{Trial: t, Best: best, Baseline: base, Spent: r.spent, Budget: s.Budget, Note: note})
	}
	r.plan.after(r.trials, r.skewed, r.spent)
	return nil
}

// concluded returns trial t ended at end with its measurement (see
// conclude), failed when its error share moved from the baseline's in
// history by more than maxShift (ErrorShift; 0: not checked).
func concluded(history []Trial, t Trial, out measure.Outcome, oerr error, end time.Time, maxShift float64) Trial {
	t = conclude(t, out, oerr, end)
	if maxShift > 0 && oerr == nil {
		if why := ErrorShift(history, t, maxShift); why != "" {
			t.State, t.Failure = Failed, why
		}
	}
	return t
}

// stopsStudy returns the error that stops a study after recorded trial
// t: the objective's error oerr (ctx's when cancelled; prefixed "trial
// N: " unless it names its trial so already), or
// ErrBaselineFailed when t is a failed baseline; nil otherwise.
func stopsStudy(ctx context.Context, t Trial, oerr error) error {
	if oerr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if prefix := fmt.Sprintf("trial %d: ", t.Number); !strings.HasPrefix(oerr.Error(), prefix) {
			return fmt.Errorf("%s%w", prefix, oerr)
		}
		return oerr
	}
	if baselineFailed(t) {
		return fmt.Errorf("%w: %s", ErrBaselineFailed, t.Failure)
	}
	return nil
}

// finalRun returns the next run of the final phases once the search has
// stopped: the final A/B runs (not with MinimizeOnly), then the skew
// check's (Skew; skewed are its runs so far), then the
// minimisation when it is on (minimize: the plan found room for it, or
// MinimizeOnly), within what is left of the budget after used. When the
// search stopped for the budget's reserve (budgetStop) and no
// minimisation follows (it is off, or it has not begun and its first step
// and final check no longer fit: the A/B runs cost more than the trial
// cost it was reserved at), the A/B phase runs as many more rounds as the
// rest of the budget holds at finalRunCost a run: the reserve is held at
// that pessimistic cost, and what it leaves narrows the gain's interval.
// So does a minimisation that began and stopped short of done (a step
// split a block, and the steps it then needs no longer fit).
func (s *Loop) finalRun(trials, skewed []Trial, used time.Duration, minimize, budgetStop bool) (Proposal, RepeatLink, bool) {
	if !s.MinimizeOnly {
		extend := budgetStop && s.Budget > 0 && !(s.Minimize != nil && minimize && s.minimizeFits(trials, used))
		// The skew check follows the A/B phase's rounds: the rest of the
		// budget extends those rounds only once the check is done.
		sp, srep, skewing := s.nextSkew(trials, skewed)
		if p, rep, ok := s.Confirm.nextAB(trials, s.Goal, s.Budget, max(0, s.Budget-used), extend && !skewing); ok {
			return p, rep, true
		}
		if skewing {
			return sp, srep, true
		}
	}
	if s.Minimize == nil || !(minimize || s.MinimizeOnly) {
		return Proposal{}, RepeatLink{}, false
	}
	left := math.MaxInt
	if per := estimate(trials); s.Budget > 0 && per > 0 {
		left = int(max(0, s.Budget-used) / per)
	}
	if p, rep, ok := s.Minimize.next(trials, s.Goal, left); ok {
		return p, rep, true
	}
	// A minimisation that stopped short of done (its next step and final
	// check no longer fit) leaves the rest of the budget to more A/B
	// rounds, as one that never began does.
	if !s.MinimizeOnly && budgetStop && s.Budget > 0 && !Minimize(trials, s.Minimize, s.Goal).Done {
		return s.Confirm.nextAB(trials, s.Goal, s.Budget, max(0, s.Budget-used), true)
	}
	return Proposal{}, RepeatLink{}, false
}

// minimizeFits reports whether the minimisation has begun, or the runs
// it needs at least (Minimization.needRuns, at the trial cost estimate)
// fit in the budget left after used.
func (s *Loop) minimizeFits(trials []Trial, used time.Duration) bool {
	if minimizationBegun(trials) {
		return true
	}
	per := estimate(trials)
	if per <= 0 {
		return true
	}
	return int(max(0, s.Budget-used)/per) >= s.Minimize.needRuns()
}

// measuredAs returns proposal p with the configuration trial t measured
// (shaped: see Shape): the strategy learns what was
// measured, as a resumed study's replay of t.Params teaches it, so a
// proposal the repairs turn into an earlier trial's configuration counts
// as a repeat of that configuration.
func measuredAs(p Proposal, t Trial) Proposal {
	p.Config = t.Params
	return p
}

// Shape is how a study turns a proposal into the configuration it
// measures and records; strategies that keep a history shape a candidate
// the same way to see whether it was measured (history.keyOf).
type Shape struct {
	// Space repairs and canonicalises (nil: neither).
	Space *space.Space
	// Base is set under every configuration: the pinned knobs and the
	// user's baseline my.cnf; nil is the server defaults.
	Base space.Config
	// Verbatim leaves out the canonical form (see Loop.Verbatim).
	Verbatim bool
}

// Of returns the configuration a trial of proposal p measures: a
// re-measurement, a race run or a retry repeats a recorded configuration
// as it is;
// the baseline measures Base; any other proposal is merged onto Base and
// repaired (space.Space.Repair, which must see the merged configuration);
// either then takes its canonical form unless Verbatim:
// space.Space.Essential, which leaves out the knobs at the value the
// server runs with anyway, keeping every knob Base sets.
func (sh Shape) Of(p Proposal) space.Config {
	if p.Kind == Retry || p.Kind == Repeat || p.Kind.Extra() {
		return p.Config
	}
	cfg := sh.Base.Merge(p.Config)
	if sh.Space == nil {
		return cfg
	}
	if p.Kind != Baseline {
		cfg, _ = sh.Space.Repair(cfg)
	}
	if sh.Verbatim {
		return cfg
	}
	out := sh.Space.Essential(cfg)
	for k := range sh.Base {
		if v, ok := cfg[k]; ok {
			out[k] = v
		}
	}
	return out
}

// pending returns the proposals a resumed study owes: the baseline when no
// baseline trial is complete, then the configs of interrupted trials not
// measured (complete or failed) by a later trial.
func pending(trials []Trial) []Proposal {
	var q []Proposal
	// Only a complete baseline counts: a failed one (a crash, a full disk)
	// stopped the study with ErrBaselineFailed and is measured again.
	baselineDone := false
	for _, t := range trials {
		if t.Kind == Baseline && t.State == Complete {
			baselineDone = true
		}
	}
	if !baselineDone {
		q = append(q, Proposal{Config: space.Config{}, Kind: Baseline, Handle: -1})
	}
	for i, t := range trials {
		if t.State != Interrupted || t.Kind == Baseline || t.Kind.Extra() {
			continue
		}
		redone := false
		for _, u := range trials[i+1:] {
			if u.State.Finished() && u.Params.Key() == t.Params.Key() {
				redone = true
				break
			}
		}
		dup := false
		for _, p := range q {
			if p.Config.Key() == t.Params.Key() {
				dup = true
			}
		}
		if !redone && !dup {
			q = append(q, Proposal{Config: t.Params.Clone(), Kind: Retry, Handle: -1})
		}
	}
	return q
}

// estimate predicts the cost of the next trial: the median duration of the
// measured (complete or failed) trials, 0 when there are none (the first
// trial always runs). Rejected trials are left out: they started no server
// and would understate what a trial costs.
func estimate(trials []Trial) time.Duration {
	// Pruned trials are left out too: they stopped early, and the runs
	// this estimate plans for (the final A/B runs above all) are never
	// pruned.
	ds := sortedDurations(trials, func(s State) bool { return s == Complete || s == Failed })
	if len(ds) == 0 {
		return 0
	}
	return ds[len(ds)/2]
}

// sortedDurations returns the durations of the trials whose state keep
// accepts, shortest first.
func sortedDurations(trials []Trial, keep func(State) bool) []time.Duration {
	var ds []time.Duration
	for _, t := range trials {
		if keep(t.State) {
			ds = append(ds, t.Duration())
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds
}

// finalRunCost returns the time to hold back for each final A/B run: the
// upper quartile of the complete trials' durations (element ⌊3n/4⌋ of the
// n sorted; cost with fewer than 4), at least cost (the plan's trial
// cost: the sum of the phases' medians). A run's warm-up varies (up to
// --warmup-max) and the baseline and the best alternate, each with its
// restart: held at the plan's cost, two pairs ran one run short.
func finalRunCost(trials []Trial, cost time.Duration) time.Duration {
	ds := sortedDurations(trials, func(s State) bool { return s == Complete })
	if len(ds) < 4 {
		return cost
	}
	return max(cost, ds[(3*len(ds))/4])
}

// MinPruneMargin is the least distance below the incumbent at which a
// trial may be pruned: a trial within 20 % of the incumbent always runs to
// the end.
const MinPruneMargin = 0.2

// PruneThreshold returns the value of goal (tps or qps) under which a new
// trial may be stopped early: the incumbent's pooled value times
// (1 − margin), where margin is MinPruneMargin or three times the
// measured noise when that is larger. The noise is the pooled standard
// deviation of the log values of repeated measurements of one
// configuration (baseline rechecks, confirmations, re-proposals), so a
// noisier machine prunes later. 0 (no pruning) without an eligible
// incumbent and for GoalP95.
func PruneThreshold(goal measure.Goal, trials []Trial) float64 {
	if goal == "" {
		goal = measure.GoalTPS
	}
	if goal == measure.GoalP95 {
		return 0
	}
	inc := incumbent(trials)
	if inc.Number < 0 {
		return 0
	}
	var incVals []float64
	for _, u := range groupOf(trials, inc.Params.Key()).counted {
		if v := ObjectiveValue(goal, u); v > 0 {
			incVals = append(incVals, v)
		}
	}
	if len(incVals) == 0 {
		return 0
	}
	margin := math.Max(MinPruneMargin, 3*NoiseSD(goal, trials))
	if margin >= 1 {
		return 0
	}
	return measure.Mean(incVals) * (1 - margin)
}

// NoiseSD returns the pooled within-configuration standard deviation of
// the log values of goal over every configuration measured completely at
// least twice (final A/B runs included: they repeat configurations too;
// skew-check runs left out: they measured another workload):
// the run-to-run noise of this machine as a share (0.05 = 5 %). 0 when no
// configuration was measured twice.
func NoiseSD(goal measure.Goal, trials []Trial) float64 {
	sd, _ := noiseStats(goal, trials)
	return sd
}

// noiseStats returns NoiseSD and its degrees of freedom (the number of
// measurements behind it less the number of configurations).
func noiseStats(goal measure.Goal, trials []Trial) (sd float64, df int) {
	byKey := map[string][]float64{}
	var keys []string // in the order of first measurement: a sum in map order would differ in its last bits from call to call
	for _, u := range trials {
		if u.State != Complete || u.Infeasible || u.Kind.Skewed() {
			continue
		}
		if v := ObjectiveValue(goal, u); v > 0 {
			k := u.Params.Key()
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], math.Log(v))
		}
	}
	var ss float64
	for _, k := range keys {
		vs := byKey[k]
		if len(vs) < 2 {
			continue
		}
		m := measure.Mean(vs)
		for _, v := range vs {
			ss += (v - m) * (v - m)
		}
		df += len(vs) - 1
	}
	if df == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(df)), df
}
