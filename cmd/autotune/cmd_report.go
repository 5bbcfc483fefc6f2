package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// reportOptions are the flags of `autotune report`.
type reportOptions struct {
	study string
	db    string
	out   string
}

func (o *reportOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.study, "study", "default", "study name")
	fs.StringVar(&o.db, "db", "trials.db", "study database")
	fs.StringVar(&o.out, "out", "report", "directory for report.html and the PNG plots (created when missing)")
}

func (o *reportOptions) validate() error {
	if o.out == "" {
		return usagef("--out: want a directory path")
	}
	return nil
}

func newReportCmd() *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Plot a study: PNG plots and one self-contained HTML page",
		Long: `report draws the study's plots with gonum/plot into --out: the score of each trial
with the study's best so far, the one confirmed by re-measurement (score.png), the
per-second tps of the baseline and of the best trial (tps.png), knob importance
(importance.png) and the score against each important knob (knob-NAME.png); and
report.html, one page that holds them all (as embedded images, so the file can be
mailed alone) with the top 10 trials and their differences from the baseline.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.Context(), o, cmd.OutOrStdout(), time.Now())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runReport loads the study, renders the report and writes it into o.out.
func runReport(ctx context.Context, o *reportOptions, out io.Writer, now time.Time) error {
	rep, err := buildReport(ctx, o.db, o.study, now)
	if err != nil {
		return err
	}
	if err := rep.Write(o.out); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s with %d plots (also as PNG files in %s)\n", filepath.Join(o.out, report.HTMLFile), len(rep.Images), o.out)
	return nil
}

// buildReport loads the study (study.Report) and renders its report.
func buildReport(ctx context.Context, dbPath, name string, now time.Time) (*report.Report, error) {
	in, err := study.Report(ctx, dbPath, name, now)
	if err != nil {
		return nil, err
	}
	return report.Build(in)
}
