package runner

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host describes the machine a study runs on.
type Host struct {
	// Cores is the number of logical CPUs.
	Cores int
	// RAMBytes is MemTotal from /proc/meminfo, in bytes.
	RAMBytes int64
}

// ReadHost returns the host's cores and RAM. It returns an error when
// /proc/meminfo cannot be read or lacks MemTotal.
func ReadHost() (Host, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return Host{}, fmt.Errorf("read host memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return Host{}, fmt.Errorf("read host memory: MemTotal %q: %w", fields[1], err)
			}
			return Host{Cores: runtime.NumCPU(), RAMBytes: kb * 1024}, nil
		}
	}
	return Host{}, fmt.Errorf("read host memory: no MemTotal in /proc/meminfo")
}
