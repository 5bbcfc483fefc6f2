package search

import (
	"strconv"
	"testing"

	"github.com/autotune/autotune/space"
)

// The knobs a warm start set are probed a quarter up and down from the
// incumbent, and a step that won is followed by the next one the same way.
func TestHybridProbesTheStartsKnobs(t *testing.T) {
	sp := firstSpace(t)
	if err := sp.Limit("innodb_buffer_pool_size", 384<<20); err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	pool := func(n int) space.Config { return space.Config{"innodb_buffer_pool_size": strconv.Itoa(n * mib)} }
	h := NewHybrid(sp, HybridOptions{Seed: 1, Starts: []space.Config{pool(256)}})
	if len(h.probeKnobs) != 1 {
		t.Fatalf("probe knobs %v, want the buffer pool only", h.probeKnobs)
	}
	for _, o := range []struct {
		cfg   space.Config
		value float64
	}{{space.Config{}, 100}, {pool(256), 150}} {
		if err := h.Observe(o.cfg, o.value); err != nil {
			t.Fatal(err)
		}
	}
	want := func(mb int) {
		t.Helper()
		p, ok := h.probeStep()
		if !ok {
			t.Fatalf("no probe, want pool %dM", mb)
		}
		if got := p.Config["innodb_buffer_pool_size"]; got != strconv.Itoa(mb*mib) || p.Kind != Refine {
			t.Fatalf("probe %s %s, want pool %dM", p.Kind, got, mb)
		}
		if p.Config["innodb_log_file_size"] != fullConfig(sp, space.Config{})["innodb_log_file_size"] {
			t.Fatalf("probe moved another knob: %v", p.Config)
		}
	}
	want(320) // a quarter up from the incumbent
	if err := h.Observe(pool(320), 160); err != nil {
		t.Fatal(err)
	}
	want(384) // it won: the next step up, clamped to the range
	if err := h.Observe(pool(384), 90); err != nil {
		t.Fatal(err)
	}
	// 320M is the incumbent; down from it is 256M, measured: no probe left.
	if p, ok := h.probeStep(); ok {
		t.Fatalf("probe %v, want none (both neighbours of the incumbent measured)", p.Config)
	}
	// Choice knobs are not probed, and no start means no probes.
	if h := NewHybrid(sp, HybridOptions{Seed: 1, Starts: []space.Config{{"innodb_flush_method": "fsync"}}}); len(h.probeKnobs) != 0 {
		t.Fatalf("probe knobs %v for a choice knob", h.probeKnobs)
	}
}

// With the screening's points far below the warm start (pruned or failed,
// as on a real server), the importance ranking rests on two
// configurations and cannot order the warm start's knobs: the probes go
// in probeFirst's order, the buffer pool first, whatever the fit ranked
// first. With enough configurations near the best, the ranking orders
// them.
func TestHybridProbesThePoolFirstWhenTheRankingKnowsNothing(t *testing.T) {
	sp := firstSpace(t)
	start := space.Config{"innodb_io_capacity": "3000", "innodb_log_file_size": strconv.Itoa(64 << 20), "innodb_buffer_pool_size": strconv.Itoa(256 << 20)}
	h := NewHybrid(sp, HybridOptions{Seed: 1, Starts: []space.Config{start}})
	if err := h.Observe(space.Config{}, 800); err != nil {
		t.Fatal(err)
	}
	if err := h.Observe(start, 1000); err != nil {
		t.Fatal(err)
	}
	// Screening-like points: the redo log grows with their (tiny) values,
	// so the fit ranks it first.
	for i, v := range []float64{6, 12, 20, 40, 90} {
		cfg := space.Config{"innodb_log_file_size": strconv.Itoa((32 + 256*i) << 20)}
		if err := h.Observe(cfg, v); err != nil {
			t.Fatal(err)
		}
	}
	h.selectKnobs()
	if h.rank["innodb_log_file_size"] >= h.rank["innodb_buffer_pool_size"] {
		t.Fatalf("ranking %v: want the redo log above the pool (the case under test)", h.rank)
	}
	if h.rankInformed() {
		t.Fatal("ranking informed by 2 configurations near the best")
	}
	p, ok := h.probeStep()
	if !ok || p.Config["innodb_buffer_pool_size"] != strconv.Itoa(320<<20) {
		t.Fatalf("first probe %v (ok %v), want the pool a quarter up (320M)", p.Config, ok)
	}
	for i, v := range []float64{950, 980, 700} {
		if err := h.Observe(space.Config{"innodb_io_capacity": strconv.Itoa(1000 + 500*i)}, v); err != nil {
			t.Fatal(err)
		}
	}
	if !h.rankInformed() {
		t.Fatal("ranking not informed by 5 configurations near the best")
	}
}
