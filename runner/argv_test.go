package runner

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// argvCase is case defaults-file-argv-order, copied unchanged from the
// field cases of the project (shared cases).
const argvCase = "testdata/defaults-file-argv-order"

// caseCommands reads the case's commands-and-errors.txt: the command
// lines ("$ program args", or a bare "/path/program args" launcher argv,
// continued by a trailing backslash) of each numbered example ("# N)"),
// split on blanks.
func caseCommands(t *testing.T) map[int][][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(argvCase, "commands-and-errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heading := regexp.MustCompile(`^#\s+(\d+)\)`)
	out := map[int][][]string{}
	example := 0
	var cont string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := cont + sc.Text()
		cont = ""
		if m := heading.FindStringSubmatch(line); m != nil {
			example, _ = strconv.Atoi(m[1])
			continue
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cont = s + " "
			continue
		}
		cmd, ok := strings.CutPrefix(line, "$ ")
		if !ok && !strings.HasPrefix(line, "/") {
			continue
		}
		if !ok {
			cmd = line
		}
		out[example] = append(out[example], strings.Fields(cmd))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// defaults-file-argv-order: the case's failing command lines (1: a
// --defaults-file given last to mysql_install_db, 2: --no-defaults given
// after other options to mysqladmin, 4: a launcher argv in map order) are
// refused by OptionFileFirst, naming the option and its index; the same
// lines with the option moved to argv[1] pass.
func TestOptionFileFirstFlagsTheCaseCommands(t *testing.T) {
	cmds := caseCommands(t)
	var got []int
	for n := range cmds {
		got = append(got, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 2, 4}) {
		t.Fatalf("case examples with a command line: %v, want [1 2 4] (3 holds only the harness's symptom)", got)
	}
	for _, n := range got {
		for _, argv := range cmds[n] {
			i := slices.IndexFunc(argv, func(a string) bool { return optionFileOption(a) != "" })
			if i < 2 {
				t.Fatalf("example %d: %q: the case's option-file option is not out of place", n, argv)
			}
			err := OptionFileFirst(argv)
			if err == nil {
				t.Errorf("example %d: %q passed OptionFileFirst", n, argv)
				continue
			}
			for _, want := range []string{argv[i], fmt.Sprintf("argv[%d]", i)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("example %d: error %q does not name %s", n, err, want)
				}
			}
			fixed := append([]string{argv[0], argv[i]}, slices.Delete(slices.Clone(argv), i, i+1)[1:]...)
			if err := OptionFileFirst(fixed); err != nil {
				t.Errorf("example %d with the option first, %q: %v", n, fixed, err)
			}
		}
	}
}

func TestOptionFileFirst(t *testing.T) {
	for _, c := range []struct {
		argv []string
		bad  string // "" when argv is right, else a substring of the error
	}{
		{[]string{"mysqld", "--no-defaults", "--version"}, ""},
		{[]string{"mysqld", "--defaults-file=/s/my.cnf"}, ""},
		{[]string{"mysqld", "--defaults-file=/s/my.cnf", "--print-defaults"}, ""},
		{[]string{"mysqld", "--no-defaults", "--verbose", "--help", "--print-defaults"}, "--print-defaults at argv[4]"},
		{[]string{"mysqld"}, "argv[1] is missing"},
		{[]string{"mysqld", "--verbose", "--help"}, "argv[1] is --verbose"},
		{[]string{"mysqld", "--print-defaults"}, "--print-defaults at argv[1] is not"},
		{[]string{"mysqld", "--defaults-file", "/s/my.cnf"}, "--defaults-file at argv[1] is not"},
		{[]string{"mysqld", "--defaults-file="}, "--defaults-file= at argv[1] is not"},
		{[]string{"mysqld", "--defaults-extra-file=/s/my.cnf"}, "--defaults-extra-file=/s/my.cnf at argv[1]: it reads the default option files too"},
		{[]string{"mysqld", "--no-defaults", "--defaults-extra-file=/s/my.cnf"}, "--defaults-extra-file=/s/my.cnf at argv[2]"},
		{[]string{"mysqld", "--no-defaults", "--defaults-file=/s/my.cnf"}, "both --no-defaults at argv[1] and --defaults-file=/s/my.cnf at argv[2]"},
		{[]string{"mysqld", "--defaults-file=/s/my.cnf", "--datadir=/d", "--no-defaults"}, "both --defaults-file=/s/my.cnf at argv[1] and --no-defaults at argv[3]"},
		{[]string{"mysqld", "--no-defaults", "--datadir=/d", "--no-defaults"}, "--no-defaults at argv[3], not argv[1]"},
		{[]string{"mysqld", "--datadir=/d", "--defaults_file=/s/my.cnf"}, "argv[2]"},
	} {
		err := OptionFileFirst(c.argv)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%q: %v", c.argv, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%q: error %v, want one with %q", c.argv, err, c.bad)
		}
	}
}

// rootArgv returns the argv the program itself gets from argv, an
// argument vector b runs: argv itself for a host binary, what follows
// rootScript's "$0" for a rootfs server (Binary.ToolArgv). It fails the
// test when argv is not such a vector.
func rootArgv(t *testing.T, b Binary, argv []string) []string {
	t.Helper()
	if b.Root == "" {
		return argv
	}
	if len(argv) < 5 || !slices.Equal(argv[:4], []string{"/bin/sh", "-c", rootScript, b.Root}) {
		t.Fatalf("%q does not run through the root file system's sh -c", argv)
	}
	return argv[4:]
}

// launchArgv returns the argv the program itself gets from argv, an
// argument vector built by l (Launch.argv: cgroup, numactl, taskset
// wrappers in that order).
func launchArgv(t *testing.T, l Launch, argv []string) []string {
	t.Helper()
	strip := func(prefix ...string) {
		if !slices.Equal(argv[:min(len(prefix), len(argv))], prefix) {
			t.Fatalf("%q does not start with %q", argv, prefix)
		}
		argv = argv[len(prefix):]
	}
	if l.Cgroup != nil {
		strip(l.Cgroup.Wrap(nil)...)
	}
	if l.Interleave {
		strip(l.Numactl, "--interleave=all")
	}
	if l.CPUs != "" {
		strip(l.Taskset, "-c", l.CPUs)
	}
	return argv
}

// writeScript writes an executable shell script body at path.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeInstall lays out a server of flavor under dir as FindServer and
// initArgv find one: dir/usr/sbin/mariadbd (or mysqld) with
// dir/usr/bin/mariadb-install-db beside it; as a root file system
// (Binary.Root = dir) when root. Nothing is run.
func fakeInstall(t *testing.T, dir string, flavor Flavor, root bool) Binary {
	name := "mysqld"
	if flavor == MariaDB {
		name = "mariadbd"
		writeScript(t, filepath.Join(dir, "usr", "bin", "mariadb-install-db"), "exit 0\n")
	}
	b := Binary{Path: filepath.Join(dir, "usr", "sbin", name), Flavor: flavor}
	writeScript(t, b.Path, "exit 0\n")
	if root {
		b.Root = dir
	}
	return b
}

// Every argument vector autotune builds for a server or its tools gives
// --no-defaults or --defaults-file=FILE as argv[1] of the program itself
// (not of a wrapper), for both flavors, host and rootfs servers, and a
// server started under every Launch wrapper (case
// defaults-file-argv-order: MySQL bug #30994, MariaDB/server PR #553).
func TestEveryProgramArgvHasTheOptionFileFirst(t *testing.T) {
	for _, flavor := range []Flavor{MariaDB, MySQL} {
		for _, root := range []bool{false, true} {
			name := fmt.Sprintf("%s/root=%v", flavor, root)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				b := fakeInstall(t, filepath.Join(dir, "server"), flavor, root)
				sb, err := OpenSandbox(filepath.Join(dir, "sb"), b)
				if err != nil {
					t.Fatal(err)
				}
				argvs := map[string][]string{
					"--version":                b.Argv(versionArgs...),
					"start":                    b.Argv(startArgs(filepath.Join(dir, "my.cnf"))...),
					"--verbose --help":         b.Argv(helpArgs(nil)...),
					"options --verbose --help": b.Argv(helpArgs([]string{"--thread-handling=pool-of-threads", "--innodb-flush-method=O_DIRECT"})...),
				}
				if argvs["init"], err = sb.initArgv(filepath.Join(dir, "data")); err != nil {
					t.Fatal(err)
				}
				l := Launch{CPUs: "1", Taskset: "/usr/bin/taskset", Interleave: true, Numactl: "/usr/bin/numactl", Cgroup: &Cgroup{Dir: dir}}
				start := argvs["start"]
				argvs["start under taskset, numactl, a cgroup"] = l.argv(start[0], start[1:])
				for what, argv := range argvs {
					prog := argv
					if strings.HasPrefix(what, "start under") {
						prog = launchArgv(t, l, prog)
					}
					prog = rootArgv(t, b, prog)
					wantProg := b.InRoot()
					if what == "init" && flavor == MariaDB {
						wantProg = filepath.Join(filepath.Dir(b.InRoot()), "..", "bin", "mariadb-install-db")
						if root {
							wantProg = "/usr/bin/mariadb-install-db"
						}
					}
					if filepath.Clean(prog[0]) != filepath.Clean(wantProg) {
						t.Errorf("%s: runs %s, want %s", what, prog[0], wantProg)
					}
					if err := OptionFileFirst(prog); err != nil {
						t.Errorf("%s: %q: %v", what, argv, err)
					}
				}
			})
		}
	}
}

// fakeRecorder writes a fake program at path that writes its argv, one
// argument a line, to a fresh file in rec and then runs body.
func fakeRecorder(t *testing.T, path, rec, body string) {
	writeScript(t, path, fmt.Sprintf("f=$(mktemp %q/argv.XXXXXX)\nprintf '%%s\\n' \"$0\" \"$@\" > \"$f\"\n%s", rec, body))
}

// recorded returns the argvs fakeRecorder wrote to rec since the last
// call, and removes them.
func recorded(t *testing.T, rec string) [][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(rec, "argv.*"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
		os.Remove(f)
	}
	return out
}

// The programs autotune runs with a host server get their option-file
// option as argv[1]: fake mysqld/mariadbd and mariadb-install-db record
// the argv they are run with by FindServer (--version), the help probes
// (DefaultsFromHelp, refusedOption), initDatadir and Start (under every
// Launch wrapper), for both flavors; each is the argv its builder
// returns.
func TestFakeProgramsGetTheOptionFileFirst(t *testing.T) {
	for _, flavor := range []Flavor{MariaDB, MySQL} {
		t.Run(string(flavor), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir := t.TempDir()
			rec := filepath.Join(dir, "rec")
			if err := os.Mkdir(rec, 0o700); err != nil {
				t.Fatal(err)
			}
			version := "mysqld  Ver 9.7.0 for Linux on x86_64 (MySQL Community Server - GPL)"
			server := filepath.Join(dir, "base", "sbin", "mysqld")
			if flavor == MariaDB {
				version = "mariadbd  Ver 11.8.3-MariaDB-0+deb13u1 for debian-linux-gnu on x86_64"
				server = filepath.Join(dir, "base", "sbin", "mariadbd")
				fakeRecorder(t, filepath.Join(dir, "base", "bin", "mariadb-install-db"), rec, "exit 0\n")
			}
			// --version prints the version; a start (--defaults-file)
			// fails; the help probes and --initialize-insecure succeed
			// quietly.
			fakeRecorder(t, server, rec, fmt.Sprintf(`case "$*" in *--version*) echo %q; exit 0;; esac
case "$1" in --defaults-file=*) exit 1;; esac
exit 0
`, version))
			// Launch wrappers that run their program as taskset and
			// numactl do.
			l := Launch{CPUs: "1", Taskset: filepath.Join(dir, "taskset"), Interleave: true, Numactl: filepath.Join(dir, "numactl"), Cgroup: &Cgroup{Dir: dir}}
			writeScript(t, l.Taskset, "shift 2\nexec \"$@\"\n")
			writeScript(t, l.Numactl, "shift\nexec \"$@\"\n")

			one := func(what string, want []string) {
				t.Helper()
				got := recorded(t, rec)
				if len(got) != 1 {
					t.Fatalf("%s: %d programs ran, want 1: %q", what, len(got), got)
				}
				if err := OptionFileFirst(got[0]); err != nil {
					t.Errorf("%s: %v", what, err)
				}
				if !slices.Equal(got[0], want) {
					t.Errorf("%s ran %q, its builder says %q", what, got[0], want)
				}
			}

			b, err := FindServer(ctx, server)
			if err != nil {
				t.Fatal(err)
			}
			if b.Flavor != flavor {
				t.Fatalf("FindServer: flavor %s, want %s", b.Flavor, flavor)
			}
			one("FindServer", b.Argv(versionArgs...))

			_, _ = DefaultsFromHelp(ctx, b) // the fake prints no variables table
			one("DefaultsFromHelp", b.Argv(helpArgs(nil)...))
			opts := []string{"--thread-handling=pool-of-threads"}
			if bad, err := refusedOption(ctx, b, opts); bad != "" || err != nil {
				t.Fatalf("refusedOption = %q, %v", bad, err)
			}
			one("refusedOption", b.Argv(helpArgs(opts)...))

			sb, err := OpenSandbox(filepath.Join(dir, "sb"), b)
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(dir, "data")
			if err := os.Mkdir(data, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := sb.initDatadir(ctx, data); err != nil {
				t.Fatal(err)
			}
			want, err := sb.initArgv(data)
			if err != nil {
				t.Fatal(err)
			}
			one("initDatadir", want)

			o := StartOptions{
				Datadir: data, RunDir: sb.path("run"), TmpDir: sb.path("tmp"),
				ErrorLog: filepath.Join(dir, "error.log"), ConfigFile: filepath.Join(dir, "my.cnf"),
				ReadyTimeout: 5 * time.Second, Launch: l,
			}
			if _, err := Start(ctx, b, o); err == nil {
				t.Fatal("the fake server started")
			}
			one("Start", b.Argv(startArgs(o.ConfigFile)...))
			if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
				t.Errorf("Start did not run under the Launch wrappers: %v", err)
			}
		})
	}
}
