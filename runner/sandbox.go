package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// markerName is the file that marks a directory as an autotune sandbox.
// autotune only deletes or overwrites inside a directory that holds it.
const markerName = ".autotune-sandbox"

// Sandbox is autotune's private server area: a workdir holding the dataset
// snapshot, the trial datadir, socket, pid file, logs and generated
// my.cnf files. Layout:
//
//	WORKDIR/.autotune-sandbox   marker
//	WORKDIR/snapshot/           datadir after the dataset was loaded
//	WORKDIR/snapshot.json       what the snapshot holds (Dataset)
//	WORKDIR/data/               datadir of the current trial (restored copy)
//	WORKDIR/run/                socket and pid file
//	WORKDIR/tmp/                server tmpdir
//	WORKDIR/logs/               one error log per server start
//	WORKDIR/my.cnf              config of the current start
type Sandbox struct {
	// Dir is the workdir (absolute).
	Dir string
	// Server is the server binary.
	Server Binary
	// WarmPool, when > 0, makes BuildSnapshot keep a buffer pool page
	// list in the snapshot (see WarmOptions): the server that loads the
	// dataset runs with a pool of WarmPool bytes (it should hold the
	// dataset), reads every index once, and dumps the whole pool at
	// shutdown. 0 builds a snapshot without one (trials start cold).
	WarmPool int64
	// Cgroup, when set, is the host profile's memory cgroup: Restore
	// copies the snapshot inside it, so the copy's page cache is charged
	// to the limit the trial's server runs under (nil: no limit).
	Cgroup *Cgroup
}

// OpenSandbox creates dir (mode 0700) or opens an existing sandbox. It
// refuses a non-empty directory without the sandbox marker, so autotune
// never deletes data it did not create.
func OpenSandbox(dir string, bin Binary) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("--workdir %q: %w", dir, err)
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return nil, fmt.Errorf("--workdir %q: %w", dir, err)
		}
	case err != nil:
		return nil, fmt.Errorf("--workdir %q: %w", dir, err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(abs, markerName)); err != nil {
			return nil, fmt.Errorf("--workdir %q holds files autotune did not create (no %s marker); give an empty or new directory", dir, markerName)
		}
	}
	if err := os.WriteFile(filepath.Join(abs, markerName), []byte("autotune sandbox; safe to delete when no autotune runs\n"), 0o600); err != nil {
		return nil, fmt.Errorf("--workdir %q: %w", dir, err)
	}
	for _, sub := range []string{"run", "tmp", "logs"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o700); err != nil {
			return nil, fmt.Errorf("--workdir %q: %w", dir, err)
		}
	}
	return &Sandbox{Dir: abs, Server: bin}, nil
}

// Dataset identifies what a snapshot holds: a change means a new prepare.
type Dataset struct {
	// Workload is the sysbench test used to prepare (tables are shared by
	// the oltp_* tests), or "tpcc".
	Workload string `json:"workload"`
	// Tables and TableSize are sysbench --tables and --table-size (rows).
	Tables    int `json:"tables"`
	TableSize int `json:"table_size"`
	// Warehouses is the TPC-C warehouse count (go-tpc --warehouses; 0
	// for sysbench's tables).
	Warehouses int `json:"warehouses,omitempty"`
	// ServerVersion is the --version text of the binary that made it.
	ServerVersion string `json:"server_version"`
	// Dump is "sha256:HEX" of the logical dump loaded instead of sysbench
	// tables (the replay driver), "" otherwise: a changed dump is a new
	// dataset.
	Dump string `json:"dump,omitempty"`
	// PageList is set when the snapshot holds a buffer pool page list
	// (Sandbox.WarmPool).
	PageList bool `json:"page_list,omitempty"`
}

func (sb *Sandbox) path(p ...string) string { return filepath.Join(append([]string{sb.Dir}, p...)...) }

// HasSnapshot reports whether a snapshot of exactly ds exists.
func (sb *Sandbox) HasSnapshot(ds Dataset) bool {
	b, err := os.ReadFile(sb.path("snapshot.json"))
	if err != nil {
		return false
	}
	var got Dataset
	return json.Unmarshal(b, &got) == nil && got == ds
}

// Options returns the start options for the trial datadir with the given
// knob lines; logName names this start's error log under logs/.
func (sb *Sandbox) Options(datadir, options, logName string, maxConn int) StartOptions {
	return StartOptions{
		Datadir: datadir, RunDir: sb.path("run"), TmpDir: sb.path("tmp"),
		ErrorLog: sb.path("logs", logName), ConfigFile: sb.path("my.cnf"),
		Options: options, MaxConnections: maxConn,
	}
}

// BuildSnapshot initialises a fresh datadir, starts the server on it,
// creates the sbtest schema (not for a dump, ds.Dump, which brings its
// own schemas), calls load (sysbench prepare, or the dump) and stops the
// server cleanly; the datadir then becomes the snapshot. With ds.PageList
// (which needs WarmPool > 0) the server runs with WarmOptions and reads
// the dataset before it stops, so the snapshot keeps its page list.
// Progress lines go to logf.
func (sb *Sandbox) BuildSnapshot(ctx context.Context, ds Dataset, maxConn int, load func(ctx context.Context, s *Server) error, logf func(string, ...any)) error {
	if err := StopStale(ctx, sb.path("run", "mysqld.pid")); err != nil {
		return err
	}
	build := sb.path("snapshot.build")
	for _, p := range []string{build, sb.path("snapshot"), sb.path("snapshot.json")} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("clear old snapshot: %w", err)
		}
	}
	if ds.PageList && sb.WarmPool <= 0 {
		return errors.New("a snapshot with a page list needs a warm pool size (WarmPool)")
	}
	t0 := time.Now()
	if err := sb.initDatadir(ctx, build); err != nil {
		return err
	}
	logf("datadir initialised in %.1fs", time.Since(t0).Seconds())
	opts := ""
	if ds.PageList {
		opts = WarmOptions(sb.WarmPool)
	}
	srv, err := Start(ctx, sb.Server, sb.Options(build, opts, "prepare.err", maxConn))
	if err != nil {
		return fmt.Errorf("start server on fresh datadir: %w", err)
	}
	defer func() {
		if !srv.Exited() {
			srv.kill()
		}
	}()
	if ds.Dump == "" {
		if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
			return fmt.Errorf("create sbtest schema: %w", err)
		}
	}
	t1 := time.Now()
	if err := load(ctx, srv); err != nil {
		return err
	}
	logf("dataset loaded in %.1fs", time.Since(t1).Seconds())
	if ds.PageList {
		t2 := time.Now()
		n, err := WarmBufferPool(ctx, srv)
		if err != nil {
			return fmt.Errorf("warm the buffer pool for its page list: %w", err)
		}
		logf("read %d indexes into the buffer pool in %.1fs; its page list is kept with the snapshot", n, time.Since(t2).Seconds())
	}
	if err := srv.Stop(5 * time.Minute); err != nil {
		return fmt.Errorf("stop server after prepare: %w", err)
	}
	if !ds.PageList {
		// Without a page list of the whole dataset, the prepare's own
		// dump would warm every trial's pool with whatever the prepare
		// left: trials start cold and alike instead.
		_ = os.Remove(filepath.Join(build, "ib_buffer_pool"))
	} else if _, err := os.Stat(filepath.Join(build, "ib_buffer_pool")); err != nil {
		return fmt.Errorf("the server wrote no buffer pool page list at shutdown: %w", err)
	}
	if err := os.Rename(build, sb.path("snapshot")); err != nil {
		return fmt.Errorf("keep snapshot: %w", err)
	}
	b, _ := json.Marshal(ds)
	if err := os.WriteFile(sb.path("snapshot.json"), b, 0o600); err != nil {
		return fmt.Errorf("record snapshot: %w", err)
	}
	return nil
}

// initLimit bounds the initialisation of a datadir (mariadb-install-db
// or mysqld --initialize-insecure: seconds here).
const initLimit = 10 * time.Minute

// initDatadir initialises the datadir dir with the server's own tool,
// stopped after initLimit.
func (sb *Sandbox) initDatadir(parent context.Context, dir string) error {
	ctx, cancel := context.WithTimeout(parent, initLimit)
	defer cancel()
	if sb.Server.Flavor != MariaDB {
		// --initialize-insecure creates root@localhost only, which a
		// server with skip-name-resolve does not match to a connection
		// over TCP from 127.0.0.1 (error 1130): the benchmark over TCP
		// (benchmark_connection=tcp, go-tpc) and a store over TCP need
		// root@127.0.0.1 and root@::1 too, as MariaDB's install creates.
		sql := "CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '';\nGRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n" +
			"CREATE USER 'root'@'::1' IDENTIFIED BY '';\nGRANT ALL ON *.* TO 'root'@'::1' WITH GRANT OPTION;\n"
		if err := os.WriteFile(sb.initFile(), []byte(sql), 0o600); err != nil {
			return fmt.Errorf("initialise datadir %s: %w", dir, err)
		}
	}
	argv, err := sb.initArgv(dir)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if err := sb.Server.checkVisible("datadir", dir); err != nil {
		return err
	}
	cmd.SysProcAttr = ChildProcAttr(false)
	sb.Server.Isolate(cmd)
	cmd.WaitDelay = 5 * time.Second
	// A private tmpdir: concurrent mariadb-install-db runs sharing /tmp
	// collide on their temporary tables ("ERROR: 1051 Unknown table
	// 'mysql.tmp_user_sys'"; 2 of 18 runs, three at a time, here; none of
	// 24 with a private TMPDIR). UMASK/UMASK_DIR keep the files 0600/0700.
	cmd.Env = append(os.Environ(), "TMPDIR="+sb.path("tmp"), "UMASK=0600", "UMASK_DIR=0700")
	out, err := cmd.CombinedOutput()
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		return fmt.Errorf("initialise datadir %s: did not end within %s (stopped): %s", dir, initLimit, installError(out))
	}
	if err != nil {
		return initFailed(dir, err, out)
	}
	return os.Chmod(dir, 0o700)
}

// initFile is the SQL file --initialize-insecure runs (MySQL).
func (sb *Sandbox) initFile() string { return sb.path("tmp", "init-loopback-root.sql") }

// initArgv returns the argument vector that initialises the datadir dir
// (to run isolated: Binary.Isolate): mariadb-install-db for MariaDB, the
// server's --initialize-insecure (with initFile) for MySQL. A server
// build that ships its own mariadb-install-db next to it (BASEDIR/bin
// beside BASEDIR/sbin) is initialised with that tool and --basedir, a
// rootfs server with the root's /usr/bin/mariadb-install-db; otherwise
// the one on PATH is used. It returns an error when MariaDB's tool is
// found nowhere.
func (sb *Sandbox) initArgv(dir string) ([]string, error) {
	var args []string
	if sb.Server.Flavor != MariaDB {
		args = ProgramArgs("", "--initialize-insecure", "--datadir="+dir, "--init-file="+sb.initFile())
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		return sb.Server.Argv(args...), nil
	}
	base := filepath.Dir(filepath.Dir(sb.Server.Path))
	tool := filepath.Join(base, "bin", "mariadb-install-db")
	args = ProgramArgs("", "--datadir="+dir, "--auth-root-authentication-method=normal", "--skip-test-db")
	if sb.Server.Root != "" {
		// The root's own tool, run inside it: its basedir is /usr there.
		if !isExecutable(filepath.Join(sb.Server.Root, "usr", "bin", "mariadb-install-db")) {
			return nil, fmt.Errorf("no usr/bin/mariadb-install-db in the root file system %s", sb.Server.Root)
		}
		tool = "/usr/bin/mariadb-install-db"
	} else if isExecutable(tool) {
		if base != "/usr" {
			args = append(args, "--basedir="+base)
		}
	} else {
		p, err := exec.LookPath("mariadb-install-db")
		if err != nil {
			return nil, errors.New("mariadb-install-db not found next to the server or on PATH")
		}
		tool = p
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	return sb.Server.ToolArgv(tool, args...), nil
}

// Restore replaces the trial datadir with a copy of the snapshot
// (cp -a, about 2 s for 1.1 GB here; inside Cgroup when set) and returns
// its path.
func (sb *Sandbox) Restore(ctx context.Context) (string, error) {
	data := sb.path("data")
	if err := os.RemoveAll(data); err != nil {
		return "", fmt.Errorf("remove old trial datadir: %w", err)
	}
	argv := sb.Cgroup.Wrap([]string{"cp", "-a", "--", sb.path("snapshot"), data})
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = ChildProcAttr(false)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("restore snapshot: %w: %s", err, tail(out, 400))
	}
	return data, nil
}

// NextLogName returns a fresh error-log file name for a start of trial n.
func NextLogName(n int) string {
	return "trial-" + strconv.Itoa(n) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".err"
}

// InitError is a datadir initialisation (mariadb-install-db, mysqld
// --initialize-insecure) that failed. Diagnosis is its output's root
// cause, classified as a start's (DiagnoseStartLog): a host limit there
// (the kernel's AIO events, say) is named with its fix.
type InitError struct {
	// Dir is the datadir; Err the tool's exit; Output what it said that
	// matters (installError).
	Dir       string
	Err       error
	Output    string
	Diagnosis StartDiagnosis
}

func (e *InitError) Error() string {
	msg := fmt.Sprintf("initialise datadir %s: %v", e.Dir, e.Err)
	d := e.Diagnosis
	switch {
	case d.Cause == CauseHostLimit || d.Cause == CauseDiskFull:
		return fmt.Sprintf("%s: %s: the host's %s, not autotune's or the server's: %s", msg, d.Root, d.Limit, d.Fix)
	case d.Cause != "":
		return msg + ": " + d.String()
	}
	return msg + ": " + e.Output
}

func (e *InitError) Unwrap() error { return e.Err }

// initFailed is the *InitError of a tool that exited with err after
// printing out.
func initFailed(dir string, err error, out []byte) *InitError {
	return &InitError{Dir: dir, Err: err, Output: installError(out), Diagnosis: DiagnoseStartLog(string(out))}
}

// installError returns the lines of an install tool's output that say
// what failed (ERROR), else its tail.
func installError(out []byte) string {
	var errs []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "failed") {
			errs = append(errs, strings.TrimSpace(l))
		}
	}
	if len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	return tail(out, 800)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
