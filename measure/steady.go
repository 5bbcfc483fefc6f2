package measure

import (
	"math"
)

// SteadyRule decides when a benchmark run has warmed up: the measurement
// window begins at the first block boundary from which Blocks consecutive
// blocks of Block seconds have block means that are flat (their
// least-squares rise across the blocks is at most MaxTrend of their mean)
// and close together (max−min of the block means at most MaxSpread of their
// mean). Per-second values move 10–15 % (measured on the reference 2-core
// machine, docs/measurement.md), so warm-up is judged only through block
// means of 5–10 s.
//
// The decision is prefix-stable: a candidate start is judged only on its
// own blocks, and the earliest steady candidate wins, so the same answer
// comes out whether the rule sees the series while it grows (Detect during
// the run) or whole (after the run).
type SteadyRule struct {
	// Block is the block length in seconds (>= 1).
	Block int
	// Blocks is how many consecutive blocks must be steady (>= 2).
	Blocks int
	// MaxSpread is the largest (max−min)/mean of the block means (> 0).
	MaxSpread float64
	// MaxTrend is the largest |rise|/mean, where rise is the least-squares
	// slope of the block means times (Blocks−1) (> 0).
	MaxTrend float64
}

// DefaultSteadyRule is three 5 s blocks within 15 % of each other and a
// rise of at most 5 % across them. Calibrated on the recorded 60 s sysbench
// 1.0.20 runs (oltp_read_write, 16 threads; runner/sysbench/testdata/sysbench/
// sysbench-real-1.0.20): the default 128M pool is judged steady after
// 5–15 s, a 4G pool (data fits, pages read in first) after 15–25 s,
// matching the 10–20 s and 30–40 s to reach 0.95–0.97 of steady state
// measured on the reference 2-core machine (docs/measurement.md).
func DefaultSteadyRule() SteadyRule {
	return SteadyRule{Block: 5, Blocks: 3, MaxSpread: 0.15, MaxTrend: 0.05}
}

// Warmup is the outcome of warm-up detection.
type Warmup struct {
	// Seconds is the detected warm-up: the measurement window starts
	// after this many per-second values.
	Seconds int
	// Decided is false while more values could still change Seconds.
	Decided bool
	// Capped is true when no steady start was found at or before the cap,
	// so the warm-up is the cap.
	Capped bool
}

// Detect judges the per-second values v (v[i] covers second i+1 of the
// run) with warm-up capped at capS seconds. Candidate starts are 0, Block,
// 2·Block, ... up to capS; a candidate is judged once its Blocks blocks are
// complete. It returns the first steady candidate (Decided), or capS with
// Capped when every candidate up to the cap was judged unsteady; otherwise
// Decided is false and Seconds is capS. Call it with final=true when no
// more values will come: an undecided result then becomes capS, Capped.
func (r SteadyRule) Detect(v []float64, capS int, final bool) Warmup {
	if capS < 0 {
		capS = 0
	}
	span := r.Block * r.Blocks
	means := make([]float64, r.Blocks)
	for c := 0; c <= capS; c += r.Block {
		if c+span > len(v) {
			// Not judgeable yet; later candidates need even more data.
			if final {
				return Warmup{Seconds: capS, Decided: true, Capped: true}
			}
			return Warmup{Seconds: capS}
		}
		for b := 0; b < r.Blocks; b++ {
			means[b] = Mean(v[c+b*r.Block : c+(b+1)*r.Block])
		}
		if r.steady(means) {
			return Warmup{Seconds: c, Decided: true}
		}
	}
	return Warmup{Seconds: capS, Decided: true, Capped: true}
}

// steady applies the spread and trend tests to block means.
func (r SteadyRule) steady(m []float64) bool {
	mu := Mean(m)
	if !(mu > 0) {
		return false
	}
	lo, hi := m[0], m[0]
	for _, x := range m {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if (hi-lo)/mu > r.MaxSpread {
		return false
	}
	rise := slope(m) * float64(len(m)-1)
	return math.Abs(rise)/mu <= r.MaxTrend
}

// Mean returns the arithmetic mean of xs (NaN for no values).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// slope returns the least-squares slope of ys against 0, 1, 2, ... (0 for
// fewer than two values).
func slope(ys []float64) float64 {
	n := float64(len(ys))
	if n < 2 {
		return 0
	}
	mx := (n - 1) / 2
	my := Mean(ys)
	var sxy, sxx float64
	for i, y := range ys {
		dx := float64(i) - mx
		sxy += dx * (y - my)
		sxx += dx * dx
	}
	return sxy / sxx
}
