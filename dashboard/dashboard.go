package dashboard

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// fingerprintOf returns the fingerprint key of trial n among trials ("":
// none recorded, or no such trial).
func fingerprintOf(trials []search.Trial, n int) string {
	for _, t := range trials {
		if t.Number == n {
			return t.Fingerprint
		}
	}
	return ""
}

// Store is what the dashboard reads (storage.DB).
type Store interface {
	Studies(ctx context.Context) ([]storage.StudyRecord, error)
	Study(ctx context.Context, name string) (storage.StudyRecord, bool, error)
	Trials(ctx context.Context, study string) ([]search.Trial, error)
	Samples(ctx context.Context, study string, number int) ([]measure.Sample, error)
	LiveSamples(ctx context.Context, study string, number int) ([]measure.Sample, error)
	Minimization(ctx context.Context, study string) (search.Minimized, bool, error)
	Applies(ctx context.Context, server string) ([]storage.ApplyRecord, error)
	Apply(ctx context.Context, id int64) (storage.ApplyRecord, error)
	ApplyEvents(ctx context.Context, id int64) ([]storage.ApplyEvent, error)
}

var _ Store = (*storage.DB)(nil)

// DefaultPoll is how often a page asks whether the store changed.
const DefaultPoll = 2 * time.Second

// maxRunning is how many running trials (workers run several at once) a
// study page plots.
const maxRunning = 4

// VersionHeader carries the version of the page the browser shows; the
// server answers 204 No Content when the page would be the same.
const VersionHeader = "X-Dashboard-Version"

// Handler serves the dashboard of one store.
type Handler struct {
	db    Store
	name  string // the store as shown: a path or a redacted URL
	poll  time.Duration
	space *space.Space
	mux   *http.ServeMux
}

// New returns the dashboard of db; name is how the page names the store
// (pass it through storage.RedactURL), poll how often pages ask for
// changes (DefaultPoll when 0).
func New(db Store, name string, poll time.Duration) *Handler {
	h := &Handler{db: db, name: storage.RedactURL(name), poll: cmp.Or(poll, DefaultPoll), space: space.Lookup(), mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.studies)
	h.mux.HandleFunc("GET /study", h.study)
	h.mux.HandleFunc("GET /trial", h.trial)
	h.mux.HandleFunc("GET /apply", h.apply)
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The page loads nothing from elsewhere, and nothing may frame it.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
	h.mux.ServeHTTP(w, r)
}

// page is what every page template gets.
type page struct {
	VersionHeader string
	Title         string
	Store         string
	Version       string
	PollMS        int64
	Back          []link
	Body          any
}

type link struct{ Href, Text string }

// version hashes what a page shows, so a poll can tell "unchanged".
type version struct {
	h interface{ Write([]byte) (int, error) }
}

func newVersion() *version { return &version{h: fnv.New64a()} }

func (v *version) add(xs ...any) {
	for _, x := range xs {
		fmt.Fprint(v.h, x, "|")
	}
}

func (v *version) String() string {
	return strconv.FormatUint(v.h.(interface{ Sum64() uint64 }).Sum64(), 36)
}

func addTrials(v *version, trials []search.Trial) {
	for _, t := range trials {
		v.add(t.Number, t.State, math.Float64bits(t.Score), t.Ended.UnixNano())
	}
}

// respond writes 204 when the browser's page is current, else renders tmpl.
func (h *Handler) respond(w http.ResponseWriter, r *http.Request, ver string, tmpl string, p page) {
	if r.Header.Get(VersionHeader) == ver {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	p.Store, p.Version, p.PollMS, p.VersionHeader = h.name, ver, h.poll.Milliseconds(), VersionHeader
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, tmpl, p); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func fail(w http.ResponseWriter, err error, code int) {
	http.Error(w, err.Error(), code)
}

// ---- the studies and applies of the store ----

// studiesPage is the first page: the store's studies, and its applies
// newest first.
type studiesPage struct {
	Studies []studyRow
	Applies []applyRow
}

type studyRow struct {
	Name, Workload, Server, Host, Spent, Created string
	Trials, Complete, Running, Failed            int
	Best, Gain, GainWhy, Rules, RulesWhy         string
}

func (h *Handler) studies(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	studies, err := h.db.Studies(ctx)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	v := newVersion()
	rows := make([]studyRow, 0, len(studies))
	for _, st := range studies {
		trials, _, err := storage.StudyTrials(ctx, h.db, st)
		if err != nil {
			fail(w, err, http.StatusInternalServerError)
			return
		}
		v.add(st.Name, st.Spent)
		addTrials(v, trials)
		rows = append(rows, h.studyRow(st, trials))
	}
	applies, err := h.applyRows(r, v)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	h.respond(w, r, v.String(), "studies", page{Title: "autotune dashboard: " + h.name, Body: studiesPage{Studies: rows, Applies: applies}})
}

func (h *Handler) studyRow(st storage.StudyRecord, trials []search.Trial) studyRow {
	row := studyRow{Name: st.Name, Workload: report.WorkloadOf(st), Server: cmp.Or(st.ServerVersion, "-"),
		Host: hostText(st), Spent: st.Spent.Round(time.Second).String(), Created: st.Created.UTC().Format("2006-01-02 15:04"),
		Trials: len(trials), Best: "-", Gain: "-", Rules: "-"}
	for _, t := range trials {
		switch t.State {
		case search.Complete:
			row.Complete++
		case search.Running:
			row.Running++
		case search.Failed, search.Rejected:
			row.Failed++
		}
	}
	best, _ := search.Best(trials)
	if best.Number >= 0 {
		row.Best = fmt.Sprintf("#%d, score %s", best.Number, f1(best.Score))
		goal := st.Goal()
		if text, ok := exportfile.GainText(goal, trials, best); ok {
			row.Gain = text
		} else {
			row.GainWhy = text
		}
		if text, ok := exportfile.RulesText(goal, trials, best); ok {
			row.Rules = text
		} else {
			row.RulesWhy = text
		}
	}
	return row
}

func hostText(st storage.StudyRecord) string {
	if st.Cores == 0 && st.RAMBytes == 0 {
		return "-"
	}
	return report.HostText(st)
}

// ---- one study ----

type studyPage struct {
	Name      string
	Head      studyRow
	Counts    string
	Running   []runningTrial
	Score     template.URL
	ScoreWhy  string
	Imp       template.URL
	ImpWhy    string
	Caveat    string
	ImpRows   []search.KnobImportance
	Pairs     []pairRow
	PairsWhy  string
	MinText   string
	Waterfall template.HTML
	Cols      []column
	Rows      []trialRow
}

type runningTrial struct {
	Number        int
	Kind, Started string
	Samples       int
	Last          string
	Plot          template.URL
}

type pairRow struct {
	Round      int
	Best, Base string
	Ratio      string
}

type column struct {
	Key, Title, Href string
	Arrow            string
}

type trialRow struct {
	Number                                   int
	Kind, State, TPS, Score, Warmup, Changes string
	NotSteady, Pruned, Best, Baseline        bool
	Failure                                  string
}

// sortKeys are the trials table's columns, in order.
var sortKeys = []struct{ key, title string }{
	{"number", "#"}, {"kind", "kind"}, {"state", "state"}, {"tps", "tps"}, {"score", "score"},
	{"warmup", "warm-up s"}, {"steady", "NOT STEADY"}, {"pruned", "pruned"}, {"changes", "knobs changed against the baseline"},
}

// lookup returns study name, or answers the request itself (500 for a
// store error, 404 for no such study) and reports false.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, name string) (storage.StudyRecord, bool) {
	st, found, err := h.db.Study(r.Context(), name)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return st, false
	}
	if !found {
		fail(w, fmt.Errorf("no study %q in %s", name, h.name), http.StatusNotFound)
		return st, false
	}
	return st, true
}

func (h *Handler) study(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.URL.Query().Get("s")
	st, ok := h.lookup(w, r, name)
	if !ok {
		return
	}
	trials, _, err := storage.StudyTrials(ctx, h.db, st)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	m, hasMin, err := h.db.Minimization(ctx, name)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	// Only a minimisation of the current best: a search resumed since,
	// or under other conditions, may have another.
	best, _ := search.Best(trials)
	hasMin = hasMin && m.Best == best.Number
	v := newVersion()
	v.add(st.Spent, r.URL.RawQuery, hasMin, m.Runs, m.Done, len(m.Steps))
	addTrials(v, trials)
	var running []search.Trial
	live := map[int][]measure.Sample{}
	for i := len(trials) - 1; i >= 0 && len(running) < maxRunning; i-- {
		if t := trials[i]; t.State == search.Running {
			ss, err := h.db.LiveSamples(ctx, name, t.Number)
			if err != nil {
				fail(w, err, http.StatusInternalServerError)
				return
			}
			running = append(running, t)
			live[t.Number] = ss
			v.add("live", t.Number, len(ss))
		}
	}
	ver := v.String()
	if r.Header.Get(VersionHeader) == ver {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	p, err := h.studyPage(st, trials, running, live, m, hasMin, r.URL.Query())
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	h.respond(w, r, ver, "study", page{Title: "autotune dashboard: study " + name, Back: []link{{"/", "studies"}}, Body: p})
}

func (h *Handler) studyPage(st storage.StudyRecord, trials []search.Trial, running []search.Trial, live map[int][]measure.Sample,
	m search.Minimized, hasMin bool, q map[string][]string) (*studyPage, error) {
	p := &studyPage{Name: st.Name, Head: h.studyRow(st, trials)}
	p.Counts = countsText(trials)
	man, _ := st.Manifest() // its warm-up limit, where recorded
	for _, t := range running {
		ss := live[t.Number]
		rt := runningTrial{Number: t.Number, Kind: report.KindText(t), Started: t.Started.UTC().Format(time.RFC3339), Samples: len(ss)}
		if len(ss) > 0 {
			last := ss[len(ss)-1]
			win := "measuring"
			switch {
			case last.Warmup && man.Measure.WarmupMaxS > 0 && last.T > man.Measure.WarmupMaxS:
				win = fmt.Sprintf("no steady start by the %gs warm-up limit: its window will be NOT STEADY", man.Measure.WarmupMaxS)
			case last.Warmup:
				win = "warming up"
			}
			rt.Last = fmt.Sprintf("%s tps at %gs (%s)", f1(last.TPS), last.T, win)
			png, err := report.TrialPlot(t, ss)
			if err != nil {
				return nil, err
			}
			rt.Plot = pngURL(png)
		}
		p.Running = append(p.Running, rt)
	}
	if png, err := report.ScorePlot(trials); err == nil {
		p.Score = pngURL(png)
	} else {
		p.ScoreWhy = err.Error()
	}
	imp, png, caveat, why, err := report.ImportanceFigure(h.space, trials)
	if err != nil {
		return nil, err
	}
	p.ImpWhy, p.Caveat, p.ImpRows = why, caveat, imp
	if png != nil {
		p.Imp = pngURL(png)
	}
	best, base := search.Best(trials)
	goal := st.Goal()
	if best.Number >= 0 {
		for i, pr := range search.ABPairs(goal, trials, best.Number) {
			p.Pairs = append(p.Pairs, pairRow{Round: i + 1, Best: f1(pr.A), Base: f1(pr.B), Ratio: fmt.Sprintf("%+.1f %%", (pr.A/pr.B-1)*100)})
		}
	}
	if len(p.Pairs) == 0 {
		p.PairsWhy = "none yet: the final A/B phase measures the best and the baseline in interleaved pairs at the end of the budget"
	}
	if hasMin {
		var b bytes.Buffer
		report.WriteMinimization(&b, h.space, m)
		p.MinText = strings.TrimLeft(b.String(), "\n")
		p.Waterfall = report.WaterfallSVG(h.space, m)
	}
	key, desc := q["sort"], q["desc"]
	sortBy := "number"
	if len(key) > 0 {
		sortBy = key[0]
	}
	descending := len(desc) == 0 || desc[0] != "0" // newest first by default
	p.Cols, p.Rows = h.trialsTable(st.Name, trials, best, base, sortBy, descending)
	return p, nil
}

func countsText(trials []search.Trial) string {
	c := map[search.State]int{}
	for _, t := range trials {
		c[t.State]++
	}
	var parts []string
	for _, s := range []search.State{search.Complete, search.Running, search.Pruned, search.Failed, search.Rejected, search.Interrupted} {
		if c[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[s], s))
		}
	}
	return fmt.Sprintf("%d trials: %s", len(trials), strings.Join(parts, ", "))
}

// trialsTable lays out the trials sorted by key (a sortKeys key).
func (h *Handler) trialsTable(name string, trials []search.Trial, best, base search.Trial, key string, desc bool) ([]column, []trialRow) {
	rows := make([]trialRow, 0, len(trials))
	changes := make(map[int]int, len(trials))
	for _, t := range trials {
		var ch []string
		if base.Number >= 0 && t.Number != base.Number {
			ch = h.space.ChangesFrom(base.Params, t.Params)
		} else {
			ch = h.space.Changes(t.Params)
		}
		changes[t.Number] = len(ch)
		row := trialRow{Number: t.Number, Kind: report.KindText(t), State: string(t.State), TPS: "-", Score: "-", Warmup: "-",
			Changes: strings.Join(ch, " "), NotSteady: t.State == search.Complete && t.WarmupCapped, Pruned: t.State == search.Pruned,
			Best: t.Number == best.Number, Baseline: t.Number == base.Number}
		if t.State == search.Complete || t.State == search.Pruned {
			_, tps := exportfile.ThroughputOf(t)
			row.TPS, row.Score = f1(tps), f1(t.Score)
			row.Warmup = strconv.FormatFloat(t.WarmupS, 'f', -1, 64)
		}
		if t.State == search.Failed || t.State == search.Rejected {
			row.Failure = t.Failure
		}
		if row.Changes == "" {
			row.Changes = "(none)"
		}
		rows = append(rows, row)
	}
	byNumber := make(map[int]search.Trial, len(trials))
	for _, t := range trials {
		byNumber[t.Number] = t
	}
	num := func(x float64) float64 { // NaN sorts as the lowest
		if math.IsNaN(x) {
			return math.Inf(-1)
		}
		return x
	}
	scored := func(t search.Trial) bool { return t.State == search.Complete || t.State == search.Pruned }
	cmpRows := func(a, b trialRow) int {
		ta, tb := byNumber[a.Number], byNumber[b.Number]
		c := 0
		switch key {
		case "kind":
			c = strings.Compare(a.Kind, b.Kind)
		case "state":
			c = strings.Compare(a.State, b.State)
		case "tps":
			_, x := exportfile.ThroughputOf(ta)
			_, y := exportfile.ThroughputOf(tb)
			if !scored(ta) {
				x = math.NaN()
			}
			if !scored(tb) {
				y = math.NaN()
			}
			c = cmp.Compare(num(x), num(y))
		case "score":
			x, y := math.NaN(), math.NaN()
			if scored(ta) {
				x = ta.Score
			}
			if scored(tb) {
				y = tb.Score
			}
			c = cmp.Compare(num(x), num(y))
		case "warmup":
			c = cmp.Compare(ta.WarmupS, tb.WarmupS)
		case "steady":
			c = cmp.Compare(boolInt(a.NotSteady), boolInt(b.NotSteady))
		case "pruned":
			c = cmp.Compare(boolInt(a.Pruned), boolInt(b.Pruned))
		case "changes":
			c = cmp.Compare(changes[a.Number], changes[b.Number])
		}
		if c == 0 {
			c = cmp.Compare(a.Number, b.Number)
		}
		if desc {
			return -c
		}
		return c
	}
	slices.SortStableFunc(rows, cmpRows)
	cols := make([]column, len(sortKeys))
	for i, k := range sortKeys {
		d := "1"
		arrow := ""
		if k.key == key {
			if desc {
				d, arrow = "0", " ▼"
			} else {
				arrow = " ▲"
			}
		}
		cols[i] = column{Key: k.key, Title: k.title, Arrow: arrow,
			Href: "/study?s=" + urlQuery(name) + "&sort=" + k.key + "&desc=" + d}
	}
	return cols, rows
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---- one trial ----

type trialPage struct {
	Study  string
	Number int
	Show   string
	Plot   template.URL
	Live   bool
}

func (h *Handler) trial(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	name := q.Get("s")
	n, err := strconv.Atoi(q.Get("n"))
	if err != nil || n < 0 {
		fail(w, fmt.Errorf("n=%q: want a trial number", q.Get("n")), http.StatusBadRequest)
		return
	}
	st, ok := h.lookup(w, r, name)
	if !ok {
		return
	}
	trials, err := h.db.Trials(ctx, name)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	// Any stored trial opens; the best and the baseline it is shown
	// against are those of the trial's own conditions.
	trials, _ = storage.Segment(trials, fingerprintOf(trials, n))
	i := slices.IndexFunc(trials, func(t search.Trial) bool { return t.Number == n })
	if i < 0 {
		fail(w, fmt.Errorf("study %q has no trial %d", name, n), http.StatusNotFound)
		return
	}
	t := trials[i]
	samples := h.db.Samples
	if t.State == search.Running {
		samples = h.db.LiveSamples
	}
	ss, err := samples(ctx, name, n)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	best, base := search.Best(trials)
	v := newVersion()
	v.add(t.State, t.Ended.UnixNano(), len(ss), best.Number, base.Number)
	ver := v.String()
	if r.Header.Get(VersionHeader) == ver {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var b bytes.Buffer
	report.WriteShow(&b, h.space, result.TrialDetail{Study: st.Name, Trial: t, Baseline: base, Best: best, Trials: trials, Samples: ss, WithSamples: true})
	p := trialPage{Study: name, Number: n, Show: b.String(), Live: t.State == search.Running}
	if len(ss) > 0 {
		png, err := report.TrialPlot(t, ss)
		if err != nil {
			fail(w, err, http.StatusInternalServerError)
			return
		}
		p.Plot = pngURL(png)
	}
	h.respond(w, r, ver, "trial", page{Title: fmt.Sprintf("autotune dashboard: study %s, trial %d", name, n),
		Back: []link{{"/", "studies"}, {"/study?s=" + urlQuery(name), "study " + name}}, Body: p})
}

// ---- helpers ----

func urlQuery(s string) string { return url.QueryEscape(s) }

func pngURL(png []byte) template.URL {
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}

func f1(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

//go:embed dashboard.html.tmpl
var pageSource string

var pages = template.Must(template.New("pages").Parse(pageSource))
