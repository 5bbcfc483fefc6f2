package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/study/result"
)

// Event names of the summaries (progressEvent.Event).
const (
	evSummary      = "summary"      // a search's conclusion (Summary, Text)
	evMinimization = "minimization" // a minimisation's result (Minimization, Text)
)

// progressSummary is the JSON form of a search's conclusion
// (result.Summary); Text on the event carries the lines the text output
// prints.
type progressSummary struct {
	// Importance ranks the knobs (absent when ImportanceNote says why
	// there is no ranking); ImportanceTrials is how many complete trials
	// it comes from.
	Importance       []progressImportance `json:"importance,omitempty"`
	ImportanceTrials int                  `json:"importance_trials,omitempty"`
	ImportanceCaveat string               `json:"importance_caveat,omitempty"`
	ImportanceNote   string               `json:"importance_note,omitempty"`
	// BestTrial is the best trial's number (absent: no complete trial).
	BestTrial *int `json:"best_trial,omitempty"`
	// Gain is the best's paired A/B gain over the baseline (absent when
	// the best is the baseline or too few pairs were measured).
	Gain *progressGain `json:"gain,omitempty"`
	// Workload is what the study measured (result.Summary.Workload).
	Workload string `json:"workload,omitempty"`
	// SkewChecks are the best's gains under the skew checks' workload
	// variants (absent without one); WorkloadFragile is set when one
	// found the best workload-fragile.
	SkewChecks      []progressSkew `json:"skew_checks,omitempty"`
	WorkloadFragile bool           `json:"workload_fragile,omitempty"`
	// Conclusion is what to do with the result, as the text says it.
	Conclusion   string                `json:"conclusion,omitempty"`
	Minimization *progressMinimization `json:"minimization,omitempty"`
}

// progressImportance is one knob's share of the score variance (0..1).
type progressImportance struct {
	Knob  string  `json:"knob"`
	Share float64 `json:"share"`
}

// progressGain is a paired gain in percent with its 95 % interval.
type progressGain struct {
	Goal        string  `json:"goal"`
	Pairs       int     `json:"pairs"`
	Pct         float64 `json:"pct"`
	LoPct       float64 `json:"lo_pct"`
	HiPct       float64 `json:"hi_pct"`
	Significant bool    `json:"significant"`
}

// progressSkew is one skew check: the variant ("--rand-type=uniform"),
// the gain under it (absent with fewer than 2 complete pairs), its
// complete pairs, and whether it found the best workload-fragile.
type progressSkew struct {
	Variant string        `json:"variant"`
	Gain    *progressGain `json:"gain,omitempty"`
	Pairs   int           `json:"pairs"`
	Fragile bool          `json:"workload_fragile"`
}

// progressMinimization is the JSON form of a minimisation: the trial
// minimised, its runs, whether it finished, and the changes kept.
type progressMinimization struct {
	Trial   int            `json:"trial"`
	Changes int            `json:"changes"`
	Runs    int            `json:"runs"`
	Done    bool           `json:"done"`
	Kept    []progressKept `json:"kept"`
}

// progressKept is one change a minimal configuration keeps.
type progressKept struct {
	Knob    string `json:"knob"`
	Value   string `json:"value"`
	Comment string `json:"comment"`
}

// WriteSummary prints a search's conclusion s: the workload, the knob
// importance (or why there is none), the gains of the best over the
// baseline and the expert warm start and under the skew checks' variants,
// the conclusion, and the minimisation when one ran.
func WriteSummary(out io.Writer, s result.Summary) {
	if s.Workload != "" {
		fmt.Fprintf(out, "workload: %s\n", s.Workload)
	}
	if s.ImportanceNote != "" {
		fmt.Fprintln(out, s.ImportanceNote)
	} else {
		WriteImportance(out, s.Importance, s.ImportanceTrials, s.ImportanceCaveat)
	}
	WriteGain(out, s.Goal, s.Trials, s.Best)
	WriteConclusion(out, s.Goal, s.Trials, s.Best, s.ExportHint)
	if s.Minimization != nil && s.Minimization.Result.Runs > 0 {
		WriteMinimization(out, s.Minimization.Space, s.Minimization.Result)
	}
}

// summaryEvent is the progress event of s: its text and its JSON form.
func summaryEvent(s result.Summary) progressEvent {
	var text strings.Builder
	WriteSummary(&text, s)
	ps := &progressSummary{Workload: s.Workload, ImportanceTrials: s.ImportanceTrials, ImportanceCaveat: s.ImportanceCaveat, ImportanceNote: s.ImportanceNote}
	if s.ImportanceNote == "" {
		ps.Importance = []progressImportance{}
		for _, ki := range s.Importance {
			ps.Importance = append(ps.Importance, progressImportance{Knob: ki.Knob, Share: ki.Importance})
		}
	}
	if s.Best.Number >= 0 {
		n := s.Best.Number
		ps.BestTrial = &n
		if s.Best.Kind != search.Baseline {
			if g, ok := search.ABGain(s.Goal, s.Trials, s.Best.Number); ok {
				ps.Gain = gainJSON(g)
			}
			for _, l := range search.SkewLabels(s.Trials, s.Best.Number) {
				k := search.SkewOf(s.Goal, s.Trials, s.Best.Number, l)
				sk := progressSkew{Variant: l, Pairs: k.Pairs, Fragile: k.Fragile}
				if k.Measured {
					sk.Gain = gainJSON(k.Gain)
				}
				ps.SkewChecks = append(ps.SkewChecks, sk)
				ps.WorkloadFragile = ps.WorkloadFragile || k.Fragile
			}
		}
	}
	var c strings.Builder
	WriteConclusion(&c, s.Goal, s.Trials, s.Best, s.ExportHint)
	ps.Conclusion = strings.TrimPrefix(strings.TrimSpace(c.String()), "conclusion: ")
	if s.Minimization != nil && s.Minimization.Result.Runs > 0 {
		ps.Minimization = minimizationJSON(*s.Minimization)
	}
	return progressEvent{Event: evSummary, Text: text.String(), Summary: ps}
}

// gainJSON is the JSON form of g.
func gainJSON(g search.Gain) *progressGain {
	return &progressGain{Goal: string(g.Goal), Pairs: g.Pairs, Pct: g.Pct, LoPct: g.LoPct, HiPct: g.HiPct, Significant: g.Significant}
}

// minimizationEvent is the progress event of a minimisation's result.
func minimizationEvent(m result.Minimization) progressEvent {
	var text strings.Builder
	WriteMinimization(&text, m.Space, m.Result)
	return progressEvent{Event: evMinimization, Text: text.String(), Minimization: minimizationJSON(m)}
}

// minimizationJSON is the JSON form of m.
func minimizationJSON(m result.Minimization) *progressMinimization {
	pm := &progressMinimization{Trial: m.Result.Best, Changes: m.Result.Changes, Runs: m.Result.Runs, Done: m.Result.Done, Kept: []progressKept{}}
	if m.Result.Best >= 0 {
		for _, k := range exportfile.KeptChanges(m.Space, m.Result) {
			pm.Kept = append(pm.Kept, progressKept{Knob: k.Name, Value: k.Value, Comment: k.Comment})
		}
	}
	return pm
}
