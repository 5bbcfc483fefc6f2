package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// noiseOptions are the flags of `autotune noise`: the benchmark and
// measurement flags of search, the server, the configuration and repeats.
type noiseOptions struct {
	benchFlags
	measureFlags
	server  spaceFlags
	repeats int
	set     []string
}

func (o *noiseOptions) AddFlags(fs *pflag.FlagSet) {
	o.benchFlags.AddFlags(fs)
	o.measureFlags.AddFlags(fs)
	o.server.addServerFlag(fs)
	fs.IntVar(&o.repeats, "repeats", 5, "how many times to measure the configuration")
	fs.StringArrayVar(&o.set, "set", nil, "knob=value of the configuration (repeatable); default: the server defaults")
}

func (o *noiseOptions) config(*pflag.FlagSet) (study.Config, error) {
	c := study.Config{Study: "noise", Trials: 1, Space: study.MeasuredSpace(o.server.mysqld, "")}
	if o.repeats < 2 || o.repeats > 100 {
		return c, usagef("--repeats %d: want 2..100", o.repeats)
	}
	if err := o.benchFlags.apply(&c); err != nil {
		return c, err
	}
	if err := o.measureFlags.apply(&c); err != nil {
		return c, err
	}
	return c, openBenchmark(&c)
}

func newNoiseCmd() *cobra.Command { return newNoiseCmdWith(&noiseOptions{}) }

// newNoiseCmdWith returns the command writing its flags into o.
func newNoiseCmdWith(o *noiseOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "Measure one fixed configuration several times and print how much its numbers vary",
		Long: `noise measures one fixed configuration (the server defaults, or the knobs given with
--set) --repeats times, each a full trial: restore the dataset snapshot, start the
server, warm up until steady (at most --warmup), measure --duration, stop. It prints
each run's detected warm-up, mean tps, score and its components, CPU steal and load,
then the coefficient of variation (sd/mean across runs) of the raw mean tps and of
the score. Use it to learn the noise floor of a machine before trusting a study's
differences. Nothing is written to a study database.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNoise(cmd.Context(), cfg, o.set, o.repeats, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runNoise measures the configuration repeats times, printing to out.
func runNoise(ctx context.Context, cfg study.Config, set []string, repeats int, out io.Writer) error {
	prog := report.NewProgress("plain", out, nil)
	defer prog.Close()
	runs, err := study.Noise(ctx, cfg, set, repeats, prog)
	if err != nil {
		return err
	}
	report.WriteNoiseSummary(out, runs)
	return nil
}
