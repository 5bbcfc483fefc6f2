package strategy

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	sp := testspace.First(t)
	cfg := space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_method": "fsync", "innodb_doublewrite": "OFF", "innodb_max_dirty_pages_pct": "75.5"}
	got := search.Decode(sp, search.Encode(sp, cfg))
	for n, v := range cfg {
		if got[n] != v {
			t.Errorf("%s: %q after round trip, want %q", n, got[n], v)
		}
	}
	if got["innodb_io_capacity"] != "200" {
		t.Errorf("absent knob: %q, want its default", got["innodb_io_capacity"])
	}
	x := search.Encode(sp, space.Config{"innodb_buffer_pool_size": strconv.Itoa(16 << 30)})
	if x[0] != 1 {
		t.Errorf("the top of a log range encodes to %g, want 1", x[0])
	}
	// Out-of-range coordinates are clamped, choices rounded.
	x[0], x[4] = 1.7, 2.6
	d := search.Decode(sp, x)
	if d["innodb_buffer_pool_size"] != strconv.Itoa(16<<30) || d["innodb_flush_method"] != "O_DIRECT_NO_FSYNC" {
		t.Errorf("decode clamps/rounds: %v", d)
	}
}

// additive returns trials whose score depends strongly on the buffer pool,
// a little on flush_log_at_trx_commit, and on nothing else, with noise.
func additive(n int, seed uint64) []search.Trial {
	sp, err := space.FirstSpace()
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []search.Trial
	for i := 0; i < n; i++ {
		x := make([]float64, len(sp.Knobs()))
		for d, k := range sp.Knobs() {
			if search.IsChoice(k) {
				x[d] = float64(rng.IntN(len(k.Options())))
			} else {
				x[d] = rng.Float64()
			}
		}
		cfg := search.Decode(sp, x)
		y := 500 + 400*math.Min(1, 1.5*x[0])
		if cfg["innodb_flush_log_at_trx_commit"] == "2" {
			y += 60
		}
		y *= 1 + 0.03*rng.NormFloat64()
		out = append(out, search.Trial{Number: i, State: search.Complete, Kind: search.Sampled, Params: cfg, Outcome: measure.Outcome{Score: y}})
	}
	return out
}

func TestImportanceRanksTheKnobsThatMatter(t *testing.T) {
	sp := testspace.First(t)
	trials := additive(40, 1)
	trials = append(trials, search.Trial{State: search.Failed, Params: space.Config{"innodb_doublewrite": "OFF"}})
	imp, err := search.Importance(sp, trials)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp) != len(sp.Knobs()) {
		t.Fatalf("%d knobs, want %d", len(imp), len(sp.Knobs()))
	}
	if imp[0].Knob != "innodb_buffer_pool_size" || imp[1].Knob != "innodb_flush_log_at_trx_commit" {
		t.Fatalf("ranking %v: want the buffer pool, then flush_log_at_trx_commit", imp[:3])
	}
	sum := 0.0
	for i, ki := range imp {
		if ki.Importance < 0 || ki.Importance > 1 || (i > 0 && ki.Importance > imp[i-1].Importance) {
			t.Fatalf("importance %v: want sorted shares in [0, 1]", imp)
		}
		sum += ki.Importance
	}
	if sum > 1+1e-9 || sum < 0.8 {
		t.Fatalf("shares sum to %g: want at most 1, and most of the variance explained here", sum)
	}
	if imp[0].Importance < 0.6 {
		t.Fatalf("buffer pool share %g, want the bulk", imp[0].Importance)
	}
	for _, ki := range imp[2:] {
		if ki.Importance > 0.05 {
			t.Errorf("%s: share %g for a knob that does nothing", ki.Knob, ki.Importance)
		}
	}
}

func TestImportanceEdgeCases(t *testing.T) {
	sp := testspace.First(t)
	if _, err := search.Importance(sp, additive(3, 2)); !errors.Is(err, search.ErrTooFewTrials) {
		t.Fatalf("3 trials: err %v, want ErrTooFewTrials", err)
	}
	flat := additive(10, 3)
	for i := range flat {
		flat[i].Score = 100
	}
	imp, err := search.Importance(sp, flat)
	if err != nil {
		t.Fatal(err)
	}
	for _, ki := range imp {
		if ki.Importance != 0 {
			t.Fatalf("constant score: %v, want all 0", imp)
		}
	}
}

func TestExpertConfig(t *testing.T) {
	sp := testspace.First(t)
	if err := sp.Limit("innodb_buffer_pool_size", 12<<30); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   ExpertInput
		want space.Config
	}{
		{"reference machine", ExpertInput{RAMBytes: 24 << 30, DataBytes: 1100 << 20, FsyncPerSec: 3500},
			space.Config{"innodb_buffer_pool_size": strconv.Itoa(1408 << 20), "innodb_log_file_size": strconv.Itoa(352 << 20), "innodb_io_capacity": "1750"}},
		{"memory budget caps the pool", ExpertInput{RAMBytes: 4 << 30, DataBytes: 10 << 30},
			space.Config{"innodb_buffer_pool_size": strconv.Itoa(2 << 30), "innodb_log_file_size": strconv.Itoa(512 << 20)}},
		// A quarter of the pool (64M) is below the server's 96M redo log:
		// the default is kept.
		{"memory limit: half of it up to 4G", ExpertInput{RAMBytes: 512 << 20, MemoryBudget: 384 << 20, MemoryLimit: 512 << 20, DataBytes: 2 << 30},
			space.Config{"innodb_buffer_pool_size": strconv.Itoa(256 << 20)}},
		{"memory limit: three quarters above 4G, the budget lower", ExpertInput{RAMBytes: 8 << 30, MemoryBudget: 4 << 30, MemoryLimit: 8 << 30, DataBytes: 20 << 30},
			space.Config{"innodb_buffer_pool_size": strconv.Itoa(4 << 30), "innodb_log_file_size": strconv.Itoa(1 << 30)}},
		{"memory limit above the data", ExpertInput{RAMBytes: 4 << 30, MemoryBudget: 3 << 30, MemoryLimit: 4 << 30, DataBytes: 500 << 20},
			space.Config{"innodb_buffer_pool_size": strconv.Itoa(640 << 20), "innodb_log_file_size": strconv.Itoa(160 << 20)}},
		// Half of 50 writes/s is below the server's own 200: kept.
		{"slow disk: io capacity stays at the server's default", ExpertInput{RAMBytes: 24 << 30, FsyncPerSec: 50},
			space.Config{}},
		{"fast disk: io capacity above the default", ExpertInput{RAMBytes: 24 << 30, FsyncPerSec: 3000},
			space.Config{"innodb_io_capacity": "1500"}},
		{"nothing known", ExpertInput{RAMBytes: 24 << 30}, space.Config{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why, err := ExpertConfig(sp, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Key() != tc.want.Key() {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			set := 0
			for _, w := range why {
				if !strings.Contains(w, "(the server's default, kept)") {
					set++
				}
			}
			if set != len(got) {
				t.Fatalf("reasons %v for %d knobs", why, len(got))
			}
		})
	}
}

// runStrategy runs st through a study over the test landscape.
func runStrategy(t *testing.T, st search.Strategy, n int, seed uint64) search.Result {
	t.Helper()
	s := &search.Loop{Name: "s", Strategy: st, Objective: landscape(seed), Store: &search.MemoryStore{}, MaxTrials: n}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCoordinateDescent(t *testing.T) {
	sp := testspace.First(t)
	c := NewCoordinate(sp, CoordinateOptions{})
	res := runStrategy(t, c, 40, 11)
	tr := res.Trials
	// It never proposes a measured configuration: repeats are the study's.
	seen := map[string]bool{}
	for _, t0 := range tr {
		k := search.FullConfig(sp, t0.Params).Key()
		if seen[k] || t0.Kind == search.Repeat {
			t.Fatalf("trial %d (%s) measures a configuration again", t0.Number, t0.Kind)
		}
		seen[k] = true
	}
	// Every step changes exactly one knob of its incumbent; the first ones
	// step the buffer pool along its log scale, ends included.
	var bpLevels []string
	for _, t0 := range tr[1:8] {
		if t0.Kind == search.Coordinate {
			if ch := sp.Changes(t0.Params); len(ch) == 1 && strings.HasPrefix(ch[0], "innodb_buffer_pool_size=") {
				bpLevels = append(bpLevels, ch[0])
			}
		}
	}
	if len(bpLevels) < 3 || bpLevels[0] != "innodb_buffer_pool_size=64M" {
		t.Fatalf("first steps %v: want the buffer pool at its levels from 64M", bpLevels)
	}
	// In 40 trials it adopts the buffer pool change (+70 % in the test
	// landscape, far above its 5 % noise).
	if res.Best.MeanTPS < 1.3*res.Baseline.MeanTPS {
		t.Fatalf("best %.0f vs baseline %.0f tps", res.Best.MeanTPS, res.Baseline.MeanTPS)
	}
	// Replaying the history into a fresh instance gives the same next step.
	c2 := NewCoordinate(sp, CoordinateOptions{})
	for _, o := range c.h.obs {
		_ = c2.Observe(o.cfg, o.value)
	}
	a, _ := c.Ask(context.Background())
	b, _ := c2.Ask(context.Background())
	if a.Config.Key() != b.Config.Key() || a.Kind != b.Kind {
		t.Fatalf("resumed descent proposes %s %v, the running one %s %v", b.Kind, b.Config, a.Kind, a.Config)
	}
}

func TestCoordinateAdoptsAndStepsAroundTheNewIncumbent(t *testing.T) {
	sp := testspace.First(t)
	c := NewCoordinate(sp, CoordinateOptions{Levels: 3})
	// A noise-free objective with a clear best buffer pool (the top level).
	val := func(cfg space.Config) float64 {
		u := search.Encode(sp, cfg)[0]
		return 100 + 100*u
	}
	ctx := context.Background()
	_ = c.Observe(space.Config{}, val(space.Config{}))
	adopted := false
	for i := 0; i < 60; i++ {
		p, err := c.Ask(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A step around the new incumbent: the top pool and one more knob.
		if p.Kind == search.Coordinate && p.Config["innodb_buffer_pool_size"] == strconv.Itoa(16<<30) && len(sp.Changes(p.Config)) == 2 {
			adopted = true
			break
		}
		_ = c.Tell(ctx, p, val(p.Config)+float64(i%2))
	}
	if !adopted {
		t.Fatal("the top buffer pool level was never adopted (no step around it)")
	}
}

func TestHybridPhasesAndValidity(t *testing.T) {
	sp := testspace.First(t)
	if err := sp.Limit("innodb_buffer_pool_size", 3<<30); err != nil {
		t.Fatal(err)
	}
	h := NewHybrid(sp, HybridOptions{Seed: 3, Horizon: 40})
	res := runStrategy(t, h, 40, 12)
	kinds := map[search.Kind]int{}
	for i, tr := range res.Trials {
		kinds[tr.Kind]++
		if _, err := sp.Validate(tr.Params); err != nil {
			t.Fatalf("trial %d invalid: %v", i, err)
		}
		if i >= 1 && i <= 8 && tr.Kind != search.Screen {
			t.Fatalf("trial %d is %s, want the screening design first", i, tr.Kind)
		}
	}
	if kinds[search.Screen] != 8 || kinds[search.Sampled] == 0 || kinds[search.Refine] == 0 {
		t.Fatalf("kinds %v: want 8 screening points, TPE and refinement", kinds)
	}
	if res.Best.MeanTPS < 1.3*res.Baseline.MeanTPS {
		t.Fatalf("best %.0f vs baseline %.0f tps", res.Best.MeanTPS, res.Baseline.MeanTPS)
	}
}

func TestSamplerCapsTheHistoryGoptunaSees(t *testing.T) {
	sp := testspace.First(t)
	st, err := NewTPE(sp, 1)
	if err != nil {
		t.Fatal(err)
	}
	trials := additive(tpeCap+tpeCompactEvery, 4)
	for _, tr := range trials {
		if err := st.Observe(tr.Params, tr.Score); err != nil {
			t.Fatal(err)
		}
	}
	all, err := st.study.GetTrials()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != tpeCap {
		t.Fatalf("goptuna holds %d trials after %d observations, want %d", len(all), len(trials), tpeCap)
	}
	best := math.Inf(-1)
	for _, tr := range trials {
		best = math.Max(best, tr.Score)
	}
	kept := math.Inf(-1)
	for _, tr := range all {
		kept = math.Max(kept, tr.Value)
	}
	if kept != best {
		t.Fatalf("best kept %g, best observed %g: the best must survive the cap", kept, best)
	}
	if _, err := st.Ask(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNewStrategyNames(t *testing.T) {
	sp := testspace.First(t)
	for _, n := range StrategyNames() {
		if _, err := NewStrategy(n, sp, StrategyOptions{Seed: 1}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := NewStrategy("annealing", sp, StrategyOptions{}); err == nil || !strings.Contains(err.Error(), "hybrid, coordinate, tpe, random") {
		t.Fatalf("unknown strategy: %v", err)
	}
}

// TestHybridProposesNoRepairedRepeat: in a study whose Prepare repairs the
// dependent knobs (as a real study's does) and has a Base, no search
// proposal measures a configuration measured
// before. A small buffer pool makes the repair of the redo log common (a
// local step that only raises the log above the pool is measured as its
// incumbent again); in the catalogue's space the repair also leaves knobs
// out (query_cache_size with the cache off, thread_pool_size without the
// pool), which the history holds at their default.
func TestHybridProposesNoRepairedRepeat(t *testing.T) {
	for _, name := range []string{"first", "catalogue", "pinned pool"} {
		sp := testspace.First(t)
		base := space.Config{"innodb_doublewrite": "ON"}
		switch name {
		case "catalogue":
			sp = space.Default()
		case "pinned pool":
			// A space file pins the buffer pool (Base holds it, the
			// strategy never sees it) while the redo log is searched: the
			// repair lowers a log above the pinned pool.
			var ks []space.Knob
			for _, k := range space.Default().Knobs() {
				if k.Name != "innodb_buffer_pool_size" {
					ks = append(ks, k)
				}
			}
			var err error
			if sp, err = space.New(ks); err != nil {
				t.Fatal(err)
			}
			base = base.Merge(space.Config{"innodb_buffer_pool_size": strconv.Itoa(256 << 20)})
		}
		if name != "pinned pool" {
			if err := sp.Limit("innodb_buffer_pool_size", 256<<20); err != nil {
				t.Fatal(err)
			}
		}
		repeats, repaired := 0, 0
		for seed := uint64(1); seed <= 3; seed++ {
			shape := search.Shape{Space: sp, Base: base}
			h := NewHybrid(sp, HybridOptions{Seed: int64(seed), Horizon: 80, Shape: shape})
			s := &search.Loop{Name: "s", Strategy: repairCounter{h, shape, &repaired}, Objective: landscape(seed), Store: &search.MemoryStore{}, MaxTrials: 80,
				Base: base, Space: sp}
			res, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, tr := range res.Trials {
				key := tr.Params.Key()
				if first, ok := seen[key]; ok && (tr.Kind == search.Screen || tr.Kind == search.Sampled || tr.Kind == search.Refine) {
					repeats++
					t.Errorf("%s space, seed %d: trial %d (%s) measures trial %d's configuration again", name, seed, tr.Number, tr.Kind, first)
				}
				if _, ok := seen[key]; !ok {
					seen[key] = tr.Number
				}
			}
		}
		if repaired == 0 {
			t.Fatalf("%s space: no proposal was repaired: the test does not exercise the repair", name)
		}
		t.Logf("%s space: %d repairs, %d repeats", name, repaired, repeats)
	}
}

// TestHybridPhasesFromAReplayedHistory: a worker asks a fresh hybrid for
// one proposal after replaying the study's trials (Worker.choose), so the
// hybrid's alternation (TPE every other proposal) must follow the history, not the proposals this instance made.
// The test plays a worker: 40 random trials, then 60 trials each proposed
// by a fresh instance that replayed all before it.
func TestHybridPhasesFromAReplayedHistory(t *testing.T) {
	sp := testspace.First(t)
	rng := rand.New(rand.NewPCG(5, 5))
	f := func(cfg space.Config) float64 { return 500 + 400*search.Encode(sp, cfg)[0] + 50*rng.NormFloat64() }
	var cfgs []space.Config
	var ys []float64
	for i := 0; i < 40; i++ {
		x := make([]float64, len(sp.Knobs()))
		for d := range x {
			x[d] = rng.Float64()
		}
		cfgs = append(cfgs, search.Decode(sp, x))
		ys = append(ys, f(cfgs[i]))
	}
	kinds := map[search.Kind]int{}
	for n := 40; n < 100; n++ {
		h := NewHybrid(sp, HybridOptions{Seed: int64(n), Horizon: 100})
		for i := range cfgs {
			if err := h.Observe(cfgs[i], ys[i]); err != nil {
				t.Fatal(err)
			}
		}
		p, err := h.Ask(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		kinds[p.Kind]++
		cfgs = append(cfgs, p.Config)
		ys = append(ys, f(p.Config))
	}
	t.Logf("kinds of 60 one-shot proposals: %v", kinds)
	// TPE on about half the proposals, local steps on the others, and
	// no repeat: re-measurements are the study's.
	if kinds[search.Sampled] < 15 || kinds[search.Refine] < 8 || kinds[search.Repeat] > 0 {
		t.Fatalf("kinds of 60 one-shot proposals %v: want TPE and local steps, no repeat", kinds)
	}
}

// TestHistoryFindsARepairedProposal: the history holds what a study
// measured (the repaired configuration); a proposal the repair turns into
// it is found by measured and stats (coordinate descent adopts a step by
// its stats), and a configuration the repair leaves alone is not.
func TestHistoryFindsARepairedProposal(t *testing.T) {
	sp := space.Default()
	h := newHistory(sp, search.Shape{})
	raw := space.Config{"innodb_io_capacity": "4000", "innodb_io_capacity_max": "2000", "query_cache_type": "OFF", "query_cache_size": "67108864"}
	rep, notes := sp.Repair(search.FullConfig(sp, raw))
	if len(notes) < 2 {
		t.Fatalf("repair notes %v: want io_capacity_max raised and query_cache_size left out", notes)
	}
	h.add(rep, 700)
	if m, n := h.stats(raw); n != 1 || m != 700 || !h.measured(raw) {
		t.Fatalf("stats of the raw proposal: mean %g over %d, measured %v; want 700 over 1", m, n, h.measured(raw))
	}
	other := space.Config{"innodb_io_capacity": "4000", "innodb_io_capacity_max": "5000"}
	if _, n := h.stats(other); n != 0 || h.measured(other) {
		t.Fatal("a configuration the repair does not turn into the measured one counts as measured")
	}
}

// TestCoordinateStartsFromABaselineCnf: with a baseline my.cnf (Base) the
// descent starts from the baseline as measured, not from the defaults.
func TestCoordinateStartsFromABaselineCnf(t *testing.T) {
	sp := space.Default()
	base := space.Config{"innodb_buffer_pool_size": strconv.Itoa(1 << 30), "innodb_flush_log_at_trx_commit": "2"}
	s := &search.Loop{Name: "s", Strategy: NewCoordinate(sp, CoordinateOptions{Shape: search.Shape{Space: sp, Base: base}}), Objective: landscape(5), Store: &search.MemoryStore{}, MaxTrials: 2,
		Base: base, Space: sp}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 2 {
		t.Fatalf("%d trials, want 2", len(res.Trials))
	}
	// Its first step moves one knob of the baseline as measured (the
	// pool and the flush policy of Base), not of the defaults.
	got, want := res.Trials[1].Params, res.Trials[0].Params
	moved := 0
	for _, k := range sp.Knobs() {
		if search.FullConfig(sp, got)[k.Name] != search.FullConfig(sp, want)[k.Name] {
			moved++
		}
	}
	if moved != 1 || res.Trials[1].Kind != search.Coordinate {
		t.Errorf("the descent's first trial measures %s (%s), want one knob of the baseline's %s moved", got.Key(), res.Trials[1].Kind, want.Key())
	}
}

// TestReplayedHybridCountsLocalStepsAsAStudy: an observation counts as a
// local step only in a local step's place (an even proposal), so a
// worker's fresh instance that replayed n trials re-measures the centre
// on one local step in four, as a study does (counting every observation,
// the next local step was a centre repeat on every other proposal).
func TestReplayedHybridCountsLocalStepsAsAStudy(t *testing.T) {
	sp := testspace.First(t)
	rng := rand.New(rand.NewPCG(7, 7))
	h := NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 100})
	repeats, steps := 0, 0
	for n := 1; n <= 80; n++ {
		x := make([]float64, len(sp.Knobs()))
		for d := range x {
			x[d] = rng.Float64()
		}
		if err := h.Observe(search.Decode(sp, x), 500+100*rng.Float64()); err != nil {
			t.Fatal(err)
		}
		if h.localAsked != n/2 {
			t.Fatalf("after %d observations localAsked = %d; want %d", n, h.localAsked, n/2)
		}
		if (n+1)%2 == 0 { // the next Ask is a local step's place
			steps++
			if (h.localAsked+1)%4 == 0 {
				repeats++
			}
		}
	}
	if repeats*4 != steps {
		t.Errorf("the centre's repeat falls on %d of %d local steps; want a quarter", repeats, steps)
	}
}

// repairCounter counts the repairs the study makes to its strategy's
// proposals (as Shape.Of does: Base under them, then the repair).
type repairCounter struct {
	search.Strategy
	shape search.Shape
	n     *int
}

func (r repairCounter) Ask(ctx context.Context) (search.Proposal, error) {
	p, err := r.Strategy.Ask(ctx)
	_, notes := r.shape.Space.Repair(r.shape.Base.Merge(p.Config))
	*r.n += len(notes)
	return p, err
}

func TestSamplerProposalsAreValid(t *testing.T) {
	sp := testspace.First(t)
	if err := sp.Limit("innodb_buffer_pool_size", 3<<30); err != nil {
		t.Fatal(err)
	}
	for _, mk := range []func(*space.Space, int64) (*Sampler, error){NewTPE, NewRandom} {
		st, err := mk(sp, 42)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 40; i++ {
			p, err := st.Ask(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sp.Validate(p.Config); err != nil {
				t.Fatalf("proposal %d invalid: %v", i, err)
			}
			if err := st.Tell(context.Background(), p, float64(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
