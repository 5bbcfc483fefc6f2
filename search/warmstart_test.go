package search

import (
	"context"
	"strconv"
	"testing"

	"github.com/autotune/autotune/space"
)

func TestWarmStartQueue(t *testing.T) {
	expert := space.Config{"innodb_buffer_pool_size": "1073741824"}
	ws := []Proposal{{Config: expert, Kind: Expert}}
	// New study: baseline, then the expert.
	q := warmStart(nil, pending(nil), ws, nil)
	if len(q) != 2 || q[0].Kind != Baseline || q[1].Kind != Expert || q[1].Config.Key() != expert.Key() {
		t.Fatalf("new study queue %+v", q)
	}
	// Measured already: not again.
	done := []Trial{{Number: 0, State: Complete, Kind: Baseline, Params: space.Config{}}, {Number: 1, State: Failed, Kind: Expert, Params: expert}}
	if q := warmStart(done, pending(done), ws, nil); len(q) != 0 {
		t.Fatalf("measured warm start queued again: %+v", q)
	}
	// Interrupted: measured once, as an expert trial, not as a retry too.
	intr := []Trial{done[0], {Number: 1, State: Interrupted, Kind: Expert, Params: expert}}
	q = warmStart(intr, pending(intr), ws, nil)
	if len(q) != 1 || q[0].Kind != Expert {
		t.Fatalf("interrupted warm start: %+v", q)
	}
}

func TestStudyRunsTheWarmStartAfterTheBaseline(t *testing.T) {
	store := newMemStore()
	s := newStudy(t, store, landscape(8), 1)
	s.MaxTrials = 4
	expert := space.Config{"innodb_buffer_pool_size": strconv.Itoa(2 << 30)}
	s.WarmStart = []Proposal{{Config: expert, Kind: Expert}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Trials[0].Kind != Baseline || res.Trials[1].Kind != Expert || res.Trials[1].Params.Key() != expert.Key() || res.Trials[2].Kind != Sampled {
		t.Fatalf("kinds %s %s %s", res.Trials[0].Kind, res.Trials[1].Kind, res.Trials[2].Kind)
	}
}

// A warm-start configuration is measured once per study even when the
// study has a base and a repair (the recorded trial's configuration is the
// merged one): a resumed study does not measure it again.
func TestWarmStartWithABaseOncePerStudy(t *testing.T) {
	store := newMemStore()
	expert := space.Config{"innodb_buffer_pool_size": strconv.Itoa(2 << 30)}
	run := func(n int) Result {
		t.Helper()
		s := newStudy(t, store, landscape(10), int64(n))
		s.MaxTrials, s.Base = n, space.Config{"innodb_doublewrite": "ON"}
		s.Space = space.Default()
		s.WarmStart = []Proposal{{Config: expert, Kind: Expert}}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run(3)
	res := run(5)
	n := 0
	for _, tr := range res.Trials {
		if tr.Kind == Expert {
			n++
		}
	}
	if n != 1 || len(res.Trials) != 5 {
		t.Fatalf("%d expert trials in %d, want the warm start measured once", n, len(res.Trials))
	}
}

// An expert configuration derived again on resume (a new fsync probe gives
// another io capacity) is still the study's one warm start.
func TestWarmStartOnceEvenWhenItsConfigChanges(t *testing.T) {
	store := newMemStore()
	run := func(n int, ioCapacity string) Result {
		t.Helper()
		s := newStudy(t, store, landscape(10), int64(n))
		s.MaxTrials = n
		s.WarmStart = []Proposal{{Config: space.Config{"innodb_io_capacity": ioCapacity}, Kind: Expert}}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run(3, "1700")
	res := run(5, "1850")
	n := 0
	for _, tr := range res.Trials {
		if tr.Kind == Expert {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d expert trials, want the warm start measured once per study", n)
	}
}
