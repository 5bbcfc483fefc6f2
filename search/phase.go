package search

import (
	"context"
	"fmt"
	"time"

	"github.com/autotune/autotune/space"
)

// searchPhase proposes the runs of a study's search, for Study (one
// process) and Worker (several sharing a store) alike. Its next run is,
// in order: the baseline until one is complete (not while another worker
// runs it); the re-measurement the confirmation policy owes
// (Confirmation.followUp); the retries of interrupted trials and the
// warm start not measured yet (warmStart), unless another worker is
// measuring them; then a proposal of the strategy. Every proposal comes
// shaped (Shape.Of) as its trial records it.
type searchPhase struct {
	shape   Shape
	warm    []Proposal
	confirm *Confirmation
	// horizon is the planned number of search trials (the final race).
	horizon int
	// started is when this run began: a baseline that failed after it
	// stops the study (the server cannot run its defaults); one that
	// failed before is measured again.
	started time.Time
}

// reaskRunning is how many times a strategy is asked again when its
// proposal is a new configuration another worker is measuring.
const reaskRunning = 3

// next returns the next run given the study's trials (ordered by number,
// other workers' running ones included) and next, the number its trial
// will have; strategy returns the strategy to ask, told the history. An
// error is the strategy's, or ErrBaselineFailed.
func (sp searchPhase) next(ctx context.Context, trials []Trial, next int, strategy func() (Strategy, error)) (Proposal, RepeatLink, error) {
	// running reports whether another worker is measuring p's
	// configuration, or, for a warm start (sameKind), one of its kind.
	running := func(p Proposal, sameKind bool) bool {
		for _, t := range trials {
			if t.State == Running && (t.Params.Key() == p.Config.Key() || (sameKind && t.Kind == p.Kind)) {
				return true
			}
		}
		return false
	}
	if p, ok := sp.baseline(trials); ok {
		return p, RepeatLink{}, nil
	} else if err := sp.baselineFailed(trials); err != nil {
		return Proposal{}, RepeatLink{}, err
	}
	if p, rep, ok := sp.confirm.followUp(trials, sp.horizon); ok {
		return p, rep, nil
	}
	for _, p := range warmStart(trials, pending(trials), sp.warm, sp.shape.Of) {
		if p.Kind == Baseline {
			continue // running on another worker
		}
		if p.Config = sp.shape.Of(p); !running(p, p.Kind != Retry) {
			return p, RepeatLink{}, nil
		}
	}
	st, err := strategy()
	if err != nil {
		return Proposal{}, RepeatLink{}, err
	}
	var p Proposal
	prev := ""
	for asked := 0; ; asked++ {
		if p, err = st.Ask(ctx); err != nil {
			if ctx.Err() != nil {
				return Proposal{}, RepeatLink{}, ctx.Err()
			}
			return Proposal{}, RepeatLink{}, fmt.Errorf("propose trial %d: %w", next, err)
		}
		p.Config = sp.shape.Of(p)
		// A new configuration another worker is measuring now would be
		// measured twice at once: the hybrid's model step draws nothing at
		// random, so workers proposing from the same finished history
		// propose the same one. The strategy is asked again (the hybrid's
		// next proposal is another turn: a local step or a TPE draw), up
		// to reaskRunning times, and the last answer is claimed even if it
		// is running too. A strategy that answers the same again (the
		// hybrid's screening design depends on the history only) is not
		// asked further.
		key := p.Config.Key()
		if !running(p, false) || key == prev || asked >= reaskRunning {
			return p, RepeatLink{}, nil
		}
		prev = key
	}
}

// baseline returns the baseline proposal when no baseline trial is
// complete or running.
func (sp searchPhase) baseline(trials []Trial) (Proposal, bool) {
	for _, t := range trials {
		if t.Kind == Baseline && (t.State == Complete || t.State == Running) {
			return Proposal{}, false
		}
	}
	for _, t := range trials {
		if baselineFailed(t) && t.Ended.After(sp.started) {
			return Proposal{}, false
		}
	}
	p := Proposal{Config: space.Config{}, Kind: Baseline, Handle: -1}
	p.Config = sp.shape.Of(p)
	return p, true
}

// baselineFailed returns ErrBaselineFailed when no baseline is complete
// and the last one that failed ended after this run started.
func (sp searchPhase) baselineFailed(trials []Trial) error {
	var last *Trial
	for i, t := range trials {
		if t.Kind == Baseline && t.State == Complete {
			return nil
		}
		if baselineFailed(t) {
			last = &trials[i]
		}
	}
	if last != nil && last.Ended.After(sp.started) {
		return fmt.Errorf("%w: trial %d: %s", ErrBaselineFailed, last.Number, last.Failure)
	}
	return nil
}
