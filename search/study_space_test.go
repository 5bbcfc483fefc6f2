package search

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// TestStudyBaseAndRejected: every trial carries the study's base config
// (pinned knobs), a trial the objective rejects before starting is
// recorded Rejected, counts towards the cap and is told a penalty, and
// the sampler's proposals obey the space's constraints.
func TestStudyBaseAndRejected(t *testing.T) {
	store := newMemStore()
	base := landscape(9)
	rejected := 0
	obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		if tr.Params["innodb_doublewrite"] != "ON" {
			t.Errorf("trial %d lacks the base config: %v", tr.Number, tr.Params)
		}
		c, _ := strconv.ParseFloat(tr.Params["innodb_io_capacity"], 64)
		m, _ := strconv.ParseFloat(tr.Params["innodb_io_capacity_max"], 64)
		if tr.Kind == Sampled && m < c {
			t.Errorf("trial %d: io_capacity_max %g < io_capacity %g (not repaired)", tr.Number, m, c)
		}
		bp, _ := strconv.ParseFloat(tr.Params["innodb_buffer_pool_size"], 64)
		if bp > 4<<30 {
			rejected++
			return measure.Outcome{Rejected: true, Failure: "rejected before start: over budget"}, nil
		}
		return base(ctx, tr)
	}
	s := &Loop{Name: "s", Strategy: newUniform(space.Default(), 3), Objective: obj, Store: store, MaxTrials: 25, Base: space.Config{"innodb_doublewrite": "ON"}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tr := range res.Trials {
		if tr.State == Rejected {
			n++
			if tr.Failure == "" {
				t.Error("a rejected trial carries its reason")
			}
		}
	}
	if rejected == 0 || n != rejected || len(res.Trials) != 25 {
		t.Fatalf("%d rejected by the objective, %d recorded, %d trials", rejected, n, len(res.Trials))
	}
	if res.Trials[0].Params.Key() != "innodb_doublewrite=ON" {
		t.Fatalf("baseline params %v, want the base", res.Trials[0].Params)
	}

	// A rejected baseline stops the study.
	s2 := &Loop{Name: "b", Strategy: newUniform(space.Default(), 4), Store: newMemStore(), MaxTrials: 3,
		Objective: func(ctx context.Context, tr Trial) (measure.Outcome, error) {
			return measure.Outcome{Rejected: true, Failure: "over budget"}, nil
		}}
	if _, err := s2.Run(context.Background()); !errors.Is(err, ErrBaselineFailed) {
		t.Fatalf("err = %v, want ErrBaselineFailed", err)
	}
}
