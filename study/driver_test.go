package study

import (
	"strings"
	"testing"

	"github.com/autotune/autotune/trial"
)

// The tests' fake drivers, registered once for the test binary as a
// built-in driver is (benchmarks.go).
func init() {
	Register("scripted", scriptedDriver{})
}

// scriptedDriver opens the scripted benchmark (modes_test.go) whatever
// the settings.
type scriptedDriver struct{}

func (scriptedDriver) Open(Bench) (trial.Benchmark, error) { return scripted{}, nil }

// Register refuses a second driver under a taken name, a nameless and a
// nil driver: drivers register once.
func TestRegisterRefusesTakenNamesAndNil(t *testing.T) {
	for name, d := range map[string]Driver{"sysbench": scriptedDriver{}, "": scriptedDriver{}, "nil": nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %v) did not panic", name, d)
				}
			}()
			Register(name, d)
		}()
	}
	if got := strings.Join(DriverNames(), ","); got != "command,replay,scripted,sysbench,tpcc" {
		t.Errorf("DriverNames = %s", got)
	}
}

// An unknown --benchmark is refused with its name and the registered
// drivers' names, sorted.
func TestUnknownDriverNamesTheRegisteredOnes(t *testing.T) {
	_, err := NewBenchmark(Bench{Driver: "hammerdb"})
	if want := `--benchmark "hammerdb": want one of command, replay, scripted, sysbench, tpcc`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
