package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Plot size in pixels (vgimg renders at 96 dpi).
const (
	plotWidthPx  = 900
	plotHeightPx = 420
	dpi          = 96
)

// Colours of the plots (the Tableau 10 palette). The chromium test looks
// for them in a screenshot of the page, so keep the page's own CSS free of
// them.
var (
	colTrial    = color.RGBA{R: 31, G: 119, B: 180, A: 255} // blue: a complete trial
	colBestLine = color.RGBA{R: 255, G: 127, B: 14, A: 255} // orange: best so far
	colBaseline = color.RGBA{R: 127, G: 127, B: 127, A: 255}
	colBest     = color.RGBA{R: 44, G: 160, B: 44, A: 255}   // green
	colFailed   = color.RGBA{R: 214, G: 39, B: 40, A: 255}   // red
	colBar      = color.RGBA{R: 148, G: 103, B: 189, A: 255} // purple
)

// PlotColors are the colours the plots draw their data in, for tests that
// check a rendered page shows them.
func PlotColors() []color.RGBA {
	return []color.RGBA{colTrial, colBestLine, colBaseline, colBest, colFailed, colBar}
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Tick.Marker = numTicks{}
	p.X.Tick.Marker = numTicks{}
	return p
}

// png renders p as a PNG of plotWidthPx × plotHeightPx pixels.
func png(p *plot.Plot) ([]byte, error) {
	return pngSize(p, plotWidthPx, plotHeightPx)
}

// pngSize renders p as a PNG of w × h pixels on a white background, with a
// margin of a few pixels all round.
func pngSize(p *plot.Plot, w, h int) ([]byte, error) {
	px := func(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }
	c := vgimg.NewWith(vgimg.UseWH(px(w), px(h)), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.Crop(draw.New(c), px(6), -px(10), px(4), -px(8))
	p.Draw(dc)
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot %q: %w", p.Title.Text, err)
	}
	return b.Bytes(), nil
}

// numTicks is plot.DefaultTicks with plain labels (2500, not 2500.00).
type numTicks struct{}

func (numTicks) Ticks(min, max float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

func glyph(c color.Color, shape draw.GlyphDrawer, radius float64) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(radius)}
}

func scatter(xys plotter.XYs, g draw.GlyphStyle) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = g
	return s, nil
}

// bestSoFar is one step of the best-so-far line: after trial Trial, the
// study's best was trial Best with the estimated score Score.
type bestSoFar struct {
	Trial, Best int
	Score       float64
}

// bestSoFarSteps returns the study's best after each finished trial
// (complete, failed or rejected), as search.Best would have said then:
// the confirmed incumbent with its estimate (the mean of its
// confirmations), not the highest single score, so a candidate demoted by
// its re-measurements never shows. Trials before there is a best are left
// out.
func bestSoFarSteps(trials []search.Trial) []bestSoFar {
	var out []bestSoFar
	for i, inc := range search.Incumbents(trials) {
		t := trials[i]
		if !t.State.Finished() || inc.Number < 0 {
			continue
		}
		out = append(out, bestSoFar{Trial: t.Number, Best: inc.Number, Score: inc.Score})
	}
	return out
}

// scorePlot draws the score of every complete trial by trial number, the
// study's best so far (bestSoFarSteps) as a step line, the baseline score
// as a dashed line, and failed or rejected trials as red crosses under the
// lowest score.
func scorePlot(trials []search.Trial, best, base search.Trial) ([]byte, error) {
	p := newPlot("Score per trial (higher is better)", "trial", "score (mean tps − λ·sd)")
	var done, failed, steps plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range trials {
		if t.State == search.Complete {
			lo, hi = math.Min(lo, t.Score), math.Max(hi, t.Score)
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("score plot: no complete trial")
	}
	pad := math.Max((hi-lo)*0.08, math.Abs(hi)*0.02+1e-9)
	for _, t := range trials {
		x := float64(t.Number)
		switch t.State {
		case search.Complete:
			done = append(done, plotter.XY{X: x, Y: t.Score})
		case search.Failed, search.Rejected:
			failed = append(failed, plotter.XY{X: x, Y: lo - pad})
		}
	}
	for _, s := range bestSoFarSteps(trials) {
		steps = append(steps, plotter.XY{X: float64(s.Trial), Y: s.Score})
	}
	if len(steps) > 0 {
		line, err := plotter.NewLine(steps)
		if err != nil {
			return nil, err
		}
		line.StepStyle = plotter.PostStep
		line.LineStyle.Color = colBestLine
		line.LineStyle.Width = vg.Points(2)
		p.Add(line)
		p.Legend.Add("best so far (confirmed, estimated score)", line)
	}

	if base.Number >= 0 {
		bl, err := plotter.NewLine(plotter.XYs{{X: 0, Y: base.Score}, {X: math.Max(float64(trials[len(trials)-1].Number), 1), Y: base.Score}})
		if err != nil {
			return nil, err
		}
		bl.LineStyle.Color = colBaseline
		bl.LineStyle.Width = vg.Points(1.2)
		bl.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(bl)
		p.Legend.Add(fmt.Sprintf("baseline (trial %d)", base.Number), bl)
	}
	s, err := scatter(done, glyph(colTrial, draw.CircleGlyph{}, 3.5))
	if err != nil {
		return nil, err
	}
	p.Add(s)
	p.Legend.Add("complete trial", s)
	if len(failed) > 0 {
		f, err := scatter(failed, glyph(colFailed, draw.CrossGlyph{}, 4.5))
		if err != nil {
			return nil, err
		}
		f.GlyphStyle.Radius = vg.Points(4.5)
		p.Add(f)
		p.Legend.Add(unscoredLabel(trials), f)
	}
	if best.Number >= 0 {
		b, err := scatter(plotter.XYs{{X: float64(best.Number), Y: best.Score}}, glyph(colBest, draw.RingGlyph{}, 7))
		if err != nil {
			return nil, err
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("best (trial %d)", best.Number), b)
	}
	p.Y.Min = lo - 2*pad
	p.Y.Max = hi + 4*pad // room for the legend
	p.X.Tick.Marker = intTicks{}
	return png(p)
}

// intTicks marks whole numbers only (trial numbers).
type intTicks struct{}

func (intTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
		if t.Label != "" && t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = strconv.Itoa(int(t.Value))
		}
		out = append(out, t)
	}
	return out
}

// tpsPlot draws the per-second tps of the baseline and of the best trial
// against seconds since the benchmark started, with the end of the warm-up
// marked.
func tpsPlot(base, best search.Trial, baseSamples, bestSamples []measure.Sample) ([]byte, error) {
	series := []samplesSeries{{label: fmt.Sprintf("baseline (trial %d)", base.Number), ss: baseSamples, c: colBaseline, width: 1.5}}
	if best.Number != base.Number {
		series = append(series, samplesSeries{label: fmt.Sprintf("best (trial %d)", best.Number), ss: bestSamples, c: colBest, width: 2})
	}
	return samplesPlot("Per-second throughput: baseline and best", series)
}

// samplesPlot draws the per-second tps of each series against seconds
// since the benchmark started, with the end of the warm-up marked (none
// while a running trial is still warming up); a
// series without samples is left out. It returns an error when none has
// samples.
func samplesPlot(title string, series []samplesSeries) ([]byte, error) {
	p := newPlot(title, "seconds since the benchmark started", "tps")
	warmEnd, hi, n := 0.0, 0.0, 0
	for _, sr := range series {
		if len(sr.ss) == 0 {
			continue
		}
		n++
		xys := make(plotter.XYs, len(sr.ss))
		end := 0.0 // the series' last warm-up second, once a measured one follows
		for i, s := range sr.ss {
			xys[i] = plotter.XY{X: s.T, Y: s.TPS}
			if s.Warmup && i+1 < len(sr.ss) && !sr.ss[i+1].Warmup {
				end = s.T
			}
			hi = math.Max(hi, s.TPS)
		}
		warmEnd = math.Max(warmEnd, end)
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle.Color = sr.c
		l.LineStyle.Width = vg.Points(sr.width)
		p.Add(l)
		p.Legend.Add(sr.label, l)
	}
	if n == 0 {
		return nil, fmt.Errorf("tps plot: no per-second samples")
	}
	p.Y.Min = 0
	p.Y.Max = hi * 1.25
	if warmEnd > 0 {
		w, err := plotter.NewLine(plotter.XYs{{X: warmEnd + 0.5, Y: 0}, {X: warmEnd + 0.5, Y: hi * 1.25}})
		if err != nil {
			return nil, err
		}
		w.LineStyle.Color = color.Black
		w.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
		p.Add(w)
		p.Legend.Add("end of warm-up", w)
	}
	return png(p)
}

// importancePlot draws the knob importance shares as horizontal bars, the
// most important at the top.
func importancePlot(imp []search.KnobImportance) ([]byte, error) {
	p := newPlot("Knob importance (share of the score's variation)", "share", "")
	n := len(imp)
	vals := make(plotter.Values, n)
	names := make([]string, n)
	for i, k := range imp {
		vals[n-1-i] = k.Importance
		names[n-1-i] = k.Knob
	}
	b, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return nil, err
	}
	b.Horizontal = true
	b.Color = colBar
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max = 1
	p.Legend.Top = false
	return pngSize(p, plotWidthPx, max(plotHeightPx, 60+26*n))
}

// knobPlot draws the score of each complete trial against the value of
// knob k (log axis for log-scale knobs, one column per choice for Enum and
// Bool knobs, spread sideways so equal values stay visible), with failed
// or rejected trials as red crosses under the lowest score.
func knobPlot(k space.Knob, trials []search.Trial, best search.Trial, share float64) ([]byte, error) {
	p := newPlot(fmt.Sprintf("Score against %s (importance %.0f %%)", k.Name, share*100), k.Name, "score")
	choice := k.Kind == space.Enum || k.Kind == space.Bool
	opts := k.Options()
	x := func(t search.Trial) (float64, bool) {
		v, ok := t.Params[k.Name]
		if !ok {
			v = k.Default
		}
		f, err := k.Float(v)
		if err != nil {
			return 0, false
		}
		if choice {
			// Spread points of one choice sideways by trial number.
			f += (float64((t.Number*7)%11) - 5) / 40
		}
		return f, true
	}
	var done, failed, bestPt plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range trials {
		if t.State == search.Complete {
			lo, hi = math.Min(lo, t.Score), math.Max(hi, t.Score)
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("knob plot %s: no complete trial", k.Name)
	}
	pad := math.Max((hi-lo)*0.08, math.Abs(hi)*0.02+1e-9)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, t := range trials {
		xv, ok := x(t)
		if !ok {
			continue
		}
		switch t.State {
		case search.Complete:
			done = append(done, plotter.XY{X: xv, Y: t.Score})
			if t.Number == best.Number {
				bestPt = append(bestPt, plotter.XY{X: xv, Y: t.Score})
			}
		case search.Failed, search.Rejected:
			failed = append(failed, plotter.XY{X: xv, Y: lo - pad})
		default:
			continue
		}
		xlo, xhi = math.Min(xlo, xv), math.Max(xhi, xv)
	}
	s, err := scatter(done, glyph(colTrial, draw.CircleGlyph{}, 3.5))
	if err != nil {
		return nil, err
	}
	p.Add(s)
	p.Legend.Add("complete trial", s)
	if len(failed) > 0 {
		f, err := scatter(failed, glyph(colFailed, draw.CrossGlyph{}, 4.5))
		if err != nil {
			return nil, err
		}
		p.Add(f)
		p.Legend.Add(unscoredLabel(trials), f)
	}
	if len(bestPt) > 0 {
		b, err := scatter(bestPt, glyph(colBest, draw.RingGlyph{}, 7))
		if err != nil {
			return nil, err
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("best (trial %d)", best.Number), b)
	}
	p.Y.Min = lo - 2*pad
	p.Y.Max = hi + 4*pad
	switch {
	case choice:
		p.X.Min, p.X.Max = -0.5, float64(len(opts))-0.5
		ticks := make([]plot.Tick, len(opts))
		for i, o := range opts {
			ticks[i] = plot.Tick{Value: float64(i), Label: o}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	case k.Scale == space.Log:
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = math.Min(xlo, k.Min)/1.2, math.Max(xhi, k.Max)*1.2
		if k.Kind == space.Bytes {
			p.X.Tick.Marker = byteTicks{}
		} else {
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	default:
		p.X.Min, p.X.Max = math.Min(xlo, k.Min), math.Max(xhi, k.Max)
		pd := (p.X.Max - p.X.Min) * 0.03
		p.X.Min -= pd
		p.X.Max += pd
	}
	if k.Unit != "" && !choice {
		p.X.Label.Text += " (" + k.Unit + ")"
	}
	return png(p)
}

// byteTicks marks powers of two between min and max, labelled with size
// suffixes (64M, 1G); every other power is a minor tick when there are many.
type byteTicks struct{}

func (byteTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	lo := math.Ceil(math.Log2(min))
	hi := math.Floor(math.Log2(max))
	stride := 1.0
	if hi-lo > 8 {
		stride = 2
	}
	for e := lo; e <= hi; e++ {
		v := math.Exp2(e)
		t := plot.Tick{Value: v}
		if math.Mod(e-lo, stride) == 0 {
			t.Label = space.FormatBytes(int64(v))
		}
		out = append(out, t)
	}
	return out
}

// unscoredLabel is the legend of the red crosses: trials that finished
// without a score.
func unscoredLabel(trials []search.Trial) string {
	for _, t := range trials {
		if t.State == search.Rejected {
			return "failed or rejected (no score)"
		}
	}
	return "failed (no score)"
}
