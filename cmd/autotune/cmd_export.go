package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

type exportOptions struct {
	study  string
	db     string
	out    string
	format string // one of exportFormats
	trial  int    // trial to export; -1: the best
}

func newExportCmd() *cobra.Command {
	o := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the best trial of a study as a ready my.cnf",
		Long: `export writes the best complete trial of a study as a [mysqld] option group holding
the knobs that trial set, headed by comments: study, trial, score, tps against the
baseline, server version and date. Without -o it prints to standard output.

--format picks the form: cnf (the option file, default), sql (SET GLOBAL
statements for the dynamic knobs; the static ones are listed as comments, they
need the option file and a restart), persist (the same with SET PERSIST, for
MySQL 8.0 and later), json (a document with the trial, params, score and gain).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if o.trial < -1 {
				return usagef("--trial %d: want a trial number (0, 1, ...)", o.trial)
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
	cmd.Flags().StringVar(&o.format, "format", "cnf", "output form: "+strings.Join(exportFormats, ", "))
	cmd.Flags().IntVar(&o.trial, "trial", -1, "export this complete trial instead of the best")
	return cmd
}

// openExisting opens a study database that must already exist, so a typo
// in --db does not silently create an empty file.
func openExisting(path string) (*storage.DB, error) {
	if _, err := os.Stat(path); err != nil && !storage.IsMySQL(path) {
		return nil, fmt.Errorf("--db %q: %w (run autotune search first)", path, err)
	}
	return storage.Open(path)
}

func loadStudy(ctx context.Context, dbPath, name string) (*storage.DB, storage.Study, []search.Trial, error) {
	db, err := openExisting(dbPath)
	if err != nil {
		return nil, storage.Study{}, nil, err
	}
	st, found, err := db.Study(ctx, name)
	if err == nil && !found {
		err = fmt.Errorf("--study %q: no such study in %s", name, dbPath)
	}
	if err != nil {
		db.Close()
		return nil, storage.Study{}, nil, err
	}
	trials, err := db.Trials(ctx, name)
	if err != nil {
		db.Close()
		return nil, storage.Study{}, nil, err
	}
	return db, st, trials, nil
}

func runExport(ctx context.Context, o *exportOptions, stdout io.Writer, now time.Time) error {
	db, st, trials, err := loadStudy(ctx, o.db, o.study)
	if err != nil {
		return err
	}
	defer db.Close()
	best, base := search.Best(trials)
	if best.Number < 0 {
		return fmt.Errorf("study %q has no complete trial yet", o.study)
	}
	if o.trial >= 0 && o.trial != best.Number {
		if best, err = completeTrial(trials, o.trial); err != nil {
			return err
		}
	}
	// Stored trials may name any catalogue knob (whatever the server that
	// measured them had), so they are rendered against the whole catalogue.
	if o.out == "" {
		return writeExport(stdout, o.format, space.Lookup(), st, best, base, trials, now)
	}
	var body bytes.Buffer
	if err := writeExport(&body, o.format, space.Lookup(), st, best, base, trials, now); err != nil {
		return err
	}
	if err := writeFileMode(o.out, body.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-o %q: %w", o.out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: trial %d", o.out, best.Number)
	if base.Number >= 0 {
		fmt.Fprintf(stdout, ", %.1f tps vs baseline %.1f (%+.1f %%)", best.MeanTPS, base.MeanTPS, gain(best.MeanTPS, base.MeanTPS))
	}
	fmt.Fprintln(stdout)
	printGain(stdout, trials, best)
	return nil
}

// writeCnf renders the best trial as a my.cnf [mysqld] group.
func writeCnf(w io.Writer, sp *space.Space, st storage.Study, best, base search.Trial, trials []search.Trial, now time.Time) error {
	var bs benchSettings
	_ = json.Unmarshal([]byte(st.Settings), &bs)
	fmt.Fprintf(w, "# autotune: best configuration of study %q\n", st.Name)
	fmt.Fprintf(w, "# trial %d (%s), score %.1f, %.1f tps, p95 %.1f ms\n", best.Number, best.Kind, best.Score, best.MeanTPS, best.P95MS)
	if base.Number >= 0 {
		what := "server defaults"
		if bs.Space != nil && bs.Space.Baseline != nil {
			what = "your my.cnf"
		}
		fmt.Fprintf(w, "# baseline (%s): trial %d, %.1f tps -> %+.1f %% tps\n", what, base.Number, base.MeanTPS, gain(best.MeanTPS, base.MeanTPS))
	}
	writeGainComment(w, trials, best)
	version := best.ServerVersion
	if version == "" {
		version = st.ServerVersion
	}
	fmt.Fprintf(w, "# server: %s\n", version)
	if bs.Workload != "" {
		fmt.Fprintf(w, "# workload: sysbench %s, %d threads, %d tables x %d rows, %gs warm-up + %gs measured\n",
			bs.Workload, bs.Threads, bs.Tables, bs.TableSize, bs.WarmupS, bs.DurationS)
	}
	if bs.Space != nil {
		fmt.Fprintf(w, "# durability: %s\n", durabilityNote(bs.Space.Durability))
		if bl := bs.Space.Baseline; bl != nil {
			diff := sp.Diff(bl.Config, best.Params)
			fmt.Fprintf(w, "# baseline: %s (trial 0); changes against it: %d\n", bl.File, len(diff))
			for _, d := range diff {
				fmt.Fprintf(w, "#   %s\n", d)
			}
		}
	}
	for _, l := range environmentNotes(sp, best.Params) {
		fmt.Fprintf(w, "# %s\n", l)
	}
	fmt.Fprintf(w, "# exported: %s\n", now.UTC().Format(time.RFC3339))
	if len(best.Params) == 0 {
		fmt.Fprintln(w, "# the server defaults measured best: nothing to change")
	}
	fmt.Fprintln(w, "[mysqld]")
	return sp.WriteOptions(w, best.Params)
}
