package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autotune/autotune/space"
)

// Cgroup is a memory control group the sandboxed server runs in: a host
// profile that gives the server less memory than the machine has. The
// limit counts the page cache the server's processes charge (its data
// files read or written through the cache, and the restore's copy of the
// snapshot), so a configuration cannot win by letting the operating
// system cache what its buffer pool does not hold. When the server's
// memory goes over the limit the kernel reclaims cache first and then
// kills the server (an out-of-memory kill, counted by OOMKills).
//
// The controller is cgroup v2's memory controller where the unified
// hierarchy has it (memory.max, memory.swap.max, memory.events), else
// cgroup v1's (memory.limit_in_bytes, memory.memsw.limit_in_bytes,
// memory.oom_control); see the kernel's admin-guide/cgroup-v2.rst and
// cgroup-v1/memory.rst.
type Cgroup struct {
	// Dir is the cgroup's directory.
	Dir string
	// Version is 1 or 2.
	Version int
	// Limit is the memory limit in bytes.
	Limit int64
}

// ErrNoCgroup is wrapped by NewCgroup when no writable memory controller
// is mounted.
var ErrNoCgroup = errors.New("no writable memory cgroup")

// cgroupFS is where NewCgroup looks (tests replace it): the mount table
// and the cgroup membership of this process.
var cgroupFS = struct{ mountinfo, self string }{"/proc/self/mountinfo", "/proc/self/cgroup"}

// NewCgroup creates (or takes over, after a killed run) the memory cgroup
// name below this process's own memory cgroup and sets its limit to limit
// bytes, with no swap beyond it. The error wraps ErrNoCgroup and names the
// controller it looked for when none is mounted or it cannot be written
// (not root, a read-only cgroup filesystem, the controller not delegated).
func NewCgroup(name string, limit int64) (*Cgroup, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("memory limit %d: want a positive number of bytes", limit)
	}
	mounts, err := os.ReadFile(cgroupFS.mountinfo)
	if err != nil {
		return nil, fmt.Errorf("%w: read the mount table: %v", ErrNoCgroup, err)
	}
	member, err := os.ReadFile(cgroupFS.self)
	if err != nil {
		return nil, fmt.Errorf("%w: read this process's cgroups: %v", ErrNoCgroup, err)
	}
	base, version, err := memoryCgroupBase(string(mounts), string(member))
	if err != nil {
		return nil, err
	}
	c := &Cgroup{Dir: filepath.Join(base, name), Version: version, Limit: limit}
	if err := os.Mkdir(c.Dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: create %s: %v (a host profile needs root and a writable cgroup v%d memory controller)", ErrNoCgroup, c.Dir, err, version)
	}
	if err := c.setLimit(); err != nil {
		_ = os.Remove(c.Dir)
		return nil, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	return c, nil
}

func (c *Cgroup) setLimit() error {
	lim := strconv.FormatInt(c.Limit, 10)
	if c.Version == 2 {
		if err := c.write("memory.max", lim); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(c.Dir, "memory.swap.max")); err == nil {
			return c.write("memory.swap.max", "0")
		}
		return nil
	}
	// memsw (memory + swap) must stay at least the memory limit: lower
	// it after the memory limit when shrinking, raise it first when
	// growing; a kernel without swap accounting has no memsw file.
	memsw := filepath.Join(c.Dir, "memory.memsw.limit_in_bytes")
	_, err := os.Stat(memsw)
	hasMemsw := err == nil
	if hasMemsw {
		_ = c.write("memory.memsw.limit_in_bytes", lim) // fails when growing: retried below
	}
	if err := c.write("memory.limit_in_bytes", lim); err != nil {
		return err
	}
	if hasMemsw {
		return c.write("memory.memsw.limit_in_bytes", lim)
	}
	return nil
}

func (c *Cgroup) write(file, value string) error {
	p := filepath.Join(c.Dir, file)
	if err := os.WriteFile(p, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %s to %s: %w", value, p, err)
	}
	return nil
}

// memoryCgroupBase returns the directory of this process's memory cgroup
// and the controller's version, from /proc/self/mountinfo and
// /proc/self/cgroup: v2 when a cgroup2 mount lists memory in its
// cgroup.controllers, else the cgroup v1 mount with the memory option.
func memoryCgroupBase(mountinfo, member string) (string, int, error) {
	var v1Mount, v1Root, v2Mount string
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		switch g[0] {
		case "cgroup2":
			if v2Mount == "" {
				v2Mount = unescapeMount(f[4])
			}
		case "cgroup":
			if len(g) >= 3 && hasOption(g[2], "memory") {
				v1Mount, v1Root = unescapeMount(f[4]), f[3]
			}
		}
	}
	paths := map[string]string{}
	for _, line := range strings.Split(member, "\n") {
		// hierarchy-id:controllers:path ("0::/path" for v2)
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			paths[ctl] = parts[2]
		}
	}
	if v2Mount != "" {
		ctl, err := os.ReadFile(filepath.Join(v2Mount, "cgroup.controllers"))
		if err == nil && hasField(string(ctl), "memory") {
			return filepath.Join(v2Mount, paths[""]), 2, nil
		}
	}
	if v1Mount != "" {
		p, ok := paths["memory"]
		if !ok {
			return "", 0, fmt.Errorf("%w: the cgroup v1 memory controller is mounted at %s, but /proc/self/cgroup names no memory cgroup", ErrNoCgroup, v1Mount)
		}
		// A mount of a subtree (root other than /) shows paths relative
		// to that root only when they are below it.
		rel := strings.TrimPrefix(p, strings.TrimSuffix(v1Root, "/"))
		return filepath.Join(v1Mount, rel), 1, nil
	}
	return "", 0, fmt.Errorf("%w: neither a cgroup v2 hierarchy with the memory controller nor a cgroup v1 memory controller is mounted", ErrNoCgroup)
}

func hasOption(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func hasField(s, want string) bool {
	for _, f := range strings.Fields(s) {
		if f == want {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a blank).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Wrap returns argv run inside the cgroup: a /bin/sh that writes its own
// PID to the cgroup's cgroup.procs and then execs argv, so the program
// (with the same PID) is charged from its first allocation on. Arguments
// are passed as positional parameters, never parsed by the shell. A nil
// Cgroup returns argv unchanged.
func (c *Cgroup) Wrap(argv []string) []string {
	if c == nil {
		return argv
	}
	return append([]string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(c.Dir, "cgroup.procs")}, argv...)
}

// OOMKills returns how many processes the kernel has killed in the cgroup
// for going over its limit (oom_kill of memory.events, v2, or of
// memory.oom_control, v1; kernels since 4.13 count it). A nil Cgroup
// returns 0.
func (c *Cgroup) OOMKills() int64 {
	if c == nil {
		return 0
	}
	file := "memory.oom_control"
	if c.Version == 2 {
		file = "memory.events"
	}
	f, err := os.Open(filepath.Join(c.Dir, file))
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseOOMKills(f)
}

func parseOOMKills(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Remove deletes the cgroup once no process is left in it (an error
// names the directory otherwise). A nil Cgroup returns nil.
func (c *Cgroup) Remove() error {
	if c == nil {
		return nil
	}
	if err := os.Remove(c.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove memory cgroup %s: %w", c.Dir, err)
	}
	return nil
}

// String describes the limit for messages ("memory limit 2G (cgroup v1)").
func (c *Cgroup) String() string {
	return fmt.Sprintf("memory limit %s (cgroup v%d)", space.FormatBytes(c.Limit), c.Version)
}
