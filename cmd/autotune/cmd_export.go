package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

type exportOptions struct {
	study  string
	db     string
	out    string
	format string // one of exportfile.Formats
	trial  int    // trial to export; -1: the best
	full   bool   // the full best even when a minimisation is stored
}

func newExportCmd() *cobra.Command {
	o := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the best (or minimal) configuration of a study as a ready my.cnf",
		Long: `export writes the best complete trial of a study as a [mysqld] option group holding
the options that trial sets differently from the baseline (the server defaults,
or your --baseline-cnf), each after a comment saying what it is: unit, server
default, description. Comments head the file: study, trial, score, the baseline
and the gain over it, server version, date, and how many options were left out
at the baseline's value (autotune show lists every knob of a trial). Without -o
it prints to standard output.

When the best was minimised (search --minimize, autotune minimize) and the
minimal configuration was not worse than the full best, export writes the
minimal configuration: only the changes that pay, each followed by its measured
contribution and interval as a comment ("# +48 % tps (±6 %)"). --full writes
the full best instead.

--format picks the form, each with the same options: cnf (the option file,
default), sql (SET GLOBAL statements for the dynamic knobs; the static ones are
listed as comments, they need the option file and a restart), persist (the same
with SET PERSIST, for MySQL 8.0 and later), json (a document with the trial, the
options and their notes, score and gain).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if o.full && o.trial >= 0 {
				return usagef("--full: --trial exports that trial in full already")
			}
			return validateExportFormat(o.format)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), o, cmd.OutOrStdout(), time.Now())
		},
	}
	cmd.Flags().StringVar(&o.study, "study", "default", "study name")
	cmd.Flags().StringVar(&o.db, "db", "trials.db", "study database")
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "file to write (mode 0644); default standard output")
	cmd.Flags().StringVar(&o.format, "format", "cnf", "output form: "+strings.Join(exportfile.Formats, ", "))
	cmd.Flags().IntVar(&o.trial, "trial", -1, "export this complete trial instead of the best")
	cmd.Flags().BoolVar(&o.full, "full", false, "write the full best configuration even when its minimisation is stored (by default the minimal one: the changes that pay, with their contributions)")
	return cmd
}

func runExport(ctx context.Context, o *exportOptions, stdout io.Writer, now time.Time) error {
	e, err := study.Export(ctx, study.ExportRequest{DB: o.db, Study: o.study, Trial: o.trial, Full: o.full,
		Format: o.format, Out: o.out, Now: now}, stdout)
	if err != nil || e.File == "" {
		return err
	}
	report.WriteExported(stdout, e)
	return nil
}

func validateExportFormat(f string) error {
	if !slices.Contains(exportfile.Formats, f) {
		return usagef("--format %q: want one of %s", f, strings.Join(exportfile.Formats, ", "))
	}
	return nil
}
