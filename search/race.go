package search

import (
	"cmp"
	"math"
	"slices"

	"github.com/autotune/autotune/measure"
)

// RaceZ is how many standard errors of the difference a confirmed
// candidate's lead over the best it would displace must reach for the
// race between them to end before both have their full runs (see
// owesRace).
const RaceZ = 2

// owesRace returns the run a close race owes, if any. Confirmed candidate
// g (configuration key) races the best it would displace (the rival) when
// all of these hold:
//
//   - g is the best (Incumbents) and the rival the best of the other
//     configurations;
//   - the measured configurations are alike within the noise: the spread
//     of their true log scores that shrunkBest estimates (tau2) is under
//     twice the noise variance of g's estimate (noise2/N): the regime
//     where a lucky confirmation decides which configuration leads;
//   - g's lead on the log scale is under RaceZ standard errors of the
//     difference, from the run-to-run noise pooled over the study's
//     repeats;
//   - one of the two has fewer than twice the confirmations g's first
//     measurement needed (the full runs).
//
// The race measures the one with fewer runs (the rival on a tie only
// once g has its full runs), one run at a time, re-deciding after each.
// Where configurations differ by much more than the noise nothing
// changes; on a plateau at 15 % noise a configuration whose two
// confirmations were lucky does not take the best from the expert warm
// start on them.
// A race costs at most 2 × needConf runs.
func owesRace(trials []Trial, g group, key string) (Trial, bool) {
	var all, others bestTracker
	for _, u := range trials {
		all.add(u)
		if u.Params.Key() != key {
			others.add(u)
		}
	}
	noise2 := all.noise2()
	bestG, tau2 := shrunkBestSpread(all.order, all.ests, noise2)
	inc := others.best()
	if bestG == nil || inc.Number < 0 || bestG.rep.Params.Key() != key || noise2 <= 0 {
		return Trial{}, false
	}
	best := withEstimate(bestG.rep, all.ests[bestG])
	if best.Score <= 0 || inc.Score <= 0 {
		return Trial{}, false
	}
	nG, nInc := len(g.counted), others.ests[others.groups[inc.Params.Key()]].N
	// The estimate's own measurements (steadyRuns may leave some out)
	// set its error; nG counts the runs the confirmation spent.
	nEst := nG - all.ests[bestG].NotSteadyLeft
	if tau2 < 0 || tau2 >= 2*noise2/float64(nEst) {
		return Trial{}, false
	}
	full := 2 * g.needConf
	if nG >= full && nInc >= full {
		return Trial{}, false
	}
	se := math.Sqrt(noise2/float64(nEst) + noise2/float64(max(1, nInc)))
	if math.Log(best.Score)-math.Log(inc.Score) >= RaceZ*se {
		return Trial{}, false
	}
	if nInc < nG && nInc < full {
		return inc, true
	}
	if nG < full {
		return g.rep, true
	}
	return inc, true
}

// RaceShare is the share of a study's horizon (its planned search
// trials) at its end in which every other search trial is a run of the
// final race (raceRun), with confirmation on and a horizon of at least
// raceMinHorizon: a shorter study's race would be one or two runs, which
// cannot tell apart two configurations the noise makes it race.
const (
	RaceShare      = 0.2
	raceMinHorizon = 20
)

// raceFrom returns the number of search trials from which the final race
// runs in a study of horizon search trials.
func raceFrom(horizon int) int {
	return int(math.Round(float64(horizon) * (1 - RaceShare)))
}

// measuredRuns returns how many of trials finished and measure a
// configuration for the search (every kind but the final A/B and
// minimisation runs, re-measurements included).
func measuredRuns(trials []Trial) int {
	n := 0
	for _, t := range trials {
		if t.State.Finished() && measures(t) {
			n++
		}
	}
	return n
}

// lastIsRace reports whether the last trial that counts towards the cap
// is a run of the race.
func lastIsRace(trials []Trial) bool {
	for i := len(trials) - 1; i >= 0; i-- {
		if countsToCap(trials[i]) {
			return trials[i].Kind == Repeat
		}
	}
	return false
}

// raceRun returns the representative trial of whichever of the two
// configurations with the best estimates (EstimateOf, among those
// measured twice or more) has fewer measurements, the better one on a
// tie; false while fewer than two were measured twice, and while the two
// are more than raceDecided standard errors of their difference apart
// (the run-to-run noise of the log scores, once it rests on raceMinDoF
// degrees of freedom). The recommendation is decided between them, and
// at 6-12 % noise three measurements each cannot tell them apart.
func raceRun(trials []Trial) (Trial, bool) {
	type cand struct {
		rep Trial
		est float64
		n   int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, u := range trials {
		k := u.Params.Key()
		if u.State != Complete || seen[k] || !measures(u) {
			continue
		}
		seen[k] = true
		if g := groupOf(trials, k); g.all >= 2 && !g.disq {
			cs = append(cs, cand{g.rep, g.estimate().Score, g.all})
		}
	}
	if len(cs) < 2 {
		return Trial{}, false
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.est, a.est) })
	if sd, dof := noiseStats(measure.GoalTPS, trials); dof >= raceMinDoF && sd > 0 && cs[1].est > 0 &&
		math.Log(cs[0].est/cs[1].est) > raceDecided*sd*math.Sqrt(1/float64(cs[0].n)+1/float64(cs[1].n)) {
		return Trial{}, false
	}
	if cs[1].n < cs[0].n {
		return cs[1].rep, true
	}
	return cs[0].rep, true
}

// raceDecided is the gap between the race's two estimates, in standard
// errors of their difference, beyond which the race is decided and does
// not run; raceMinDoF is the least number of degrees of freedom of the
// noise for the race to call a pair decided.
const (
	raceDecided = 3.0
	raceMinDoF  = 4
)
