package measure

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestSteadyDetectTable(t *testing.T) {
	r := DefaultSteadyRule()
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cat := func(xs ...[]float64) []float64 {
		var out []float64
		for _, x := range xs {
			out = append(out, x...)
		}
		return out
	}
	// A ramp 0.6, 0.7, ..., then flat at 1000.
	ramp := cat([]float64{}, rep(600, 5), rep(750, 5), rep(900, 5), rep(1000, 30))
	tests := []struct {
		name  string
		v     []float64
		cap   int
		final bool
		want  Warmup
	}{
		{"flat from the start", rep(500, 40), 30, false, Warmup{Seconds: 0, Decided: true}},
		{"ramp then flat", ramp, 30, false, Warmup{Seconds: 15, Decided: true}},
		{"ramp, cap before steady", ramp, 10, false, Warmup{Seconds: 10, Decided: true, Capped: true}},
		{"ramp, not enough data yet", ramp[:22], 30, false, Warmup{Seconds: 30}},
		{"ramp, run ended early", ramp[:22], 30, true, Warmup{Seconds: 30, Decided: true, Capped: true}},
		{"too short to judge (test trials)", rep(500, 6), 2, false, Warmup{Seconds: 2}},
		{"too short, final", rep(500, 6), 2, true, Warmup{Seconds: 2, Decided: true, Capped: true}},
		// Alternating 5 s blocks 400/600: spread 40 % is never steady.
		{"oscillating", cat(rep(400, 5), rep(600, 5), rep(400, 5), rep(600, 5), rep(400, 5), rep(600, 5), rep(400, 5), rep(600, 5), rep(400, 5)), 30, false, Warmup{Seconds: 30, Decided: true, Capped: true}},
		// Slow rise of 1 %/block at 500: rise 2 % < 5 %: steady.
		{"slow drift is steady", cat(rep(500, 5), rep(505, 5), rep(510, 5)), 30, false, Warmup{Seconds: 0, Decided: true}},
		// A falling start (burst, then settle) is not flat either.
		{"falling start", cat(rep(900, 5), rep(700, 5), rep(600, 5), rep(600, 20)), 30, false, Warmup{Seconds: 10, Decided: true}},
		{"zeros are not steady", rep(0, 50), 30, false, Warmup{Seconds: 30, Decided: true, Capped: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Detect(tc.v, tc.cap, tc.final)
			if got != tc.want {
				t.Fatalf("Detect = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSteadyPrefixStable checks that judging the series while it grows
// gives the answer judged on the whole series: the runner stops the
// benchmark on the online answer.
func TestSteadyPrefixStable(t *testing.T) {
	r := DefaultSteadyRule()
	for _, f := range realRuns(t) {
		whole := r.Detect(f.tps, 30, true)
		for n := 0; n <= len(f.tps); n++ {
			got := r.Detect(f.tps[:n], 30, false)
			if got.Decided {
				if got != whole {
					t.Fatalf("%s: online after %d s: %+v, whole series: %+v", f.name, n, got, whole)
				}
				break
			}
		}
	}
}

type realRun struct {
	name string
	tps  []float64
}

var reTPS = regexp.MustCompile(`^\[ *\d+s \] thds: \d+ tps: ([0-9.]+)`)

// realRuns reads the per-second tps of the recorded 60 s sysbench 1.0.20
// runs under runner/testdata.
func realRuns(t *testing.T) []realRun {
	t.Helper()
	files, err := filepath.Glob("../runner/sysbench/testdata/sysbench/sysbench-real-1.0.20/*-t*-r*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no real runs found: %v", err)
	}
	sort.Strings(files)
	var out []realRun
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tps []float64
		for _, l := range strings.Split(string(b), "\n") {
			if m := reTPS.FindStringSubmatch(l); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				tps = append(tps, v)
			}
		}
		if len(tps) >= 30 {
			out = append(out, realRun{name: filepath.Base(f), tps: tps})
		}
	}
	return out
}

// TestSteadyRealRunsGolden records the warm-up detected on every real run
// (cap 40 s) and checks the calibration claims of DefaultSteadyRule: the
// default 128M pool at 16 threads is steady within 20 s, and a 4G pool
// (data read into the pool first) needs longer than the default pool.
func TestSteadyRealRunsGolden(t *testing.T) {
	r := DefaultSteadyRule()
	var b strings.Builder
	fmt.Fprintf(&b, "# run\twarmup_s\tcapped (rule %+v, cap 40 s)\n", r)
	sum := map[string][]int{}
	for _, f := range realRuns(t) {
		w := r.Detect(f.tps, 40, true)
		fmt.Fprintf(&b, "%s\t%d\t%v\n", f.name, w.Seconds, w.Capped)
		switch {
		case strings.HasPrefix(f.name, "read_write-default-t16"):
			sum["default16"] = append(sum["default16"], w.Seconds)
		case strings.HasPrefix(f.name, "read_write-bp4g-t16"):
			sum["bp4g16"] = append(sum["bp4g16"], w.Seconds)
		}
	}
	golden := filepath.Join("testdata", "warmup-real-runs.golden.tsv")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("detected warm-ups differ from %s (-update to accept):\n%s", golden, b.String())
	}
	for _, w := range sum["default16"] {
		if w > 20 {
			t.Errorf("default pool, 16 threads: warm-up %d s, want <= 20 (design notes: 10-20 s)", w)
		}
	}
	if Mean(ints(sum["bp4g16"])) <= Mean(ints(sum["default16"])) {
		t.Errorf("4G pool warm-ups %v not longer than default pool's %v", sum["bp4g16"], sum["default16"])
	}
}

func ints(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
