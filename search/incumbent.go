package search

import "math"

// incumbent returns the study's best after all of trials (see
// Incumbents): the representative trial of its configuration with Score,
// MeanTPS and Penalties set to its estimate, Number −1 when none.
func incumbent(trials []Trial) Trial {
	var b bestTracker
	for _, u := range trials {
		b.add(u)
	}
	return b.best()
}

// Incumbents returns the study's best trial after each trial: element i is
// the best of trials[:i+1] exactly as Best returns it (Number −1 while
// there is none). The best is the eligible configuration (see Estimate: a
// configuration that needs confirmation becomes eligible only with its
// last confirmation, a demoted one never) with the best shrunk estimate
// (shrunkBest, from the run-to-run noise pooled over the configurations
// measured twice or more so far): confirming each configuration does not
// stop the winner's curse *across* configurations, since after fifty
// confirmed candidates of equal value the luckiest would otherwise lead.
// It takes one pass over the trials.
func Incumbents(trials []Trial) []Trial {
	out := make([]Trial, len(trials))
	var b bestTracker
	for i, u := range trials {
		b.add(u)
		out[i] = b.best()
	}
	return out
}

// bestTracker follows the study's best as trials are added in order.
type bestTracker struct {
	groups map[string]*group
	ests   map[*group]Estimate
	logs   map[string]*logStats
	order  []*group // in the order of their first complete measurement
	ss     float64  // within-configuration sum of squares of log scores
	df     int      // its degrees of freedom
}

// add takes in the next trial.
func (b *bestTracker) add(u Trial) {
	if !measures(u) {
		return
	}
	if b.groups == nil {
		b.groups, b.ests, b.logs = map[string]*group{}, map[*group]Estimate{}, map[string]*logStats{}
	}
	key := u.Params.Key()
	g := b.groups[key]
	if g == nil {
		g = &group{rep: Trial{Number: -1}}
		b.groups[key] = g
	}
	g.add(u)
	if u.State == Complete && !g.listed {
		g.listed = true
		b.order = append(b.order, g)
	}
	if g.listed {
		b.ests[g] = g.estimate()
	}
	if u.State == Complete && !u.Infeasible && u.Score > 0 {
		l := b.logs[key]
		if l == nil {
			l = &logStats{}
			b.logs[key] = l
		}
		b.ss -= l.ss()
		v := math.Log(u.Score)
		l.n, l.sum, l.sumsq = l.n+1, l.sum+v, l.sumsq+v*v
		b.ss += l.ss()
		if l.n >= 2 {
			b.df++ // every measurement after a configuration's first
		}
	}
}

// noise2 returns the variance of one measurement's log score pooled over
// the configurations measured twice or more (0 before 2 degrees of
// freedom).
func (b *bestTracker) noise2() float64 {
	if b.df < 2 {
		return 0
	}
	return math.Max(0, b.ss) / float64(b.df)
}

// best returns the best so far (Number −1 when none), with its estimate.
func (b *bestTracker) best() Trial {
	if g := shrunkBest(b.order, b.ests, b.noise2()); g != nil {
		return withEstimate(g.rep, b.ests[g])
	}
	return Trial{Number: -1}
}
