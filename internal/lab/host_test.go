package lab

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/autotune/autotune/space"
)

// TestHostAndSparseLandscapes checks the facts the landscapes' docs state:
// the spaces offer the environment knobs, the warm start is a starting
// point (under 90 % of the optimum), the memory limit crashes, and in the
// sparse landscape only five knobs move the score.
func TestHostAndSparseLandscapes(t *testing.T) {
	h, err := NewHost()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.Space().Knobs()); n != 34 {
		t.Fatalf("host space: %d knobs, want 34", n)
	}
	for _, k := range []string{"allocator", "cpu_placement", "benchmark_connection", "thread_pool_size"} {
		if _, ok := h.Space().Knob(k); !ok {
			t.Errorf("host space lacks %s", k)
		}
	}
	base, _ := h.True(space.Config{})
	split, _ := h.True(space.Config{"cpu_placement": "split"})
	if math.Abs(split/base-0.62) > 0.001 {
		t.Errorf("cpu_placement=split: %.3f × baseline, want 0.62", split/base)
	}
	if _, ok := h.True(space.Config{"innodb_buffer_pool_size": "6442450944"}); ok {
		t.Error("a 6 GiB pool must cross the memory limit")
	}
	exp, _ := h.True(h.Expert())
	if exp > 0.9*h.Best() || exp < 0.6*h.Best() {
		t.Errorf("host: warm start %.0f of best %.0f: want 60-90 %%", exp, h.Best())
	}

	s, err := NewSparse()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Space().Knobs()); n != 36 {
		t.Fatalf("sparse space: %d knobs, want 36", n)
	}
	ref, _ := s.True(space.Config{})
	var matter []string
	for _, k := range s.Space().Knobs() {
		for _, v := range []float64{0, 0.3, 0.7, 1} {
			var val string
			if k.Kind == space.Enum || k.Kind == space.Bool {
				opts := k.Options()
				val = opts[int(math.Round(v*float64(len(opts)-1)))]
			} else {
				val = fromUnitH(k, v)
			}
			if got, _ := s.True(space.Config{k.Name: val}); got != ref {
				matter = append(matter, k.Name)
				break
			}
		}
	}
	if len(matter) != 5 {
		t.Errorf("sparse: knobs that move the score %v, want 5", matter)
	}
	exp, _ = s.True(s.Expert())
	if exp > 0.9*s.Best() {
		t.Errorf("sparse: warm start %.0f of best %.0f: want under 90 %%", exp, s.Best())
	}
}

func fromUnitH(k space.Knob, u float64) string {
	f := k.Min + u*(k.Max-k.Min)
	if k.Scale == space.Log {
		f = math.Exp(math.Log(k.Min) + u*(math.Log(k.Max)-math.Log(k.Min)))
	}
	v, _ := k.FromFloat(clampRoundH(k, f))
	return v
}

func clampRoundH(k space.Knob, f float64) float64 {
	if k.Kind == space.Float {
		return f
	}
	step := float64(max(1, k.Step))
	return math.Min(math.Floor(k.Max/step)*step, math.Max(math.Ceil(k.Min/step)*step, math.Round(f/step)*step))
}

func TestShares(t *testing.T) {
	runs := []Run{
		{Strategy: "a", Seed: 1, Inc: []float64{50, 91, 96}},
		{Strategy: "a", Seed: 2, Inc: []float64{50, 80, 89}},
	}
	o := Options{Strategies: []string{"a"}, Warm: []bool{false}}
	rows := Shares(runs, 100, o, []int{2, 3})
	if len(rows) != 1 || rows[0].Runs != 2 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if r.Share[0][1] != 0.855 || r.Reached90[0] != 1 || r.Reached95[1] != 1 || r.Reached90[1] != 1 {
		t.Fatalf("row %+v", r)
	}
	if got := Checkpoints(100); len(got) != 2 || got[0] != 30 || got[1] != 100 {
		t.Fatalf("Checkpoints(100) = %v", got)
	}
}

// TestOptunaPeer runs Optuna's multivariate TPE through the peer protocol
// for a short run; it is skipped where python3-optuna is not installed
// (a development tool, see docs/strategies.md).
func TestOptunaPeer(t *testing.T) {
	if err := exec.Command(PeerPython, "-c", "import optuna").Run(); err != nil {
		t.Skipf("no optuna for %s: %v", PeerPython, err)
	}
	l, err := NewSparse()
	if err != nil {
		t.Fatal(err)
	}
	// Through the study loop and on its own (its best single
	// measurement, judged noise-free), 15 measurements each.
	runs, err := Compare(context.Background(), l, Options{Strategies: []string{"optuna-mtpe", "optuna-mtpe-alone"}, Seeds: 1, Trials: 15, Warm: []bool{true}, Confirm: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || len(runs[0].Inc) != 15 || len(runs[1].Inc) != 15 || runs[1].Strategy != "optuna-mtpe-alone" {
		t.Fatalf("runs %+v", runs)
	}
	// Alone, the first recommendation is the baseline's (measured
	// first), judged noise-free.
	base, _ := l.True(space.Config{})
	if runs[1].Inc[0] != base {
		t.Fatalf("alone: first recommendation %g, want the baseline's %g", runs[1].Inc[0], base)
	}
	if _, err := NewPeer(context.Background(), "optuna-cmaes", l.Space(), 1); err == nil || !strings.Contains(err.Error(), "optuna-tpe") {
		t.Fatalf("unknown peer: %v", err)
	}
}

func TestPairedComparisons(t *testing.T) {
	// Seeds 1–3: a ahead by 5, 2 and behind by 1 point; seed 4 tied;
	// seed 5 only a ran (left out).
	runs := []Run{
		{Strategy: "a", Seed: 1, Inc: []float64{50, 95}}, {Strategy: "b", Seed: 1, Inc: []float64{50, 90}},
		{Strategy: "a", Seed: 2, Inc: []float64{50, 92}}, {Strategy: "b", Seed: 2, Inc: []float64{50, 90}},
		{Strategy: "a", Seed: 3, Inc: []float64{50, 89}}, {Strategy: "b", Seed: 3, Inc: []float64{50, 90}},
		{Strategy: "a", Seed: 4, Inc: []float64{50, 90}}, {Strategy: "b", Seed: 4, Inc: []float64{50, 90}},
		{Strategy: "a", Seed: 5, Inc: []float64{50, 99}},
	}
	o := Options{Strategies: []string{"a", "b"}, Warm: []bool{false}}
	ps := PairedComparisons(runs, 100, o, 2)
	if len(ps) != 1 {
		t.Fatalf("%+v", ps)
	}
	p := ps[0]
	// Differences +5, +2, −1, 0: median +1; sign test over 3 untied
	// seeds, 2 ahead: p = 2 × P(X ≤ 1 | n 3) = 2 × 4/8, capped at 1.
	if p.Ahead != 2 || p.Behind != 1 || p.Tied != 1 || math.Abs(p.Median-1) > 1e-9 || p.P != 1 {
		t.Fatalf("%+v", p)
	}
	var b bytes.Buffer
	if err := WritePaired(&b, ps); err != nil {
		t.Fatal(err)
	}
	want := "a vs b (no warm start) after 2 measurements: ahead on 2 seeds, behind on 1, tied on 1; median difference +1.0 points (sign test p = 1.00)\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
	for _, c := range []struct {
		ahead, behind int
		want          float64
	}{{0, 0, 1}, {10, 0, 2.0 / 1024}, {15, 5, 0.04138946533203125}, {10, 10, 1}} {
		if got := signTest(c.ahead, c.behind); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("signTest(%d, %d) = %g, want %g", c.ahead, c.behind, got, c.want)
		}
	}
	if PairedComparisons(runs, 100, Options{Strategies: []string{"a"}, Warm: []bool{true}}, 2) != nil {
		t.Fatal("one strategy: nothing to compare")
	}
}

// TestWriteSummary checks the summary over landscapes: a line per
// landscape and strategy with its shares and warm start, and each
// strategy's worst landscape by its median at the last checkpoint.
func TestWriteSummary(t *testing.T) {
	row := func(s string, m30, m100 float64) ShareRow {
		return ShareRow{Strategy: s, Warm: true, Runs: 20, Share: [][3]float64{{m30 - 0.01, m30, m30 + 0.01}, {m100 - 0.01, m100, m100 + 0.01}},
			Reached90: []int{3, 10}, Reached95: []int{1, 4}}
	}
	sums := []LandscapeSummary{
		{Landscape: "a", Checkpoints: []int{30, 100}, Rows: []ShareRow{row("x", 0.80, 0.95), row("y", 0.85, 0.90)}, WarmStart: &WarmStart{Warm: [3]float64{0.7, 0.7, 0.7}, StepRuns: [3]float64{9, 9, 9}}},
		{Landscape: "b", Checkpoints: []int{30, 100}, Rows: []ShareRow{row("x", 0.70, 0.88), row("y", 0.60, 0.93)}},
		// The warm start is y's recommendation here: a tie does not beat it.
		{Landscape: "c", Checkpoints: []int{30, 100}, Rows: []ShareRow{row("x", 0.95, 0.96), row("y", 0.95, 0.95)}, WarmStart: &WarmStart{Warm: [3]float64{0.95, 0.95, 0.95}, StepRuns: [3]float64{3013.2, 3013.2, 3013.2}, TogetherRuns: [3]float64{27.4, 27.4, 27.4}}},
		// No noise figure: no runs named.
		{Landscape: "d", Checkpoints: []int{30, 100}, Rows: []ShareRow{row("x", 0.5, 0.5), row("y", 0.6, 0.7)}, WarmStart: &WarmStart{Warm: [3]float64{0.6, 0.6, 0.6}, StepRuns: [3]float64{math.NaN(), math.NaN(), math.NaN()}}},
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, sums); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"| a | x | expert | 80.0 [79.0, 81.0] | 3/20 | 1/20 | 95.0 [94.0, 96.0] | 10/20 | 4/20 | 70.0 |\n",
		"| b | y | expert | 60.0 [59.0, 61.0] | 3/20 | 1/20 | 93.0 [92.0, 94.0] | 10/20 | 4/20 | |\n",
		"worst landscape for x (warm start expert): d, 50.0 % of its best after 100 measurements (median)\n",
		"worst landscape for y (warm start expert): d, 70.0 % of its best after 100 measurements (median)\n",
		"x (warm start expert): the median after 100 measurements beats the warm start's own share on 2 of 3 landscapes; not on d (50.0 against 60.0)\n",
		"y (warm start expert): the median after 100 measurements beats the warm start's own share on 2 of 3 landscapes; not on c (95.0 against 95.0; a one-knob step needs 3014 runs of each, every knob's best change at once 28)\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
