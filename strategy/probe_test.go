package strategy

import (
	"slices"
	"strconv"
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// The knobs a warm start set are probed a quarter up and down from the
// incumbent, and a step that won is followed by the next one the same way.
func TestHybridProbesTheStartsKnobs(t *testing.T) {
	sp := testspace.First(t)
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
		if got := p.Config["innodb_buffer_pool_size"]; got != strconv.Itoa(mb*mib) || p.Kind != search.Refine {
			t.Fatalf("probe %s %s, want pool %dM", p.Kind, got, mb)
		}
		if p.Config["innodb_log_file_size"] != search.FullConfig(sp, space.Config{})["innodb_log_file_size"] {
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
	sp := testspace.First(t)
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

// A short study (fewer than 20 trials) with a warm start whose first two
// screening points land below half the best (pruned or failed, as on a
// real server) drops the rest of the screening and probes: a probe on
// every proposal, memory sizes a quarter up or a fifth down and other
// knobs doubled or halved, a step that won followed by the next. A
// screening whose points come near the best goes on.
// TestHybridProbesAfterAFutileScreening: a study whose first screening
// points land far below the warm start drops the rest of its screening and
// probes the warm start's knobs, a short study and a long one alike.
func TestHybridProbesAfterAFutileScreening(t *testing.T) {
	for _, horizon := range []int{12, 100} {
		t.Run(strconv.Itoa(horizon), func(t *testing.T) { testProbesAfterAFutileScreening(t, horizon) })
	}
}

func testProbesAfterAFutileScreening(t *testing.T, horizon int) {
	sp := testspace.First(t)
	const mib = 1 << 20
	start := space.Config{"innodb_io_capacity": "3000", "innodb_log_file_size": strconv.Itoa(64 * mib), "innodb_buffer_pool_size": strconv.Itoa(1024 * mib)}
	newHybrid := func() *Hybrid {
		return NewHybrid(sp, HybridOptions{Seed: 1, Horizon: horizon, Starts: []space.Config{start}})
	}
	design := len(newHybrid().design)
	// The redo log pays up to 256M; the pool's neighbours and io_capacity's
	// lose.
	m := func(n int) string { return strconv.Itoa(n * mib) }
	redo := map[string]float64{m(64): 1, m(128): 1.1, m(256): 1.15, m(512): 1.12}
	value := func(cfg space.Config) float64 {
		full := search.FullConfig(sp, cfg)
		v := 1000.0
		if full["innodb_buffer_pool_size"] != m(1024) {
			v *= 0.9
		}
		f, ok := redo[full["innodb_log_file_size"]]
		if !ok {
			f = 0.9
		}
		v *= f
		if full["innodb_io_capacity"] != "3000" {
			v *= 0.95
		}
		return v
	}
	// screening runs a study whose screening points score screen,
	// and returns the probes it made in ask proposals and its number of
	// screening points.
	screening := func(screen float64, ask int) (probes []string, screened int) {
		h := newHybrid()
		for _, cfg := range []space.Config{{}, start} {
			if err := h.Observe(cfg, value(cfg)); err != nil {
				t.Fatal(err)
			}
		}
		for range ask {
			p, err := h.Ask(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			v := value(p.Config)
			if p.Kind == search.Screen {
				screened++
				v = screen
			}
			if p.Kind == search.Refine {
				full := search.FullConfig(sp, p.Config)
				probes = append(probes, full["innodb_buffer_pool_size"]+"/"+full["innodb_log_file_size"]+"/"+full["innodb_io_capacity"])
			}
			if err := h.Observe(p.Config, v); err != nil {
				t.Fatal(err)
			}
		}
		return probes, screened
	}
	if _, n := screening(900, design+2); n != design {
		t.Fatalf("screening points near the best: %d screened, want all %d", n, design)
	}
	probes, n := screening(20, 16)
	if n != futileScreen {
		t.Fatalf("screening points far below the best: %d screened, want %d", n, futileScreen)
	}
	// The pool first (the ranking knows nothing yet), a quarter up and a
	// fifth down: both lose.
	if len(probes) < 2 || probes[0] != m(1280)+"/"+m(64)+"/3000" || probes[1] != m(819)+"/"+m(64)+"/3000" {
		t.Fatalf("probes %v, want the pool at 1280M and 819M first", probes)
	}
	// The redo log doubled wins, and the next probes go on along it until
	// a step loses; then the others from the new incumbent.
	i := slices.Index(probes, m(1024)+"/"+m(128)+"/3000")
	if i < 0 || i+2 >= len(probes) || probes[i+1] != m(1024)+"/"+m(256)+"/3000" || probes[i+2] != m(1024)+"/"+m(512)+"/3000" {
		t.Fatalf("probes %v, want the redo log at 128M, 256M, 512M in a row", probes)
	}
	for _, w := range []string{m(1024) + "/" + m(256) + "/6000", m(1024) + "/" + m(256) + "/1500", m(1280) + "/" + m(256) + "/3000"} {
		if !slices.Contains(probes[i+3:], w) {
			t.Fatalf("probes %v, want %s after the redo log's line", probes, w)
		}
	}
}
