package study

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/strategy"
	"github.com/autotune/autotune/study/result"
)

// staleHeartbeats is how many heartbeat periods a running trial may stay
// silent before other workers take its worker for dead.
const staleHeartbeats = 6

// workerID returns an identity unique to this process: host, pid, random.
func workerID(host string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Worker joins (or creates) the study of cfg in a shared MySQL/MariaDB
// store and runs its trials in this worker's own sandbox until the study
// is done: trials are claimed atomically, the strategy replays every
// worker's results before each proposal, and a trial whose worker died is
// run again. Every worker of a study must run with the same Config on the
// same hardware and server version (a UsageError otherwise).
func Worker(ctx context.Context, cfg Config, prog Progress) (err error) {
	if cfg.Existing != nil {
		return Usagef("--dsn: a worker runs trials in its own sandbox; tune an existing server with autotune search --dsn")
	}
	if !storage.IsMySQL(cfg.DB) {
		return Usagef("--db %q: workers share a study through a MySQL/MariaDB store: want mysql://USER@HOST:PORT/DATABASE", cfg.DB)
	}
	hostName, _ := os.Hostname()
	id := workerID(hostName)
	r, db, op, err := start(ctx, cfg, prog, "worker")
	defer r.closeInto(&err)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	seg := storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}
	ws, err := db.Workers(storage.WorkerInfo{ID: id, Host: hostName, Cores: r.host.Cores, RAMBytes: r.host.RAMBytes, Fingerprint: seg.Key}, staleHeartbeats*cfg.Heartbeat)
	if err != nil {
		return err
	}
	r.logf("worker %s joins study %q", id, cfg.Study)
	_, warm, err := newStrategy(ctx, cfg.Strategy, cfg.WarmStart, nil, r.shape(), op.Study.Seed, cfg.Trials, r.facts, r.logf)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	var starts []space.Config
	for _, p := range warm {
		starts = append(starts, p.Config)
	}
	history, err := seg.Trials(ctx, cfg.Study)
	if err != nil {
		return err
	}
	prog.Emit(result.Opened{Study: cfg.Study, Budget: cfg.Budget, MaxTrials: cfg.Trials, Start: r.started, Space: r.sp, History: history})
	prog.Emit(result.TrialLength{Warmup: cfg.Measure.Warmup, Window: cfg.Measure.Duration})
	sp := r.sp
	w := &search.Worker{
		Name: cfg.Study, Seed: op.Study.Seed, Objective: r.engine.Run, Store: ws,
		NewStrategy: func(seed int64) (search.Strategy, error) {
			return strategy.NewStrategy(cfg.Strategy, sp, strategy.StrategyOptions{Seed: seed, Horizon: cfg.Trials, Starts: starts, Shape: r.shape()})
		},
		WarmStart: warm, Base: r.base, Space: sp, Verbatim: r.cfg.Existing != nil,
		MaxTrials:      cfg.Trials,
		Budget:         cfg.Budget,
		MaxErrorShift:  r.errorShiftLimit(),
		Confirm:        r.cfg.Measure.Confirmation(), // the study's own where no flag names it (start)
		HeartbeatEvery: cfg.Heartbeat,
		Started:        r.started,
		OnStale: func(t search.Trial) {
			r.logf("trial %d was left by a dead worker (%s): marked interrupted, its config will be measured again", t.Number, t.Failure)
		},
		OnTrial: func(e search.Standing) { prog.Emit(result.TrialEnded{Standing: e}) },
	}
	wres, err := w.Run(ctx)
	if err != nil {
		return r.interrupted(ctx, err)
	}
	trials, err := seg.Trials(ctx, cfg.Study)
	if err != nil {
		return err
	}
	best, base := search.Best(trials)
	res := search.Result{Reason: wres.Reason, Trials: trials, Best: best, Baseline: base}
	prog.Emit(result.Done{Result: res, Hint: fmt.Sprintf("this worker ran %d trials; write the best as a my.cnf with: autotune export --study %s --db %s -o best.cnf", wres.Ran, cfg.Study, cfg.DB)})
	return nil
}
