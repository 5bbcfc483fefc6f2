package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// This file holds the trial policy that Study (one process) and Worker
// (several processes sharing a store) have in common, so every mode treats
// a trial the same way: how an objective's result becomes a state, what
// value the strategy learns from a finished trial, how the history is
// told to a fresh strategy, and how a finished trial is recorded.

// classify returns the state a trial ends in, given what its objective
// returned: Interrupted when the objective returned an error (the study
// stops, the trial does not count), Rejected when the outcome says it was
// refused before a server started, Failed when it carries a failure, and
// Complete otherwise.
func classify(out measure.Outcome, oerr error) State {
	switch {
	case oerr != nil:
		return Interrupted
	case out.Rejected:
		return Rejected
	case out.Pruned && out.Failure == "":
		return Pruned
	case out.Failure != "":
		return Failed
	default:
		return Complete
	}
}

// conclude returns t ended at ended with the objective's result: its
// outcome, its state (see classify) and, for an interrupted trial without
// a failure text, the objective's error as the failure.
func conclude(t Trial, out measure.Outcome, oerr error, ended time.Time) Trial {
	t.Ended = ended
	t.Outcome = out
	t.State = classify(out, oerr)
	if oerr != nil && t.Failure == "" {
		t.Failure = oerr.Error()
	}
	return t
}

// baselineFailed reports whether t is a baseline trial that finished
// without a score (failed or rejected): the server cannot run its own
// defaults, so no tuning is meaningful.
func baselineFailed(t Trial) bool { return t.Kind == Baseline && unscored(t) }

// unscored reports whether t finished without a score: failed or
// rejected. Re-measurement rules treat both alike (a failed or rejected
// Confirm run disqualifies its candidate).
func unscored(t Trial) bool { return t.State == Failed || t.State == Rejected }

// valueOf is the value a strategy learns for the finished trial t: its
// score when it is complete and feasible, its partial score when it was
// pruned, pen (see penalty) when it failed, was rejected or is
// infeasible.
func valueOf(t Trial, pen float64) float64 {
	if t.State == Complete && !t.Infeasible {
		return t.Score
	}
	if t.State == Pruned {
		// Its partial window's score, below the pruning threshold.
		return t.Score
	}
	return pen
}

// toldValue is the value told to the strategy right after t finished,
// where trials is the study's history with t in it: valueOf t with the
// penalty of that history.
func toldValue(trials []Trial, t Trial) float64 {
	return valueOf(t, penalty(trials))
}

// observer is a strategy that can learn trials it did not propose (the
// history told to it, tellHistory).
type observer interface {
	Observe(cfg space.Config, value float64) error
}

// metricsObserver is a strategy that reads the server metrics of the
// trials it is told or observes (Hybrid.ObserveMetrics).
type metricsObserver interface {
	ObserveMetrics(cfg space.Config, levels []measure.Level)
}

// observeMetrics gives the thread levels of t, when it is complete, to
// strategy s if s reads them.
func observeMetrics(s any, t Trial) {
	if mo, ok := s.(metricsObserver); ok && t.State == Complete && len(t.Levels) > 0 {
		mo.ObserveMetrics(t.Params, t.Levels)
	}
}

// tellHistory observes every finished trial of trials (State.Finished)
// but the skew check's runs (they measured another workload) in order, each with valueOf under the penalty of the whole history, and
// its metrics (observeMetrics).
func tellHistory(obs observer, trials []Trial) error {
	pen := penalty(trials)
	for _, t := range trials {
		if !t.State.Finished() || t.Kind.Skewed() {
			continue
		}
		if err := obs.Observe(t.Params, valueOf(t, pen)); err != nil {
			return fmt.Errorf("tell trial %d of the history: %w", t.Number, err)
		}
		observeMetrics(obs, t)
	}
	return nil
}

// spentOn is the machine time of the finished trials of trials (the sum of
// their durations; rejected trials count like failed ones).
func spentOn(trials []Trial) time.Duration {
	var d time.Duration
	for _, t := range trials {
		if t.State.Finished() {
			d += t.Duration()
		}
	}
	return d
}

// countsToCap reports whether t counts towards a trial cap (Study and
// Worker MaxTrials): finished and not a re-measurement.
func countsToCap(t Trial) bool { return t.State.Finished() && !t.Kind.Extra() }

// defaultStoreRetry is how long recording a finished trial is retried when
// no StoreRetry is set.
const defaultStoreRetry = time.Minute

// recordRetried calls record until it succeeds, retrying with backoff
// (250 ms doubling up to 5 s) for up to limit (0: defaultStoreRetry): a
// measured trial is worth waiting for a busy database. record gets a
// context that ignores ctx's cancellation (an interrupted trial must not
// stay Running) and ends at that limit, so a store that stops answering
// mid-commit cannot hold the study forever. ErrClaimLost is not retried.
// It returns the last error.
func recordRetried(ctx context.Context, limit time.Duration, record func(context.Context) error) error {
	if limit <= 0 {
		limit = defaultStoreRetry
	}
	deadline := time.Now().Add(limit)
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	wait := 250 * time.Millisecond
	for {
		err := record(ctx)
		if err == nil || errors.Is(err, ErrClaimLost) || time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Second)
	}
}

// ErrorShare returns the share of t's work in its measurement window that
// failed: the sum of the per-second errors over the sum of per-second
// queries (tps for a benchmark without qps) and errors, over the samples
// outside the warm-up. ok is false when the window holds neither.
func ErrorShare(t Trial) (share float64, ok bool) {
	var work, errs float64
	for _, s := range t.Samples {
		if s.Warmup {
			continue
		}
		w := s.QPS
		if w == 0 {
			w = s.TPS
		}
		work += w
		errs += s.ErrPS
	}
	if work+errs <= 0 {
		return 0, false
	}
	return errs / (work + errs), true
}

// ErrorShift returns why the measured trial t (complete or pruned) is
// invalid: its error share (ErrorShare) differs from the first complete
// baseline's in trials by more than limit. "" when it does not, for that
// baseline itself, and without a complete baseline (the first baseline
// sets the reference). The failure says the benchmark no longer matches
// its data: a replay whose statements fail more (or less) often than on
// the baseline measures other work, so its score cannot be compared.
func ErrorShift(trials []Trial, t Trial, limit float64) string {
	if t.State != Complete && t.State != Pruned {
		return ""
	}
	var base *Trial
	for i := range trials {
		if trials[i].Kind == Baseline && trials[i].State == Complete {
			base = &trials[i]
			break
		}
	}
	if base == nil || base.Number == t.Number {
		return ""
	}
	bs, ok1 := ErrorShare(*base)
	ts, ok2 := ErrorShare(t)
	if !ok1 || !ok2 || math.Abs(ts-bs) <= limit {
		return ""
	}
	return fmt.Sprintf("invalid: %.2f %% of its statements failed against %.2f %% on the baseline (trial %d), more than %.1f percentage points apart: the replay no longer matches the data, so its score is not comparable", 100*ts, 100*bs, base.Number, 100*limit)
}
