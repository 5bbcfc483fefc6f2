package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study"
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
}

// workerRefused are search flags a worker cannot honour, with the reason.
var workerRefused = []struct {
	why   string
	names []string
}{
	{"a worker runs trials in its own sandbox; tune an existing server with autotune search --dsn", append([]string{"dsn"}, existingOnly...)},
	{"workers refuse any change of a study's settings (scores under different settings do not compare): start a new study", []string{"allow-changes"}},
	{"workers do not run the final A/B phase (its rounds measure the best and the baseline in turn, which concurrent workers cannot): they confirm new bests (--confirm) and recheck the baseline (--recheck-every); measure the gain with autotune verify", []string{"ab-pairs", "ab-share", "skew-check"}},
	{"workers measure every trial in full (no early stopping)", []string{"prune"}},
	{"workers do not minimise the best: a minimisation re-measures configurations in interleaved pairs, which workers do not make (and autotune minimize does not open a study run by workers)", []string{"minimize", "minimize-pairs", "minimize-share"}},
	{"workers do not seed a study: a worker study's trials come from the workers' strategy alone", []string{"seed-from"}},
}

func (o *workerOptions) config(fs *pflag.FlagSet) (study.Config, error) {
	for _, r := range workerRefused {
		if err := refuse(fs, r.why, r.names...); err != nil {
			return study.Config{}, err
		}
	}
	c, err := o.searchOptions.config(fs)
	if err != nil {
		return c, err
	}
	switch {
	case !storage.IsMySQL(o.db):
		return c, usagef("--db %q: workers share a study through a MySQL/MariaDB store: want mysql://USER@HOST:PORT/DATABASE", o.db)
	case o.heartbeat < 100*time.Millisecond:
		return c, usagef("--heartbeat %s: want at least 100ms, e.g. 10s", o.heartbeat)
	}
	c.Heartbeat = o.heartbeat
	c.Measure.ABPairs, c.Measure.ABShare = 0, 0
	c.Minimize = false
	return c, nil
}

func newWorkerCmd() *cobra.Command { return newWorkerCmdWith(&workerOptions{}) }

// newWorkerCmdWith returns the command writing its flags into o.
func newWorkerCmdWith(o *workerOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run trials of a study shared with other workers through a MySQL/MariaDB store",
		Long: `worker runs trials of one study in its own sandbox (--workdir) and shares the
history with every other worker of the study through a MySQL/MariaDB store
(--db mysql://USER@HOST:PORT/DATABASE). Start one on each benchmark host with
the same flags. Trials are claimed atomically (no two workers run the same
trial), the strategy (--strategy) replays all workers' results before each
proposal, and a trial whose worker dies (no heartbeat for 6 x --heartbeat) is
marked interrupted and run again by another worker. A new best is confirmed
(--confirm) and the baseline rechecked (--recheck-every) by whichever worker
claims next; the final A/B runs are search's alone (measure the gain with
autotune verify).

Every worker of a study must run on the same hardware (cores and RAM) and the
same server version: scores measured on different machines do not compare,
so a worker on different hardware is refused. The host of each trial is
recorded in the store (table trial_claims).

--budget counts the sum of all workers' trial time (machine time).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorker(cmd.Context(), cfg, o.json, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runWorker runs the worker of cfg, printing progress to out.
func runWorker(ctx context.Context, cfg study.Config, jsonLines bool, out io.Writer) error {
	prog := report.NewProgress(report.ChooseProgress(jsonLines, out), out, nil)
	defer prog.Close()
	return study.Worker(ctx, cfg, prog)
}
