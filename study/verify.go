package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// NotVerified is Verify's verdict when the configuration's gain is not
// shown: its 95 % interval does not lie above zero, or too few pairs
// completed for an interval. The command line exits with code 3 for it,
// so that a script can gate a rollout on the verdict.
type NotVerified struct {
	// Reason says why ("the interval includes 0", ...).
	Reason string
}

func (e NotVerified) Error() string { return "not verified: " + e.Reason }

// Verify re-measures the configurations of the option files files against
// the baseline (the server defaults, or cfg.Space.BaselineCnf with each
// file's settings on top of it) on the sandbox in rounds: each round
// measures every file and the baseline once, each run a full trial of the
// engine, in an order rotated round by round (one file: file, baseline;
// baseline, file; ...; several: a Latin square over the arms, so that drift
// falls on every arm alike). It prints every run and, per file, the gain on
// the objective over the baseline from the per-round log-ratios
// (search.PairedGain), and with several files also over the reference file
// (one of files; "" for the first). It returns the verification (the
// gains over the baseline, in the order of files), also with NotVerified,
// which it returns when a file's
// interval's lower bound is not above zero, fewer than 2 of its rounds
// completed, or a run of it exceeded cfg.Measure.MaxP95 (such a run does
// not count, as in a study's final A/B runs: search.ABPairs), a UsageError
// for a file the server would refuse, that sets nothing autotune can
// measure, that repeats another or whose export header does not read back
// (an edited fingerprint line: exportHeaders), and other errors when the
// sandbox fails. Nothing is written to a study database.
func Verify(ctx context.Context, cfg Config, files []string, rounds int, reference string, prog Progress) (v result.Verification, err error) {
	if rounds < 2 {
		return v, Usagef("--pairs %d: want at least 2 (an interval needs two rounds)", rounds)
	}
	if len(files) == 0 {
		return v, Usagef("verify: want at least one option file")
	}
	ref := -1
	if len(files) > 1 {
		ref = 0
		if reference != "" {
			ref = slices.Index(files, reference)
			if ref < 0 {
				return v, Usagef("--reference %s: not one of the files given (%s)", reference, strings.Join(files, ", "))
			}
		}
	} else if reference != "" {
		return v, Usagef("--reference %s: needs two or more files (with one, the gain is over the baseline only)", reference)
	}
	// The files' syntax first, before the sandbox and its dataset; their
	// options are checked against the server below.
	for _, f := range files {
		if _, err := readOptionFileFor(f, space.Version{Flavor: space.MariaDB}); err != nil {
			return v, Usagef("verify %s: %v", f, err)
		}
	}
	headers, err := exportHeaders(files)
	if err != nil {
		return v, err
	}
	r, err := newRun(ctx, cfg, prog, "verify")
	defer r.closeInto(&err)
	if err != nil {
		return v, r.interrupted(ctx, err)
	}
	base := r.base
	arms := make([]verifyArm, 0, len(files)+1)
	for i, f := range files {
		cand, err := r.verifyConfig(ctx, f, headers[i])
		if err != nil {
			return v, err
		}
		for _, a := range arms {
			if a.cfg.Key() == cand.Key() {
				return v, Usagef("verify %s: sets the same configuration as %s; give each configuration once", f, a.name)
			}
		}
		arms = append(arms, verifyArm{name: f, cfg: cand, file: true})
	}
	arms = append(arms, verifyArm{name: baselineName(cfg), cfg: base})
	bi := len(arms) - 1
	claims, err := r.exportClaims(ctx, headers)
	if err != nil {
		return v, err
	}
	goal := measure.Goal(cfg.Measure.Objective)
	single := len(files) == 1
	if single {
		r.logf("verifying %s: %d interleaved pairs against %s; %s, threads %v, warm-up up to %s + %s window, objective %s",
			files[0], rounds, baselineName(cfg), cfg.Bench.Workload, r.cfg.Bench.Threads, cfg.Measure.Warmup, cfg.Measure.Duration, goal)
		for _, c := range r.sp.ChangesFrom(base, arms[0].cfg) {
			r.logf("  %s", c)
		}
	} else {
		r.logf("verifying %d files against %s in %d rounds, each measuring every arm once in an order rotated round by round; %s, threads %v, warm-up up to %s + %s window, objective %s; reference %s",
			len(files), baselineName(cfg), rounds, cfg.Bench.Workload, r.cfg.Bench.Threads, cfg.Measure.Warmup, cfg.Measure.Duration, goal, files[ref])
		for _, a := range arms[:bi] {
			r.logf("  %s: %s", a.name, strings.Join(r.sp.ChangesFrom(base, a.cfg), " "))
		}
	}
	// vals[round][arm]: the arm's objective value in that round, 0 when
	// its run failed, went over --max-p95 or its error rate moved.
	vals := make([][]float64, rounds)
	// capped[round][arm]: the arm's window in that round found no steady
	// start (search.SteadyPairs).
	capped := make([][]bool, rounds)
	overLimit := make([]int, len(arms))
	n := 0
	for i := range rounds {
		vals[i] = make([]float64, len(arms))
		capped[i] = make([]bool, len(arms))
		trials := make([]search.Trial, len(arms))
		for j := range arms {
			// Rotated: with one file, file, baseline; baseline, file; ...
			ai := (i + j) % len(arms)
			a := arms[ai]
			n++
			kind := search.ABBase
			if a.file {
				kind = search.ABBest
			}
			t0 := time.Now()
			oc, err := r.engine.Run(ctx, search.Trial{Number: n, Kind: kind, Params: a.cfg})
			if err != nil {
				return v, r.interrupted(ctx, err)
			}
			vr := result.VerifyRun{Pair: i + 1, File: a.file, Outcome: oc, Took: time.Since(t0)}
			if !single {
				vr.Arm = a.name
			}
			r.prog.Emit(result.VerifyRunEnded{Run: vr, Goal: goal})
			if oc.Failure != "" {
				continue
			}
			if oc.Infeasible {
				// As the study's A/B pairs (search.ABPairs): a run over
				// --max-p95 does not count.
				overLimit[ai]++
				continue
			}
			if !a.file {
				kind = search.Baseline
			}
			vals[i][ai] = search.ObjectiveValue(goal, search.Trial{Outcome: oc})
			capped[i][ai] = oc.WarmupCapped
			trials[ai] = search.Trial{Number: n, Kind: kind, State: search.Complete, Outcome: oc}
		}
		// Each file's run is compared with its round's baseline run, as
		// a study's trials are with its baseline (search.ErrorShift).
		if lim := r.errorShiftLimit(); lim > 0 && vals[i][bi] > 0 {
			for ai := range arms[:bi] {
				if vals[i][ai] <= 0 {
					continue
				}
				if why := search.ErrorShift(trials[bi:bi+1], trials[ai], lim); why != "" {
					r.logf("round %d: %s not counted: its run is %s", i+1, arms[ai].name, why)
					vals[i][ai] = 0
				}
			}
		}
	}
	pairs := func(a, b int) []search.Pair {
		var ps []search.Pair
		for i, v := range vals {
			if v[a] > 0 && v[b] > 0 {
				ps = append(ps, search.Pair{A: v[a], B: v[b], NotSteady: capped[i][a] || capped[i][b]})
			}
		}
		return ps
	}
	v = result.Verification{Goal: goal, Rounds: rounds}
	v.Claims = resultClaims(claims)
	if single {
		ps := pairs(0, bi)
		g, gerr := search.PairedGain(goal, ps)
		v.File, v.Pairs, v.OverLimit, v.Gains = files[0], len(ps), overLimit[0], []search.Gain{g}
		if gerr != nil {
			v.GainErr = gerr.Error()
		}
		if why := notVerified(cfg, g, gerr, overLimit[0], rounds); why != "" {
			return v, NotVerified{Reason: why}
		}
		return v, nil
	}
	rows := make([]result.VerifyArm, len(arms))
	for ai, a := range arms {
		row := result.VerifyArm{Name: a.name, File: a.file, Reference: ai == ref, OverLimit: overLimit[ai]}
		var counted []float64
		for _, v := range vals {
			if v[ai] > 0 {
				counted = append(counted, v[ai])
			}
		}
		row.Runs, row.Rounds = len(counted), rounds
		if len(counted) > 0 {
			row.Mean = measure.GeoMean(counted)
		}
		if ai != bi {
			row.VsBase, row.VsBaseErr = search.PairedGain(goal, pairs(ai, bi))
			v.Gains = append(v.Gains, row.VsBase)
			if why := notVerified(cfg, row.VsBase, row.VsBaseErr, overLimit[ai], rounds); why != "" {
				v.Failed = append(v.Failed, a.name+": "+why)
			}
		}
		if ai != ref {
			row.VsRef, row.VsRefErr = search.PairedGain(goal, pairs(ai, ref))
		}
		rows[ai] = row
	}
	v.Arms = rows
	if len(v.Failed) > 0 {
		return v, NotVerified{Reason: strings.Join(v.Failed, "; ")}
	}
	return v, nil
}

// verifyArm is one configuration a verify run measures.
type verifyArm struct {
	name string
	cfg  space.Config
	file bool // an option file's (false: the baseline)
}

// verifyConfig reads the option file f against the run's server and
// returns the configuration it measures: the baseline with the file's
// knobs and the runtime knobs its export header h names on top. A file
// that changes nothing or does not validate is a UsageError.
func (r *run) verifyConfig(ctx context.Context, f string, h exportfile.Header) (space.Config, error) {
	what := "verify " + f
	fc, err := loadOptionFile(ctx, what, f, r.sp, r.info, r.bin)
	if err != nil {
		return nil, err
	}
	env, envNotes := exportEnvironment(h, r.sp)
	fc.Config = fc.Config.Merge(env)
	for _, n := range append(fc.Notes, envNotes...) {
		r.logf("%s: %s", what, n)
	}
	cand := r.base.Merge(fc.Config)
	if cand.Key() == r.base.Key() {
		return nil, Usagef("%s: sets nothing that differs from the baseline (no knob autotune measures); nothing to verify", what)
	}
	if _, err := r.sp.Validate(cand); err != nil {
		return nil, Usagef("%s: %v", what, err)
	}
	return cand, nil
}

// exportClaim is what the header of a file autotune export wrote says
// about the gain: the conditions it was measured under and its claim.
type exportClaim struct {
	file string
	// gain is the header's "gain over the baseline" text ("" without).
	gain string
	// differs names the conditions that differ from this run's, ""
	// when none does.
	differs string
}

// claimIgnores are the fingerprint fields verify does not compare: it
// measures a file's own durability settings whatever the study's policy
// was, and it compares objective values, not scores.
var claimIgnores = []string{"durability", "score"}

// exportHeaders reads the export header of every file (exportfile.Read):
// the fingerprint, claimed gain and runtime knobs of the files autotune
// export wrote; a file it did not write gives an empty header. Errors: a
// file cannot be read, or a header line autotune writes does not read
// back (an edited fingerprint line), a UsageError naming the file and
// line.
func exportHeaders(files []string) ([]exportfile.Header, error) {
	out := make([]exportfile.Header, 0, len(files))
	for _, f := range files {
		h, err := exportfile.Read(f)
		var pe *exportfile.ParseError
		switch {
		case errors.As(err, &pe):
			return nil, Usagef("verify %v", err)
		case err != nil:
			return nil, Usagef("verify %s: %v", f, err)
		}
		out = append(out, h)
	}
	return out, nil
}

// exportClaims says, for the header of every file autotune export wrote
// (exportHeaders), whether this run measures under the conditions of its
// fingerprint: the same server and builds, target, host and host profile,
// benchmark and its options, workload and dataset (storage.Fingerprint).
// Files without a fingerprint give none. The error is this run's
// benchmark definition's, when it cannot be read.
func (r *run) exportClaims(ctx context.Context, headers []exportfile.Header) ([]exportClaim, error) {
	var own storage.Fingerprint
	var out []exportClaim
	for _, h := range headers {
		if h.Fingerprint == nil {
			continue
		}
		f := h.File
		c := exportClaim{file: f, gain: h.Gain}
		if own == nil {
			m, err := r.manifest(ctx)
			if err != nil {
				return nil, err
			}
			own = storage.FingerprintOf(m, r.version, r.host.Cores, r.host.RAMBytes)
		}
		c.differs = storage.DiffText(h.Fingerprint.Without(claimIgnores...).Diff(own.Without(claimIgnores...)))
		if c.differs == "" {
			r.logf("verify %s: measured here under the conditions of its study (fingerprint fields match: server, host, benchmark, dataset)", f)
		} else {
			r.logf("verify %s: its study measured it under other conditions (%s): this run measures it here, and its study's gain is not set beside this one", f, c.differs)
		}
		out = append(out, c)
	}
	return out, nil
}

// resultClaims returns claims as the verification reports them.
func resultClaims(claims []exportClaim) []result.ExportClaim {
	var out []result.ExportClaim
	for _, c := range claims {
		out = append(out, result.ExportClaim{File: c.file, Gain: c.gain, Differs: c.differs})
	}
	return out
}

// notVerified says why a file's gain is not shown ("" when it is): runs
// over --max-p95, no interval, or an interval not above 0.
func notVerified(cfg Config, g search.Gain, gerr error, overLimit, rounds int) string {
	switch {
	case overLimit > 0:
		return fmt.Sprintf("the file's p95 latency exceeded --max-p95 %g ms in %d of %d runs", cfg.Measure.MaxP95, overLimit, rounds)
	case gerr != nil:
		return gerr.Error()
	case !(g.LoPct > 0):
		return fmt.Sprintf("the 95 %% interval of the gain (%+.1f .. %+.1f %%) does not lie above 0", g.LoPct, g.HiPct)
	}
	return ""
}

// baselineName says what the baseline of a run is.
func baselineName(cfg Config) string {
	if cfg.Space.BaselineCnf != "" {
		return cfg.Space.BaselineCnf + " (--baseline-cnf)"
	}
	return "the server defaults"
}

// exportEnvironment returns the runtime knobs (allocator, CPU placement,
// connection, builds) that the header h of a file written by `autotune
// export` names (exportfile.Header.Runtime), so that verify measures the
// trial's configuration and not only its my.cnf part; the notes say what
// it applies and what this host's space does not offer, or a value it
// does not take (left out). A header without such lines gives none.
func exportEnvironment(h exportfile.Header, sp *space.Space) (space.Config, []string) {
	cfg := space.Config{}
	var notes []string
	for _, rk := range h.Runtime {
		k, ok := sp.Knob(rk.Name)
		if !ok || k.Layer == space.LayerServer {
			notes = append(notes, fmt.Sprintf("line %d: %s=%s left out: not a runtime knob this host's space offers", rk.Line, rk.Name, rk.Value))
			continue
		}
		v, err := k.Normalize(rk.Value)
		if err != nil {
			notes = append(notes, fmt.Sprintf("line %d: %s=%s left out: %v", rk.Line, rk.Name, rk.Value, err))
			continue
		}
		cfg[k.Name] = v
		notes = append(notes, fmt.Sprintf("line %d: applies %s=%s as the trial ran (not a my.cnf option: the export's header says how it was set)", rk.Line, k.Name, v))
	}
	return cfg, notes
}
