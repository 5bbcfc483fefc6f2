package runner

import (
	"regexp"
	"sync"
)

// ignoredConfig matches the option reader's warning about an option file
// it skipped: MySQL "[Warning] World-writable config file '%s' is
// ignored." and MariaDB "Warning: World-writable config file '%s' is
// ignored"; the server still starts, with its defaults (seen in the field:
// a provisioning role left /etc/mysql/my.cnf world-writable and its settings
// silently had no effect).
var ignoredConfig = regexp.MustCompile(`World-writable config file '([^']+)' is ignored`)

// IgnoredConfigWarning returns the first line of out (a server's start-up
// output or error log) saying an option file was ignored, or "". A server
// that ignored the trial's my.cnf runs with its defaults while the trial
// would record the candidate's values: the trial must fail instead.
func IgnoredConfigWarning(out string) string {
	loc := ignoredConfig.FindStringIndex(out)
	if loc == nil {
		return ""
	}
	start, end := loc[0], loc[1]
	for start > 0 && out[start-1] != '\n' {
		start--
	}
	for end < len(out) && out[end] != '\n' {
		end++
	}
	return out[start:end]
}

// tailBuffer keeps the last max bytes written to it (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
