package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// WriteMinimization prints a minimisation (search.Minimized) for people:
// every step with what reverting its changes cost, the final check, and
// the minimal configuration, one line per kept change with its measured
// contribution.
func WriteMinimization(out io.Writer, sp *space.Space, m search.Minimized) {
	if m.Best < 0 {
		fmt.Fprintln(out, "\nminimisation: nothing to minimise (the best is the baseline, or changes nothing)")
		return
	}
	fmt.Fprintf(out, "\nminimisation of trial %d: %d changes from the baseline, %d runs\n", m.Best, m.Changes, m.Runs)
	for i, s := range m.Steps {
		fmt.Fprintf(out, "  step %d: %s\n", i+1, strings.TrimPrefix(search.StepText(s, m.Goal), "minimize: "))
	}
	switch {
	case !m.Done:
		fmt.Fprintln(out, "  not finished: autotune minimize resumes it")
	case m.Check != nil:
		fmt.Fprintf(out, "  %s\n", strings.TrimPrefix(search.CheckText(m, m.Goal), "minimize: "))
	}
	kept := exportfile.KeptChanges(sp, m)
	fmt.Fprintf(out, "minimal configuration: %d of the %d changes\n", len(kept), m.Changes)
	for _, k := range kept {
		fmt.Fprintf(out, "  %s = %s  # %s\n", k.Name, k.Value, k.Comment)
	}
}

// waterfall geometry (SVG user units = pixels).
const (
	wfWidth, wfHeight = 900, 380
	wfLeft, wfRight   = 60, 20
	wfTop, wfBottom   = 30, 120
)

// waterfallSVG draws the way from the baseline to the minimal
// configuration, change by change: one bar per kept change from the gain
// before it to the gain after it (gains compound: each step's ratio
// multiplies), labelled with the step's own contribution and with its 95 %
// interval as a whisker, then the minimal configuration's total (the
// product of the steps' ratios; the contributions were each measured
// against the configuration of their step, so the total is an estimate,
// the final check the measurement). Empty when nothing measured was kept.
func waterfallSVG(sp *space.Space, m search.Minimized) template.HTML {
	type bar struct {
		label        string
		from, to     float64 // gain in percent over the baseline
		pct          float64 // the bar's own share: the step's contribution, or the total
		lo, hi       float64 // whisker, percent over the baseline
		total, whisk bool
	}
	var bars []bar
	ratio := 1.0
	for _, s := range m.KeptSteps() {
		if s.Pairs == 0 {
			continue
		}
		from := (ratio - 1) * 100
		lo, hi := ratio*(1+s.LoPct/100), ratio*(1+s.HiPct/100)
		ratio *= 1 + s.Pct/100
		label := strings.Join(s.Knobs, " + ")
		if len(s.Knobs) == 1 {
			if k, ok := sp.Knob(s.Knobs[0]); ok {
				label += "=" + k.Render(s.Values[s.Knobs[0]])
			}
		}
		bars = append(bars, bar{label: label, from: from, to: (ratio - 1) * 100, pct: s.Pct, lo: (lo - 1) * 100, hi: (hi - 1) * 100, whisk: true})
	}
	if len(bars) == 0 {
		return ""
	}
	bars = append(bars, bar{label: "minimal configuration", from: 0, to: (ratio - 1) * 100, pct: (ratio - 1) * 100, total: true})
	ymin, ymax := 0.0, 0.0
	for _, b := range bars {
		ymin = math.Min(ymin, math.Min(math.Min(b.from, b.to), b.lo))
		ymax = math.Max(ymax, math.Max(math.Max(b.from, b.to), b.hi))
	}
	step := niceStep((ymax - ymin) / 5)
	ymin, ymax = math.Floor(ymin/step)*step, math.Ceil(ymax/step)*step
	if ymax == ymin {
		ymax = ymin + step
	}
	plotH := float64(wfHeight - wfTop - wfBottom)
	y := func(v float64) float64 { return wfTop + (ymax-v)/(ymax-ymin)*plotH }
	slot := float64(wfWidth-wfLeft-wfRight) / float64(len(bars))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="waterfall" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="gain over the baseline, change by change, to the minimal configuration">`+"\n",
		wfWidth, wfHeight, wfWidth, wfHeight)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14" font-weight="bold">From the baseline to the minimal configuration: %s gain, change by change</text>`+"\n", wfLeft, esc(string(m.Goal)))
	for v := ymin; v <= ymax+step/2; v += step {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", wfLeft, wfWidth-wfRight, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end">%+.0f %%</text>`+"\n", wfLeft-6, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#000000"/>`+"\n", wfLeft, wfWidth-wfRight, y(0), y(0))
	for i, br := range bars {
		x := float64(wfLeft) + float64(i)*slot + slot*0.15
		w := slot * 0.7
		top, bot := y(math.Max(br.from, br.to)), y(math.Min(br.from, br.to))
		fill := rgb(colBest)
		if br.to < br.from {
			fill = rgb(colFailed)
		}
		if br.total {
			fill = rgb(colBar)
		}
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %+.1f %%</title></rect>`+"\n",
			x, top, w, math.Max(1, bot-top), fill, esc(br.label), br.pct)
		if br.whisk {
			cx := x + w/2
			fmt.Fprintf(&b, `<line class="ci" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#000000"/>`+"\n", cx, cx, y(br.hi), y(br.lo))
		}
		if i+1 < len(bars) && !br.total {
			nx := float64(wfLeft) + float64(i+1)*slot + slot*0.15
			fmt.Fprintf(&b, `<line class="link" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#7f7f7f" stroke-dasharray="3,3"/>`+"\n", x+w, nx, y(br.to), y(br.to))
		}
		fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%+.0f %%</text>`+"\n", x+w/2, top-4, br.pct)
		lx, ly := x+w/2, float64(wfHeight-wfBottom)+12
		fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%.1f" font-size="11" text-anchor="end" transform="rotate(-35 %.1f %.1f)">%s</text>`+"\n", lx, ly, lx, ly, esc(br.label))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5, 10} {
		if raw <= f*p {
			return f * p
		}
	}
	return 10 * p
}

func rgb(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, bl, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
}

func esc(s string) string { return template.HTMLEscapeString(s) }
