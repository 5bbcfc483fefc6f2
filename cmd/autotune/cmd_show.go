package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study"
)

// showOptions are the flags and argument of `autotune show TRIAL`.
type showOptions struct {
	study   string
	db      string
	samples bool
	trial   string // a number, "best" or "baseline"
}

func (o *showOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name")
	fs.StringVar(&o.db, "db", "trials.db", "study database")
	fs.BoolVar(&o.samples, "samples", true, "print the per-second samples")
}

func (o *showOptions) validate(args []string) error {
	if len(args) != 1 {
		return usagef("show: want one TRIAL (a trial number, best or baseline), got %d arguments", len(args))
	}
	o.trial = args[0]
	return nil
}

func newShowCmd() *cobra.Command {
	o := &showOptions{}
	cmd := &cobra.Command{
		Use:   "show TRIAL",
		Short: "Show one trial: params, metrics, per-second samples, failure and error log",
		Long: `show prints everything stored about one trial of a study: its state and timing,
the score and metrics with the report.Gain over the baseline, every knob's value against
the server default, the benchmark's own summary, the per-second samples, and for
a failed trial the reason and the server's error-log excerpt. TRIAL is a trial
number, "best" (the best complete trial) or "baseline".`,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate(args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShow(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runShow(ctx context.Context, o *showOptions, out io.Writer) error {
	d, err := study.Show(ctx, o.db, o.study, o.trial, o.samples)
	if err != nil {
		return err
	}
	report.WriteShow(out, space.Lookup(), d)
	return nil
}
