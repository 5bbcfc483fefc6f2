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
	ram, err := meminfo("MemTotal:")
	if err != nil {
		return Host{}, err
	}
	return Host{Cores: runtime.NumCPU(), RAMBytes: ram}, nil
}

// meminfo returns the field of /proc/meminfo ("MemTotal:") in bytes; the
// error names the field.
func meminfo(field string) (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read host memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == field {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read host memory: %s %q: %w", strings.TrimSuffix(field, ":"), fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("read host memory: no %s in /proc/meminfo", strings.TrimSuffix(field, ":"))
}
