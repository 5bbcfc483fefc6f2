package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/dashboard"
)

// dashboardOptions are the flags of `autotune dashboard`.
type dashboardOptions struct {
	db     string
	listen string
	poll   time.Duration
}

func (o *dashboardOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "trials.db", "study database: an SQLite file or a mysql:// store URL (password from AUTOTUNE_DB_PASSWORD or ?password_file=)")
	fs.StringVar(&o.listen, "listen", dashboard.DefaultListen, "address to serve on, host:port; another host than 127.0.0.1 or localhost serves other machines (with a warning)")
	fs.DurationVar(&o.poll, "poll", dashboard.DefaultPoll, "how often an open page checks the store for changes")
}

func (o *dashboardOptions) validate() error {
	if o.poll < 200*time.Millisecond || o.poll > time.Minute {
		return usagef("--poll %s: want 200ms to 1m", o.poll)
	}
	return nil
}

func newDashboardCmd() *cobra.Command {
	o := &dashboardOptions{}
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Watch the studies of a database live in a browser (read-only web page)",
		Long: `dashboard serves a web page of the studies in --db while they run: each study's
workload, server, budget used and best gain; a study's trials (sortable), the
score of each trial with the confirmed best so far, the running trial's
per-second throughput as it arrives, knob importance, the final A/B pairs and
the minimisation; and one trial's page, what autotune show prints. The page
updates itself while a study (or its workers) writes the database from another
process, and needs no network beyond the dashboard itself.

It only reads the database. It serves 127.0.0.1:8080 by default, this machine
only; --listen 0.0.0.0:8080 serves every machine that can reach it, without a
password (a warning says so): prefer an SSH tunnel. Ctrl-C stops it.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDashboard(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runDashboard(ctx context.Context, o *dashboardOptions, out io.Writer) error {
	err := dashboard.Serve(ctx, dashboard.Config{DB: o.db, Listen: o.listen, Poll: o.poll}, out)
	if errors.Is(err, dashboard.ErrListen) {
		return usageError{Err: err}
	}
	return err
}
