package strategy

import (
	"math"
	"math/rand/v2"
	"sort"
)

// parzen is autotune's own multivariate TPE (tree-structured Parzen
// estimator, Bergstra et al. 2011; the multivariate form of Falkner et al.
// 2018 and optuna's multivariate sampler) over the unit cube of encode().
//
// The history is split into the best γ share ("below", at most 25 points)
// and the rest ("above"). Each group becomes a mixture of product kernels,
// one per point plus a uniform prior: a Gaussian truncated to [0, 1] for a
// numeric coordinate (bandwidth 0.2·n^(−1/(k+4)) for k free dimensions, at
// least minBandwidth) and, for a choice knob, probability sameChoice of the
// point's own choice and the rest shared by the others. Candidates are
// drawn from the below mixture and the one maximising log l(x) − log g(x)
// is returned. The kernels are joint over the free dimensions, so pairs of
// knobs that only help together are modelled (univariate TPE is not).
//
// Why not goptuna's TPE: goptuna v0.9.0's tpe.Sampler sums the per-component
// log densities where it should take their log-sum-exp (logsumRows), and
// divides the distance by σ² where it should square distance/σ
// (gmmLogPDF), so its numeric acquisition is linear in x. It stays
// available as --strategy tpe; the hybrid uses this one.
//
// Cost per suggestion: O(candidates · n · k) kernel evaluations for n
// history points; about 2 ms for 1000 points and 12 knobs on the reference
// machine (BenchmarkSuggest), so the history is not capped.
type parzen struct {
	rng *rand.Rand
	// candidates is the number of points drawn from l(x) per suggestion.
	candidates int
}

const (
	// maxBelow caps the "below" group, as optuna's default gamma does.
	maxBelow = 25
	// gammaBelow is the share of the history that forms the below group.
	gammaBelow = 0.15
	// minBandwidth keeps numeric kernels from collapsing onto one point.
	minBandwidth = 0.03
	// sameChoice is the kernel probability of a point's own choice.
	sameChoice = 0.7
	// tpeStartup is the fewest observations before the model is used;
	// below it, suggestions are uniform.
	tpeStartup = 5
)

// kernelGroup is one side (below or above) of the TPE split.
type kernelGroup struct {
	pts [][]float64 // free coordinates of the group's points
	bw  []float64   // bandwidth per free dimension (numeric only)
	// invBW is 1/bw; konst is Σ over numeric dimensions of
	// −log(bw·√(2π)); ptConst[p] adds point p's truncation terms.
	invBW   []float64
	konst   float64
	ptConst []float64
	// logSame and logOther are the kernel log-probabilities of a point's
	// own choice and of another one, per free dimension.
	logSame, logOther []float64
	prior             float64
	terms             []float64 // scratch for logDensity
}

// suggest returns coordinates for every knob: the free dimensions from the
// TPE model of obs, the others copied from fixed. nChoices[i] is the number
// of choices of knob i (0 for a numeric knob).
func (p *parzen) suggest(obs []observation, nChoices []int, free []int, fixed []float64) []float64 {
	x := append([]float64(nil), fixed...)
	if len(free) == 0 {
		return x
	}
	if len(obs) < tpeStartup {
		for _, d := range free {
			x[d] = p.uniform(nChoices[d])
		}
		return x
	}
	order := make([]int, len(obs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return obs[order[a]].value > obs[order[b]].value })
	nb := int(math.Ceil(gammaBelow * float64(len(obs))))
	nb = max(1, min(maxBelow, nb))
	below := p.group(obs, order[:nb], nChoices, free)
	above := p.group(obs, order[nb:], nChoices, free)

	nc := p.candidates
	if nc <= 0 {
		nc = 48
	}
	best, bestScore := []float64(nil), math.Inf(-1)
	cand := make([]float64, len(free))
	for c := 0; c < nc; c++ {
		p.draw(below, nChoices, free, cand)
		s := below.logDensity(cand, nChoices, free) - above.logDensity(cand, nChoices, free)
		if s > bestScore || best == nil {
			bestScore = s
			best = append(best[:0], cand...)
		}
	}
	for j, d := range free {
		x[d] = best[j]
	}
	return x
}

func (p *parzen) uniform(nChoices int) float64 {
	if nChoices > 0 {
		return float64(p.rng.IntN(nChoices))
	}
	return p.rng.Float64()
}

// group builds the kernel mixture of the observations idx.
func (p *parzen) group(obs []observation, idx []int, nChoices []int, free []int) *kernelGroup {
	k := len(free)
	g := &kernelGroup{bw: make([]float64, k), invBW: make([]float64, k),
		logSame: make([]float64, k), logOther: make([]float64, k)}
	n := float64(len(idx))
	bw := 0.2 * math.Pow(math.Max(n, 1), -1/float64(k+4))
	for j, d := range free {
		g.bw[j] = math.Max(minBandwidth, bw)
		g.invBW[j] = 1 / g.bw[j]
		if m := nChoices[d]; m > 0 {
			g.prior -= math.Log(float64(m))
			if m > 1 {
				g.logSame[j] = math.Log(sameChoice)
				g.logOther[j] = math.Log((1 - sameChoice) / float64(m-1))
			}
			continue
		}
		g.konst -= math.Log(g.bw[j]) + 0.5*math.Log(2*math.Pi)
	}
	for _, i := range idx {
		pt := make([]float64, k)
		c := 0.0
		for j, d := range free {
			pt[j] = obs[i].x[d]
			if nChoices[d] == 0 {
				s := g.bw[j]
				mass := normCDF((1-pt[j])/s) - normCDF(-pt[j]/s)
				c -= math.Log(math.Max(mass, 1e-12))
			} else {
				pt[j] = math.Round(pt[j])
			}
		}
		g.pts = append(g.pts, pt)
		g.ptConst = append(g.ptConst, c+g.konst)
	}
	g.terms = make([]float64, 0, len(g.pts)+1)
	return g
}

// draw samples one point of the group's mixture (the prior included) into
// out.
func (p *parzen) draw(g *kernelGroup, nChoices []int, free []int, out []float64) {
	k := p.rng.IntN(len(g.pts) + 1)
	if k == len(g.pts) { // the uniform prior
		for j, d := range free {
			out[j] = p.uniform(nChoices[d])
		}
		return
	}
	pt := g.pts[k]
	for j, d := range free {
		if m := nChoices[d]; m > 0 {
			if m == 1 || p.rng.Float64() < sameChoice {
				out[j] = pt[j]
				continue
			}
			c := p.rng.IntN(m - 1)
			if c >= int(pt[j]) {
				c++
			}
			out[j] = float64(c)
			continue
		}
		v := math.NaN()
		for try := 0; try < 16; try++ {
			if t := pt[j] + g.bw[j]*p.rng.NormFloat64(); t >= 0 && t <= 1 {
				v = t
				break
			}
		}
		if math.IsNaN(v) {
			v = math.Min(1, math.Max(0, pt[j]))
		}
		out[j] = v
	}
}

// logDensity returns the log density of the group's mixture at x (free
// coordinates): equal weights for every point and for the uniform prior.
func (g *kernelGroup) logDensity(x []float64, nChoices []int, free []int) float64 {
	terms := append(g.terms[:0], g.prior)
	xr := make([]float64, len(x))
	for j, d := range free {
		xr[j] = x[j]
		if nChoices[d] > 0 {
			xr[j] = math.Round(x[j])
		}
	}
	for pi, pt := range g.pts {
		s := g.ptConst[pi]
		for j, d := range free {
			if nChoices[d] > 0 {
				if xr[j] == pt[j] {
					s += g.logSame[j]
				} else {
					s += g.logOther[j]
				}
				continue
			}
			z := (xr[j] - pt[j]) * g.invBW[j]
			s -= 0.5 * z * z
		}
		terms = append(terms, s)
	}
	g.terms = terms
	return logSumExp(terms) - math.Log(float64(len(terms)))
}

func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
