package search

import (
	"fmt"
	"math"
	"slices"
)

// Verdict describes what a finished re-measurement settled, for the
// progress display: "" when it settled nothing yet. After the last Confirm
// run of a candidate it says whether the candidate became the best or was
// demoted; after a Recheck it reports the baseline's drift. After a
// search trial that needs another number of confirmations than the one
// before it (ConfirmAuto: the noise moved) it says so, with the noise.
func Verdict(trials []Trial, t Trial) string {
	if t.ConfirmNeeded > 0 && !t.Kind.Extra() && t.Kind != Baseline {
		return confirmChange(trials, t)
	}
	switch t.Kind {
	case Confirm:
		idx := -1
		for i, u := range trials {
			if u.Number == t.RepeatOf {
				idx = i
			}
		}
		if idx < 0 {
			return ""
		}
		cand := trials[idx]
		e := EstimateOf(trials, cand)
		g := groupOf(trials, cand.Params.Key())
		if e.Eligible && len(g.counted) > g.needConf {
			return raceVerdict(trials, cand, e)
		}
		var others []Trial
		for _, u := range trials {
			if u.Params.Key() != cand.Params.Key() {
				others = append(others, u)
			}
		}
		inc := incumbent(others)
		if !e.Eligible {
			if unscored(t) || t.Infeasible {
				return fmt.Sprintf("trial %d demoted: a confirmation run failed, was rejected or was infeasible", cand.Number)
			}
			return ""
		}
		best := incumbent(trials)
		if best.Number >= 0 && best.Params.Key() == cand.Params.Key() {
			if inc.Number < 0 {
				return fmt.Sprintf("trial %d confirmed: mean of %d re-measurements %.1f (first %.1f): new best",
					cand.Number, e.N, e.Score, cand.Score)
			}
			race := ""
			if _, ok := owesRace(trials, g, cand.Params.Key()); ok {
				race = ", by less than the noise explains: both are measured again (a close race)"
			}
			return fmt.Sprintf("trial %d confirmed: mean of %d re-measurements %.1f (first %.1f) beats #%d's %.1f: new best%s",
				cand.Number, e.N, e.Score, cand.Score, inc.Number, inc.Score, race)
		}
		if best.Number >= 0 && e.Score > best.Score {
			return fmt.Sprintf("trial %d not taken: re-measured %.1f (mean of %d) is above #%d's %.1f (mean of %d) by less than the run-to-run noise explains: #%d stays the best",
				cand.Number, e.Score, e.N, best.Number, best.Score, EstimateOf(trials, best).N, best.Number)
		}
		return fmt.Sprintf("trial %d demoted: first measured %.1f, re-measured %.1f (mean of %d), below #%d's %.1f",
			cand.Number, cand.Score, e.Score, e.N, inc.Number, inc.Score)
	case Recheck:
		for _, u := range trials {
			if u.Number == t.RepeatOf && t.State == Complete && u.Score != 0 {
				e := EstimateOf(trials, u)
				return fmt.Sprintf("baseline re-measured: %.1f vs first %.1f (%+.1f %% drift); baseline estimate %.1f over %d runs",
					t.Score, u.Score, (t.Score-u.Score)/math.Abs(u.Score)*100, e.Score, e.N)
			}
		}
	}
	return ""
}

// raceVerdict describes a run of a close race (owesRace): cand, re-measured
// beyond its confirmations (or the configuration it would displace), and
// its rival, each with its estimate, and which of them is the best now.
func raceVerdict(trials []Trial, cand Trial, e Estimate) string {
	key := cand.Params.Key()
	best := incumbent(trials)
	rival := best
	if best.Number >= 0 && best.Params.Key() == key {
		var others []Trial
		for _, u := range trials {
			if u.Params.Key() != key {
				others = append(others, u)
			}
		}
		rival = incumbent(others)
	}
	if best.Number < 0 || rival.Number < 0 {
		return ""
	}
	return fmt.Sprintf("close race: trial %d re-measured, %.1f (mean of %d) against #%d's %.1f (mean of %d): #%d is the best",
		cand.Number, e.Score, e.N, rival.Number, rival.Score, EstimateOf(trials, rival).N, best.Number)
}

// confirmChange describes a change in the confirmations a new best needs
// at search trial t ("" when t needs as many as the search trial before
// it, or is the first to need any): the count before and now, and the
// run-to-run noise of the score measured before t began.
func confirmChange(trials []Trial, t Trial) string {
	i := slices.IndexFunc(trials, func(u Trial) bool { return u.Number == t.Number })
	if i < 0 {
		return ""
	}
	for j := i - 1; j >= 0; j-- {
		u := trials[j]
		if u.ConfirmNeeded == 0 || u.Kind.Extra() || u.Kind == Baseline {
			continue
		}
		if u.ConfirmNeeded == t.ConfirmNeeded {
			return ""
		}
		sd, df := ScoreNoise(trials[:i])
		return fmt.Sprintf("a new best now needs %d confirmation(s), was %d: the score's run-to-run noise is %.1f %% (%d degrees of freedom)",
			t.ConfirmNeeded, u.ConfirmNeeded, sd*100, df)
	}
	return ""
}
