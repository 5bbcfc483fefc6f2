package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// MinMemoryLimit is the smallest --memory-limit: a MariaDB 10.11 server
// with the smallest buffer pool needs about 100 MB here.
const MinMemoryLimit = 256 << 20

// ParseMemoryLimit reads --memory-limit (a size such as 2G) in bytes; a
// UsageError when it is not a size or is below MinMemoryLimit.
func ParseMemoryLimit(s string) (int64, error) {
	n, err := space.ParseBytes(s)
	if err != nil || n < MinMemoryLimit {
		return 0, usagef("--memory-limit %q: want a size of at least %s such as 2G", s, space.FormatBytes(MinMemoryLimit))
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
			return nil, usagef("%s %q: want NAME=PATH, NAME of letters, digits, '.', '_', '+', '-'", flag, v)
		}
		if seen[name] {
			return nil, usagef("%s %q: build name %s given twice", flag, v, name)
		}
		seen[name] = true
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, usagef("%s %q: %v", flag, v, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			return nil, usagef("%s %q: %s is not an executable file", flag, v, abs)
		}
		out = append(out, storage.Build{Name: name, Path: abs})
	}
	return out, nil
}
