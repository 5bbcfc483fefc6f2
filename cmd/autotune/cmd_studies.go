package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// studiesOptions are the flags of `autotune studies`.
type studiesOptions struct {
	db string
}

func (o *studiesOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "trials.db", "study database")
}

func newStudiesCmd() *cobra.Command {
	o := &studiesOptions{}
	cmd := &cobra.Command{
		Use:   "studies",
		Short: "List the studies of a database with trial counts, best trial and budget used",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStudies(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runStudies(ctx context.Context, o *studiesOptions, out io.Writer) error {
	studies, trials, err := study.Studies(ctx, o.db)
	if err != nil {
		return err
	}
	report.WriteStudies(out, o.db, studies, trials)
	return nil
}
