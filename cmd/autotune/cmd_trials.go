package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study"
)

type trialsOptions struct {
	study string
	db    string
}

func newTrialsCmd() *cobra.Command {
	o := &trialsOptions{}
	cmd := &cobra.Command{
		Use:   "trials",
		Short: "List the trials of a study, best score first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrials(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.study, "study", "default", "study name")
	cmd.Flags().StringVar(&o.db, "db", "trials.db", "study database")
	return cmd
}

func runTrials(ctx context.Context, o *trialsOptions, out io.Writer) error {
	db, st, trials, err := study.LoadStudy(ctx, o.db, o.study)
	if err != nil {
		return err
	}
	defer db.Close()
	report.WriteTrials(out, space.Lookup(), st.Name, st.Goal(), trials)
	return nil
}
