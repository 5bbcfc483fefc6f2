package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// Image is one rendered plot.
type Image struct {
	// File is the PNG's file name in the report directory, e.g. "score.png".
	File string
	// Title is the figure's caption.
	Title string
	// PNG is the encoded image.
	PNG []byte
}

// Report is a rendered report: the self-contained HTML page (plots
// embedded as data URIs) and the same plots as PNG files.
type Report struct {
	HTML   []byte
	Images []Image
}

// HTMLFile is the name of the page in the report directory.
const HTMLFile = "report.html"

// TopN is how many trials the top table lists.
const TopN = 10

// Knobs with at least this importance share get a score-against-knob plot
// (about one knob's share when all twelve matter alike), at most
// maxKnobPlots of them.
const (
	importantShare = 0.08
	maxKnobPlots   = 6
)

// Build renders the report. It returns an error when the study has no
// complete trial (nothing to plot) or a plot fails to render. Knob
// importance that cannot be computed (too few trials) leaves its plots out
// with a note on the page.
func Build(in result.StudyReport) (*Report, error) {
	if in.Space == nil {
		in.Space = space.Lookup()
	}
	best, base := search.Best(in.Trials)
	if best.Number < 0 {
		return nil, fmt.Errorf("report: study %q has no complete trial yet", in.Study)
	}
	r := &Report{}
	page := pageData{Title: "autotune report: study " + in.Study, Study: in.Study, Server: in.ServerVersion,
		Generated: in.Generated.UTC().Format(time.RFC3339), Created: in.Created.UTC().Format(time.RFC3339),
		Spent: in.Spent.Round(time.Second).String(), Cores: in.Cores, RAM: space.FormatBytes(in.RAMBytes),
		Settings: settingsList(in.Settings)}
	for _, t := range in.Trials {
		page.Counts.Total++
		if t.State.Finished() {
			page.Counts.Finished++
		}
		switch t.State {
		case search.Complete:
			page.Counts.Complete++
		case search.Failed:
			page.Counts.Failed++
		case search.Rejected:
			page.Counts.Rejected++
		case search.Interrupted:
			page.Counts.Interrupted++
		default:
			page.Counts.Running++
		}
		if t.State == search.Failed || t.State == search.Rejected {
			page.Failed = append(page.Failed, failedRow{Number: t.Number, Kind: string(t.Kind), State: string(t.State), Reason: excerpt(t.Failure, 300)})
		}
	}
	page.Best = trialRow(in.Space, best, base, 1)
	page.HasBaseline = base.Number >= 0
	page.Gain, _ = exportfile.GainText(cmp.Or(in.Goal, measure.GoalTPS), in.Trials, best)
	page.RulesGain, _ = exportfile.RulesText(cmp.Or(in.Goal, measure.GoalTPS), in.Trials, best)
	page.Workload, page.Skew = in.Workload, exportfile.SkewLines(cmp.Or(in.Goal, measure.GoalTPS), in.Trials, best)
	if page.HasBaseline {
		page.Baseline = trialRow(in.Space, base, base, 0)
	}

	add := func(file, title, alt string, png []byte) {
		r.Images = append(r.Images, Image{File: file, Title: title, PNG: png})
		page.Figures = append(page.Figures, figure{ID: strings.TrimSuffix(file, ".png"), Title: title, Alt: alt,
			// An attribute built here, not by the template: html/template
			// would escape every '+' of the base64 text as "&#43;".
			Src: template.HTMLAttr(`src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"`)})
	}
	// The skew check's runs measured another workload: not on the
	// study's score axis.
	png, err := scorePlot(slices.DeleteFunc(slices.Clone(in.Trials), func(t search.Trial) bool { return t.Kind.Skewed() }), best, base)
	if err != nil {
		return nil, err
	}
	add("score.png", "Score per trial with the study's best so far (confirmed by re-measurement, at its estimated score)", "score of each trial against its number", png)

	if len(in.BaselineSamples)+len(in.BestSamples) > 0 {
		png, err := tpsPlot(base, best, in.BaselineSamples, in.BestSamples)
		if err != nil {
			return nil, err
		}
		add("tps.png", "Per-second throughput of the baseline and the best trial", "tps per second of the baseline and the best trial", png)
	} else {
		page.Notes = append(page.Notes, "no per-second samples stored for the baseline or the best trial: no throughput plot")
	}

	imp, png, caveat, why, err := ImportanceFigure(in.Space, in.Trials)
	if err != nil {
		return nil, err
	}
	if why != "" {
		page.Notes = append(page.Notes, "knob importance not shown: "+why)
	} else {
		add("importance.png", "Knob importance", "importance share of each knob", png)
		if caveat != "" {
			page.Notes = append(page.Notes, "knob importance: "+caveat)
		}
		for _, ki := range imp {
			if ki.Importance < importantShare || len(page.Figures) >= 3+maxKnobPlots {
				break
			}
			k, ok := in.Space.Knob(ki.Knob)
			if !ok {
				continue
			}
			png, err := knobPlot(k, in.Trials, best, ki.Importance)
			if err != nil {
				return nil, err
			}
			add("knob-"+k.Name+".png", fmt.Sprintf("Score against %s (importance %.0f %%)", k.Name, ki.Importance*100),
				"score of each trial against "+k.Name, png)
		}
		page.ImportanceNote = fmt.Sprintf("Importance: per knob, the adjusted R² of the score regressed on that knob alone "+
			"(log value for log-scale knobs, one-hot for choices), as a share of the total over all knobs, from %d complete trials. "+
			"It is a marginal view: knobs the search moved together share credit, interactions are not seen. "+
			"Knobs with a share of at least %.0f %% get a plot of their own.", page.Counts.Complete, importantShare*100)
	}

	if in.Minimized != nil {
		page.Minimal = minimalPage(in.Space, *in.Minimized, best)
	}

	top := topTrials(in.Trials, TopN)
	for i, t := range top {
		r := trialRow(in.Space, t, base, i+1)
		if e := search.EstimateOf(in.Trials, t); e.N > 0 {
			r.Estimate = fmt.Sprintf("%s (%d)", f1(e.Score), e.N)
		}
		page.Top = append(page.Top, r)
	}
	page.Diff = diffTable(in.Space, top)

	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, page); err != nil {
		return nil, fmt.Errorf("report: render page: %w", err)
	}
	r.HTML = b.Bytes()
	return r, nil
}

// Write writes the page (HTMLFile) and the PNG files into dir, creating it
// (0755) when missing. Files are written with mode 0644.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: --out %q: %w", dir, err)
	}
	for _, im := range r.Images {
		if err := os.WriteFile(filepath.Join(dir, im.File), im.PNG, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, HTMLFile), r.HTML, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// topTrials returns up to n complete trials, best score first (ties by
// trial number).
func topTrials(trials []search.Trial, n int) []search.Trial {
	var out []search.Trial
	for _, t := range trials {
		if t.State == search.Complete {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

type pageData struct {
	Title, Study, Server, Generated, Created, Spent, RAM string
	Cores                                                int
	Settings                                             []kv
	Counts                                               counts
	Best, Baseline                                       row
	HasBaseline                                          bool
	Gain, RulesGain                                      string
	// Workload is what the study measured (result.StudyReport.Workload);
	// Skew the skew checks' lines (exportfile.SkewLines).
	Workload       string
	Skew           []string
	Figures        []figure
	Notes          []string
	ImportanceNote string
	Top            []row
	Diff           diff
	Failed         []failedRow
	Minimal        *minimalSection
}

// minimalSection is the page's account of the minimisation.
type minimalSection struct {
	// Summary says what was kept and how the result compares with the
	// full best.
	Summary string
	// Waterfall is the inline SVG (waterfallSVG), empty when no measured
	// change was kept.
	Waterfall template.HTML
	// Steps are the steps in order.
	Steps []minStepRow
	// Kept are the kept changes with their contributions.
	Kept []exportfile.KeptChange
}

type minStepRow struct {
	N                   int
	Knobs, Status, Gain string
}

// minimalPage builds the page's minimisation section of m (the best is
// trial best).
func minimalPage(sp *space.Space, m search.Minimized, best search.Trial) *minimalSection {
	if m.Best < 0 || m.Best != best.Number {
		return nil
	}
	kept := exportfile.KeptChanges(sp, m)
	sec := &minimalSection{Waterfall: waterfallSVG(sp, m), Kept: kept}
	switch {
	case !m.Done:
		sec.Summary = fmt.Sprintf("The minimisation of trial %d is not finished (%d runs so far): autotune minimize resumes it.", m.Best, m.Runs)
	case m.Accepted:
		sec.Summary = fmt.Sprintf("Trial %d changes %d knobs from the baseline; the minimal configuration keeps %d of them (%d runs). %s", m.Best, m.Changes, len(kept), m.Runs, search.MinimizeRule+".")
	default:
		sec.Summary = fmt.Sprintf("The minimal configuration of trial %d was worse than the full best: export writes the full best (%d runs).", m.Best, m.Runs)
	}
	if m.Check != nil {
		sec.Summary += " " + strings.TrimPrefix(search.CheckText(m, m.Goal), "minimize: ") + "."
	}
	for i, s := range m.Steps {
		r := minStepRow{N: i + 1, Knobs: strings.Join(s.Knobs, ", "), Status: string(s.Status)}
		if s.Pairs > 0 {
			r.Gain = fmt.Sprintf("%+.1f %% (95 %% interval %+.1f .. %+.1f %%, %d pairs)", s.Pct, s.LoPct, s.HiPct, s.Pairs)
		}
		sec.Steps = append(sec.Steps, r)
	}
	return sec
}

type kv struct{ Key, Value string }

type figure struct {
	ID, Title, Alt string
	Src            template.HTMLAttr
}

type row struct {
	Rank, Number                        int
	Kind, Score, TPS, SD, P95, Duration string
	ScoreVsBase, TPSVsBase              string
	// Estimate is the configuration's pooled score over all its
	// measurements and their number, "score (runs)" (search.EstimateOf).
	Estimate string
	Changes  []string
	Gain     float64
}

// counts are the study's trials by state; Finished counts the states
// that are done (search.State.Finished: complete, failed, rejected).
type counts struct {
	Total, Finished                                  int
	Complete, Failed, Rejected, Interrupted, Running int
}

// failedRow is a trial that finished without a score: failed or rejected
// (State), with its reason.
type failedRow struct {
	Number              int
	Kind, State, Reason string
}

type diff struct {
	Trials []int
	Rows   []diffRow
}

type diffRow struct {
	Knob, Default string
	Cells         []diffCell
}

type diffCell struct {
	Value   string
	Changed bool
}

func f1(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(v, base float64) string {
	if base == 0 || math.IsNaN(base) || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.1f %%", (v-base)/base*100)
}

func trialRow(sp *space.Space, t, base search.Trial, rank int) row {
	r := row{Rank: rank, Number: t.Number, Kind: string(t.Kind), Score: f1(t.Score), TPS: f1(t.MeanTPS),
		SD: f1(t.StdTPS), P95: f1(t.P95MS), Duration: t.Duration().Round(time.Second).String(),
		ScoreVsBase: "-", TPSVsBase: "-", Estimate: "-", Changes: changes(sp, t.Params)}
	if base.Number >= 0 {
		r.ScoreVsBase, r.TPSVsBase = pct(t.Score, base.Score), pct(t.MeanTPS, base.MeanTPS)
	}
	return r
}

// changes lists the knobs of c that differ from the server default as
// "name default → value" (knobs unknown to the space as "name = value").
func changes(sp *space.Space, c space.Config) []string {
	var out []string
	for _, k := range sp.All() {
		v, ok := c[k.Name]
		if !ok || v == k.Default {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s → %s", k.Name, k.Render(k.Default), k.Render(v)))
	}
	for _, n := range c.Names() {
		if _, ok := sp.Knob(n); !ok {
			out = append(out, n+" = "+c[n])
		}
	}
	return out
}

// diffTable lays out the knobs any of trials changed from the default,
// one row per knob, one column per trial.
func diffTable(sp *space.Space, trials []search.Trial) diff {
	d := diff{}
	for _, t := range trials {
		d.Trials = append(d.Trials, t.Number)
	}
	var names []string
	defaults := map[string]string{}
	render := map[string]func(string) string{}
	for _, k := range sp.All() {
		names = append(names, k.Name)
		defaults[k.Name] = k.Default
		render[k.Name] = k.Render
	}
	extra := map[string]bool{}
	for _, t := range trials {
		for _, n := range t.Params.Names() {
			if _, ok := sp.Knob(n); !ok && !extra[n] {
				extra[n] = true
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		r := diffRow{Knob: n, Default: "?"}
		rend := func(v string) string { return v }
		if f, ok := render[n]; ok {
			rend = f
			r.Default = f(defaults[n])
		}
		any := false
		for _, t := range trials {
			v, ok := t.Params[n]
			changed := ok && (v != defaults[n] || extra[n])
			c := diffCell{Changed: changed}
			if changed {
				c.Value = rend(v)
				any = true
			}
			r.Cells = append(r.Cells, c)
		}
		if any {
			d.Rows = append(d.Rows, r)
		}
	}
	return d
}

// settingsList flattens the settings JSON object into sorted key/value
// pairs; text that is not a JSON object is shown as one value.
func settingsList(s string) []kv {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return []kv{{Key: "settings", Value: s}}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]kv, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		var txt string
		switch x := v.(type) {
		case string:
			txt = x
		case float64:
			txt = fmt.Sprintf("%g", x)
		default:
			b, _ := json.Marshal(x)
			txt = string(b)
		}
		out = append(out, kv{Key: k, Value: txt})
	}
	return out
}

// excerpt shortens s to at most n bytes on a rune boundary, marking the cut.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

//go:embed report.html.tmpl
var pageSource string

var pageTmpl = template.Must(template.New("report").Parse(pageSource))

// trialSpace returns the space of the knobs the trials set: stored trials
// may come from any server and space file, so importance is estimated over
// what was actually varied, with the knob definitions of sp. Knobs that
// cannot form a space (a build choice without its choices) are left out.
func trialSpace(sp *space.Space, trials []search.Trial) *space.Space {
	set := map[string]bool{}
	for _, t := range trials {
		for n := range t.Params {
			set[n] = true
		}
	}
	var ks []space.Knob
	for _, k := range sp.All() {
		if !set[k.Name] || (k.Kind == space.Enum && len(k.Choices) == 0) {
			continue
		}
		ks = append(ks, k)
	}
	out, err := space.New(ks)
	if err != nil {
		return sp
	}
	return out
}

func allZero(imp []search.KnobImportance) bool {
	for _, ki := range imp {
		if ki.Importance > 0 {
			return false
		}
	}
	return true
}
