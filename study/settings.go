package study

import (
	"time"

	"github.com/autotune/autotune/measure"
)

// CheckRunSettings checks the dataset, concurrency and trial length of a
// run as the flags of the same names give them: --tables 1..1024, a
// positive --table-size, --threads 1..4096 each (one or more), --warmup
// and --duration in whole seconds (--duration at least
// measure.MinMeasureSamples seconds), --warmup-max 0 or at least
// --warmup, and a --workdir. The error is a UsageError naming the flag
// and what it wants.
func CheckRunSettings(tables, tableSize int, threads []int, warmup, warmupMax, duration time.Duration, workdir string) error {
	switch {
	case tables < 1 || tables > 1024:
		return Usagef("--tables %d: want 1..1024", tables)
	case tableSize < 1:
		return Usagef("--table-size %d: want a positive row count", tableSize)
	case warmup < 0:
		return Usagef("--warmup %s: want a duration >= 0 such as 30s", warmup)
	case duration < time.Duration(measure.MinMeasureSamples)*time.Second:
		return Usagef("--duration %s: want at least %ds (the score needs per-second samples)", duration, measure.MinMeasureSamples)
	case warmup%time.Second != 0 || duration%time.Second != 0 || warmupMax%time.Second != 0:
		return Usagef("--warmup/--warmup-max/--duration: want whole seconds (sysbench reports once per second)")
	case warmupMax != 0 && warmupMax < warmup:
		return Usagef("--warmup-max %s: want at least --warmup %s (or 0 for 3 x --warmup)", warmupMax, warmup)
	case workdir == "":
		return Usagef("--workdir: want a directory path")
	case len(threads) == 0:
		return Usagef("--threads: want one or more counts such as 16 or 8,32,128")
	}
	for _, n := range threads {
		if n < 1 || n > 4096 {
			return Usagef("--threads %d: want 1..4096", n)
		}
	}
	return nil
}
