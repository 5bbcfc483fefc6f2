package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryCgroupBase(t *testing.T) {
	v2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(v2, "cgroup.controllers"), []byte("cpuset cpu io memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v2NoMem := t.TempDir()
	if err := os.WriteFile(filepath.Join(v2NoMem, "cgroup.controllers"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1 := `25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
31 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
32 25 0:28 / /sys/fs/cgroup/cpu\040x rw,relatime - cgroup cgroup rw,cpu
40 25 0:35 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	for _, c := range []struct {
		name, mountinfo, member, want string
		version                       int
		err                           string
	}{
		{"v1 nested", strings.ReplaceAll(v1, "/sys/fs/cgroup/unified", v2NoMem), "4:memory:/process_api/abc\n1:cpu:/\n0::/\n", "/sys/fs/cgroup/memory/process_api/abc", 1, ""},
		{"v1 root", v1, "4:memory:/\n", "/sys/fs/cgroup/memory", 1, ""},
		{"v2 with memory", "40 25 0:35 / " + v2 + " rw - cgroup2 cgroup2 rw\n", "0::/user.slice/session-1.scope\n", v2 + "/user.slice/session-1.scope", 2, ""},
		{"v2 without memory, no v1", "40 25 0:35 / " + v2NoMem + " rw - cgroup2 cgroup2 rw\n", "0::/\n", "", 0, "neither a cgroup v2"},
		{"v1 but not a member", v1, "1:cpu:/\n", "", 0, "names no memory cgroup"},
		{"nothing mounted", "", "", "", 0, "neither"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, v, err := memoryCgroupBase(c.mountinfo, c.member)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrNoCgroup) {
					t.Fatalf("err %v, want %q wrapping ErrNoCgroup", err, c.err)
				}
				return
			}
			if err != nil || got != c.want || v != c.version {
				t.Fatalf("got %q v%d %v, want %q v%d", got, v, err, c.want, c.version)
			}
		})
	}
}

func TestParseOOMKills(t *testing.T) {
	for in, want := range map[string]int64{
		"oom_kill_disable 0\nunder_oom 0\noom_kill 3\n": 3, // v1 memory.oom_control
		"low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n":    1, // v2 memory.events
		"oom_kill_disable 0\nunder_oom 0\n":             0, // a kernel before 4.13
	} {
		if got := parseOOMKills(strings.NewReader(in)); got != want {
			t.Errorf("%q: got %d, want %d", in, got, want)
		}
	}
}

func TestCgroupWrap(t *testing.T) {
	var none *Cgroup
	if got := none.Wrap([]string{"cp", "-a"}); strings.Join(got, " ") != "cp -a" {
		t.Fatalf("nil cgroup wraps: %q", got)
	}
	c := &Cgroup{Dir: "/sys/fs/cgroup/memory/a b", Version: 1, Limit: 2 << 30}
	got := c.Wrap([]string{"/usr/sbin/mariadbd", "--defaults-file=/x y/my.cnf"})
	want := []string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, "/sys/fs/cgroup/memory/a b/cgroup.procs", "/usr/sbin/mariadbd", "--defaults-file=/x y/my.cnf"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s := c.String(); s != "memory limit 2G (cgroup v1)" {
		t.Fatalf("String %q", s)
	}
	// The wrapper's shell leaves the program's arguments alone and puts
	// its own PID (the program's, after exec) in the procs file.
	dir := t.TempDir()
	c = &Cgroup{Dir: dir}
	argv := c.Wrap([]string{"/bin/sh", "-c", `echo "$1" $$ > "$0"`, filepath.Join(dir, "out"), "a 'b' $c"})
	cmd := Launch{}.Command(argv[0], argv[1:]...)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	out, _ := os.ReadFile(filepath.Join(dir, "out"))
	if strings.TrimSpace(string(out)) != "a 'b' $c "+strings.TrimSpace(string(procs)) {
		t.Fatalf("program wrote %q, procs %q", out, procs)
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/x\134y`: `/x\y`, `/end\04`: `/end\04`} {
		if got := unescapeMount(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
