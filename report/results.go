package report

import (
	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// The words of a study's result that an export file also writes (the
// throughput's unit, the headline gains) are owned by package exportfile,
// so that the terminal, the HTML page, the dashboard and the file say the
// same. These are report's names for them.

// ThroughputOf is exportfile.ThroughputOf: the unit and value of a
// trial's throughput ("tpmC" and 60 × tps for a TPC-C trial, else "tps").
func ThroughputOf(t search.Trial) (unit string, value float64) { return exportfile.ThroughputOf(t) }

// GoalOf returns the objective a study optimised (storage.Study.Goal:
// tps when its manifest does not say).
func GoalOf(st storage.Study) measure.Goal { return st.Goal() }

// GainText is exportfile.GainText: the paired A/B gain of best over the
// baseline on goal, or why there is none; ok is false without an
// interval.
func GainText(goal measure.Goal, trials []search.Trial, best search.Trial) (text string, ok bool) {
	return exportfile.GainText(goal, trials, best)
}

// RulesText is exportfile.RulesText: the gain of best over the study's
// expert warm start, or why there is none; ok is false without an
// interval.
func RulesText(goal measure.Goal, trials []search.Trial, best search.Trial) (text string, ok bool) {
	return exportfile.RulesText(goal, trials, best)
}
