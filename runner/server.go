package runner

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/autotune/autotune/space"
	"github.com/go-sql-driver/mysql"
)

// Flavor is the server family of a mysqld binary.
type Flavor string

const (
	// MariaDB servers initialise with mariadb-install-db.
	MariaDB Flavor = "mariadb"
	// MySQL servers (Oracle, Percona) initialise with --initialize-insecure.
	MySQL Flavor = "mysql"
)

// Binary is a server executable and what it says it is.
type Binary struct {
	// Path is the absolute path of mysqld/mariadbd.
	Path string
	// Flavor is MariaDB or MySQL.
	Flavor Flavor
	// Version is the text of `mysqld --version`, e.g.
	// "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ...".
	Version string
	// Root is the root file system the server runs from ("" for a host
	// binary); Path then lies under it (rootfs.go).
	Root string
}

// FindServer resolves the server binary: path when given, else mariadbd or
// mysqld on PATH or in /usr/sbin. A directory is a server's root file
// system (scripts/install-servers.sh; rootfs.go). It runs `--version` to
// learn the flavor.
// It returns an error naming what was searched when nothing is found or the
// binary does not run.
func FindServer(ctx context.Context, path string) (Binary, error) {
	if path == "" {
		for _, name := range []string{"mariadbd", "mysqld"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
			if p := filepath.Join("/usr/sbin", name); isExecutable(p) {
				path = p
				break
			}
		}
		if path == "" {
			return Binary{}, errors.New("no server binary: mariadbd or mysqld not on PATH or in /usr/sbin (install mariadb-server, or pass --mysqld PATH)")
		}
	}
	var b Binary
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if b, err = findInRoot(path); err != nil {
			return Binary{}, err
		}
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			return Binary{}, fmt.Errorf("--mysqld %q: %w", path, err)
		}
		if !isExecutable(abs) {
			return Binary{}, fmt.Errorf("--mysqld %q: not an executable file (nor a server's root file system)", path)
		}
		b.Path = abs
	}
	out, err := b.Command(ctx, versionArgs...).CombinedOutput()
	if err != nil {
		return Binary{}, fmt.Errorf("--mysqld %q: %s --version: %w: %s", path, b.Path, err, firstLine(out))
	}
	b.Version = strings.TrimSpace(string(out))
	b.Flavor = MySQL
	if strings.Contains(strings.ToLower(b.Version), "mariadb") {
		b.Flavor = MariaDB
	}
	return b, nil
}

// versionArgs are the arguments of `mysqld --version` (FindServer).
var versionArgs = ProgramArgs("", "--version")

// startArgs returns the arguments a server is started with: its option
// file cnf, which Start writes, and nothing else.
func startArgs(cnf string) []string { return ProgramArgs(cnf) }

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// StartError is returned by Start when the server exited or never became
// ready: usually a config it refused. Excerpt holds the server's own
// error lines and the last lines of this start's error log, Diagnosis the
// root cause read from the lines this start wrote.
type StartError struct {
	// Reason is a short cause ("exited with status 7", "not ready after 60s").
	Reason string
	// Excerpt is the relevant part of the error log.
	Excerpt string
	// Diagnosis is the classified root cause (DiagnoseStartLog); when
	// zero, Error diagnoses Excerpt.
	Diagnosis StartDiagnosis
}

// Error renders "server did not start: REASON: ROOT CAUSE", the root cause
// named and classified (StartDiagnosis.String): the first error of the
// attempt, not its consequences ("Aborting") nor earlier starts' lines.
func (e *StartError) Error() string {
	msg := "server did not start: " + e.Reason
	d := e.Diagnosis
	if d.Cause == "" {
		d = DiagnoseStartLog(e.Excerpt)
	}
	if s := d.String(); s != "" {
		msg += ": " + s
	}
	return msg
}

// Server is a running sandboxed server, child of this process.
type Server struct {
	// Socket is the unix socket path.
	Socket string
	// Port is the TCP port on 127.0.0.1.
	Port int
	// ErrorLog is this start's error log file.
	ErrorLog string
	// Version is SELECT VERSION().
	Version string
	// Host and Port-over-TCP, User and Password say how clients (sysbench)
	// log in when the server is not a sandbox: zero values mean the
	// sandbox's root without a password over Socket. See Existing.Target.
	Host, User, Password string
	// AIO is the asynchronous I/O backend the server uses (AIOIOUring,
	// AIOLibaio, AIOSimulated; "" when unknown), from its start-up log or
	// @@innodb_use_native_aio; AIOFallback the log's lines that say it
	// fell back from another ("" when it did not). Set by Start.
	AIO, AIOFallback string

	cmd     *exec.Cmd
	pidFile string
	done    chan struct{}
	waitErr error
}

// StartOptions says how to start a server.
type StartOptions struct {
	// Datadir is the data directory.
	Datadir string
	// RunDir holds the socket and pid file.
	RunDir string
	// TmpDir is the server's tmpdir.
	TmpDir string
	// ErrorLog is the error log path for this start (a fresh file).
	ErrorLog string
	// ConfigFile is where the generated my.cnf is written.
	ConfigFile string
	// Options are extra option lines for the [mysqld] group, full names
	// ("innodb_buffer_pool_size = 4G").
	Options string
	// MaxConnections is max_connections (benchmark threads plus headroom).
	MaxConnections int
	// ReadyTimeout bounds the wait for readiness without progress: the
	// clock restarts whenever the error log grows (default 60 s).
	ReadyTimeout time.Duration
	// MaxStart bounds the whole start, progress or not (default 30 min).
	MaxStart time.Duration
	// Launch wraps the server (allocator, CPU placement, NUMA policy).
	Launch Launch
}

// Start writes the my.cnf, launches the server as a child in its own
// process group (killed by the kernel if this process dies) and waits until
// it is ready: its pid file holds the child's PID and a fresh connection on
// the socket runs a query. A stale server from a killed run on the same
// pid file is stopped first. It returns *StartError when the server exits or
// does not become ready (the child is killed then; usually a config it
// refused), an error wrapping ErrDatadirLocked when another process holds
// the datadir, and other errors for sandbox trouble.
func Start(ctx context.Context, bin Binary, o StartOptions) (*Server, error) {
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	if o.MaxStart == 0 {
		o.MaxStart = 30 * time.Minute
	}
	sock := filepath.Join(o.RunDir, "mysqld.sock")
	pidFile := filepath.Join(o.RunDir, "mysqld.pid")
	if err := StopStale(ctx, pidFile); err != nil {
		return nil, err
	}
	for _, p := range []struct{ what, path string }{{"datadir", o.Datadir}, {"run directory", o.RunDir}, {"error log", o.ErrorLog}} {
		if err := bin.checkVisible(p.what, p.path); err != nil {
			return nil, err
		}
	}
	if len(sock) > 100 {
		return nil, fmt.Errorf("socket path %s is %d bytes, longer than a unix socket allows (~107): use a shorter --workdir", sock, len(sock))
	}
	if pingSocket(ctx, sock) == nil {
		return nil, fmt.Errorf("a server already answers on %s; refusing to start a second one", sock)
	}
	_ = os.Remove(sock)
	_ = os.Remove(pidFile)
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var cnf bytes.Buffer
	cnf.WriteString("# generated by autotune; regenerated for every start\n[mysqld]\n")
	// Only what this start writes to the error log is this start's: a log
	// path used before (restart loops write one log of several attempts)
	// is read from its size now on.
	var logStart int64
	if st, err := os.Stat(o.ErrorLog); err == nil {
		logStart = st.Size()
	}
	fail := func(reason, extra string) *StartError {
		log := readUpTo(o.ErrorLog, logStart, 64<<20)
		return &StartError{Reason: reason, Excerpt: extra + excerpt(strings.NewReader(log)), Diagnosis: DiagnoseStartLog(extra + log)}
	}
	// Paths are quoted when they need it (a '#' or blanks in --workdir
	// would otherwise cut or change them).
	q := space.FormatOptionValue
	fmt.Fprintf(&cnf, "datadir = %s\nsocket = %s\nport = %d\nbind-address = 127.0.0.1\n", q(o.Datadir), q(sock), port)
	fmt.Fprintf(&cnf, "pid-file = %s\nlog-error = %s\ntmpdir = %s\n", q(pidFile), q(o.ErrorLog), q(o.TmpDir))
	cnf.WriteString("skip-name-resolve\nskip-log-bin\n")
	// Every option that names a path, a port or a listener is the
	// sandbox's, so no build's compiled-in defaults leak into a start:
	// file import and export stay in the sandbox's tmpdir (MySQL 8.0+
	// builds default secure_file_priv to /var/lib/mysql-files and abort
	// when it is missing), and MySQL's X plugin, on by default since 8.0
	// on port 33060 of every interface with a socket under /var/run/mysqld,
	// is off ("loose-": builds without the plugin ignore it).
	fmt.Fprintf(&cnf, "secure-file-priv = %s\n", q(o.TmpDir))
	if bin.Flavor == MySQL {
		cnf.WriteString("loose-mysqlx = OFF\n")
	}
	if o.MaxConnections > 0 {
		fmt.Fprintf(&cnf, "max_connections = %d\n", o.MaxConnections)
	}
	if os.Geteuid() == 0 {
		cnf.WriteString("user = root\n")
	}
	if o.Options != "" {
		cnf.WriteString("# knobs of this trial\n")
		cnf.WriteString(o.Options)
	}
	if err := os.WriteFile(o.ConfigFile, cnf.Bytes(), 0o600); err != nil {
		return nil, fmt.Errorf("write server config: %w", err)
	}
	// WriteFile keeps the mode of an existing file; a world-writable
	// option file is ignored by the server.
	if err := os.Chmod(o.ConfigFile, 0o600); err != nil {
		return nil, fmt.Errorf("write server config: %w", err)
	}
	// --defaults-file must be the first argument, or the server reads the
	// system config and then aborts on it (MariaDB 10.11, measured on the
	// reference 2-core machine, docs/measurement.md; ProgramArgs).
	argv := bin.Argv(startArgs(o.ConfigFile)...)
	cmd := o.Launch.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = ChildProcAttr(true)
	bin.Isolate(cmd)
	// The option reader warns on stderr before the error log is open (e.g.
	// "World-writable config file ... is ignored").
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = nil, stderr
	// Files the server creates (error log, data files) are 0600 and its
	// directories 0700 (the UMASK and UMASK_DIR variables of mysqld_safe,
	// honoured by the server itself: MariaDB KB "mariadbd Options", MySQL
	// manual "Environment Variables").
	cmd.Env = append(cmd.Environ(), "UMASK=0600", "UMASK_DIR=0700")
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("launch %s: %w", bin.Path, err)
	}
	s := &Server{Socket: sock, Port: port, ErrorLog: o.ErrorLog, cmd: cmd, pidFile: pidFile, done: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()

	// The start timeout is progress-aware: it counts from the last time the
	// error log grew, so a long crash recovery that keeps reporting
	// progress is not declared a failed start; MaxStart bounds it overall.
	// (After a sysbench-loaded server was killed, InnoDB crash recovery
	// outlived fixed start timeouts in the field: MariaDB MDEV-14705.)
	launched := time.Now()
	lastProgress, logSize := launched, logStart
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				s.kill()
				return nil, ctx.Err()
			case <-s.done:
				return nil, fail(exitReason(s.waitErr), "")
			case <-tick.C:
			}
		}
		now := time.Now()
		if st, err := os.Stat(o.ErrorLog); err == nil && st.Size() != logSize {
			grown := readFrom(o.ErrorLog, logSize)
			if DiskFull(grown) {
				// The server would wait for space ("Waiting for someone
				// to free space"), retrying every minute, not fail.
				s.kill()
				return nil, fail("disk full", "")
			}
			if datadirLocked.MatchString(grown) {
				// Another mysqld holds this datadir; the new one would
				// retry for minutes. Not the candidate's fault.
				s.kill()
				return nil, fmt.Errorf("%w: %s (%s)", ErrDatadirLocked, o.Datadir, firstErrorLine(grown))
			}
			logSize, lastProgress = st.Size(), now
		}
		if now.Sub(lastProgress) > o.ReadyTimeout || now.Sub(launched) > o.MaxStart {
			s.kill()
			return nil, fail(fmt.Sprintf("not ready after %s (no progress for %s)", now.Sub(launched).Round(time.Millisecond), now.Sub(lastProgress).Round(time.Millisecond)), "")
		}
		if !pidFileIs(pidFile, cmd.Process.Pid) {
			continue
		}
		v, err := s.query(ctx, "SELECT VERSION()")
		if err == nil {
			log := readFrom(o.ErrorLog, logStart)
			if w := IgnoredConfigWarning(stderr.String() + "\n" + log); w != "" {
				s.kill()
				return nil, fail("the server ignored an option file, so it would not run the trial's values", "[ERROR] "+w+"\n")
			}
			s.Version = v
			s.learnAIO(ctx, bin, log)
			return s, nil
		}
		if ClassifyClientError(err) == FatalAuth {
			s.kill()
			return nil, fmt.Errorf("sandbox server refused autotune's login: %w", err)
		}
	}
}

// ErrDatadirLocked is returned (wrapped) by Start when InnoDB reports that
// another process holds the datadir ("Unable to lock ./ibdata1, error: 11").
var ErrDatadirLocked = errors.New("another server holds the datadir")

var datadirLocked = regexp.MustCompile(`Unable to lock \S*ibdata1,? error: \d+`)

// readFrom returns the content of path from offset on (at most 1 MiB).
func readFrom(path string, offset int64) string { return readUpTo(path, offset, 1<<20) }

// readUpTo returns the content of path from offset on, at most max bytes.
func readUpTo(path string, offset, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, max))
	return string(b)
}

func exitReason(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("server exited (%s)", ee.ProcessState)
	}
	if err == nil {
		return "server exited with status 0 before it was ready"
	}
	return "server exited: " + err.Error()
}

// Pid returns the server's process ID.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// ExitedWithin reports whether the server process ends within d: after a
// benchmark lost its connections, a crashed server's exit may take a moment
// to be observed.
func (s *Server) ExitedWithin(d time.Duration) bool {
	if !s.Child() {
		return false
	}
	select {
	case <-s.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Child reports whether autotune started this server as its child process
// (a sandbox); false for an existing server's connection details.
func (s *Server) Child() bool { return s.cmd != nil }

// Exited reports whether the server process has ended (e.g. crashed);
// always false for a server that is not autotune's child.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// DSN returns the driver DSN of the server with db as the default schema
// ("" for none): the sandbox's root (no password) on the socket, or, for an
// existing server (see Existing.Target), its user and password on its
// socket or TCP address. The DSN holds the password: never log it.
func (s *Server) DSN(db string) string {
	c := mysql.NewConfig()
	c.User, c.Passwd = "root", s.Password
	if s.User != "" {
		c.User = s.User
	}
	c.Net, c.Addr = "unix", s.Socket
	if s.Socket == "" {
		c.Net, c.Addr = "tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	}
	c.DBName = db
	c.Timeout = 5 * time.Second
	return c.FormatDSN()
}

// Exec runs statements on a fresh connection.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, st := range stmts {
		if _, err := db.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}

func (s *Server) query(ctx context.Context, q string) (string, error) {
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var v string
	err = db.QueryRowContext(qctx, q).Scan(&v)
	return v, err
}

// Stop shuts the server down with SIGTERM and waits up to timeout for it to
// exit, then kills its process group with SIGKILL. It returns an error when
// the server had to be killed or had already exited abnormally.
func (s *Server) Stop(timeout time.Duration) error {
	if s.Exited() {
		return fmt.Errorf("server had already exited: %s", exitReason(s.waitErr))
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(timeout):
		s.kill()
		return fmt.Errorf("server did not stop within %s after SIGTERM; killed", timeout)
	}
}

// kill sends SIGKILL to the server's process group and waits for it.
func (s *Server) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

func pidFileIs(path string, pid int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && n == pid
}

// StopStale stops a server left behind by a killed autotune: if pidFile
// names a live mysqld/mariadbd that was started with a --defaults-file
// whose pid-file is pidFile (as Start starts every server: ownsPidFile),
// it is sent SIGTERM, then SIGKILL after 30 s, and waited for. Any other
// process is left alone: a pid file left by a SIGKILLed server can name,
// after a reboot, a pid that now belongs to another server (the system's,
// another sandbox's). It returns an error when the process survives.
func StopStale(ctx context.Context, pidFile string) error {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return nil
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return nil // gone
	}
	name := strings.TrimSpace(string(comm))
	if (name != "mariadbd" && name != "mysqld") || !ownsPidFile(pid, pidFile) {
		return nil // pid reused by something else
	}
	// SIGTERM again every 2 s: a server still starting up can lose one
	// (seen under load: a stale server that got SIGTERM right after
	// writing its pid file slept on for 30 s). After 30 s, SIGKILL; the
	// error comes only if the process survives that too.
	_ = syscall.Kill(pid, syscall.SIGTERM)
	start := time.Now()
	lastTerm := start
	var killedAt time.Time
	for alive(pid) {
		now := time.Now()
		switch {
		case !killedAt.IsZero() && now.Sub(killedAt) > 10*time.Second:
			return fmt.Errorf("stale server pid %d from %s does not exit, even after SIGKILL", pid, pidFile)
		case killedAt.IsZero() && now.Sub(start) > 30*time.Second:
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killedAt = now
		case killedAt.IsZero() && now.Sub(lastTerm) > 2*time.Second:
			_ = syscall.Kill(pid, syscall.SIGTERM)
			lastTerm = now
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// ownsPidFile reports whether process pid was started with
// --defaults-file=FILE (an absolute path, or one relative to this
// process's directory) where FILE, read as the server reads it
// (space.ReadOptionFile: quotes and escapes resolved), sets pid-file to
// pidFile in a group the server reads: how Start, and anyone starting a
// server for a pid file of theirs, names it.
func ownsPidFile(pid int, pidFile string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	for _, arg := range strings.Split(string(b), "\x00") {
		cnf, ok := strings.CutPrefix(arg, "--defaults-file=")
		if !ok {
			continue
		}
		of, err := space.ReadOptionFile(cnf, space.ReadOptions{})
		if err != nil {
			return false
		}
		// Every group a server reads whatever its version (the version
		// groups of 0.0 match nothing).
		for _, o := range of.Effective(space.ServerGroups(space.Version{Flavor: space.MariaDB})) {
			if o.Name == "pid_file" && filepath.Clean(o.Value) == filepath.Clean(pidFile) {
				return true
			}
		}
		return false
	}
	return false
}

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// state is the field after the ")" closing the command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func pingSocket(ctx context.Context, sock string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return err
	}
	return c.Close()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var errorLine = regexp.MustCompile(`\[(ERROR|FATAL)\]`)

// LogExcerpt returns the error lines (at most 20: [ERROR] and [FATAL]
// lines, and lines without severity that report a failure, which MySQL
// 5.5's InnoDB prints) and the last 10 lines of an error log, or "" when
// the file cannot be read.
func LogExcerpt(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return excerpt(f)
}

func excerpt(r io.Reader) string {
	var errs, tail []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if isErrorLine(line) && len(errs) < 20 {
			errs = append(errs, line)
		}
		tail = append(tail, line)
		if len(tail) > 10 {
			tail = tail[1:]
		}
	}
	var b strings.Builder
	for _, l := range errs {
		b.WriteString(l + "\n")
	}
	if len(errs) > 0 {
		b.WriteString("...\n")
	}
	for _, l := range tail {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func firstErrorLine(ex string) string {
	for _, l := range strings.Split(ex, "\n") {
		if errorLine.MatchString(l) {
			if i := strings.Index(l, "] "); i >= 0 && errorLine.MatchString(l[:i+1]) {
				return strings.TrimSpace(l[i+2:])
			}
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// diskFullLine matches the server's reports of a full disk (OS error 28,
// ENOSPC): "failed with error 28", "(Errcode: 28 ...)", InnoDB's
// "Operating system error number 28", "No space left on device".
var diskFullLine = regexp.MustCompile(`(?i)(error 28\b|errcode: 28\b|errno: 28\b|error number 28\b|no space left on device)`)

// DiskFull reports whether an error-log excerpt says the disk is full.
func DiskFull(excerpt string) bool { return diskFullLine.MatchString(excerpt) }

// init silences the MySQL driver's own log (by default on stderr, where
// it would break the progress display): it logs a dead pooled connection
// it then replaces itself (driver.ErrBadConn, retried by database/sql),
// and every error that matters reaches the caller as a returned error.
func init() {
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
}
