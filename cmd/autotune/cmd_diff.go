package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study"
)

type diffOptions struct {
	study string
	db    string
	trial int
	// dsn, passwordFile and timeout compare a running server instead of
	// a file (--dsn).
	dsn          string
	passwordFile string
	timeout      time.Duration
}

func (o *diffOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name")
	fs.StringVar(&o.db, "db", "trials.db", "study database")
	fs.IntVar(&o.trial, "trial", -1, "compare with this complete trial instead of the best")
	fs.StringVar(&o.dsn, "dsn", "", "compare this running server instead of a file: USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/ (no password here: $"+study.PasswordEnv+" or --password-file); read-only")
	fs.StringVar(&o.passwordFile, "password-file", "", "with --dsn: MySQL option file with a [client] password= line for the --dsn user (mode 0600)")
	fs.DurationVar(&o.timeout, "timeout", study.DefaultDiffTimeout, "with --dsn: deadline of each read of the server, connecting included")
}

// serverDiff turns the flags and arguments of `diff --dsn` into its
// configuration; flags that make no sense together are usage errors.
func (o *diffOptions) serverDiff(fs *pflag.FlagSet, args []string) (study.ServerDiff, error) {
	c := study.ServerDiff{DSN: o.dsn, PasswordFile: o.passwordFile, Timeout: o.timeout, DB: o.db, Study: o.study, Trial: o.trial}
	if err := checkDSN(o.dsn, o.passwordFile); err != nil {
		return c, err
	}
	if o.timeout <= 0 {
		return c, usagef("--timeout %s: want a duration > 0, e.g. 10s", o.timeout)
	}
	if len(args) == 1 {
		if err := refuse(fs, "with --dsn and FILE, diff compares the server with the file; leave out FILE to compare it with a trial", "study", "db", "trial"); err != nil {
			return c, err
		}
		if err := regularFile("diff", args[0]); err != nil {
			return c, err
		}
		c.File = args[0]
	}
	return c, nil
}

func newDiffCmd() *cobra.Command {
	o := &diffOptions{}
	var sd study.ServerDiff
	cmd := &cobra.Command{
		Use:   "diff FILE | --dsn DSN [FILE]",
		Short: "Compare a my.cnf with a study's best trial, or a running server with either",
		Long: `diff reads FILE by the MySQL option-file rules (groups, !include/!includedir,
loose- prefixes, dashes equal underscores, size suffixes) and compares the server
options it sets with the knobs of the best trial (or --trial N): one row per knob
either side sets, with the file's value (or the server default it leaves in
place), the trial's value, and whether they differ.

With --dsn it compares a running server instead: its variables (SHOW GLOBAL
VARIABLES) against the options of FILE, or without FILE against the knobs of
the best trial of --study (or --trial N). The file is read as that server's
version reads it, each knob is looked up under the server's own variable name,
and values are compared by the server's rules (4G = 4096M, ON = 1 = TRUE, enum
case, skip-/disable-/enable- prefixes). For each setting that differs it prints
the running and the wanted value and whether SET GLOBAL can change it or it
needs a restart (as the server's READ_ONLY flag says where it tells, else as
the knob catalogue says, else unknown), then the SET GLOBAL statements and the
option lines that would apply them. It only reads: nothing is changed on the
server. The password comes from $` + study.PasswordEnv + ` or --password-file, never the DSN.

Exit code 0 whether or not they differ; 1 when the file cannot be read (naming
file and line) or the server cannot be read within --timeout (naming the DSN);
2 for flags that do not go together.`,
		// FILE, or with --dsn FILE or none (a trial).
		Args: func(cmd *cobra.Command, args []string) error {
			if o.dsn == "" {
				return cobra.ExactArgs(1)(cmd, args)
			}
			return cobra.RangeArgs(0, 1)(cmd, args)
		},
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if o.dsn == "" {
				return refuse(cmd.Flags(), "only with --dsn (comparing a running server)", "password-file", "timeout")
			}
			var err error
			sd, err = o.serverDiff(cmd.Flags(), args)
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.dsn != "" {
				return runServerDiff(cmd.Context(), sd, cmd.OutOrStdout())
			}
			return runDiff(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions, file string, out io.Writer) error {
	d, err := study.Diff(ctx, o.db, o.study, o.trial, file)
	if err != nil {
		return err
	}
	rows, others := report.DiffRows(space.Lookup(), d.Options, d.Trial.Params)
	report.WriteDiff(out, d.File, d.Trial, d.Study, rows, others, d.Notes)
	return nil
}

func runServerDiff(ctx context.Context, c study.ServerDiff, out io.Writer) error {
	d, err := study.DiffServer(ctx, c)
	if err != nil {
		return err
	}
	report.WriteServerDiff(out, d)
	return nil
}
