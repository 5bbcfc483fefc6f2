// goptuna's TPE draws from the global math/rand (internal/random), which
// Go seeds randomly: randseednop=0 lets the comparison test seed it, so
// that test is deterministic.
//
//go:debug randseednop=0
package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// TestHybridNotWorseThanTPE is the short comparison CI runs: on the
// synthetic database landscape, over 40 seeds of 100 trials without the
// warm start and with a study's default re-measurement policy (--confirm
// 2, which every strategy goes through), the hybrid's median number of trials to reach 90 % of the
// best known score must not be worse than plain TPE's (goptuna) nor random
// search's, and it must reach 95 % in at least as many runs. goptuna's TPE
// is made deterministic by seeding the global math/rand it uses (and
// running one at a time), so the test cannot flake; it fails when a change
// makes the hybrid lose. The full table comes from `autotune-lab bench-search`.
func TestHybridNotWorseThanTPE(t *testing.T) {
	l, err := NewSynthetic(0)
	if err != nil {
		t.Fatal(err)
	}
	mrand.Seed(1) //nolint:staticcheck // goptuna's internal draws; see the go:debug line
	o := Options{Strategies: []string{"hybrid", "tpe", "random"}, Seeds: 40, Trials: 100, Warm: []bool{false}, Parallel: 1, Confirm: 2}
	runs, err := Compare(context.Background(), l, o)
	if err != nil {
		t.Fatal(err)
	}
	rows := Summarise(runs, l.Best(), o)
	var b bytes.Buffer
	_ = WriteTable(&b, l, l.Best(), rows, o)
	t.Log("\n" + b.String())
	by := map[string]Row{}
	for _, r := range rows {
		by[r.Strategy] = r
	}
	h := by["hybrid"]
	for _, other := range []string{"tpe", "random"} {
		o := by[other]
		if h.To90[1] > o.To90[1] || h.Reached95 < o.Reached95 {
			t.Errorf("hybrid vs %s: median trials to 90 %% %v vs %v, runs reaching 95 %% %d vs %d: the hybrid must not be worse",
				other, h.To90[1], o.To90[1], h.Reached95, o.Reached95)
		}
	}
}

func TestSyntheticLandscape(t *testing.T) {
	l, err := NewSynthetic(0)
	if err != nil {
		t.Fatal(err)
	}
	base, ok := l.True(space.Config{})
	if !ok || base != 500 {
		t.Fatalf("baseline %g, %v: want 500 tps", base, ok)
	}
	// Measured facts: the pool that holds the data gives +56 %.
	bp, _ := l.True(space.Config{"innodb_buffer_pool_size": "4294967296"})
	if math.Abs(bp/base-1.56) > 0.01 {
		t.Fatalf("4G pool: %.3f × baseline, want 1.56", bp/base)
	}
	if _, ok := l.True(space.Config{"innodb_flush_method": "O_DSYNC", "innodb_log_buffer_size": "2097152"}); ok {
		t.Fatal("O_DSYNC with a 2M log buffer must crash")
	}
	if l.Best() < 1.9*base || l.Best() > 2.3*base {
		t.Fatalf("best known %g: want about twice the baseline", l.Best())
	}
	exp, ok := l.True(l.Expert())
	if !ok || exp < 1.5*base {
		t.Fatalf("expert warm start %g: want the pool that holds the data", exp)
	}
	// Noise: 10 % relative.
	rng := rand.New(rand.NewPCG(1, 1))
	var xs []float64
	for i := 0; i < 2000; i++ {
		v, _, _ := l.Measure(context.Background(), space.Config{}, rng)
		xs = append(xs, v/base-1)
	}
	sd := 0.0
	for _, x := range xs {
		sd += x * x
	}
	if sd = math.Sqrt(sd / float64(len(xs))); math.Abs(sd-0.10) > 0.01 {
		t.Fatalf("noise %.3f, want 0.10", sd)
	}
	wide, err := NewSynthetic(24)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(wide.Space().Knobs()); n != 36 {
		t.Fatalf("wide landscape has %d knobs, want 36", n)
	}
}

func TestTrialsToAndQuartiles(t *testing.T) {
	r := Run{Inc: []float64{math.NaN(), 50, 91, 96}}
	for _, tc := range []struct {
		frac, want float64
	}{{0.5, 2}, {0.9, 3}, {0.95, 4}, {0.99, math.Inf(1)}} {
		if got := TrialsTo(r, tc.frac, 100); got != tc.want {
			t.Errorf("TrialsTo(%g) = %g, want %g", tc.frac, got, tc.want)
		}
	}
	q1, m, q3 := Quartiles([]float64{4, 1, 3, 2, 5})
	if q1 != 2 || m != 3 || q3 != 4 {
		t.Errorf("quartiles %g %g %g, want 2 3 4", q1, m, q3)
	}
	q1, m, q3 = Quartiles([]float64{1, 2, math.Inf(1), math.Inf(1), math.Inf(1)})
	if q1 != 2 || !math.IsInf(m, 1) || !math.IsInf(q3, 1) {
		t.Errorf("censored quartiles %g %g %g, want 2 +Inf +Inf", q1, m, q3)
	}
}

func TestCommandLandscape(t *testing.T) {
	dir := t.TempDir()
	sp := firstSpaceH(t)
	in := filepath.Join(dir, "in.json")
	c := &Command{Cmd: "cat > " + in + "; echo 42.5", Sp: sp}
	v, failed, err := c.Measure(context.Background(), space.Config{"innodb_buffer_pool_size": "1073741824"}, nil)
	if err != nil || failed || v != 42.5 {
		t.Fatalf("Measure = %g, %v, %v", v, failed, err)
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin %s: %v", b, err)
	}
	if got["innodb_buffer_pool_size"] != float64(1<<30) || got["innodb_doublewrite"] != "ON" || len(got) != len(sp.Knobs()) {
		t.Fatalf("stdin %s: want every knob, numbers as numbers", b)
	}
	for _, tc := range []struct {
		cmd     string
		failed  bool
		errText string
	}{
		{"exit 3", true, ""},
		{"echo nan", true, ""},
		{"echo fast", false, `printed "fast"`},
	} {
		c := &Command{Cmd: tc.cmd, Sp: sp}
		_, failed, err := c.Measure(context.Background(), space.Config{}, nil)
		if failed != tc.failed || (tc.errText == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errText)) {
			t.Errorf("%q: failed %v, err %v", tc.cmd, failed, err)
		}
	}
	// A command that leaves a child holding its output: its number counts
	// (the wait for the output ends 5 s after it exits), and a cancel ends
	// the whole group at once.
	pidFile := filepath.Join(dir, "child.pid")
	c = &Command{Cmd: "sleep 30 & echo $! > " + pidFile + "; echo 9", Sp: sp}
	t0 := time.Now()
	if v, failed, err := c.Measure(context.Background(), space.Config{}, nil); err != nil || failed || v != 9 || time.Since(t0) > 15*time.Second {
		t.Errorf("a command that leaves a child: %g, %v, %v after %s", v, failed, err, time.Since(t0))
	}
	if b, err := os.ReadFile(pidFile); err != nil {
		t.Error(err)
	} else {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		for deadline := time.Now().Add(5 * time.Second); pid > 0 && processAlive(pid) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if pid <= 0 || processAlive(pid) {
			t.Errorf("the child %s it left is still running", b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c = &Command{Cmd: "(sleep 30) & sleep 30; echo 1", Sp: sp}
	t0 = time.Now()
	// Without the group kill, its background sleep would hold the output
	// until WaitDelay (5 s).
	if _, _, err := c.Measure(ctx, space.Config{}, nil); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 3*time.Second {
		t.Errorf("cancelled: %v after %s, want the context's error at once", err, time.Since(t0))
	}
	// A whole comparison through a command (best known: the best seen).
	c = &Command{Cmd: `read x; echo 7`, Sp: sp, ExpertCfg: space.Config{}}
	runs, err := Compare(context.Background(), c, Options{Strategies: []string{"random"}, Seeds: 1, Trials: 3, Warm: []bool{false}})
	if err != nil || len(runs) != 1 || len(runs[0].Inc) != 3 || BestSeen(runs) != 7 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
}

func TestFittedLandscape(t *testing.T) {
	// Fit to 60 trials of the synthetic landscape: the fit must rank
	// configurations like the landscape it was fitted to.
	syn, err := NewSynthetic(0)
	if err != nil {
		t.Fatal(err)
	}
	sp := syn.Space()
	rng := rand.New(rand.NewPCG(5, 5))
	trials := randomTrials(syn, 60, rng)
	f := fitTrials(t, sp, trials)
	small, _ := f.True(space.Config{"innodb_buffer_pool_size": "67108864"})
	big, _ := f.True(space.Config{"innodb_buffer_pool_size": "4294967296"})
	if big < 1.1*small {
		t.Fatalf("fitted: 4G pool %.0f vs 64M %.0f: the fit lost the buffer pool effect", big, small)
	}
	if f.Best() < big || f.Noise() < 0.03 {
		t.Fatalf("best %g, noise %g", f.Best(), f.Noise())
	}
	if _, ok := f.True(f.Expert()); !ok || f.Expert()["innodb_buffer_pool_size"] == "" {
		t.Fatalf("expert %v", f.Expert())
	}
	if _, err := NewFitted(FitInput{Name: "few", Space: sp, Trials: trials[:5]}); err == nil {
		t.Fatal("5 trials must be too few to fit")
	}
}

// TestImportanceOnASyntheticStudy checks search.Importance where the truth
// is known: after 80 uniformly random trials of the synthetic landscape
// (with 6 extra knobs that do nothing or 1 %) the buffer pool (+56 %) must
// rank first and no extra knob may be in the top 3.
func TestImportanceOnASyntheticStudy(t *testing.T) {
	l, err := NewSynthetic(6)
	if err != nil {
		t.Fatal(err)
	}
	sp := l.Space()
	rng := rand.New(rand.NewPCG(3, 3))
	var trials []search.Trial
	for i := 0; i < 80; i++ {
		x := make([]float64, len(sp.Knobs()))
		for d, k := range sp.Knobs() {
			if k.Kind == space.Enum || k.Kind == space.Bool {
				x[d] = float64(rng.IntN(len(k.Options())))
			} else {
				x[d] = rng.Float64()
			}
		}
		cfg := search.Decode(sp, x)
		v, failed, _ := l.Measure(context.Background(), cfg, rng)
		tr := search.Trial{Number: i, State: search.Complete, Params: cfg, Outcome: measure.Outcome{Score: v}}
		if failed {
			tr.State = search.Failed
		}
		trials = append(trials, tr)
	}
	imp, err := search.Importance(sp, trials)
	if err != nil {
		t.Fatal(err)
	}
	if imp[0].Knob != "innodb_buffer_pool_size" {
		t.Fatalf("ranking %v: want the buffer pool first", imp[:4])
	}
	for _, ki := range imp[:3] {
		if strings.HasPrefix(ki.Knob, "extra_") {
			t.Fatalf("ranking %v: a knob that does nothing in the top 3", imp[:4])
		}
	}
	t.Logf("importance: %v", imp[:5])
}

func firstSpaceH(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.FirstSpace()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestFittedLandscapeCarriesMainEffects fits 100 uniformly random trials
// of the host landscape (34 knobs, many small effects that add up, 6 %
// noise, no repeats) and requires the fit to rank 300 other random
// configurations like the landscape does: Kendall's tau at least 0.72
// (0.78–0.80 on seeds 1–3). The kernel without the additive part explains
// the noise as peaks (fitted noise 3.1–3.4 % against the true 6 %) and
// ranks worse: tau 0.59–0.65.
func TestFittedLandscapeCarriesMainEffects(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		l, err := NewHost()
		if err != nil {
			t.Fatal(err)
		}
		sp := l.Space()
		rng := rand.New(rand.NewPCG(seed, 11))
		trials := randomTrials(l, 100, rng)
		f := fitTrials(t, sp, trials)
		tau := fitRanking(l, f, 300, rng)
		t.Logf("seed %d: tau %.2f, %s", seed, tau, f.Describe())
		if tau < 0.72 {
			t.Errorf("seed %d: Kendall tau %.2f between the fit and the landscape, want at least 0.72: %s", seed, tau, f.Describe())
		}
	}
}

// TestBuiltinFittedLandscape loads the embedded fixtures and the fitted
// landscapes built on them: each fixture must be what FitFixture.Write
// writes for it (read, written again, byte for byte); each fitted
// landscape must be among LandscapeNames, hold more measured search
// trials than the space has knobs (not thin), take its warm start from
// its study's expert trial, and have an optimum above it; every fixture
// must have a landscape.
func TestBuiltinFittedLandscape(t *testing.T) {
	files, err := fits.ReadDir("fits")
	if err != nil {
		t.Fatal(err)
	}
	experts := map[string]space.Config{}
	for _, e := range files {
		raw, err := fits.ReadFile("fits/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var fix FitFixture
		if err := json.Unmarshal(raw, &fix); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := fix.Write(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), raw) {
			t.Fatalf("fits/%s is not what FitFixture.Write writes for it", e.Name())
		}
		for _, tr := range fix.Trials {
			if tr.Kind == search.Expert {
				experts[e.Name()] = tr.Params
				break
			}
		}
	}
	used := map[string]bool{}
	for name, file := range fittedFixtures {
		used[file] = true
		if !slices.Contains(LandscapeNames(), name) {
			t.Errorf("fitted landscape %s is not among LandscapeNames", name)
		}
		l, err := NewLandscape(name)
		if err != nil {
			t.Fatal(err)
		}
		f := l.(*Fitted)
		if len(f.xs) < len(f.nChoices) {
			t.Fatalf("%s: thin fit: %s", name, f.Describe())
		}
		if expert := experts[file]; expert == nil || f.Expert().Key() != expert.Key() {
			t.Fatalf("%s: warm start %v, the expert trial of %s %v", name, f.Expert(), file, expert)
		}
		if v, ok := f.True(f.Expert()); !ok || v >= f.Best() {
			t.Fatalf("%s: warm start %.1f (ok %v), best %.1f", name, v, ok, f.Best())
		}
		t.Logf("%s: %s", name, f.Describe())
	}
	for file := range experts {
		if !used[file] {
			t.Errorf("fits/%s: no fitted landscape is fitted to it (fittedFixtures)", file)
		}
	}
}

// TestFittedLandscapeLearnsFromPrunedTrials fits 100 random trials of the
// host landscape of which the worst 60 % by measured score were pruned,
// as a study that prunes leaves them (state pruned, scored on the partial
// window), and requires the fit to rank 300 other random configurations
// like the landscape does: Kendall's tau at least 0.6 (0.74 and 0.77 on
// seeds 1–2). A fit to the complete trials alone knows nothing of the bad
// regions and ranks them like the good ones it saw: tau 0.24 and 0.00.
func TestFittedLandscapeLearnsFromPrunedTrials(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		l, err := NewHost()
		if err != nil {
			t.Fatal(err)
		}
		sp := l.Space()
		rng := rand.New(rand.NewPCG(seed, 13))
		trials := randomTrials(l, 100, rng)
		var scores []float64
		for _, tr := range trials {
			if tr.State == search.Complete {
				scores = append(scores, tr.Score)
			}
		}
		sort.Float64s(scores)
		cut := scores[len(scores)*6/10]
		for i := range trials {
			if trials[i].State == search.Complete && trials[i].Score < cut {
				trials[i].State = search.Pruned
			}
		}
		f := fitTrials(t, sp, trials)
		tau := fitRanking(l, f, 300, rng)
		t.Logf("seed %d: tau %.2f, %s", seed, tau, f.Describe())
		if tau < 0.6 {
			t.Errorf("seed %d: Kendall tau %.2f between the fit and the landscape, want at least 0.6: %s", seed, tau, f.Describe())
		}
	}
}

// TestFittedNoiseFromCompleteRuns: the measurement noise of a fit comes
// from repeated configurations' complete runs; a pruned run of the same
// configuration (a partial window, stopped because it was low) is fitted
// but does not count as a repeat.
func TestFittedNoiseFromCompleteRuns(t *testing.T) {
	l, err := NewHost()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	trials := randomTrials(l, 30, rng)
	cfg := l.Expert()
	for i, s := range []struct {
		state search.State
		score float64
	}{{search.Complete, 1000}, {search.Complete, 1010}, {search.Complete, 1005}, {search.Pruned, 300}} {
		trials = append(trials, search.Trial{Number: 100 + i, Kind: search.Repeat, Params: cfg, State: s.state, Outcome: measure.Outcome{Score: s.score}})
	}
	f := fitTrials(t, l.Space(), trials)
	if f.Noise() > 0.031 {
		t.Fatalf("noise %.3f, want 0.03 (the floor: the three complete runs are within 1 %%)", f.Noise())
	}
}

// fitTrials fits trials over sp as a study of 8 × 500000 sysbench rows
// on a 24 GiB host would be fitted, failing the test when NewFitted does.
func fitTrials(t *testing.T, sp *space.Space, trials []search.Trial) *Fitted {
	t.Helper()
	f, err := NewFitted(FitInput{Name: "fit", Space: sp, Trials: trials, Settings: `{"tables":8,"table_size":500000}`, RAMBytes: 24 << 30})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fitRanking returns Kendall's tau between the noise-free scores of l and
// those of its fit f over n uniformly random configurations where neither
// crashes.
func fitRanking(l Landscape, f *Fitted, n int, rng *rand.Rand) float64 {
	sp := l.Space()
	var truth, fit []float64
	for len(truth) < n {
		cfg := search.Decode(sp, randomPoint(rng, sp.Knobs()))
		tv, ok1 := l.True(cfg)
		fv, ok2 := f.True(cfg)
		if ok1 && ok2 {
			truth, fit = append(truth, tv), append(fit, fv)
		}
	}
	return stat.Kendall(truth, fit, nil)
}

// randomTrials measures n uniformly random configurations of l (see
// randomPoint), as the search trials of a study: failed where l crashes.
func randomTrials(l Landscape, n int, rng *rand.Rand) []search.Trial {
	sp := l.Space()
	var trials []search.Trial
	for i := 0; i < n; i++ {
		cfg := search.Decode(sp, randomPoint(rng, sp.Knobs()))
		v, failed, _ := l.Measure(context.Background(), cfg, rng)
		tr := search.Trial{Number: i, Kind: search.Sampled, Params: cfg, State: search.Complete, Outcome: measure.Outcome{Score: v}}
		if failed {
			tr.State = search.Failed
		}
		trials = append(trials, tr)
	}
	return trials
}

func TestRunsToTell(t *testing.T) {
	const z = 1.6448536269514722 + 0.8416212335729143 // z₀.₉₅ + z₀.₈₀
	for _, c := range []struct {
		name       string
		a, b, n    float64
		want       float64
		inf, isNaN bool
	}{
		{name: "12 % noise, 1.5 % gap", a: 101.5, b: 100, n: 0.12, want: 2 * z * z * 0.0144 / (math.Log(1.015) * math.Log(1.015))},
		{name: "scale free", a: 1.015, b: 1, n: 0.12, want: 2 * z * z * 0.0144 / (math.Log(1.015) * math.Log(1.015))},
		{name: "twice the noise, four times the runs", a: 101.5, b: 100, n: 0.24, want: 4 * 2 * z * z * 0.0144 / (math.Log(1.015) * math.Log(1.015))},
		{name: "a gap of e", a: math.E, b: 1, n: 1, want: 2 * z * z},
		{name: "equal", a: 1, b: 1, n: 0.1, inf: true},
		{name: "worse", a: 0.9, b: 1, n: 0.1, inf: true},
		{name: "no noise", a: 2, b: 1, n: 0, isNaN: true},
		{name: "zero score", a: 2, b: 0, n: 0.1, isNaN: true},
	} {
		got := RunsToTell(c.a, c.b, c.n)
		switch {
		case c.inf && !math.IsInf(got, 1), c.isNaN && !math.IsNaN(got):
			t.Errorf("%s: %g", c.name, got)
		case !c.inf && !c.isNaN && math.Abs(got-c.want) > 1e-9*c.want:
			t.Errorf("%s: %g, want %g", c.name, got, c.want)
		}
	}
	// The figure the harness prints for a 1.5 % gap at 12 % noise.
	if got := math.Ceil(RunsToTell(1.015, 1, 0.12)); got != 804 {
		t.Errorf("1.5 %% at 12 %%: %g runs, want 804", got)
	}
}

// twoKnobs is a Landscape over the host space whose score rises by 10 %
// of the base along each of two numeric knobs' unit coordinate
// (the warm start has both at 0.5: 110; the best both at 1: 120; the best
// change of one knob one of them at 1: 115), by choiceGain when a choice
// knob takes its last choice, and that crashes at the choice before the
// last one.
type twoKnobs struct {
	sp         *space.Space
	a, b, c    int
	choiceGain float64
	// crashBoth makes the landscape crash where both numeric knobs are
	// above 0.9 (each alone is fine there).
	crashBoth bool
}

func newTwoKnobs(t *testing.T, choiceGain float64) *twoKnobs {
	sp, err := HostSpace(HostInput{})
	if err != nil {
		t.Fatal(err)
	}
	l := &twoKnobs{sp: sp, a: -1, b: -1, c: -1, choiceGain: choiceGain}
	// Knobs no rule of space.Repair touches.
	for i, k := range sp.Knobs() {
		switch k.Name {
		case "innodb_purge_threads":
			l.a = i
		case "innodb_read_io_threads":
			l.b = i
		case "innodb_change_buffering":
			l.c = i
		}
	}
	if l.a < 0 || l.b < 0 || l.c < 0 {
		t.Fatal("the host space lacks innodb_purge_threads, innodb_read_io_threads or innodb_change_buffering")
	}
	return l
}

func (l *twoKnobs) Name() string        { return "two knobs" }
func (l *twoKnobs) Space() *space.Space { return l.sp }
func (l *twoKnobs) Best() float64       { return 120 + 100*l.choiceGain }
func (l *twoKnobs) Noise() float64      { return 0.1 }
func (l *twoKnobs) Expert() space.Config {
	x := search.Encode(l.sp, space.Config{})
	x[l.a], x[l.b], x[l.c] = 0.5, 0.5, 0
	return search.Decode(l.sp, x)
}
func (l *twoKnobs) True(cfg space.Config) (float64, bool) {
	x := search.Encode(l.sp, cfg)
	last := float64(len(l.sp.Knobs()[l.c].Options()) - 1)
	if x[l.c] == last-1 || (l.crashBoth && x[l.a] > 0.9 && x[l.b] > 0.9) {
		return 0, false
	}
	v := 100 * (1 + 0.1*x[l.a] + 0.1*x[l.b])
	if x[l.c] == last {
		v += 100 * l.choiceGain
	}
	return v, true
}
func (l *twoKnobs) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return noisy(l.True, l.Noise(), cfg, rng)
}

func TestWarmStartRunsToTell(t *testing.T) {
	for _, c := range []struct {
		name       string
		choiceGain float64
		crashBoth  bool
		// wantStep is the best one-knob change's score given the warm
		// start's coordinates of the two numeric knobs (0.5 rounded to
		// the knobs' steps) and its score; wantTogether every knob's best
		// change at once.
		wantStep, wantTogether func(xa, xb, warm float64) float64
	}{
		// One of the two numeric knobs to its end, not both; both at
		// once reach the best (the landscape is additive).
		{"numeric", 0, false, func(xa, xb, warm float64) float64 { return 100 * (1.1 + 0.1*math.Max(xa, xb)) },
			func(xa, xb, warm float64) float64 { return 120 }},
		// The choice, worth more than a numeric knob's end; with the
		// numeric knobs' ends, the best.
		{"choice", 0.3, false, func(xa, xb, warm float64) float64 { return warm + 30 },
			func(xa, xb, warm float64) float64 { return 150 }},
		// Both numeric knobs at their ends crash: the second numeric
		// change (in the order of the gains) is left out, and the
		// choice's smaller gain still made.
		{"crash together", 0.03, true, func(xa, xb, warm float64) float64 { return 100 * (1.1 + 0.1*math.Max(xa, xb)) },
			func(xa, xb, warm float64) float64 { return 100*(1.1+0.1*math.Max(xa, xb)) + 3 }},
	} {
		l := newTwoKnobs(t, c.choiceGain)
		l.crashBoth = c.crashBoth
		warm, ok := l.True(l.Expert())
		if !ok || math.Abs(warm-110) > 0.5 {
			t.Fatalf("%s: warm start %g, want 110 (its knobs at their midpoints)", c.name, warm)
		}
		x := search.Encode(l.sp, l.Expert())
		step := c.wantStep(x[l.a], x[l.b], warm)
		ws, ok, err := WarmStartShares(l, l.Best(), Options{Seeds: 1})
		if err != nil || !ok {
			t.Fatalf("%s: WarmStartShares: ok %v, %v", c.name, ok, err)
		}
		if want := step / l.Best(); math.Abs(ws.Step[1]-want) > 1e-9 {
			t.Errorf("%s: best one-knob change at %.6f of best, want %.6f", c.name, ws.Step[1], want)
		}
		if want := RunsToTell(l.Best(), warm, 0.1); ws.Runs[1] != want {
			t.Errorf("%s: runs to tell the best: %g, want %g", c.name, ws.Runs[1], want)
		}
		if want := RunsToTell(step, warm, 0.1); math.Abs(ws.StepRuns[1]-want) > 1e-9*want || ws.StepRuns[1] <= ws.Runs[1] {
			t.Errorf("%s: runs to tell the one-knob change: %g, want %g (more than the best's %g)", c.name, ws.StepRuns[1], want, ws.Runs[1])
		}
		together := c.wantTogether(x[l.a], x[l.b], warm)
		if want := together / l.Best(); math.Abs(ws.Together[1]-want) > 1e-9 {
			t.Errorf("%s: every knob's best change at once at %.6f of best, want %.6f", c.name, ws.Together[1], want)
		}
		if want := RunsToTell(together, warm, 0.1); math.Abs(ws.TogetherRuns[1]-want) > 1e-9*want {
			t.Errorf("%s: runs to tell every knob's best change at once: %g, want %g", c.name, ws.TogetherRuns[1], want)
		}
		var b bytes.Buffer
		if err := WriteWarmStart(&b, ws); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("the best, %.0f; the best change of one knob (%.1f %% of best), %.0f; every knob's best change at once (%.1f %%), %.0f\n",
			math.Ceil(ws.Runs[1]), 100*ws.Step[1], math.Ceil(ws.StepRuns[1]), 100*ws.Together[1], math.Ceil(ws.TogetherRuns[1]))
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: warm-start lines %q: want %q", c.name, b.String(), want)
		}
	}
	// A landscape that does not know its noise: no runs, and no line.
	quiet := struct{ Landscape }{newTwoKnobs(t, 0)}
	ws, ok, err := WarmStartShares(quiet, quiet.Best(), Options{Seeds: 1})
	if err != nil || !ok || !math.IsNaN(ws.Runs[1]) || !math.IsNaN(ws.StepRuns[1]) {
		t.Fatalf("without noise: %+v, ok %v, %v; want NaN runs", ws, ok, err)
	}
	var b bytes.Buffer
	if err := WriteWarmStart(&b, ws); err != nil || strings.Contains(b.String(), "runs of each") {
		t.Errorf("without noise: %q, %v; want no runs", b.String(), err)
	}
}

// optimum polishes the first start even when other points fill its best
// five: here a plateau at 1.05 (a twelfth of the space, on two choices)
// holds the random points' best, while the warm start (1.0, two changes
// off the plateau) is one step of one knob from the peak (1.2).
func TestOptimumPolishesTheWarmStart(t *testing.T) {
	l := newTwoKnobs(t, 0)
	sp := l.sp
	x0 := search.Encode(sp, l.Expert())
	h := -1
	for i, k := range sp.Knobs() {
		if k.Name == "innodb_adaptive_hash_index" {
			h = i
		}
	}
	if h < 0 || x0[l.c] == 1 || x0[h] == 1 {
		t.Fatalf("host space: innodb_adaptive_hash_index at %d; the warm start at %v, %v: want it off the plateau by two knobs", h, x0[l.c], x0[h])
	}
	f := func(cfg space.Config) (float64, bool) {
		x := search.Encode(sp, cfg)
		if x[l.c] == 1 && x[h] == 1 {
			return 1.05, true
		}
		d2 := 0.0
		for i := range x {
			want := x0[i]
			if i == l.a {
				want = 0.9
			}
			d2 += (x[i] - want) * (x[i] - want)
		}
		return 1.2 * math.Exp(-d2/(2*0.66*0.66)), true
	}
	warm, _ := f(l.Expert())
	if warm < 1 || warm > 1.05 {
		t.Fatalf("warm start %g: want 1 to 1.05, below the plateau", warm)
	}
	cfg, best := optimum(sp, f, 200, 1, l.Expert())
	if v, _ := f(cfg); best < 1.19 || v != best {
		t.Errorf("optimum %g (its configuration scores %g): want the peak near 1.2 next to the warm start", best, v)
	}
}

// processAlive reports whether pid is a live process that is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestCommandTruthJudges: with --objective-truth-cmd every recommendation
// is judged by the noise-free score it prints (one run per
// configuration), and the table says nothing of estimates; without it the
// figures are the studies' estimates and the table says so; a truth
// command whose output is not a number voids the comparison.
func TestCommandTruthJudges(t *testing.T) {
	sp := firstSpaceH(t)
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	o := Options{Strategies: []string{"random"}, Seeds: 1, Trials: 6, Warm: []bool{false}, Confirm: 2}
	judged := &Command{Cmd: `read x; echo 100`, TruthCmd: `read x; echo "$x" >> ` + calls + `; echo 7`, Sp: sp, ExpertCfg: space.Config{}}
	runs, err := Compare(context.Background(), judged, o)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	for i, v := range runs[0].Inc {
		if v != 7 {
			t.Fatalf("incumbent after %d measurements judged %g, want the noise-free 7 (measured 100)", i+1, v)
		}
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if seen[line] {
			t.Fatalf("the truth command judged %s twice", line)
		}
		seen[line] = true
	}
	var table strings.Builder
	if err := WriteTable(&table, judged, 7, Summarise(runs, 7, o), o); err != nil || strings.Contains(table.String(), "estimate") {
		t.Fatalf("table with a noise-free judge:\n%s (%v)", table.String(), err)
	}

	estimated := &Command{Cmd: `read x; echo 100`, Sp: sp, ExpertCfg: space.Config{}}
	runs, err = Compare(context.Background(), estimated, o)
	if err != nil || runs[0].Inc[len(runs[0].Inc)-1] != 100 {
		t.Fatalf("without a judge: runs %+v, %v; want the estimate 100", runs, err)
	}
	table.Reset()
	if err := WriteTable(&table, estimated, 100, Summarise(runs, 100, o), o); err != nil || !strings.Contains(table.String(), "study's own estimate") {
		t.Fatalf("table without a noise-free judge does not say it shows estimates:\n%s", table.String())
	}

	broken := &Command{Cmd: `read x; echo 100`, TruthCmd: `read x; echo fast`, Sp: sp, ExpertCfg: space.Config{}}
	if _, err := Compare(context.Background(), broken, o); err == nil || !strings.Contains(err.Error(), "--objective-truth-cmd") {
		t.Fatalf("a truth command printing a word: %v, want its error", err)
	}
}

// TestRunsCountMeasurements: a run is cut at Options.Trials measurements
// (re-measurements count): with confirmations the study makes more, and
// the crashed ones are counted among the first Trials only.
func TestRunsCountMeasurements(t *testing.T) {
	l, err := NewSynthetic(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, confirm := range []int{0, 2} {
		r, err := RunOne(context.Background(), l, "random", 3, 30, true, confirm)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Inc) != 30 {
			t.Errorf("--confirm %d: %d measurements judged, want 30", confirm, len(r.Inc))
		}
	}
	trials := []search.Trial{{State: search.Complete}, {State: search.Failed}, {State: search.Rejected}, {State: search.Complete, Kind: search.Confirm}, {State: search.Failed}, {State: search.Complete}}
	r := Run{Inc: []float64{1, 2, 3, 4, 5}}.upTo(3, trials)
	if len(r.Inc) != 3 || r.Failed != 1 {
		t.Fatalf("cut at 3: %d judged, %d failed; want 3 and 1 (the rejected trial is no measurement)", len(r.Inc), r.Failed)
	}
}

// TestWithNoise: a landscape measured at another noise keeps its
// noise-free scores and best, its measurements spread by the new noise
// (a Family's draws too), and a bad share or a command is refused.
func TestWithNoise(t *testing.T) {
	l, err := NewSynthetic(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, noise := range []float64{0.03, 0.12} {
		n, err := WithNoise(l, noise)
		if err != nil {
			t.Fatal(err)
		}
		cfg := l.Expert()
		truth, _ := l.True(cfg)
		rng := rand.New(rand.NewPCG(1, 2))
		var logs []float64
		for range 4000 {
			v, failed, err := n.Measure(context.Background(), cfg, rng)
			if err != nil || failed {
				t.Fatal(failed, err)
			}
			logs = append(logs, v/truth-1)
		}
		_, sd := stat.MeanStdDev(logs, nil)
		if math.Abs(sd-noise) > noise/10 || n.(Noisy).Noise() != noise || n.Best() != l.Best() {
			t.Errorf("noise %g: measured spread %.4f, Noise %g, best %g (want %g)", noise, sd, n.(Noisy).Noise(), n.Best(), l.Best())
		}
	}
	d, err := NewDrawn()
	if err != nil {
		t.Fatal(err)
	}
	nd, err := WithNoise(d, 0.12)
	if err != nil {
		t.Fatal(err)
	}
	draw, err := nd.(Family).Draw(3)
	if err != nil || draw.(Noisy).Noise() != 0.12 {
		t.Fatalf("a draw of the renoised family: %v, %v", draw, err)
	}
	if _, err := WithNoise(l, 1.5); err == nil {
		t.Error("noise 1.5 accepted")
	}
	if _, err := WithNoise(&Command{Cmd: "echo 1", Sp: l.Space()}, 0.1); err == nil {
		t.Error("a command renoised")
	}
}
