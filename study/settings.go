package study

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
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

// MinMemoryLimit is the smallest --memory-limit: a MariaDB 10.11 server
// with the smallest buffer pool needs about 100 MB here.
const MinMemoryLimit = 256 << 20

// ParseMemoryLimit reads --memory-limit (a size such as 2G) in bytes; a
// UsageError when it is not a size or is below MinMemoryLimit.
func ParseMemoryLimit(s string) (int64, error) {
	n, err := space.ParseBytes(s)
	if err != nil || n < MinMemoryLimit {
		return 0, Usagef("--memory-limit %q: want a size of at least %s such as 2G", s, space.FormatBytes(MinMemoryLimit))
	}
	return n, nil
}

var buildName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// ParseBuilds parses the NAME=PATH values of flag (--server-build,
// --benchmark-build) into builds with absolute paths. Errors are
// UsageErrors naming the flag and the value: no NAME=PATH, a name given
// twice, or a path that is not an executable file.
func ParseBuilds(flag string, vals []string) ([]storage.Build, error) {
	var out []storage.Build
	seen := map[string]bool{}
	for _, v := range vals {
		name, path, ok := strings.Cut(v, "=")
		if !ok || !buildName.MatchString(name) || path == "" {
			return nil, Usagef("%s %q: want NAME=PATH, NAME of letters, digits, '.', '_', '+', '-'", flag, v)
		}
		if seen[name] {
			return nil, Usagef("%s %q: build name %s given twice", flag, v, name)
		}
		seen[name] = true
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, Usagef("%s %q: %v", flag, v, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			return nil, Usagef("%s %q: %s is not an executable file", flag, v, abs)
		}
		out = append(out, storage.Build{Name: name, Path: abs})
	}
	return out, nil
}
