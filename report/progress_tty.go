package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// ttySink is the live terminal display (github.com/vbauerster/mpb): two
// bars under the scrolling log, one for the running trial (its phase and,
// while benchmarking, the second of warm-up + measurement and the last
// per-second tps) and one for the study (trials done, budget used and
// left, ETA, best score and its gain). Finished trials and messages print
// above the bars as plain lines. The bars start with the first trial and
// end with the study.
type ttySink struct {
	w      io.Writer
	sp     *space.Space
	status func() (progressStatus, runningTrial)
	// columns, when set, stands in for the terminal's width (tests).
	columns func() int

	mu    sync.Mutex // guards the fields below; never held while calling mpb
	p     *mpb.Progress
	trial *mpb.Bar
	study *mpb.Bar
	stop  chan struct{}
	cur   struct {
		number      int
		kind, phase string
		t, tps      float64
		total       float64 // warm-up + measurement, seconds (0: unknown)
		warm        float64
		haveSample  bool
	}
	last progressStatus
}

func newTTYSink(w io.Writer, status func() (progressStatus, runningTrial)) *ttySink {
	return &ttySink{w: w, status: status}
}

func (s *ttySink) setSpace(sp *space.Space) { s.sp = sp }

// width returns the terminal's width now (it may have been resized), or
// PlainWidth when the output is not a terminal of known size.
func (s *ttySink) width() int {
	if s.columns != nil {
		return s.columns()
	}
	if f, ok := s.w.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return PlainWidth
}

// write prints text above the bars, or straight to the terminal when no
// bars are shown.
func (s *ttySink) write(text string) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p != nil {
		if _, err := p.Write([]byte(text)); err == nil {
			return
		}
	}
	io.WriteString(s.w, text)
}

func (s *ttySink) handle(e progressEvent) {
	switch e.Event {
	case evLog, evTrial, evSummary, evMinimization:
		var b strings.Builder
		writePlain(&b, s.sp, e, s.width())
		s.write(b.String())
	case evDone, evInterrupted:
		s.close()
		writePlain(s.w, s.sp, e, s.width())
		return
	}
	if e.Status != nil {
		s.mu.Lock()
		s.last = *e.Status
		s.mu.Unlock()
	}
	switch e.Event {
	case evPhase:
		s.start()
		s.mu.Lock()
		if e.Phase == measure.PhaseRestoring || *e.Trial != s.cur.number {
			s.cur.t, s.cur.tps, s.cur.haveSample = 0, 0, false
		}
		s.cur.number, s.cur.kind, s.cur.phase = *e.Trial, e.Kind, e.Phase
		trial := s.trial
		s.mu.Unlock()
		if e.Phase == measure.PhaseRestoring && trial != nil {
			trial.SetCurrent(0)
		}
	case evSample:
		s.mu.Lock()
		s.cur.t, s.cur.tps, s.cur.haveSample = e.Sample.T, e.Sample.TPS, true
		if e.Sample.Warmup && e.Sample.T > s.cur.warm {
			s.cur.warm = e.Sample.T
		}
		trial := s.trial
		s.mu.Unlock()
		if trial != nil {
			trial.SetCurrent(int64(e.Sample.T))
		}
	}
	s.refreshStudy()
}

// setTrialLength tells the display how long a trial's benchmark runs
// (warm-up + measurement), for the trial bar.
func (s *ttySink) setTrialLength(warmup, duration time.Duration) {
	s.mu.Lock()
	s.cur.total = (warmup + duration).Seconds()
	s.cur.warm = warmup.Seconds()
	s.mu.Unlock()
}

// start creates the bars and the refresh ticker on the first trial. No
// mpb call is made with s.mu held: the decorators take it while mpb renders.
func (s *ttySink) start() {
	s.mu.Lock()
	started, total := s.p != nil, s.cur.total
	s.mu.Unlock()
	if started {
		return
	}
	p := mpb.New(mpb.WithOutput(s.w), mpb.WithRefreshRate(250*time.Millisecond), mpb.WithAutoRefresh())
	// Bars made with total 0 never complete on their own; SetTotal(n,
	// false) sets the shown total, SetTotal(-1, true) ends them.
	trial := p.New(0, mpb.BarStyle().Lbound("[").Rbound("]"), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return s.trialLabel() }, decor.WC{W: 30, C: decor.DindentRight})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return s.trialInfo() })))
	if total > 0 {
		trial.SetTotal(int64(total), false)
	}
	study := p.New(0, mpb.BarStyle().Lbound("[").Rbound("]").Filler("#").Tip("#").Padding("."), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return s.studyLabel() }, decor.WC{W: 30, C: decor.DindentRight})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return s.studyInfo() })))
	stop := make(chan struct{})
	s.mu.Lock()
	s.p, s.trial, s.study, s.stop = p, trial, study, stop
	s.mu.Unlock()
	go s.tick(stop)
}

// tick refreshes the study bar between events (budget used grows with
// the clock).
func (s *ttySink) tick(stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			st, _ := s.status()
			select {
			case <-stop:
				return
			default:
			}
			s.mu.Lock()
			s.last = st
			s.mu.Unlock()
			s.refreshStudy()
		}
	}
}

// refreshStudy sets the study bar's total and position from the last
// status: budget seconds when there is a budget, else trials.
func (s *ttySink) refreshStudy() {
	s.mu.Lock()
	st, bar := s.last, s.study
	s.mu.Unlock()
	if bar == nil {
		return
	}
	switch {
	case st.BudgetS > 0:
		bar.SetTotal(int64(st.BudgetS), false)
		bar.SetCurrent(int64(min(st.SpentS, st.BudgetS)))
	case st.MaxTrials > 0:
		bar.SetTotal(int64(st.MaxTrials), false)
		bar.SetCurrent(int64(min(st.Finished, st.MaxTrials)))
	}
}

func (s *ttySink) trialLabel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur.phase == "" {
		return "waiting for the first trial"
	}
	return fmt.Sprintf("trial %d %s  %s", s.cur.number, s.cur.kind, s.cur.phase)
}

func (s *ttySink) trialInfo() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cur.haveSample {
		return ""
	}
	return fmt.Sprintf("%.0f/%.0fs %.0f tps", s.cur.t, s.cur.total, s.cur.tps)
}

func (s *ttySink) studyLabel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last.MaxTrials > 0 {
		return fmt.Sprintf("study  %d/%d trials done", s.last.Finished, s.last.MaxTrials)
	}
	return fmt.Sprintf("study  %d trials done", s.last.Finished)
}

func (s *ttySink) studyInfo() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return statusText(s.last)
}

// statusText renders budget, ETA and best compactly: "budget 1h02m/8h00m,
// ETA 6h40m, best 752.0 (#1 +55.4%)"; without a budget "12m05s used".
func statusText(st progressStatus) string {
	var parts []string
	spent := time.Duration(st.SpentS * float64(time.Second))
	if st.BudgetS > 0 {
		parts = append(parts, fmt.Sprintf("budget %s/%s", fmtDur(spent), fmtDur(time.Duration(st.BudgetS*float64(time.Second)))))
	} else {
		parts = append(parts, fmtDur(spent)+" used")
	}
	if st.ETAS != nil {
		parts = append(parts, "ETA "+fmtDur(time.Duration(*st.ETAS*float64(time.Second))))
	}
	if b := st.Best; b != nil {
		txt := fmt.Sprintf("best %.1f (#%d", b.Score, b.Trial)
		if b.GainPct != nil {
			txt += fmt.Sprintf(" %+.1f%%", *b.GainPct)
		}
		parts = append(parts, txt+")")
	}
	return strings.Join(parts, ", ")
}

// close ends the bars and waits for their last render; later output goes
// straight to the terminal.
func (s *ttySink) close() {
	s.mu.Lock()
	p, trial, study, stop := s.p, s.trial, s.study, s.stop
	s.p, s.trial, s.study, s.stop = nil, nil, nil, nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	// The ticker may be waiting for the Progress's lock, which our caller
	// holds: tell it to stop without waiting for it.
	close(stop)
	trial.SetTotal(-1, true)
	study.SetTotal(-1, true)
	p.Wait()
}
