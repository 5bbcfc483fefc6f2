package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/study/result"
)

// A run over --max-p95 says so in verify's and noise's lines, and any run
// of the file's configuration over it makes verify's verdict NOT VERIFIED.
func TestMaxP95Lines(t *testing.T) {
	over := measure.Outcome{MeanTPS: 500, Score: 480, P95MS: 42.5}
	over.Infeasible = true
	within := measure.Outcome{MeanTPS: 450, Score: 440, P95MS: 20}
	for _, c := range []struct {
		name, got, want string
		has             bool
	}{
		{"verify over", VerifyLine(result.VerifyRun{Pair: 1, File: true, Outcome: over, Took: time.Second}, measure.GoalTPS), "p95 42.5 ms OVER --max-p95: the pair does not count", true},
		{"verify within", VerifyLine(result.VerifyRun{Pair: 1, Outcome: within, Took: time.Second}, measure.GoalTPS), "OVER", false},
		{"noise over", NoiseLine(1, result.NoiseRun{Outcome: over}), "p95 42.5 ms (over --max-p95)", true},
		{"noise within", NoiseLine(2, result.NoiseRun{Outcome: within}), "over --max-p95", false},
	} {
		if strings.Contains(c.got, c.want) != c.has {
			t.Errorf("%s: %q: want %q present %v", c.name, c.got, c.want, c.has)
		}
	}

	var b bytes.Buffer
	WriteNoiseSummary(&b, []result.NoiseRun{{Outcome: over}, {Outcome: within}, {Outcome: within}})
	if want := "p95 over --max-p95: 1 of 3 runs"; !strings.Contains(b.String(), want) {
		t.Errorf("noise summary %q: want %q", b.String(), want)
	}
	b.Reset()
	WriteNoiseSummary(&b, []result.NoiseRun{{Outcome: within}, {Outcome: within}})
	if strings.Contains(b.String(), "max-p95") {
		t.Errorf("noise summary without a run over the limit: %q", b.String())
	}

	g := search.Gain{Pct: 12, LoPct: 5, HiPct: 19}
	for _, c := range []struct {
		name      string
		gerr      error
		overLimit int
		want      []string
	}{
		{"verified", nil, 0, []string{"verdict: VERIFIED"}},
		{"over the limit despite a gain", nil, 1, []string{"gain over the baseline (the pairs within --max-p95)", "verdict: NOT VERIFIED (exit code 3): the file's p95 latency exceeded --max-p95 in 1 of its runs"}},
		{"over the limit, no gain", errors.New("fewer than 2 pairs"), 2, []string{"verdict: NOT VERIFIED (exit code 3): the file's p95 latency exceeded --max-p95 in 2 of its runs"}},
	} {
		b.Reset()
		WriteVerify(&b, "best.cnf", measure.GoalTPS, g, c.gerr, 3-c.overLimit, 3, c.overLimit)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: %q: want %q", c.name, b.String(), w)
			}
		}
		if c.overLimit > 0 && strings.Contains(b.String(), "verdict: VERIFIED") {
			t.Errorf("%s: verified with runs over the limit: %q", c.name, b.String())
		}
	}
}

// The table of a verify run over several files: each arm's runs, mean,
// and gains over the baseline and the reference, and the verdict naming
// each file whose gain over the baseline is not shown.
func TestWriteVerifyArms(t *testing.T) {
	ps := func(ratios ...float64) []search.Pair {
		var out []search.Pair
		for i, r := range ratios {
			b := 800 + 10*float64(i)
			out = append(out, search.Pair{A: b * r, B: b})
		}
		return out
	}
	gain := func(p []search.Pair) (search.Gain, error) { return search.PairedGain(measure.GoalTPS, p) }
	warmBase, e1 := gain(ps(1.55, 1.60, 1.52, 1.58))
	handBase, e2 := gain(ps(1.50, 1.62, 1.45, 1.57))
	handWarm, e3 := gain(ps(0.97, 1.01, 0.95, 0.99))
	baseWarm, e4 := gain(ps(0.64, 0.63, 0.66, 0.63))
	_, e5 := gain(ps(1.2))
	arms := []result.VerifyArm{
		{Name: "warm.cnf", File: true, Reference: true, Runs: 4, Rounds: 4, Mean: 1256.0, VsBase: warmBase, VsBaseErr: e1},
		{Name: "hand.cnf", File: true, Runs: 4, Rounds: 4, Mean: 1238.4, VsBase: handBase, VsBaseErr: e2, VsRef: handWarm, VsRefErr: e3},
		{Name: "export.cnf", File: true, Runs: 1, Rounds: 4, OverLimit: 3, Mean: 990.2, VsBaseErr: e5, VsRefErr: e5},
		{Name: "the server defaults", Runs: 4, Rounds: 4, Mean: 800.3, VsRef: baseWarm, VsRefErr: e4},
	}
	var b bytes.Buffer
	WriteVerifyArms(&b, measure.GoalTPS, arms, []string{"export.cnf: the file's p95 latency exceeded --max-p95 5 ms in 3 of 4 runs"})
	b.WriteString("---\n")
	WriteVerifyArms(&b, measure.GoalTPS, []result.VerifyArm{arms[0], arms[1], arms[3]}, nil)
	golden.Check(t, "verify-arms.golden", b.Bytes())

	line := VerifyLine(result.VerifyRun{Pair: 3, File: true, Arm: "hand.cnf", Outcome: measure.Outcome{Failure: "server did not start"}}, measure.GoalTPS)
	if line != "round 3 hand.cnf: FAILED: server did not start" {
		t.Fatalf("arm line %q", line)
	}
}
