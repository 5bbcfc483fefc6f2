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
