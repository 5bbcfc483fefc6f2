package report

import (
	"fmt"
	"html/template"
	"image/color"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// The renderings below are the report's, exported for pages that show a
// study while it runs (autotune dashboard): one computation, one picture,
// wherever it is shown.

// ScorePlot renders the report's score-per-trial plot (PNG): every
// complete trial's score, the confirmed best so far (search.Incumbents),
// the baseline, failed trials. It returns an error when no trial is
// complete yet.
func ScorePlot(trials []search.Trial) ([]byte, error) {
	best, base := search.Best(trials)
	return scorePlot(trials, best, base)
}

// ImportanceFigure is knob importance as the report shows it: the shares
// (search.Importance over the knobs the trials set, most important
// first), their bar plot (PNG) and the caveat (search.ImportanceCaveat,
// "" when none). why says why there is none to show (too few trials, no
// knob explains any variance); err is a plot that failed to render.
func ImportanceFigure(sp *space.Space, trials []search.Trial) (imp []search.KnobImportance, png []byte, caveat, why string, err error) {
	if sp == nil {
		sp = space.Lookup()
	}
	ts := trialSpace(sp, trials)
	imp, ierr := search.Importance(ts, trials)
	if ierr == nil && allZero(imp) {
		ierr = fmt.Errorf("no knob explains any of the score's variance")
	}
	if ierr != nil {
		return nil, nil, "", ierr.Error(), nil
	}
	if png, err = importancePlot(imp); err != nil {
		return nil, nil, "", "", err
	}
	return imp, png, search.ImportanceCaveat(ts, trials), "", nil
}

// TrialPlot renders the per-second throughput of one trial, running or
// finished (PNG), with the end of its warm-up marked. It returns an error
// when ss is empty.
func TrialPlot(t search.Trial, ss []measure.Sample) ([]byte, error) {
	return samplesPlot(fmt.Sprintf("Per-second throughput: trial %d (%s)", t.Number, t.State),
		[]samplesSeries{{label: fmt.Sprintf("trial %d", t.Number), ss: ss, c: colTrial, width: 1.5}})
}

// WaterfallSVG is the report's minimisation waterfall (inline SVG, from
// the baseline to the minimal configuration), empty when no measured
// change was kept.
func WaterfallSVG(sp *space.Space, m search.Minimized) template.HTML {
	return waterfallSVG(sp, m)
}

// samplesSeries is one line of samplesPlot.
type samplesSeries struct {
	label string
	ss    []measure.Sample
	c     color.Color
	width float64
}
