package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/autotune/autotune/space"
)

// ErrClaimLost is returned (wrapped) by a ClaimStore when this worker no
// longer holds a trial: another worker declared it stale and retries it.
var ErrClaimLost = errors.New("trial claim lost: another worker declared it stale")

// Choice is what a worker does next.
type Choice int

const (
	// Wait: nothing to claim now (the remaining trials are running on other
	// workers); look again later.
	Wait Choice = iota
	// Run: the proposal was claimed.
	Run
	// Stop: the study is done.
	Stop
)

// ChooseFunc decides, given every trial of the study (ordered by number,
// stale ones already marked Interrupted) and the next free trial number,
// what to run next: with Run, the trial to record as Running (numbered
// next). It is called with the study locked.
type ChooseFunc func(trials []Trial, next int) (Trial, Choice, error)

// ClaimStore is a study store shared by several workers.
type ClaimStore interface {
	// Claim atomically marks trials of dead workers Interrupted (returned
	// as stale), asks choose, and records the trial it returns as Running
	// under this worker's claim; two workers never get the same trial
	// number.
	Claim(ctx context.Context, study string, choose ChooseFunc) (t Trial, c Choice, stale []Trial, err error)
	// Heartbeat says the worker still runs t; ErrClaimLost when it does not
	// own t any more.
	Heartbeat(ctx context.Context, t Trial) error
	// FinishClaimed records t's end while the claim holds; ErrClaimLost
	// (and nothing written) otherwise.
	FinishClaimed(ctx context.Context, t Trial, spent time.Duration) error
}

// Worker is one of several processes running trials of the same study,
// each in its own sandbox, sharing the history through a ClaimStore. Before
// every proposal it replays all workers' finished trials into a fresh
// strategy (seeded with Seed + trial number, so concurrent workers ask
// different questions), so the sampler sees every result. Its runs come
// from the search phase a Study runs (searchPhase: the baseline, the
// confirmation policy's re-measurements, retries, the warm start, the
// strategy), claimed one at a time. A trial's state and the value the
// strategy learns from it are those a Study gives it: its score when
// complete and feasible, the failure penalty when it failed, was rejected
// or is infeasible.
type Worker struct {
	// Name is the study name.
	Name string
	// NewStrategy returns a fresh strategy with the given seed; it must
	// implement Observe(space.Config, float64) error to learn the history.
	NewStrategy func(seed int64) (Strategy, error)
	// Seed is the study seed.
	Seed int64
	// Objective measures a trial.
	Objective Objective
	// Store is the shared store.
	Store ClaimStore
	// MaxTrials caps the finished trials of the study (State.Finished:
	// complete, failed or rejected) across all workers (0 = no cap; then
	// Budget is needed).
	MaxTrials int
	// Budget caps the sum of the durations of all finished trials, across
	// workers (machine time, not wall time; 0 = unlimited).
	Budget time.Duration
	// StoreRetry is how long recording a finished trial is retried when
	// the store fails before the worker stops; 0 means one minute.
	StoreRetry time.Duration
	// HeartbeatEvery is how often a running trial's heartbeat is sent
	// (default 10 s); the store's stale limit must be several times this.
	HeartbeatEvery time.Duration
	// PollEvery is how long to wait when there is nothing to claim
	// (default HeartbeatEvery).
	PollEvery time.Duration
	// Started is when this worker began; a failed baseline that ended
	// before it is measured again (zero: the moment Run is called).
	Started time.Time
	// Base, Space and Verbatim shape every recorded configuration, as in
	// Study (see Shape).
	Base     space.Config
	Space    *space.Space
	Verbatim bool
	// WarmStart lists configurations measured right after the baseline,
	// each once per study, whichever worker claims them.
	WarmStart []Proposal
	// MaxErrorShift fails a measured trial whose error share moves from
	// the baseline's by more than this, as Loop.MaxErrorShift (0: off).
	MaxErrorShift float64
	// Confirm is the re-measurement policy, as Loop.Confirm: a new best
	// is confirmed (and a close race re-measured) and the baseline
	// rechecked by whichever worker claims next. Its final A/B phase
	// (ABPairs, ABShare) is not run by workers; nil turns it off.
	Confirm *Confirmation
	// OnTrial, OnStart and OnStale report progress (any may be nil).
	OnTrial func(Standing)
	OnStart func(Trial)
	OnStale func(Trial)
}

// WorkerResult sums up a worker's run.
type WorkerResult struct {
	// Reason says why the study stopped.
	Reason StopReason
	// Ran is the number of trials this worker finished.
	Ran int
}

// Run claims and measures trials until the study is done (trial cap or
// budget reached by all workers together). A trial lost to another worker
// (this worker was presumed dead) is dropped, not recorded. On cancellation
// the running trial is recorded Interrupted and ctx.Err() is returned; a
// failing baseline returns ErrBaselineFailed; storage errors stop the
// worker.
func (w *Worker) Run(ctx context.Context) (WorkerResult, error) {
	if w.HeartbeatEvery <= 0 {
		w.HeartbeatEvery = 10 * time.Second
	}
	if w.PollEvery <= 0 {
		w.PollEvery = w.HeartbeatEvery
	}
	if w.Started.IsZero() {
		w.Started = time.Now()
	}
	var res WorkerResult
	var reason StopReason
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var history []Trial
		choose := func(trials []Trial, next int) (Trial, Choice, error) {
			p, rep, c, r, err := w.choose(ctx, trials, next)
			reason, history = r, trials
			if c != Run || err != nil {
				return Trial{}, c, err
			}
			return newTrial(w.Name, next, p, rep, time.Now(), w.Confirm.Needed(trials)), Run, nil
		}
		t, c, stale, err := w.Store.Claim(ctx, w.Name, choose)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, err
		}
		for _, s := range stale {
			if w.OnStale != nil {
				w.OnStale(s)
			}
		}
		switch c {
		case Stop:
			res.Reason = reason
			return res, nil
		case Wait:
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(w.PollEvery):
			}
			continue
		}
		if w.OnStart != nil {
			w.OnStart(t)
		}
		done, err := w.runOne(ctx, t, history)
		if err != nil {
			return res, err
		}
		if done {
			res.Ran++
		}
	}
}

// runOne measures a claimed trial with heartbeats and records it; history
// is the study's trials as the claim saw them. done is false when the
// claim was lost.
func (w *Worker) runOne(ctx context.Context, t Trial, history []Trial) (done bool, err error) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan struct{})
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		tick := time.NewTicker(w.HeartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-tctx.Done():
				return
			case <-tick.C:
				if err := w.Store.Heartbeat(tctx, t); errors.Is(err, ErrClaimLost) {
					close(lost)
					cancel()
					return
				}
				// Other heartbeat errors (a store hiccup) are not fatal:
				// the next tick tries again, and only a long silence makes
				// the trial stale.
			}
		}
	}()
	out, oerr := w.Objective(tctx, t)
	cancel()
	<-hbDone
	select {
	case <-lost:
		return false, nil
	default:
	}
	// The baseline (this worker's or another's) is in the history.
	t = concluded(history, t, out, oerr, time.Now(), w.MaxErrorShift)
	err = recordRetried(ctx, w.StoreRetry, func(ctx context.Context) error { return w.Store.FinishClaimed(ctx, t, t.Duration()) })
	if errors.Is(err, ErrClaimLost) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	if err := stopsStudy(ctx, t, oerr); err != nil {
		return false, err
	}
	if w.OnTrial != nil {
		// The event's best and baseline are this worker's view at the end
		// of the trial; the other workers' trials show on the next claim.
		w.OnTrial(Standing{Trial: t, Best: Trial{Number: -1}, Baseline: Trial{Number: -1}, Budget: w.Budget})
	}
	return true, nil
}

// choose implements the claim decision (see ChooseFunc): Stop at the
// trial cap or the budget of all workers together, Wait while the trials
// that would reach it run on other workers, else the search phase's next
// run.
func (w *Worker) choose(ctx context.Context, trials []Trial, next int) (Proposal, RepeatLink, Choice, StopReason, error) {
	finished, running := 0, 0
	for _, t := range trials {
		switch {
		case countsToCap(t):
			finished++
		case t.State == Running:
			running++
		}
	}
	spent := spentOn(trials)
	if w.MaxTrials > 0 && finished >= w.MaxTrials {
		return Proposal{}, RepeatLink{}, Stop, StopTrials, nil
	}
	if w.MaxTrials > 0 && finished+running >= w.MaxTrials {
		return Proposal{}, RepeatLink{}, Wait, "", nil
	}
	if w.Budget > 0 && spent+estimate(trials) > w.Budget {
		if running > 0 {
			return Proposal{}, RepeatLink{}, Wait, "", nil
		}
		return Proposal{}, RepeatLink{}, Stop, StopBudget, nil
	}

	sp := searchPhase{shape: Shape{Space: w.Space, Base: w.Base, Verbatim: w.Verbatim}, warm: w.WarmStart, confirm: w.Confirm, horizon: w.MaxTrials, started: w.Started}
	p, rep, err := sp.next(ctx, trials, next, func() (Strategy, error) { return w.strategy(trials, next) })
	if err != nil {
		return Proposal{}, RepeatLink{}, Stop, "", err
	}
	return p, rep, Run, "", nil
}

// strategy returns a fresh strategy seeded with Seed + next that has
// replayed every finished trial of trials.
func (w *Worker) strategy(trials []Trial, next int) (Strategy, error) {
	strat, err := w.NewStrategy(w.Seed + int64(next))
	if err != nil {
		return nil, err
	}
	obs, ok := strat.(observer)
	if !ok {
		return nil, errors.New("worker strategy cannot replay history (no Observe method)")
	}
	if err := tellHistory(obs, trials); err != nil {
		return nil, err
	}
	return strat, nil
}
