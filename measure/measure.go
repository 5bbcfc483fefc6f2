package measure

import "math"

// Metrics are diagnostic numbers of one measurement window, by name; a nil
// value means the server or host did not provide it (never stored as 0).
// Names and units are documented where they are computed
// (runner.StatusDelta, runner.CPUShares).
type Metrics map[string]*float64

// Level is the measurement of one trial at one thread count.
type Level struct {
	// Threads is the benchmark's client thread count.
	Threads int
	// WarmupS is the detected warm-up in seconds; WarmupCapped is set when
	// no steady start was found before the --warmup cap.
	WarmupS      float64
	WarmupCapped bool
	// Eval is the scored measurement window.
	Eval
	// Metrics are the server status deltas and CPU shares of the window.
	Metrics Metrics
	// HLLSource names where the history list length came from
	// (runner.HLLStatus, ...); "" when it was not sampled.
	HLLSource string
}

// Measurement is what the measurement layer adds to an Outcome: the
// detected warm-up, the score's components and every thread level.
type Measurement struct {
	// WarmupS is the detected warm-up of the first thread level (seconds;
	// the level that starts on a cold server), NaN when not measured.
	WarmupS float64
	// WarmupCapped is set when that warm-up reached the --warmup cap.
	WarmupCapped bool
	// Penalties are the score components, averaged over the levels (the
	// level's own for a single level); DipSeconds and StallSeconds are
	// totals over the levels.
	Penalties
	// Infeasible is set when any level's p95 exceeded --max-p95. An
	// infeasible trial is complete but never the best.
	Infeasible bool
	// Levels holds one entry per thread count, in measurement order.
	Levels []Level
}

// Combine fills the Outcome's headline numbers from its levels: Score is
// AggregateScore of the level scores, MeanTPS, StdTPS and P95MS are
// geometric means across levels, Penalties are arithmetic means,
// Infeasible is any level's, and the warm-up is the first level's.
func (o *Outcome) Combine(goal Goal) {
	if len(o.Levels) == 0 {
		return
	}
	var scores, tps, sd, p95 []float64
	var ps []Penalties
	o.Infeasible = false
	for _, l := range o.Levels {
		scores = append(scores, l.Score)
		tps = append(tps, l.MeanTPS)
		sd = append(sd, l.StdTPS)
		p95 = append(p95, l.P95MS)
		ps = append(ps, l.Penalties)
		o.Infeasible = o.Infeasible || l.Infeasible
	}
	// Amounts and rates are means over the levels, dip and stall seconds
	// totals.
	p := sumPenalties(ps).amountsOver(float64(len(o.Levels)))
	o.Penalties = p
	o.Score = AggregateScore(goal, scores)
	if len(o.Levels) == 1 {
		l := o.Levels[0]
		o.MeanTPS, o.StdTPS, o.P95MS = l.MeanTPS, l.StdTPS, l.P95MS
	} else {
		o.MeanTPS, o.StdTPS, o.P95MS = GeoMean(tps), GeoMean(sd), GeoMean(p95)
	}
	if math.IsNaN(o.P95MS) {
		o.P95MS = 0 // "not reported", as Score documents
	}
	o.WarmupS, o.WarmupCapped = o.Levels[0].WarmupS, o.Levels[0].WarmupCapped
}

// MeanPenalties returns the mean of ps (at least one): the amounts and
// rates are means, the dip and stall seconds rounded means, HLLGrowthPS
// the mean of those that sampled it (NaN when none did).
func MeanPenalties(ps []Penalties) Penalties {
	n := float64(len(ps))
	p := sumPenalties(ps).amountsOver(n)
	p.DipSeconds = int(math.Round(float64(p.DipSeconds) / n))
	p.StallSeconds = int(math.Round(float64(p.StallSeconds) / n))
	return p
}

// sumPenalties adds ps up; HLLGrowthPS is the mean over the ones that
// sampled it (NaN when none did).
func sumPenalties(ps []Penalties) Penalties {
	var p Penalties
	growth, nGrowth := 0.0, 0
	for _, q := range ps {
		p.Variance += q.Variance
		p.Dips += q.Dips
		p.Stalls += q.Stalls
		p.Errors += q.Errors
		p.Purge += q.Purge
		p.DipSeconds += q.DipSeconds
		p.StallSeconds += q.StallSeconds
		p.ErrPS += q.ErrPS
		p.ReconnPS += q.ReconnPS
		if !math.IsNaN(q.HLLGrowthPS) {
			growth += q.HLLGrowthPS
			nGrowth++
		}
	}
	p.HLLGrowthPS = math.NaN()
	if nGrowth > 0 {
		p.HLLGrowthPS = growth / float64(nGrowth)
	}
	return p
}

// amountsOver returns p with its amounts and rates divided by n (dip and
// stall seconds unchanged).
func (p Penalties) amountsOver(n float64) Penalties {
	p.Variance, p.Dips, p.Stalls, p.Errors, p.Purge = p.Variance/n, p.Dips/n, p.Stalls/n, p.Errors/n, p.Purge/n
	p.ErrPS, p.ReconnPS = p.ErrPS/n, p.ReconnPS/n
	return p
}
