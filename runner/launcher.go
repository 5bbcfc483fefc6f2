package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/autotune/autotune/space"
)

// Facilities is what the host offers the launcher for the runtime
// environment knobs (group 1 of the reference tuning study's knobs, see
// package space).
type Facilities struct {
	// Allocators maps "tcmalloc" and "jemalloc" to the library ldconfig -p
	// lists for this architecture, when installed.
	Allocators map[string]string
	// Taskset and Numactl are the paths of the tools ("" when missing).
	Taskset, Numactl string
	// Cores is the number of logical CPUs; NUMANodes the number of nodes
	// under /sys/devices/system/node (1 when unknown).
	Cores, NUMANodes int
	// HugePages is HugePages_Total from /proc/meminfo.
	HugePages int64
}

// allocatorLibs lists, per allocator choice, the sonames to look for, the
// preferred first (Debian: libtcmalloc-minimal4, libgoogle-perftools4,
// libjemalloc2).
var allocatorLibs = []struct {
	name    string
	sonames []string
}{
	{"tcmalloc", []string{"libtcmalloc_minimal.so.4", "libtcmalloc.so.4"}},
	{"jemalloc", []string{"libjemalloc.so.2", "libjemalloc.so.1"}},
}

// DetectFacilities looks at the host: `ldconfig -p` for allocator
// libraries, PATH for taskset and numactl, /sys for NUMA nodes and
// /proc/meminfo for reserved huge pages. Missing tools are not errors:
// the knobs they serve are then reported unsupported. The allocators are
// those every one of servers can preload: a server in a root file system
// loads its libraries from the root, so the root's own `ldconfig -p`
// decides for it (with no server, the host's).
func DetectFacilities(ctx context.Context, servers ...Binary) Facilities {
	f := Facilities{Allocators: map[string]string{}, Cores: runtime.NumCPU(), NUMANodes: 1}
	host := len(servers) == 0
	var roots []Binary
	for _, b := range servers {
		if b.Root == "" {
			host = true
		} else {
			roots = append(roots, b)
		}
	}
	var sets []map[string]string
	if host {
		if out, err := exec.CommandContext(ctx, "ldconfig", "-p").Output(); err == nil {
			sets = append(sets, ParseLdconfig(out, runtime.GOARCH))
		} else if out, err := exec.CommandContext(ctx, "/sbin/ldconfig", "-p").Output(); err == nil {
			sets = append(sets, ParseLdconfig(out, runtime.GOARCH))
		} else {
			sets = append(sets, map[string]string{})
		}
	}
	for _, b := range roots {
		argv := b.ToolArgv("/usr/sbin/ldconfig", "-p")
		cmd := b.Isolate(exec.CommandContext(ctx, argv[0], argv[1:]...))
		out, err := cmd.Output()
		if err != nil {
			out = nil
		}
		sets = append(sets, ParseLdconfig(out, runtime.GOARCH))
	}
	for i, set := range sets {
		for name, path := range set {
			if i == 0 {
				f.Allocators[name] = path
			}
		}
		for name, path := range f.Allocators {
			if set[name] != path {
				delete(f.Allocators, name)
			}
		}
	}
	if p, err := exec.LookPath("taskset"); err == nil {
		f.Taskset = p
	}
	if p, err := exec.LookPath("numactl"); err == nil {
		f.Numactl = p
	}
	if m, _ := filepath.Glob("/sys/devices/system/node/node[0-9]*"); len(m) > 0 {
		f.NUMANodes = len(m)
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) >= 2 && fs[0] == "HugePages_Total:" {
				f.HugePages, _ = strconv.ParseInt(fs[1], 10, 64)
			}
		}
	}
	return f
}

// ParseLdconfig reads `ldconfig -p` output and returns the allocator
// libraries found for goarch ("amd64" matches the "x86-64" tag, "arm64"
// "AArch64"; other architectures take any entry), keyed by allocator.
func ParseLdconfig(out []byte, goarch string) map[string]string {
	tag := map[string]string{"amd64": "x86-64", "arm64": "AArch64"}[goarch]
	libs := map[string]string{} // soname → path
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		soname, rest, ok := strings.Cut(line, " (")
		if !ok {
			continue
		}
		attrs, path, ok := strings.Cut(rest, ") => ")
		if !ok || (tag != "" && !strings.Contains(attrs, tag)) {
			continue
		}
		if _, seen := libs[soname]; !seen {
			libs[soname] = strings.TrimSpace(path)
		}
	}
	found := map[string]string{}
	for _, a := range allocatorLibs {
		for _, so := range a.sonames {
			if p, ok := libs[so]; ok {
				found[a.name] = p
				break
			}
		}
	}
	return found
}

// Env fills the host part of a space.Env from f.
func (f Facilities) Env(env space.Env) space.Env {
	env.Allocators = f.Allocators
	env.Cores = f.Cores
	env.Taskset = f.Taskset != ""
	env.NUMANodes = f.NUMANodes
	env.Numactl = f.Numactl != ""
	env.HugePages = f.HugePages
	return env
}

// Launch says how to wrap a program: preload an allocator, pin it to CPUs,
// interleave its memory. The zero Launch runs the program as is.
type Launch struct {
	// Preload is the library put in LD_PRELOAD ("" for none).
	Preload string
	// CPUs is a taskset CPU list ("1", "0-3"); Taskset the tool's path.
	CPUs, Taskset string
	// Interleave runs under `numactl --interleave=all`; Numactl the path.
	Interleave bool
	Numactl    string
	// Cgroup, when set, runs the program inside this memory cgroup (the
	// host profile; Cgroup.Wrap).
	Cgroup *Cgroup
}

// Command returns the command that runs path with args under l: numactl
// and taskset exec the program, so the process (and its PID) is the
// program itself. Arguments go to exec directly, never through a shell.
func (l Launch) Command(path string, args ...string) *exec.Cmd {
	argv := l.argv(path, args)
	return l.env(exec.Command(argv[0], argv[1:]...))
}

// CommandContext is Command with exec.CommandContext.
func (l Launch) CommandContext(ctx context.Context, path string, args ...string) *exec.Cmd {
	argv := l.argv(path, args)
	return l.env(exec.CommandContext(ctx, argv[0], argv[1:]...))
}

func (l Launch) argv(path string, args []string) []string {
	argv := append([]string{path}, args...)
	if l.CPUs != "" {
		argv = append([]string{l.Taskset, "-c", l.CPUs}, argv...)
	}
	if l.Interleave {
		argv = append([]string{l.Numactl, "--interleave=all"}, argv...)
	}
	return l.Cgroup.Wrap(argv)
}

func (l Launch) env(cmd *exec.Cmd) *exec.Cmd {
	if l.Preload != "" {
		cmd.Env = append(withoutPreload(os.Environ()), "LD_PRELOAD="+l.Preload)
	}
	return cmd
}

func withoutPreload(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "LD_PRELOAD=") {
			out = append(out, e)
		}
	}
	return out
}

// Placement is a trial's runtime environment, decided from its
// environment knobs.
type Placement struct {
	// Server wraps the server; Bench wraps the benchmark.
	Server, Bench Launch
	// TCP makes the benchmark connect over TCP 127.0.0.1 instead of the
	// unix socket.
	TCP bool
}

// PlacementFor turns the environment knobs of cfg (allocator,
// cpu_placement, numa_policy, benchmark_connection; absent means the
// default) into launch settings. cpu_placement=split gives the benchmark
// the first half of the cores (at least one) and the server the rest, as
// measured on the reference 2-core machine (taskset -c 0 sysbench,
// taskset -c 1 mariadbd; docs/measurement.md). It returns an error when a
// value needs a facility the host lacks.
func PlacementFor(cfg space.Config, f Facilities) (Placement, error) {
	var p Placement
	switch a := cfg["allocator"]; a {
	case "", "system":
	default:
		lib, ok := f.Allocators[a]
		if !ok {
			return p, fmt.Errorf("allocator %s: library not installed", a)
		}
		p.Server.Preload = lib
	}
	switch c := cfg["cpu_placement"]; c {
	case "", "none":
	case "split":
		if f.Taskset == "" || f.Cores < 2 {
			return p, fmt.Errorf("cpu_placement split: needs taskset and 2 or more cores")
		}
		half := f.Cores / 2
		p.Bench.CPUs, p.Bench.Taskset = cpuList(0, half), f.Taskset
		p.Server.CPUs, p.Server.Taskset = cpuList(half, f.Cores), f.Taskset
	default:
		return p, fmt.Errorf("cpu_placement %q: want none or split", c)
	}
	switch n := cfg["numa_policy"]; n {
	case "", "default":
	case "interleave":
		if f.Numactl == "" {
			return p, fmt.Errorf("numa_policy interleave: numactl is not installed")
		}
		p.Server.Interleave, p.Server.Numactl = true, f.Numactl
	default:
		return p, fmt.Errorf("numa_policy %q: want default or interleave", n)
	}
	switch c := cfg["benchmark_connection"]; c {
	case "", "socket":
	case "tcp":
		p.TCP = true
	default:
		return p, fmt.Errorf("benchmark_connection %q: want socket or tcp", c)
	}
	return p, nil
}

// cpuList renders CPUs [from, to) as a taskset list ("1", "2-3").
func cpuList(from, to int) string {
	if to-from == 1 {
		return strconv.Itoa(from)
	}
	return strconv.Itoa(from) + "-" + strconv.Itoa(to-1)
}
