package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/lockfile"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// workerOptions are the flags of `autotune worker`: those of search (the
// benchmark and sandbox) plus the heartbeat.
type workerOptions struct {
	searchOptions
	heartbeat time.Duration
}

func (o *workerOptions) AddFlags(fs *pflag.FlagSet) {
	o.searchOptions.AddFlags(fs)
	fs.DurationVar(&o.heartbeat, "heartbeat", 10*time.Second, "how often a running trial tells the store it is alive; a trial silent for 6 heartbeats is taken as its worker's death and run again by another worker")
	_ = fs.MarkHidden("allow-changes")
	for _, name := range []string{"dsn", "config-file", "restart-cmd", "allow-restart", "i-understand-this-is-not-a-sandbox", "password-file"} {
		if fs.Lookup(name) != nil {
			_ = fs.MarkHidden(name)
		}
	}
}

func (o *workerOptions) validate() error {
	if o.existing.dsn != "" {
		return usagef("--dsn: a worker runs trials in its own sandbox; tune an existing server with autotune search --dsn")
	}
	if !storage.IsMySQL(o.db) {
		return usagef("--db %q: workers share a study through a MySQL/MariaDB store: want mysql://USER@HOST:PORT/DATABASE", o.db)
	}
	if o.heartbeat < 100*time.Millisecond {
		return usagef("--heartbeat %s: want at least 100ms, e.g. 10s", o.heartbeat)
	}
	if o.trials == 0 && o.budget == 0 {
		return usagef("--budget or --trials: give at least one, e.g. --trials 100")
	}
	return o.searchOptions.validate()
}

// staleHeartbeats is how many heartbeat periods a running trial may stay
// silent before other workers take its worker for dead.
const staleHeartbeats = 6

func newWorkerCmd() *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run trials of a study shared with other workers through a MySQL/MariaDB store",
		Long: `worker runs trials of one study in its own sandbox (--workdir) and shares the
history with every other worker of the study through a MySQL/MariaDB store
(--db mysql://USER@HOST:PORT/DATABASE). Start one on each benchmark host with
the same flags. Trials are claimed atomically (no two workers run the same
trial), the sampler replays all workers' results before each proposal, and a
trial whose worker dies (no heartbeat for 6 x --heartbeat) is marked
interrupted and run again by another worker.

Every worker of a study must run on the same hardware (cores and RAM) and the
same server version: scores measured on different machines do not compare,
so a worker on different hardware is refused. The host of each trial is
recorded in the store (table trial_claims).

--budget counts the sum of all workers' trial time (machine time).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorker(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// workerID returns an identity unique to this process: host, pid, random.
func workerID(host string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// runWorker joins (or creates) the study and runs trials until the study
// is done.
func runWorker(ctx context.Context, o *workerOptions, out io.Writer) error {
	started := time.Now()
	hostName, _ := os.Hostname()
	id := workerID(hostName)
	logf := func(format string, a ...any) { fmt.Fprintf(out, "worker %s: "+format+"\n", append([]any{id}, a...)...) }

	host, err := runner.ReadHost()
	if err != nil {
		return err
	}
	bin, err := runner.FindServer(ctx, o.knobs.mysqld)
	if err != nil {
		return err
	}
	db, err := storage.Open(o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if locked, err := db.StudyLocked(ctx, o.study); err != nil {
		return err
	} else if locked {
		return fmt.Errorf("study %q in %s is run by autotune search; workers cannot join it", o.study, db.Path())
	}

	settingsJSON, _ := json.Marshal(o.settings())
	st, found, err := db.Study(ctx, o.study)
	if err != nil {
		return err
	}
	if !found {
		seed := o.seed
		if seed == 0 {
			seed = mrand.Int64N(1<<31) + 1
		}
		st = storage.Study{Name: o.study, Settings: string(settingsJSON), Seed: seed, ServerVersion: bin.Version,
			Cores: host.Cores, RAMBytes: host.RAMBytes, Created: started}
		err := db.CreateStudy(ctx, st)
		if errors.Is(err, storage.ErrStudyExists) {
			// Another worker created it a moment ago.
			st, _, err = db.Study(ctx, o.study)
		}
		if err != nil {
			return err
		}
		logf("study %q (seed %d) on %s", o.study, st.Seed, bin.Version)
	}
	if err := checkWorkerManifest(st, string(settingsJSON), bin, host); err != nil {
		return err
	}
	ws, err := db.Workers(storage.WorkerInfo{ID: id, Host: hostName, Cores: host.Cores, RAMBytes: host.RAMBytes}, staleHeartbeats*o.heartbeat)
	if err != nil {
		return err
	}

	sb, err := runner.OpenSandbox(o.workdir, bin)
	if err != nil {
		return err
	}
	sbLock, err := lockfile.Acquire(filepath.Join(sb.Dir, "lock"))
	if errors.Is(err, lockfile.ErrLocked) {
		return fmt.Errorf("--workdir %q is used by another autotune (%v); give each worker its own --workdir", o.workdir, err)
	}
	if err != nil {
		return err
	}
	defer sbLock.Release()
	bench := runner.Sysbench{Path: o.sysbench, Workload: o.workload, Tables: o.tables, TableSize: o.tableSize, Threads: o.threads[0]}
	maxConn := maxThreads(o.threads) + 50
	ds := runner.Dataset{Workload: o.workload, Tables: o.tables, TableSize: o.tableSize, ServerVersion: bin.Version}
	if !sb.HasSnapshot(ds) {
		logf("loading the dataset once: %d tables x %d rows (sysbench prepare), then snapshotting it", o.tables, o.tableSize)
		if err := sb.BuildSnapshot(ctx, ds, maxConn, bench.Prepare, logf); err != nil {
			if ctx.Err() != nil {
				return context.Canceled
			}
			return fmt.Errorf("build dataset snapshot: %w", err)
		}
	}
	sp := space.Default()
	if err := sp.Limit("innodb_buffer_pool_size", float64(host.RAMBytes/2)); err != nil {
		return err
	}
	tr := &trialRunner{sb: sb, bench: bench, meas: o.measurer(bench), sp: sp, maxConn: maxConn, logf: logf,
		servers: singleServer(bin)}
	defer tr.close()
	w := &search.Worker{
		Name: o.study, Seed: st.Seed, Objective: tr.run, Store: ws,
		NewStrategy:    func(seed int64) (search.Strategy, error) { return search.NewTPE(sp, seed) },
		MaxTrials:      o.trials,
		Budget:         o.budget,
		HeartbeatEvery: o.heartbeat,
		Started:        started,
		OnStart:        func(t search.Trial) { logf("trial %d (%s) started", t.Number, t.Kind) },
		OnStale: func(t search.Trial) {
			logf("trial %d was left by a dead worker (%s): marked interrupted, its config will be measured again", t.Number, t.Failure)
		},
		OnTrial: func(e search.Event) { logf("%s", trialLine(sp, e)) },
	}
	res, err := w.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(out, "\ninterrupted: the running trial was abandoned (not counted) and the server stopped.\nrestart the worker with the same command to rejoin study %q\n", o.study)
			return context.Canceled
		}
		return err
	}
	logf("study %q stopped: %s; this worker ran %d trials", o.study, res.Reason, res.Ran)
	trials, err := db.Trials(ctx, o.study)
	if err != nil {
		return err
	}
	best, base := search.Best(trials)
	printOutcome(out, sp, best, base)
	return nil
}

// checkWorkerManifest refuses a worker whose benchmark settings, server
// version or hardware differ from the study's: scores from different
// hardware do not compare, so one study runs on one kind of host.
func checkWorkerManifest(st storage.Study, settings string, bin runner.Binary, host runner.Host) error {
	switch {
	case st.Settings != settings:
		return usagef("study %q was created with other benchmark settings:\n  stored %s\n  now    %s\nstart every worker with the same flags", st.Name, st.Settings, settings)
	case st.ServerVersion != bin.Version:
		return usagef("study %q runs server %q; this worker has %q: every worker needs the same server version", st.Name, st.ServerVersion, bin.Version)
	case st.Cores != host.Cores || st.RAMBytes != host.RAMBytes:
		return usagef("study %q runs on hosts with %d cores and %d bytes of RAM; this one has %d cores and %d bytes: scores from different hardware do not compare, so a study's workers must run on identical hosts (start a separate study for this one)",
			st.Name, st.Cores, st.RAMBytes, host.Cores, host.RAMBytes)
	}
	return nil
}
