package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// Strategies returns the strategy names the harness knows: the four of
// `autotune search --strategy` and the Optuna peers (PeerStrategies; they
// need python3-optuna).
func Strategies() []string {
	return append(strategy.StrategyNames(), PeerStrategies()...)
}

// DefaultStrategies returns the strategies compared when none are named:
// those of Strategies that need nothing outside Go.
func DefaultStrategies() []string { return strategy.StrategyNames() }

// newStrategy returns the strategy name over sp for a run of horizon trials.
func newStrategy(ctx context.Context, name string, sp *space.Space, seed int64, horizon int, starts []space.Config) (search.Strategy, error) {
	if _, ok := peerStrategies[name]; ok {
		return NewPeer(ctx, name, sp, seed)
	}
	return strategy.NewStrategy(name, sp, strategy.StrategyOptions{Seed: seed, Horizon: horizon, Starts: starts, Shape: search.Shape{Space: sp}})
}

// Options are the settings of a comparison.
type Options struct {
	// Strategies to compare (names of Strategies()).
	Strategies []string
	// Seeds is the number of seeds (runs per strategy and warm-start
	// setting); seeds are FirstSeed..FirstSeed+Seeds−1.
	Seeds int
	// FirstSeed is the first seed (0 means 1).
	FirstSeed int
	// Trials is the horizon of each run: its study runs Trials search
	// trials (baseline included), and every table reports the first
	// Trials measurements (re-measurements count).
	Trials int
	// Warm lists the warm-start settings to run: false (baseline only),
	// true (baseline, then the landscape's expert configuration).
	Warm []bool
	// Parallel is the number of runs at a time (≤ 0: 1).
	Parallel int
	// Confirm is the study's --confirm (search.Confirmation.Repeats): with
	// Confirm != 0 (a count, or search.ConfirmAuto) every run, peers included, goes through that
	// re-measurement policy and the recommendation is what a study
	// exports (search.Incumbents: pooled estimates, a new best counts
	// only once confirmed, its lucky first measurement left out). With 0
	// the recommendation is the configuration with the best mean.
	Confirm int
}

// Run is one strategy's run on one seed.
type Run struct {
	Strategy string
	Warm     bool
	Seed     int
	// Inc[i] is the score of the incumbent after i+1 measurements (search
	// trials and re-measurements alike, up to Options.Trials): with
	// Options.Confirm the study's own best (search.Incumbents), else the
	// configuration with the best mean over its measurements (complete
	// trials); judged by the landscape's noise-free score where it has
	// one, by the estimate otherwise.
	Inc []float64
	// Failed is the number of failed (crashed) measurements among them.
	Failed int
	// Elapsed is the run's wall time (strategy and landscape).
	Elapsed time.Duration
}

// RunOne runs strategy on l for one seed through search.Loop (on
// l.Draw(seed) when l is a Family). confirm is Options.Confirm.
func RunOne(ctx context.Context, l Landscape, strategy string, seed int, trials int, warm bool, confirm int) (Run, error) {
	t0 := time.Now()
	if f, ok := l.(Family); ok {
		d, err := f.Draw(seed)
		if err != nil {
			return Run{}, err
		}
		l = d
	}
	if name, ok := strings.CutSuffix(strategy, aloneSuffix); ok {
		r, err := runAlone(ctx, l, name, seed, trials, warm)
		r.Strategy, r.Warm, r.Seed, r.Elapsed = strategy, warm, seed, time.Since(t0)
		return r, err
	}
	sp := l.Space()
	var starts []space.Config
	var ws []search.Proposal
	if warm {
		starts = []space.Config{l.Expert()}
		ws = []search.Proposal{{Config: l.Expert(), Kind: search.Expert}}
	}
	st, err := newStrategy(ctx, strategy, sp, int64(seed)*7919+1, trials, starts)
	if err != nil {
		return Run{}, err
	}
	if c, ok := st.(io.Closer); ok {
		defer c.Close()
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0xda3e39cb94b95bdb))
	var lerr error
	obj := func(ctx context.Context, t search.Trial) (measure.Outcome, error) {
		v, failed, err := l.Measure(ctx, t.Params, rng)
		if err != nil {
			lerr = err
			return measure.Outcome{}, err
		}
		if failed {
			return measure.Outcome{Failure: "crashed (landscape)"}, nil
		}
		return measure.Outcome{Score: v, MeanTPS: v}, nil
	}
	// As a real study (study.Run): every configuration repaired and
	// recorded in its canonical form.
	study := &search.Loop{Name: "harness", Strategy: st, Objective: obj, Store: &search.MemoryStore{}, MaxTrials: trials, WarmStart: ws, Space: sp}
	if confirm != 0 {
		study.Confirm = &search.Confirmation{Repeats: confirm}
	}
	res, err := study.Run(ctx)
	if lerr != nil {
		return Run{}, lerr
	}
	if err != nil {
		return Run{}, err
	}
	r := Run{Strategy: strategy, Warm: warm, Seed: seed, Inc: incumbents(l, res.Trials, sp, confirm)}
	if err := judgeErr(l); err != nil {
		return Run{}, err
	}
	r.Elapsed = time.Since(t0)
	return r.upTo(trials, res.Trials), nil
}

// runAlone runs the Optuna peer called name on l on its own, as an
// Optuna script does: the baseline (and, with warm, the expert warm
// start) told as observations, then trials measurements of its proposals
// (repaired to the space's constraints), each measured once, a crash told
// half the worst score seen (as a study tells it), and the recommendation
// after each measurement the configuration with the best single
// measurement so far (Optuna's best trial), judged by the landscape's
// noise-free score where it has one. Measurement noise comes from the
// same source as RunOne's for the seed.
func runAlone(ctx context.Context, l Landscape, name string, seed, trials int, warm bool) (Run, error) {
	sp := l.Space()
	peer, err := NewPeer(ctx, name, sp, int64(seed)*7919+1)
	if err != nil {
		return Run{}, err
	}
	defer peer.Close()
	rng := rand.New(rand.NewPCG(uint64(seed), 0xda3e39cb94b95bdb))
	var r Run
	best, bestV, worst := space.Config(nil), math.Inf(-1), math.Inf(1)
	first := []search.Proposal{{Config: space.Config{}, Kind: search.Baseline}}
	if warm {
		first = append(first, search.Proposal{Config: l.Expert(), Kind: search.Expert})
	}
	for len(r.Inc) < trials {
		var p search.Proposal
		if len(first) > 0 {
			p, first = first[0], first[1:]
		} else if p, err = peer.Ask(ctx); err != nil {
			return Run{}, err
		}
		if p.Kind != search.Baseline {
			p.Config, _ = sp.Repair(p.Config)
		}
		v, failed, err := l.Measure(ctx, p.Config, rng)
		if err != nil {
			return Run{}, err
		}
		told := v
		if failed {
			r.Failed++
			told = 0
			if !math.IsInf(worst, 1) {
				told = worst / 2
			}
		} else {
			worst = math.Min(worst, v)
			if v > bestV {
				best, bestV = p.Config, v
			}
		}
		if err := peer.Tell(ctx, p, told); err != nil {
			return Run{}, err
		}
		inc := math.NaN()
		if best != nil {
			inc = bestV
			if tv, ok := l.True(best); ok {
				inc = tv
			}
		}
		r.Inc = append(r.Inc, inc)
	}
	if err := judgeErr(l); err != nil {
		return Run{}, err
	}
	return r, nil
}

// judgeErr returns the error of l's noise-free judge (Command.Err), nil
// when it has none: a comparison judged with a failing judge is void.
func judgeErr(l Landscape) error {
	if e, ok := l.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// incumbents returns the incumbent's score after each measurement of
// trials (Run.Inc, as RunOne describes it).
func incumbents(l Landscape, trials []search.Trial, sp *space.Space, confirm int) []float64 {
	var r Run
	if confirm != 0 {
		for i, inc := range search.Incumbents(trials) {
			if t := trials[i]; t.State != search.Complete && t.State != search.Failed {
				continue
			}
			v := math.NaN()
			if inc.Number >= 0 {
				full := search.Decode(sp, search.Encode(sp, inc.Params))
				if tv, ok := l.True(full); ok {
					v = tv
				} else {
					v = inc.Score
				}
			}
			r.Inc = append(r.Inc, v)
		}
		return r.Inc
	}
	type agg struct {
		sum float64
		n   int
		cfg space.Config
	}
	seen := map[string]*agg{}
	bestKey, bestMean := "", math.Inf(-1)
	for _, t := range trials {
		if t.State == search.Complete {
			full := search.Decode(sp, search.Encode(sp, t.Params))
			key := full.Key()
			a := seen[key]
			if a == nil {
				a = &agg{cfg: full}
				seen[key] = a
			}
			a.sum += t.Score
			a.n++
			// The incumbent is re-chosen after every trial: a repeat can
			// lower a lucky configuration's mean below another's.
			bestKey, bestMean = "", math.Inf(-1)
			for k, a := range seen {
				if m := a.sum / float64(a.n); m > bestMean || (m == bestMean && k < bestKey) {
					bestKey, bestMean = k, m
				}
			}
		}
		if t.State != search.Complete && t.State != search.Failed {
			continue
		}
		v := math.NaN()
		if bestKey != "" {
			if tv, ok := l.True(seen[bestKey].cfg); ok {
				v = tv
			} else {
				v = bestMean
			}
		}
		r.Inc = append(r.Inc, v)
	}
	return r.Inc
}

// upTo returns r cut at n measurements: the study runs n search trials,
// so with re-measurements it makes more than n measurements, and every
// method is compared at the same number of measurements. Failed counts
// the failed measurements among the first n of trials.
func (r Run) upTo(n int, trials []search.Trial) Run {
	r.Inc = r.Inc[:min(n, len(r.Inc))]
	r.Failed, n = 0, len(r.Inc)
	for _, t := range trials {
		if n == 0 {
			break
		}
		switch t.State {
		case search.Failed:
			r.Failed++
			n--
		case search.Complete:
			n--
		}
	}
	return r
}

// Compare runs every strategy and warm-start setting over the seeds.
func Compare(ctx context.Context, l Landscape, o Options) ([]Run, error) {
	type job struct {
		strategy string
		warm     bool
		seed     int
	}
	var jobs []job
	for _, s := range o.Strategies {
		for _, w := range o.Warm {
			for _, seed := range o.seeds() {
				jobs = append(jobs, job{s, w, seed})
			}
		}
	}
	runs := make([]Run, len(jobs))
	errs := make([]error, len(jobs))
	par := max(1, o.Parallel)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			runs[i], errs[i] = RunOne(ctx, l, j.strategy, j.seed, o.Trials, j.warm, o.Confirm)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", jobs[i].strategy, jobs[i].seed, err)
		}
	}
	return runs, nil
}

// TrialsTo returns the number of measurements after which the run's
// incumbent first reaches frac of best, or +Inf when it never does.
func TrialsTo(r Run, frac, best float64) float64 {
	for i, v := range r.Inc {
		if !math.IsNaN(v) && v >= frac*best {
			return float64(i + 1)
		}
	}
	return math.Inf(1)
}

// Quartiles returns the 25th, 50th and 75th percentiles of xs (linear
// interpolation between order statistics; +Inf values sort last).
func Quartiles(xs []float64) (q1, med, q3 float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		if len(s) == 0 {
			return math.NaN()
		}
		pos := p * float64(len(s)-1)
		lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
		if math.IsInf(s[hi], 1) {
			if lo == hi || math.IsInf(s[lo], 1) {
				return math.Inf(1)
			}
			return math.Inf(1)
		}
		return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
	}
	return q(0.25), q(0.5), q(0.75)
}

// Row is one line of the comparison table.
type Row struct {
	Strategy string
	Warm     bool
	// To90 and To95 are the quartiles (q1, median, q3) of the
	// measurements needed to reach 90 % and 95 % of the best known score
	// (+Inf: not reached within Options.Trials measurements).
	To90, To95 [3]float64
	// Reached90 and Reached95 count the runs that got there.
	Reached90, Reached95 int
	// Final is the median share of the best known score at the horizon.
	Final float64
	Runs  int
	// Failed is the median number of crashed measurements per run.
	Failed float64
}

// Summarise turns runs into table rows, in the order of the options.
func Summarise(runs []Run, best float64, o Options) []Row {
	var rows []Row
	for _, s := range o.Strategies {
		for _, w := range o.Warm {
			var t90, t95, fin, failed []float64
			row := Row{Strategy: s, Warm: w}
			for _, r := range runs {
				if r.Strategy != s || r.Warm != w {
					continue
				}
				row.Runs++
				a, b := TrialsTo(r, 0.90, best), TrialsTo(r, 0.95, best)
				t90, t95 = append(t90, a), append(t95, b)
				if !math.IsInf(a, 1) {
					row.Reached90++
				}
				if !math.IsInf(b, 1) {
					row.Reached95++
				}
				if len(r.Inc) > 0 {
					fin = append(fin, r.Inc[len(r.Inc)-1]/best)
				}
				failed = append(failed, float64(r.Failed))
			}
			row.To90[0], row.To90[1], row.To90[2] = Quartiles(t90)
			row.To95[0], row.To95[1], row.To95[2] = Quartiles(t95)
			_, row.Final, _ = Quartiles(fin)
			_, row.Failed, _ = Quartiles(failed)
			rows = append(rows, row)
		}
	}
	return rows
}

func fmtTrials(x float64, horizon int) string {
	if math.IsInf(x, 1) {
		return fmt.Sprintf(">%d", horizon)
	}
	if x == math.Round(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// WriteTable writes rows as a Markdown table.
func WriteTable(w io.Writer, l Landscape, best float64, rows []Row, o Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "landscape %s: %d knobs, best known score %.1f; %d seeds (from %d), %d measurements per run (search trials and re-measurements alike)\n\n",
		l.Name(), len(l.Space().Knobs()), best, o.Seeds, max(1, o.FirstSeed), o.Trials)
	if e, ok := l.(interface{ Estimated() bool }); ok && e.Estimated() {
		b.WriteString("Every share below judges a recommendation by the study's own estimate (the mean of its measurements), not by a noise-free score: give --objective-truth-cmd for those.\n\n")
	}
	b.WriteString("| strategy | warm start | measurements to 90 %: median [q1, q3] | reached | measurements to 95 %: median [q1, q3] | reached | share of best after them (median) | crashed measurements (median) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		warm := "no"
		if r.Warm {
			warm = "expert"
		}
		fmt.Fprintf(&b, "| %s | %s | %s [%s, %s] | %d/%d | %s [%s, %s] | %d/%d | %.3f | %.0f |\n",
			r.Strategy, warm,
			fmtTrials(r.To90[1], o.Trials), fmtTrials(r.To90[0], o.Trials), fmtTrials(r.To90[2], o.Trials), r.Reached90, r.Runs,
			fmtTrials(r.To95[1], o.Trials), fmtTrials(r.To95[0], o.Trials), fmtTrials(r.To95[2], o.Trials), r.Reached95, r.Runs,
			r.Final, r.Failed)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// BestSeen returns the highest incumbent score of any run: the best known
// score of a landscape that has none of its own.
func BestSeen(runs []Run) float64 {
	best := 0.0
	for _, r := range runs {
		for _, v := range r.Inc {
			if !math.IsNaN(v) && v > best {
				best = v
			}
		}
	}
	return best
}

// Checkpoints returns the numbers of measurements the share table reports
// for runs of trials measurements: 30 and trials (trials alone when it is
// 30 or fewer).
func Checkpoints(trials int) []int {
	if trials <= 30 {
		return []int{trials}
	}
	return []int{30, trials}
}

// ShareRow is one line of the share table: the recommendation's score as
// a share of the best known score after given numbers of trials.
type ShareRow struct {
	Strategy string
	Warm     bool
	Runs     int
	// Share[i] holds the quartiles (q1, median, q3) over the runs of the
	// incumbent's score (Run.Inc: noise-free where the landscape has a
	// noise-free score) as a share of the best known score after
	// Checkpoints[i] measurements (the last one when a run is shorter).
	Share [][3]float64
	// Reached90[i] and Reached95[i] count the runs whose incumbent is at
	// 90 % and 95 % of the best known score or more after Checkpoints[i].
	Reached90, Reached95 []int
}

// Shares summarises runs at each checkpoint (numbers of finished trials),
// in the order of the options.
func Shares(runs []Run, best float64, o Options, checkpoints []int) []ShareRow {
	var rows []ShareRow
	for _, s := range o.Strategies {
		for _, w := range o.Warm {
			row := ShareRow{Strategy: s, Warm: w}
			at := make([][]float64, len(checkpoints))
			row.Reached90 = make([]int, len(checkpoints))
			row.Reached95 = make([]int, len(checkpoints))
			for _, r := range runs {
				if r.Strategy != s || r.Warm != w || len(r.Inc) == 0 {
					continue
				}
				row.Runs++
				for i, c := range checkpoints {
					v := r.Inc[min(c, len(r.Inc))-1] / best
					if math.IsNaN(v) {
						v = 0
					}
					at[i] = append(at[i], v)
					if v >= 0.90 {
						row.Reached90[i]++
					}
					if v >= 0.95 {
						row.Reached95[i]++
					}
				}
			}
			for i := range checkpoints {
				q1, m, q3 := Quartiles(at[i])
				row.Share = append(row.Share, [3]float64{q1, m, q3})
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// WriteShares writes the share table as Markdown: per strategy and
// warm-start setting, the median [q1, q3] of the recommendation's share of
// the best known score (in %) and the runs reaching 90 % and 95 %, at each
// checkpoint (WriteWarmStart adds the warm start's and the baseline's own
// shares).
func WriteShares(w io.Writer, rows []ShareRow, checkpoints []int) error {
	var b strings.Builder
	b.WriteString("| strategy | warm start |" + shareHeader(checkpoints) + "\n|---|---|" + strings.Repeat("---|---|---|", len(checkpoints)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |%s\n", r.Strategy, warmLabel(r.Warm), shareCells(r, len(checkpoints)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shareHeader returns the share columns' headers of the checkpoints.
func shareHeader(checkpoints []int) string {
	var b strings.Builder
	for _, c := range checkpoints {
		fmt.Fprintf(&b, " %d measurements: %% of best, median [q1, q3] | ≥90 %% | ≥95 %% |", c)
	}
	return b.String()
}

// shareCells returns row r's cells for n checkpoints (empty ones where r
// has fewer).
func shareCells(r ShareRow, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i >= len(r.Share) {
			b.WriteString(" | | |")
			continue
		}
		s := r.Share[i]
		fmt.Fprintf(&b, " %.1f [%.1f, %.1f] | %d/%d | %d/%d |", 100*s[1], 100*s[0], 100*s[2], r.Reached90[i], r.Runs, r.Reached95[i], r.Runs)
	}
	return b.String()
}

func warmLabel(warm bool) string {
	if warm {
		return "expert"
	}
	return "no"
}

// seeds returns the seeds of o's runs: FirstSeed (at least 1) and the
// Seeds after it.
func (o Options) seeds() []int {
	first := max(1, o.FirstSeed)
	s := make([]int, o.Seeds)
	for i := range s {
		s[i] = first + i
	}
	return s
}

// WarmStart is the noise-free share of the best known score of the expert
// warm start and of the baseline (the server's defaults): quartiles (q1,
// median, q3) over the draws of a Family, else one value three times.
type WarmStart struct {
	Warm, Base [3]float64
	// Runs is how many runs of each a test needs to tell the best from
	// the warm start (RunsToTell at the landscape's noise; a Family's
	// quartiles over its draws); NaN when the landscape is not Noisy.
	Runs [3]float64
	// Step is the score of the warm start's best one-knob change
	// (oneKnobChanges) as a share of the best, and StepRuns the runs of each
	// a test needs to tell that change from the warm start (as Runs): what
	// a search that changes one knob at a time must resolve to move at
	// all.
	Step, StepRuns [3]float64
	// Together is the score of every knob's best one-knob change made at
	// once (oneKnobChanges) as a share of the best, and TogetherRuns the
	// runs of each to tell it from the warm start: how far a model of
	// main effects could jump from the warm start if it knew each effect
	// exactly (learning each needs StepRuns runs or more).
	Together, TogetherRuns [3]float64
	// Draws is the number of draws of a Family (0 for another landscape).
	Draws int
}

// WarmStartShares returns l's WarmStart (for a Family, over the draws of
// o's seeds, each judged against its own best); ok is false when l has no
// noise-free scores. Errors: a draw that cannot be made.
func WarmStartShares(l Landscape, best float64, o Options) (ws WarmStart, ok bool, err error) {
	// The landscapes judged, each with its best: l, or a Family's draws.
	type judged struct {
		l    Landscape
		best float64
	}
	ls := []judged{{l, best}}
	if f, isFamily := l.(Family); isFamily {
		ls = nil
		for _, seed := range o.seeds() {
			d, err := f.Draw(seed)
			if err != nil {
				return ws, false, err
			}
			ls = append(ls, judged{d, d.Best()})
		}
		ws.Draws = len(ls)
	}
	var warm, base, runs, step, stepRuns, together, togetherRuns []float64
	for _, j := range ls {
		v, ok := j.l.True(j.l.Expert())
		if !ok && ws.Draws == 0 {
			// No noise-free scores (a Command). A draw's warm start never
			// crashes (drawn.go).
			return WarmStart{}, false, nil
		}
		b, _ := j.l.True(space.Config{})
		s, all := oneKnobChanges(j.l, v)
		warm, base, step = append(warm, v/j.best), append(base, b/j.best), append(step, s/j.best)
		runs, stepRuns = append(runs, runsToTell(j.l, j.best, v)), append(stepRuns, runsToTell(j.l, s, v))
		together, togetherRuns = append(together, all/j.best), append(togetherRuns, runsToTell(j.l, all, v))
	}
	ws.Warm[0], ws.Warm[1], ws.Warm[2] = Quartiles(warm)
	ws.Base[0], ws.Base[1], ws.Base[2] = Quartiles(base)
	ws.Runs[0], ws.Runs[1], ws.Runs[2] = Quartiles(runs)
	ws.Step[0], ws.Step[1], ws.Step[2] = Quartiles(step)
	ws.StepRuns[0], ws.StepRuns[1], ws.StepRuns[2] = Quartiles(stepRuns)
	ws.Together[0], ws.Together[1], ws.Together[2] = Quartiles(together)
	ws.TogetherRuns[0], ws.TogetherRuns[1], ws.TogetherRuns[2] = Quartiles(togetherRuns)
	return ws, true, nil
}

// runsToTell returns RunsToTell(better, warm, l's noise): the runs of
// each to tell a configuration scoring better from the warm start scoring
// warm on l (NaN when l is not Noisy).
func runsToTell(l Landscape, better, warm float64) float64 {
	n, ok := l.(Noisy)
	if !ok {
		return math.NaN()
	}
	return RunsToTell(better, warm, n.Noise())
}

// WriteWarmStart writes ws as lines (in %): the warm start's and the
// baseline's shares of the best, then, for a Noisy landscape, the runs of
// each a test needs to tell the best from the warm start: a recommendation
// can beat the warm start on measurements only where a study can spend
// that many. Errors: w's.
func WriteWarmStart(w io.Writer, ws WarmStart) error {
	var b strings.Builder
	if ws.Draws > 0 {
		fmt.Fprintf(&b, "\nwarm start alone: %.1f [%.1f, %.1f] %% of each draw's best (%d draws); baseline: %.1f [%.1f, %.1f] %%\n",
			100*ws.Warm[1], 100*ws.Warm[0], 100*ws.Warm[2], ws.Draws, 100*ws.Base[1], 100*ws.Base[0], 100*ws.Base[2])
	} else {
		fmt.Fprintf(&b, "\nwarm start alone: %.1f %% of best; baseline: %.1f %%\n", 100*ws.Warm[1], 100*ws.Base[1])
	}
	if !math.IsNaN(ws.Runs[1]) {
		runs := func(r [3]float64) string {
			if ws.Draws > 0 {
				return fmt.Sprintf("%s [%s, %s]", fmtRuns(r[1]), fmtRuns(r[0]), fmtRuns(r[2]))
			}
			return fmtRuns(r[1])
		}
		share := func(s [3]float64) string {
			if ws.Draws > 0 {
				return fmt.Sprintf("%.1f [%.1f, %.1f] %%", 100*s[1], 100*s[0], 100*s[2])
			}
			return fmt.Sprintf("%.1f %%", 100*s[1])
		}
		fmt.Fprintf(&b, "runs of each to tell from the warm start (one-sided 5 %% test, power 80 %%, at the landscape's noise): the best, %s; the best change of one knob (%s of best), %s; every knob's best change at once (%s), %s\n",
			runs(ws.Runs), share(ws.Step), runs(ws.StepRuns), share(ws.Together), runs(ws.TogetherRuns))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fmtRuns formats a RunsToTell figure: whole runs, "∞" when the warm
// start is the best.
func fmtRuns(n float64) string {
	if math.IsInf(n, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.0f", math.Ceil(n))
}

// LandscapeSummary is one landscape's share table and warm start, for
// the summary over several landscapes (WriteSummary).
type LandscapeSummary struct {
	// Landscape is its name as given (LandscapeNames).
	Landscape string
	// Rows are its Shares at Checkpoints.
	Rows        []ShareRow
	Checkpoints []int
	// WarmStart is its WarmStartShares; nil when it has no noise-free
	// scores.
	WarmStart *WarmStart
}

// WriteSummary writes, as Markdown, one line per landscape, strategy and
// warm-start setting: the share table's cells at the checkpoints of the
// first summary (all must share them) and the warm start's own share (its
// median over a family's draws); then, per strategy and warm-start
// setting, its worst landscape (the lowest median at the last checkpoint):
// the headline; last, per strategy run with the warm start, on how many of
// the landscapes with a noise-free warm-start share its median at the last
// checkpoint is above that share, naming the others with the runs of each
// a test needs to tell from it the warm start's best one-knob change and
// every knob's best change at once (WarmStart.StepRuns, TogetherRuns).
// Errors: w's.
func WriteSummary(w io.Writer, sums []LandscapeSummary) error {
	if len(sums) == 0 {
		return nil
	}
	cps := sums[0].Checkpoints
	var b strings.Builder
	b.WriteString("| landscape | strategy | warm start |" + shareHeader(cps) + " warm start alone |\n|---|---|---|" + strings.Repeat("---|---|---|", len(cps)) + "---|\n")
	// Per strategy and warm-start setting: its worst landscape, and, run
	// with the warm start, the landscapes judged against the warm start's
	// own share and those where its median is not above that share.
	type tally struct {
		worst  string
		median float64
		judged int
		not    []string
	}
	tallies := map[string]*tally{}
	var order []string
	for _, s := range sums {
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| %s | %s | %s |%s", s.Landscape, r.Strategy, warmLabel(r.Warm), shareCells(r, len(cps)))
			if s.WarmStart != nil {
				fmt.Fprintf(&b, " %.1f |\n", 100*s.WarmStart.Warm[1])
			} else {
				b.WriteString(" |\n")
			}
			if len(r.Share) == 0 {
				continue
			}
			key := r.Strategy + " (warm start " + warmLabel(r.Warm) + ")"
			m := r.Share[len(r.Share)-1][1]
			t := tallies[key]
			if t == nil {
				t = &tally{worst: s.Landscape, median: m}
				tallies[key] = t
				order = append(order, key)
			} else if m < t.median {
				t.worst, t.median = s.Landscape, m
			}
			if ws := s.WarmStart; r.Warm && ws != nil {
				t.judged++
				if !(m > ws.Warm[1]+1e-9) {
					why := fmt.Sprintf("%s (%.1f against %.1f", s.Landscape, 100*m, 100*ws.Warm[1])
					if !math.IsNaN(ws.StepRuns[1]) {
						why += fmt.Sprintf("; a one-knob step needs %s runs of each, every knob's best change at once %s", fmtRuns(ws.StepRuns[1]), fmtRuns(ws.TogetherRuns[1]))
					}
					t.not = append(t.not, why+")")
				}
			}
		}
	}
	b.WriteString("\n")
	last := cps[len(cps)-1]
	for _, key := range order {
		t := tallies[key]
		fmt.Fprintf(&b, "worst landscape for %s: %s, %.1f %% of its best after %d measurements (median)\n", key, t.worst, 100*t.median, last)
	}
	for _, key := range order {
		t := tallies[key]
		if t.judged == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: the median after %d measurements beats the warm start's own share on %d of %d landscapes", key, last, t.judged-len(t.not), t.judged)
		if len(t.not) > 0 {
			b.WriteString("; not on " + strings.Join(t.not, ", "))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Paired compares two strategies seed by seed: the same seed gives both
// the same landscape noise, so the per-seed difference of their
// recommendations is a fairer test than the difference of two medians.
type Paired struct {
	// A and B name the strategies (A is the first of Options.Strategies).
	A, B string
	// Warm is the warm-start setting of both.
	Warm bool
	// Trials is the checkpoint (finished trials) compared.
	Trials int
	// Ahead, Behind and Tied count the seeds where A's recommendation is
	// better than B's, worse, and within 0.05 points of the best known
	// score.
	Ahead, Behind, Tied int
	// Median is the median of A − B over the seeds, in points of the best
	// known score (percentage points).
	Median float64
	// P is the two-sided exact sign test's p-value over the untied seeds
	// (1 when all tie).
	P float64
}

// PairedComparisons compares the first strategy of o with each other one,
// per warm-start setting, after trials finished trials (the last
// incumbent of a shorter run), over the seeds both ran.
func PairedComparisons(runs []Run, best float64, o Options, trials int) []Paired {
	if len(o.Strategies) < 2 || best == 0 {
		return nil
	}
	type key struct {
		s    string
		warm bool
		seed int
	}
	at := map[key]float64{}
	for _, r := range runs {
		if len(r.Inc) == 0 {
			continue
		}
		v := r.Inc[min(trials, len(r.Inc))-1] / best
		if math.IsNaN(v) {
			v = 0
		}
		at[key{r.Strategy, r.Warm, r.Seed}] = 100 * v
	}
	a := o.Strategies[0]
	var out []Paired
	for _, b := range o.Strategies[1:] {
		for _, w := range o.Warm {
			p := Paired{A: a, B: b, Warm: w, Trials: trials}
			var diffs []float64
			for k, va := range at {
				if k.s != a || k.warm != w {
					continue
				}
				vb, ok := at[key{b, w, k.seed}]
				if !ok {
					continue
				}
				d := va - vb
				diffs = append(diffs, d)
				switch {
				case math.Abs(d) < 0.05:
					p.Tied++
				case d > 0:
					p.Ahead++
				default:
					p.Behind++
				}
			}
			if len(diffs) == 0 {
				continue
			}
			_, p.Median, _ = Quartiles(diffs)
			p.P = signTest(p.Ahead, p.Behind)
			out = append(out, p)
		}
	}
	return out
}

// signTest returns the two-sided exact sign test's p-value for k
// successes and n−k failures under p = 1/2 (1 when n is 0).
func signTest(ahead, behind int) float64 {
	n := ahead + behind
	if n == 0 {
		return 1
	}
	k := min(ahead, behind)
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	return math.Min(1, 2*bin.CDF(float64(k)))
}

// WritePaired writes one line per comparison, e.g. "hybrid vs
// optuna-mtpe (warm start expert) after 100 trials: ahead on 9 seeds,
// behind on 8, tied on 3; median difference +0.4 points (sign test p =
// 1.00)".
func WritePaired(w io.Writer, ps []Paired) error {
	var b strings.Builder
	for _, p := range ps {
		warm := "no warm start"
		if p.Warm {
			warm = "warm start expert"
		}
		fmt.Fprintf(&b, "%s vs %s (%s) after %d measurements: ahead on %d seeds, behind on %d, tied on %d; median difference %+.1f points (sign test p = %.2f)\n",
			p.A, p.B, warm, p.Trials, p.Ahead, p.Behind, p.Tied, p.Median, p.P)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
