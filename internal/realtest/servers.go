package realtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Server is one server of the real-server test matrix.
type Server struct {
	// Name is "mariadb-10.11" (the host's, Debian 12), "mariadb-11.8"
	// (Debian 13) or "mysql-9.7" (Debian unstable).
	Name string
	// Mysqld is what --mysqld takes for it: "" for the host's server, the
	// root file system's directory for the others.
	Mysqld string
}

// Host is the host's own server (MariaDB 10.11 from Debian 12), the
// default of every command.
var Host = Server{Name: "mariadb-10.11"}

// rootfsServers are the servers scripts/install-servers.sh installs into
// root file systems, in the order the matrix runs them.
var rootfsServers = []string{"mariadb-11.8", "mysql-9.7"}

// ServerCache returns the directory holding the servers' root file
// systems: $AUTOTUNE_SERVER_CACHE, else /var/cache/autotune/servers (as
// scripts/install-servers.sh).
func ServerCache() string {
	if d := os.Getenv("AUTOTUNE_SERVER_CACHE"); d != "" {
		return d
	}
	return "/var/cache/autotune/servers"
}

// Servers returns the matrix: the host's server, then every installed
// root file system server. AUTOTUNE_SERVERS (a comma-separated list of
// names, e.g. "mysql-9.7") narrows it. A server of the matrix that is not
// installed skips t, or fails it under AUTOTUNE_REQUIRE_REAL=1 unless
// AUTOTUNE_SERVERS leaves it out: CI runs every server.
func Servers(t testing.TB) []Server {
	t.Helper()
	Require(t)
	want := map[string]bool{}
	if s := os.Getenv("AUTOTUNE_SERVERS"); s != "" {
		for _, n := range strings.Split(s, ",") {
			want[strings.TrimSpace(n)] = true
		}
	}
	chosen := func(n string) bool { return len(want) == 0 || want[n] }
	var out []Server
	if chosen(Host.Name) {
		out = append(out, Host)
	}
	var missing []string
	for _, n := range rootfsServers {
		if !chosen(n) {
			continue
		}
		dir := filepath.Join(ServerCache(), n)
		if _, err := os.Stat(filepath.Join(dir, "autotune-packages")); err != nil {
			missing = append(missing, n)
			continue
		}
		out = append(out, Server{Name: n, Mysqld: dir})
	}
	if len(missing) > 0 {
		msg := "needs the servers " + strings.Join(missing, ", ") + " (run ./scripts/install-servers.sh)"
		if os.Getenv("AUTOTUNE_REQUIRE_REAL") == "1" {
			t.Fatal(msg + "; AUTOTUNE_REQUIRE_REAL=1 forbids skipping")
		}
		t.Log(msg + ": left out of the matrix")
	}
	if len(out) == 0 {
		t.Skip("AUTOTUNE_SERVERS leaves no server to test")
	}
	return out
}

// EachServer runs f as a subtest per server of the matrix (Servers),
// named after it.
func EachServer(t *testing.T, f func(t *testing.T, s Server)) {
	t.Helper()
	for _, s := range Servers(t) {
		t.Run(s.Name, func(t *testing.T) { f(t, s) })
	}
}

// Mounts returns the mounts of dir (a server's root file system) that the
// host or a live process of the sandbox work (one whose command line
// names it) sees, "PID: mountinfo line": a rootfs server's mounts live in
// its own mount namespace and end with it, so once no server of the
// sandbox runs there should be none. (Servers of other sandboxes that run
// from the same root have mounts of their own.)
func Mounts(dir, work string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if e.Name() != "1" && !strings.Contains(string(cmdline), work) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "mountinfo"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if dir != "" && strings.Contains(l, dir) {
				out = append(out, e.Name()+": "+l)
			}
		}
	}
	return out
}
