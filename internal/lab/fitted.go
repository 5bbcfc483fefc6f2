package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// Fitted is a landscape fitted to the trials of a real study: a Gaussian
// process through the measured trials' scores whose kernel is a weighted
// sum of a joint part (squared-exponential over the numeric coordinates
// of search.Encode, an exponential penalty per differing choice) and an
// additive part (the mean of one such kernel per knob: main effects that
// hold across the space, Duvenaud et al., "Additive Gaussian Processes",
// NIPS 2011), hyper-parameters (length scales, the additive share, the
// choice penalty) chosen by log marginal likelihood over a grid, the
// noise variance fixed by the study's repeats when it has some. With the
// joint part alone a fit to fewer trials than knobs is a table of the
// measured configurations whose value away from them is the trials' mean;
// the additive part carries what each knob did to the rest of the space
// where the trials support it. Its posterior mean is the noise-free score; a
// configuration whose nearest trial (within distance 0.3 in the unit cube)
// failed crashes; the measurement noise is the pooled relative spread of
// repeated configurations' complete runs (full measurement windows) when
// the study has repeats, the fitted noise of the process otherwise (at
// least 3 %).
type Fitted struct {
	name     string
	sp       *space.Space
	xs       [][]float64
	failed   [][]float64
	alpha    []float64
	mean     float64
	hyp      kernelParams
	noise    float64 // relative noise of a measurement
	nChoices []int
	best     float64
	expert   space.Config
}

// FitInput is what Fitted is fitted from.
type FitInput struct {
	// Name names the landscape.
	Name string
	// Space is the study's search space; nil means HostSpace for Cores,
	// RAMBytes and the durability policy of Settings (every knob such a
	// study could search, the environment's included).
	Space *space.Space
	// Cores is the study host's number of logical CPUs (for HostSpace).
	Cores int
	// Trials are the study's trials. Complete, pruned and failed ones
	// are used, the final A/B runs left out as in the study's estimates;
	// a pruned trial counts with its partial window's score, the value the
	// study's strategy learned from it (a study that prunes learns about
	// its bad regions mostly from pruned trials).
	Trials []search.Trial
	// Settings is the study's settings JSON (workload, tables, table_size,
	// space.durability), used for the expert warm start when the study has
	// no expert trial and for the space when Space is nil.
	Settings string
	// RAMBytes is the study host's RAM.
	RAMBytes int64
}

// bytesPerRow is the on-disk size of a sysbench row with its index
// (8 × 500 000 rows take 961 MB, measured on the reference 2-core machine:
// docs/measurement.md).
const bytesPerRow = 240

// NewFitted fits the landscape. It returns an error when fewer than 8
// trials are complete or pruned.
func NewFitted(in FitInput) (*Fitted, error) {
	sp := in.Space
	if sp == nil {
		var err error
		if sp, err = HostSpace(HostInput{Cores: in.Cores, RAMBytes: in.RAMBytes, Durability: studyDurability(in.Settings)}); err != nil {
			return nil, err
		}
	}
	f := &Fitted{name: in.Name, sp: sp}
	for _, k := range sp.Knobs() {
		n := 0
		if k.Kind == space.Enum || k.Kind == space.Bool {
			n = len(k.Options())
		}
		f.nChoices = append(f.nChoices, n)
	}
	var ys []float64
	groups := map[string][]float64{}
	for _, t := range in.Trials {
		if t.Kind == search.ABBest || t.Kind == search.ABBase || t.Kind == search.ABWarm {
			// The final A/B runs judge the chosen configuration at the
			// study's end and are left out of its estimates (EstimateOf);
			// the landscape is fitted to the same measurements.
			continue
		}
		switch t.State {
		case search.Complete, search.Pruned:
			x := search.Encode(sp, t.Params)
			f.xs = append(f.xs, x)
			ys = append(ys, t.Score)
			if t.State == search.Complete {
				// The noise is that of full measurement windows.
				key := search.Decode(sp, x).Key()
				groups[key] = append(groups[key], t.Score)
			}
		case search.Failed:
			f.failed = append(f.failed, search.Encode(sp, t.Params))
		}
		if t.Kind == search.Expert && f.expert == nil {
			f.expert = t.Params.Clone()
		}
	}
	if len(f.xs) < 8 {
		return nil, fmt.Errorf("fit landscape %s: %d measured trials (complete or pruned), need at least 8", in.Name, len(f.xs))
	}
	for _, y := range ys {
		f.mean += y
	}
	f.mean /= float64(len(ys))
	vy := 0.0
	for _, y := range ys {
		vy += (y - f.mean) * (y - f.mean)
	}
	vy /= float64(len(ys))
	if vy == 0 {
		vy = 1
	}
	// The noise of a measurement, from repeated configurations where the
	// study has them; it fixes the kernel's nugget, so the process does not
	// explain a lucky measurement as a peak.
	ss, dof := 0.0, 0
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		m := 0.0
		for _, v := range g {
			m += v
		}
		m /= float64(len(g))
		for _, v := range g {
			ss += (v - m) * (v - m) / (m * m)
		}
		dof += len(g) - 1
	}
	ratios := []float64{0.01, 0.02, 0.05, 0.1, 0.15, 0.25, 0.4, 0.6}
	if dof >= 2 {
		f.noise = math.Sqrt(ss / float64(dof))
		ratios = []float64{math.Min(0.95, f.noise*f.noise*f.mean*f.mean/vy)}
	}
	bestLML := math.Inf(-1)
	var bestNoiseRatio float64
	for _, h := range kernelGrid(vy) {
		for _, nr := range ratios {
			alpha, lml, err := f.solve(ys, h, nr*vy)
			if err != nil {
				continue
			}
			if lml > bestLML {
				bestLML, bestNoiseRatio = lml, nr
				f.alpha, f.hyp = alpha, h
			}
		}
	}
	if f.alpha == nil {
		return nil, errors.New("fit landscape: no kernel fits the trials")
	}
	if dof < 2 {
		f.noise = math.Sqrt(bestNoiseRatio*vy) / math.Abs(f.mean)
	}
	f.noise = math.Max(0.03, f.noise)
	if f.expert == nil {
		var s struct {
			Tables    int `json:"tables"`
			TableSize int `json:"table_size"`
		}
		_ = json.Unmarshal([]byte(in.Settings), &s)
		cfg, _, err := strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: in.RAMBytes, DataBytes: int64(s.Tables) * int64(s.TableSize) * bytesPerRow})
		if err != nil {
			return nil, err
		}
		f.expert = cfg
	}
	starts := []space.Config{f.expert}
	for _, x := range f.xs {
		starts = append(starts, search.Decode(sp, x))
	}
	_, f.best = optimum(sp, f.True, 5000, 1, starts...)
	return f, nil
}

// kernelParams are the fitted process's hyper-parameters.
type kernelParams struct {
	ell    float64 // numeric length scale of the joint part (unit cube)
	ellAdd float64 // numeric length scale of each knob's additive term
	theta  float64 // log-penalty per differing choice
	add    float64 // share of the signal variance in the additive part
	sf2    float64 // signal variance
}

// kernelGrid returns the hyper-parameters NewFitted chooses among for a
// signal variance sf2: additive shares 0 (joint only) to 1 (main effects
// only), and for each the length scales and choice penalties that part
// uses.
func kernelGrid(sf2 float64) []kernelParams {
	var g []kernelParams
	for _, add := range []float64{0, 0.5, 0.9, 1} {
		ells := []float64{0.1, 0.2, 0.35, 0.6, 1.0}
		if add == 1 {
			ells = []float64{1} // unused
		}
		ellAdds := []float64{0.15, 0.3, 0.6}
		if add == 0 {
			ellAdds = []float64{1} // unused
		}
		for _, ell := range ells {
			for _, ellAdd := range ellAdds {
				for _, theta := range []float64{0.3, 1, 3} {
					g = append(g, kernelParams{ell: ell, ellAdd: ellAdd, theta: theta, add: add, sf2: sf2})
				}
			}
		}
	}
	return g
}

// kernel returns the covariance of two coordinate vectors under h.
func (f *Fitted) kernel(a, b []float64, h kernelParams) float64 {
	d2, mis, sum := 0.0, 0.0, 0.0
	choicePenalty := math.Exp(-h.theta)
	for i := range a {
		if f.nChoices[i] > 0 {
			if math.Round(a[i]) != math.Round(b[i]) {
				mis++
				sum += choicePenalty
			} else {
				sum++
			}
			continue
		}
		d := a[i] - b[i]
		d2 += d * d
		if h.add > 0 {
			sum += math.Exp(-0.5 * d * d / (h.ellAdd * h.ellAdd))
		}
	}
	k := 0.0
	if h.add < 1 {
		k += (1 - h.add) * math.Exp(-0.5*d2/(h.ell*h.ell)-h.theta*mis)
	}
	if h.add > 0 {
		k += h.add * sum / float64(len(a))
	}
	return h.sf2 * k
}

// solve returns the GP weights for ys and the log marginal likelihood.
func (f *Fitted) solve(ys []float64, h kernelParams, sn2 float64) ([]float64, float64, error) {
	n := len(f.xs)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := f.kernel(f.xs[i], f.xs[j], h)
			if i == j {
				v += sn2
			}
			K.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		return nil, 0, errors.New("kernel matrix not positive definite")
	}
	y := mat.NewVecDense(n, nil)
	for i, v := range ys {
		y.SetVec(i, v-f.mean)
	}
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, y); err != nil {
		return nil, 0, err
	}
	lml := -0.5*mat.Dot(y, &a) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	return a.RawVector().Data, lml, nil
}

// Name implements Landscape.
func (f *Fitted) Name() string { return f.name }

// Space implements Landscape.
func (f *Fitted) Space() *space.Space { return f.sp }

// Best implements Landscape.
func (f *Fitted) Best() float64 { return f.best }

// Expert implements Landscape: the study's expert trial, or the expert
// rules applied to its host and dataset.
func (f *Fitted) Expert() space.Config { return f.expert.Clone() }

// Describe says what the landscape was fitted from and how: trials,
// knobs, the chosen kernel and the noise, e.g. "15 trials over 34 knobs:
// additive share 0.5 (length 0.3), joint length 0.35, choice penalty 3,
// noise 14.6 %". Fewer trials than knobs adds a warning that the fit is
// thin: away from the trials it says little.
func (f *Fitted) Describe() string {
	s := fmt.Sprintf("%d trials over %d knobs: additive share %.1f", len(f.xs), len(f.nChoices), f.hyp.add)
	if f.hyp.add > 0 {
		s += fmt.Sprintf(" (length %.2f)", f.hyp.ellAdd)
	}
	if f.hyp.add < 1 {
		s += fmt.Sprintf(", joint length %.2f", f.hyp.ell)
	}
	s += fmt.Sprintf(", choice penalty %.1f, noise %.1f %%", f.hyp.theta, f.noise*100)
	if len(f.xs) < len(f.nChoices) {
		s += "; thin: fewer trials than knobs, the fit says little away from the trials"
	}
	return s
}

// Noise implements Noisy: the relative measurement noise (from the
// study's repeats, else the fit's noise term; at least 3 %).
func (f *Fitted) Noise() float64 { return f.noise }

// dist is the distance crashes are judged by: Euclidean over numeric
// coordinates, 1 per differing choice.
func (f *Fitted) dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		if f.nChoices[i] > 0 {
			if math.Round(a[i]) != math.Round(b[i]) {
				s++
			}
			continue
		}
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// True implements Landscape: the posterior mean; ok false where the
// nearest trial failed.
func (f *Fitted) True(cfg space.Config) (float64, bool) {
	x := search.Encode(f.sp, cfg)
	if len(f.failed) > 0 {
		nf := math.Inf(1)
		for _, p := range f.failed {
			nf = math.Min(nf, f.dist(x, p))
		}
		if nf < 0.3 {
			nc := math.Inf(1)
			for _, p := range f.xs {
				nc = math.Min(nc, f.dist(x, p))
			}
			if nf < nc {
				return 0, false
			}
		}
	}
	y := f.mean
	for i, p := range f.xs {
		y += f.alpha[i] * f.kernel(x, p, f.hyp)
	}
	return y, true
}

// Measure implements Landscape.
func (f *Fitted) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	v, ok := f.True(cfg)
	if !ok {
		return 0, true, nil
	}
	return math.Max(0, v*(1+f.noise*rng.NormFloat64())), false, nil
}
