package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/study"
	"github.com/autotune/autotune/workload"
)

// captureOptions are the flags of `autotune capture`.
type captureOptions struct {
	slowLogs, generalLogs []string
	out                   string
	mask                  bool
	dsn                   string
	dur                   time.Duration
	passwordFile          string
	serverLog             string
	mixServers            bool
}

func (o *captureOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.slowLogs, "from-slow-log", nil, "read this slow query log (repeatable: rotated files, oldest first)")
	fs.StringArrayVar(&o.generalLogs, "from-general-log", nil, "read this general query log (repeatable: rotated files, oldest first)")
	fs.StringVar(&o.out, "out", "", "workload file to write (JSON lines; gzip-compressed when the name ends in .gz; mode 0600)")
	fs.BoolVar(&o.mask, "mask-literals", false, "replace string and numeric literals by ? placeholders: the file then shows the statements' shape, not their values, and a replay cannot run them with the captured values (passwords are always masked)")
	fs.StringVar(&o.dsn, "dsn", "", "capture from this running server: USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/ (no password here: $"+study.PasswordEnv+" or --password-file); needs --for")
	fs.DurationVar(&o.dur, "for", 0, "with --dsn: how long to capture, e.g. 60s; the server's slow log runs at long_query_time=0 meanwhile, and every variable changed is restored afterwards")
	fs.StringVar(&o.passwordFile, "password-file", "", "with --dsn: MySQL option file with a [client] password= line for the --dsn user (mode 0600)")
	fs.BoolVar(&o.mixServers, "mix-servers", false, "read logs of several servers (or files that overlap in time) into one workload, each file's connections apart from the others'; without it such logs are refused")
	fs.StringVar(&o.serverLog, "server-log", "", "with --dsn: absolute path of the file the server writes the slow log to during the capture (default: autotune-capture-TIME.log in its datadir); autotune reads it, so the server must run on this host, and removes it")
}

// config turns the flags into the capture's configuration; errors are
// usage errors naming the flag.
func (o *captureOptions) config(fs *pflag.FlagSet) (workload.Config, error) {
	c := workload.Config{SlowLogs: o.slowLogs, GeneralLogs: o.generalLogs, MaskLiterals: o.mask, Out: o.out, MixServers: o.mixServers}
	switch {
	case len(o.slowLogs) > 0 && len(o.generalLogs) > 0:
		return c, usagef("--from-slow-log and --from-general-log: give one kind of log")
	case o.dsn != "" && len(o.slowLogs)+len(o.generalLogs) > 0:
		return c, usagef("--dsn and --from-slow-log/--from-general-log: give one source")
	case o.dsn == "" && len(o.slowLogs)+len(o.generalLogs) == 0:
		return c, usagef("want a source: --from-slow-log FILE, --from-general-log FILE, or --dsn DSN --for DURATION")
	case o.out == "":
		return c, usagef("--out FILE: want the workload file to write, e.g. --out workload.jsonl.gz")
	}
	for _, f := range append(append([]string{}, o.slowLogs...), o.generalLogs...) {
		if _, err := os.Stat(f); err != nil {
			flag := "--from-slow-log"
			if len(o.generalLogs) > 0 {
				flag = "--from-general-log"
			}
			return c, usagef("%s %q: %v", flag, f, err)
		}
	}
	if len(o.slowLogs)+len(o.generalLogs) < 2 {
		if err := refuse(fs, "merges the logs of several servers: give two or more --from-slow-log or --from-general-log files", "mix-servers"); err != nil {
			return c, err
		}
	}
	if o.dsn == "" {
		if err := refuse(fs, "only with --dsn (a live capture)", "for", "password-file", "server-log"); err != nil {
			return c, err
		}
	} else {
		if err := checkDSN(o.dsn, o.passwordFile); err != nil {
			return c, err
		}
		if o.dur <= 0 {
			return c, usagef("--dsn needs --for DURATION > 0: how long to capture, e.g. --for 60s")
		}
		if o.serverLog != "" && !filepath.IsAbs(o.serverLog) {
			return c, usagef("--server-log %q: want an absolute path (the server would resolve a relative one against its datadir)", o.serverLog)
		}
		c.Live = &workload.Live{DSN: o.dsn, For: o.dur, ServerLog: o.serverLog}
	}
	if err := c.Check(); err != nil {
		return c, usagef("--out %s: %v", o.out, err)
	}
	return c, nil
}

func newCaptureCmd() *cobra.Command { return newCaptureCmdWith(&captureOptions{}) }

// newCaptureCmdWith returns the command writing its flags into o.
func newCaptureCmdWith(o *captureOptions) *cobra.Command {
	var cfg workload.Config
	cmd := &cobra.Command{
		Use:   "capture",
		Short: "Record the statements a server runs into a workload file",
		Long: `capture writes a workload file (docs/workloads.md): the client connections of a
MySQL/MariaDB server, each with its statements in execution order, their start
offsets, the schema each ran in, and the server's flavour and version.

From a log the server already wrote: --from-slow-log FILE (the slow query log,
complete only if it ran with long_query_time=0) or --from-general-log FILE, of
MySQL 5.7/8.x, Percona Server or MariaDB 10.x/11.x. A log that yields no
statement is an error.

From a running server: --dsn DSN --for DURATION switches on its slow query log
with long_query_time=0 (and what else it needs to log every statement) into a
file in its datadir, waits, restores every global variable it changed (also on
error or Ctrl-C), then reads and removes that file. autotune must run on the
server's host and be able to read the file. Connections opened before the
capture keep their session long_query_time: only their slower statements are
caught.

Passwords in IDENTIFIED BY, SET PASSWORD and the like are always masked;
--mask-literals masks every literal value, with the consequence stated there.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCapture(cmd.Context(), cfg, o.passwordFile, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runCapture reads the password of a live capture, captures, and prints
// what the file holds.
func runCapture(ctx context.Context, cfg workload.Config, passwordFile string, out io.Writer) error {
	if cfg.Live != nil {
		pw, err := study.ServerPassword(passwordFile)
		if err != nil {
			return err
		}
		cfg.Live.Password = pw
		cfg.Live.Logf = func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	}
	w, err := workload.Capture(ctx, cfg)
	if errors.Is(err, workload.ErrMixedServers) {
		flag := "--from-slow-log"
		if len(cfg.GeneralLogs) > 0 {
			flag = "--from-general-log"
		}
		return usagef("%s: %v (--mix-servers reads them into one workload anyway)", flag, err)
	}
	if err != nil {
		return err
	}
	workload.Summarize(out, cfg.Out, w)
	return nil
}
