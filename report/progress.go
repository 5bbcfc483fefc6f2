package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// Event names of progressEvent.Event.
const (
	evLog         = "log"         // a message (Message)
	evPhase       = "phase"       // a trial entered Phase
	evSample      = "sample"      // a per-second benchmark sample of the running trial
	evTrial       = "trial"       // a trial finished (Result)
	evDone        = "done"        // the study stopped (Reason, Message)
	evInterrupted = "interrupted" // Ctrl-C: the running trial was abandoned (Message)
)

// progressEvent is one thing that happened during `autotune search`.
// Producers (the study loop, the trial runner) report through a Progress,
// which stamps the study status on the events and hands them to a
// progressSink; `--json` prints each event as one line of this shape.
type progressEvent struct {
	Event   string    `json:"event"`
	Time    time.Time `json:"time"`
	Study   string    `json:"study,omitempty"`
	Message string    `json:"message,omitempty"`
	// Trial is the trial number (phase, sample and trial events).
	Trial *int `json:"trial,omitempty"`
	// Kind is who proposed the trial: baseline, sampled, retry.
	Kind string `json:"kind,omitempty"`
	// Source is where a seed trial came from (its --seed-from value;
	// trial events of kind seed only).
	Source string `json:"source,omitempty"`
	// Why says what measurement led to the trial (a diagnosis; trial
	// events only, when there is one).
	Why    string          `json:"why,omitempty"`
	Phase  string          `json:"phase,omitempty"`
	Sample *progressSample `json:"sample,omitempty"`
	Result *progressResult `json:"result,omitempty"`
	// Reason says why the study stopped (done events).
	Reason string `json:"reason,omitempty"`
	// Status is the study's state at the event (absent on log events
	// before the study is known).
	Status *progressStatus `json:"status,omitempty"`
	// Text is the text the plain output prints for the event (summary and
	// minimization events).
	Text string `json:"text,omitempty"`
	// Summary is a search's conclusion (summary events).
	Summary *progressSummary `json:"summary,omitempty"`
	// Minimization is a minimisation's result (minimization events).
	Minimization *progressMinimization `json:"minimization,omitempty"`

	src    search.Standing // the finished trial, for the plain line
	result search.Result   // the study's result (done events)
}

// progressSample is a per-second sample of the running trial.
type progressSample struct {
	T      float64 `json:"t"` // seconds since the benchmark started
	Warmup bool    `json:"warmup"`
	TPS    float64 `json:"tps"`
	LatMS  float64 `json:"lat_ms,omitempty"` // the latency percentile, ms
}

// progressResult is the outcome of a finished trial.
type progressResult struct {
	State   string   `json:"state"`
	Score   *float64 `json:"score,omitempty"`
	MeanTPS *float64 `json:"mean_tps,omitempty"`
	StdTPS  *float64 `json:"sd_tps,omitempty"`
	P95MS   *float64 `json:"p95_ms,omitempty"`
	Seconds float64  `json:"seconds"`
	Changes []string `json:"changes"`
	Failure string   `json:"failure,omitempty"`
}

// progressStatus is where the study stands.
type progressStatus struct {
	// Finished counts complete and failed trials of the study (all runs).
	Finished  int `json:"finished"`
	MaxTrials int `json:"max_trials,omitempty"`
	// SpentS is the budget used (all runs), BudgetS the budget (0 = none)
	// and LeftS what is left of it, in seconds.
	SpentS  float64  `json:"spent_s"`
	BudgetS float64  `json:"budget_s,omitempty"`
	LeftS   *float64 `json:"left_s,omitempty"`
	// ETAS estimates the seconds until the study stops (trial cap or
	// budget), from the median trial duration; absent before any trial
	// finished or without a cap.
	ETAS *float64      `json:"eta_s,omitempty"`
	Best *progressBest `json:"best,omitempty"`
}

// progressBest is the best complete trial so far.
type progressBest struct {
	Trial   int     `json:"trial"`
	Score   float64 `json:"score"`
	MeanTPS float64 `json:"mean_tps"`
	// GainPct is the mean-tps gain over the baseline in percent (absent
	// before the baseline is measured).
	GainPct *float64 `json:"gain_pct,omitempty"`
	// Reason says why the best is the best although its tps is below the
	// baseline's (BestDespiteTPS); absent otherwise.
	Reason string `json:"reason,omitempty"`
}

// progressSink prints progress events. Sinks are called with the
// Progress's lock held, one event at a time.
type progressSink interface {
	handle(e progressEvent)
	// close flushes and ends any live display; later events print plainly.
	close()
}

// Progress receives the producers' reports, keeps the study status (trial
// count, budget, best) and passes events to its sink.
type Progress struct {
	out  io.Writer
	mu   sync.Mutex
	sink progressSink
	now  func() time.Time

	study     string
	known     bool // configure was called
	budget    time.Duration
	maxTrials int
	spent0    time.Duration // budget used by earlier runs
	start     time.Time     // this run's start (setup counts against the budget)
	sp        *space.Space

	finished     int
	durations    []time.Duration
	best         search.Trial
	base         search.Trial
	running      bool
	runningTrial int // the running trial's number
	trialFrom    time.Time
}

// ProgressMode names a sink: "tty", "plain" or "json".
type ProgressMode string

// ChooseProgress picks the sink: JSON lines when asked, the live terminal
// display when out is a terminal, plain lines otherwise.
func ChooseProgress(jsonLines bool, out io.Writer) ProgressMode {
	if jsonLines {
		return "json"
	}
	// A terminal of unknown or zero size (e.g. a pty nobody sized) cannot
	// show bars: plain lines then.
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 && h > 0 {
			return "tty"
		}
	}
	return "plain"
}

// NewProgress returns a Progress printing to out in mode; now is the clock
// (time.Now when nil).
func NewProgress(mode ProgressMode, out io.Writer, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	t := &Progress{now: now, out: out, best: search.Trial{Number: -1}, base: search.Trial{Number: -1}}
	switch mode {
	case "json":
		t.sink = newJSONSink(out)
	case "tty":
		t.sink = newTTYSink(out, t.liveStatus)
	default:
		t.sink = &plainSink{w: out}
	}
	return t
}

// Emit renders event e through the sink, after updating the study status
// the sink shows with it (trial count, budget, best). It implements
// study.Progress.
func (t *Progress) Emit(e result.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e := e.(type) {
	case result.Log:
		t.emit(progressEvent{Event: evLog, Message: e.Message})
	case result.Opened:
		t.open(e)
	case result.TrialLength:
		if s, ok := t.sink.(interface{ setTrialLength(w, d time.Duration) }); ok {
			s.setTrialLength(e.Warmup, e.Window)
		}
	case result.Phase:
		t.phase(e.Trial, e.Phase)
	case result.Sample:
		n, s := e.Trial.Number, e.Sample
		t.emit(progressEvent{Event: evSample, Trial: &n, Kind: string(e.Trial.Kind),
			Sample: &progressSample{T: s.T, Warmup: s.Warmup, TPS: s.TPS, LatMS: s.LatMS}})
	case result.TrialEnded:
		t.trial(e.Standing)
	case result.Summary:
		t.emit(summaryEvent(e))
	case result.Minimization:
		t.emit(minimizationEvent(e))
	case result.VerifyRunEnded:
		t.emit(progressEvent{Event: evLog, Message: VerifyLine(e.Run, e.Goal)})
	case result.NoiseRunEnded:
		t.emit(progressEvent{Event: evLog, Message: fmt.Sprintf("%s  (%.0fs)", NoiseLine(e.Index, e.Run), e.Took.Seconds())})
	case result.Done:
		t.best, t.base, t.running = e.Result.Best, e.Result.Baseline, false
		t.emit(progressEvent{Event: evDone, Reason: string(e.Result.Reason), Message: e.Hint, result: e.Result})
		t.sink.close()
	case result.Interrupted:
		t.running = false
		t.emit(progressEvent{Event: evInterrupted, Message: e.Hint})
		t.sink.close()
	}
}

// open takes in the opened study and the trials already recorded.
func (t *Progress) open(o result.Opened) {
	t.study, t.budget, t.maxTrials, t.spent0, t.start, t.sp, t.known = o.Study, o.Budget, o.MaxTrials, o.Spent0, o.Start, o.Space, true
	history, sp := o.History, o.Space
	for _, tr := range history {
		if tr.State == search.Complete || tr.State == search.Failed {
			t.finished++
			t.durations = append(t.durations, tr.Duration())
		}
	}
	t.best, t.base = search.Best(history)
	if s, ok := t.sink.(interface{ setSpace(*space.Space) }); ok {
		s.setSpace(sp)
	}
}

func (t *Progress) emit(e progressEvent) {
	e.Time = t.now()
	e.Study = t.study
	if t.known && e.Event != evLog {
		st := t.status(e.Time)
		e.Status = &st
	}
	t.sink.handle(e)
}

// phase takes in trial tr entering phase (measure.PhaseRestoring, ...);
// the first phase of a trial starts it (a restore in the sandbox, the
// settings' apply on an existing server or a dynamic change).
func (t *Progress) phase(tr search.Trial, phase string) {
	if !t.running || t.runningTrial != tr.Number {
		t.running, t.trialFrom, t.runningTrial = true, t.now(), tr.Number
	}
	n := tr.Number
	t.emit(progressEvent{Event: evPhase, Trial: &n, Kind: string(tr.Kind), Phase: phase})
}

// trial takes in a finished trial (search.Loop.OnTrial).
func (t *Progress) trial(e search.Standing) {
	tr := e.Trial
	if tr.State == search.Complete || tr.State == search.Failed {
		t.finished++
		t.durations = append(t.durations, tr.Duration())
	}
	t.best, t.base, t.running = e.Best, e.Baseline, false
	res := &progressResult{State: string(tr.State), Seconds: tr.Duration().Seconds(), Failure: tr.Failure, Changes: []string{}}
	if tr.State == search.Complete {
		score, mean, sd, p95 := tr.Score, tr.MeanTPS, tr.StdTPS, tr.P95MS
		res.Score, res.MeanTPS, res.StdTPS, res.P95MS = &score, &mean, &sd, &p95
	}
	if t.sp != nil {
		if ch := t.sp.Changes(tr.Params); ch != nil {
			res.Changes = ch
		}
	}
	n := tr.Number
	t.emit(progressEvent{Event: evTrial, Trial: &n, Kind: string(tr.Kind), Source: tr.Source, Why: tr.Why, Result: res, src: e})
}

// close ends the live display (on errors); safe to call more than once.
func (t *Progress) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sink.close()
}

// liveStatus is the status now, for displays that refresh between events.
func (t *Progress) liveStatus() (progressStatus, runningTrial) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status(t.now()), runningTrial{running: t.running, since: t.trialFrom}
}

type runningTrial struct {
	running bool
	since   time.Time
}

// status computes the study status at now. Call with t.mu held.
func (t *Progress) status(now time.Time) progressStatus {
	spent := t.spent0 + now.Sub(t.start)
	st := progressStatus{Finished: t.finished, MaxTrials: t.maxTrials, SpentS: spent.Seconds(), BudgetS: t.budget.Seconds()}
	if t.budget > 0 {
		left := max(t.budget-spent, 0).Seconds()
		st.LeftS = &left
	}
	var cur time.Duration
	if t.running {
		cur = now.Sub(t.trialFrom)
	}
	if eta, ok := studyETA(median(t.durations), t.finished, t.maxTrials, t.budget, spent, t.running, cur); ok {
		s := eta.Seconds()
		st.ETAS = &s
	}
	if t.best.Number >= 0 {
		st.Best = &progressBest{Trial: t.best.Number, Score: t.best.Score, MeanTPS: t.best.MeanTPS}
		if t.base.Number >= 0 {
			g := round1(Gain(t.best.MeanTPS, t.base.MeanTPS))
			st.Best.GainPct = &g
			st.Best.Reason = BestDespiteTPS(t.best, t.base)
		}
	}
	return st
}

// studyETA estimates how long until the study stops, given the typical
// trial duration est (0: unknown), the finished trial count, the trial
// cap (0: none), the budget (0: none) and the budget spent, and whether a
// trial is running and for how long. The study starts another trial only
// while spent + est fits in the budget (search.Loop.Run), so the budget
// part counts whole trials. ok is false when est is unknown or nothing
// caps the study.
func studyETA(est time.Duration, finished, maxTrials int, budget, spent time.Duration, running bool, cur time.Duration) (eta time.Duration, ok bool) {
	if est <= 0 || (maxTrials <= 0 && budget <= 0) {
		return 0, false
	}
	var rest time.Duration // rest of the running trial
	if running {
		rest = max(est-cur, 0)
	}
	eta = -1
	if maxTrials > 0 {
		n := maxTrials - finished
		if running {
			n--
		}
		eta = rest + time.Duration(max(n, 0))*est
	}
	if budget > 0 {
		left := budget - spent - rest
		k := 0
		if left > 0 {
			k = int(left / est)
		}
		b := rest + time.Duration(k)*est
		if eta < 0 || b < eta {
			eta = b
		}
	}
	return eta, true
}

// median returns the median duration (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fmtDur renders d compactly: "45s", "12m05s", "3h07m".
func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// round1 rounds v to one decimal.
func round1(v float64) float64 { return math.Round(v*10) / 10 }
