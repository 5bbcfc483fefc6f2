// Package testspace gives tests the knob space of the reference MariaDB
// 10.11.19 server, resolved from its recorded variables
// (space/testdata/serverinfo-mariadb-10.11.19.json), without a server.
package testspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/autotune/autotune/space"
)

// Info returns the recorded server variables of MariaDB 10.11.19.
func Info(t testing.TB) space.ServerInfo {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "space", "testdata", "serverinfo-mariadb-10.11.19.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info space.ServerInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// MariaDB returns the space resolved against Info on a 2-core host with
// taskset and tcmalloc.
func MariaDB(t testing.TB) *space.Space {
	t.Helper()
	info := Info(t)
	sp, err := space.Resolve(space.Catalogue(), space.Env{Server: &info, Cores: 2, Taskset: true,
		Allocators: map[string]string{"tcmalloc": "/lib/tc.so"}})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// First returns the first search space (space.FirstSpace): the twelve
// InnoDB knobs of the original study, durability knobs included
// (relaxed). Tests of strategy behaviour use it, so they do not change
// whenever the catalogue grows.
func First(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.FirstSpace()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
