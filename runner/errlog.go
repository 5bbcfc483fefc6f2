package runner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/autotune/autotune/space"
)

// StartCause classifies why a server did not start (StartDiagnosis.Cause).
type StartCause string

const (
	// CauseOther is a start failure of no known class.
	CauseOther StartCause = "other"
	// CauseUnknownOption: the server refused an option it does not know
	// ("unknown variable 'name=value'"): the configuration named a knob
	// this version does not have.
	CauseUnknownOption StartCause = "unknown_option"
	// CauseOutOfMemory: the server could not allocate memory at start
	// (errno 12, ENOMEM: "InnoDB: mmap(N bytes) failed; errno 12"): the
	// configuration asks for more memory than the host gives.
	CauseOutOfMemory StartCause = "out_of_memory"
	// CauseDiskFull: no space left on the device (errno 28, ENOSPC).
	CauseDiskFull StartCause = "disk_full"
	// CauseHostLimit: the host, not the configuration, refused the server
	// something (StartDiagnosis.Limit names it): a kernel or process limit
	// (asynchronous I/O contexts, open files, threads), a port in use, a
	// lock another process holds, a permission.
	CauseHostLimit StartCause = "host_limit"
)

// hostLimits are the error-log messages of a start refused by a limit of
// the host, in the order they are tried (the first match names the
// limit), from the servers' error messages: InnoDB's io_setup() and
// io_uring failures (MariaDB, MySQL), "Too many open files" (errno 24,
// EMFILE), "Can't create thread" (errno 11, EAGAIN), "Bind on TCP/IP port"
// / "Address already in use" (errno 98), InnoDB's "Unable to lock"
// (errno 11 on the datadir's lock), "Permission denied" (errno 13).
var hostLimits = []struct {
	re                   *regexp.Regexp
	limit, fix, resource string
}{
	{regexp.MustCompile(`(?i)io_uring_queue_init\(\) failed with ENOMEM|try larger memory locked limit`),
		"the locked-memory limit (RLIMIT_MEMLOCK) of the server's process, which io_uring's rings need",
		"raise it for the user that runs autotune (ulimit -l 524288, memlock in /etc/security/limits.conf, or LimitMEMLOCK= in its systemd unit); it is a memlock limit, not nofile or nproc", ResourceMemlock},
	{regexp.MustCompile(`(?i)io_uring_queue_init\(\) failed with EPERM|io_uring_disabled`),
		"io_uring, which the kernel refuses (sysctl kernel.io_uring_disabled)",
		"allow it (sysctl -w kernel.io_uring_disabled=0) or run autotune as a member of kernel.io_uring_group", ""},
	{regexp.MustCompile(`(?i)io_setup\(\) failed|io_uring_queue_init\(\) failed|Cannot initialize AIO ?sub-system`),
		"the kernel's limit on asynchronous I/O events (fs.aio-max-nr, shared by every process on the host)",
		"raise it (sysctl -w fs.aio-max-nr=1048576; persist it in /etc/sysctl.d/) or stop other servers on the host that hold AIO events; turning innodb_use_native_aio off instead changes what is measured", ResourceAIO},
	{regexp.MustCompile(`(?i)too many open files|errno:? 24\b|errcode: 24\b|error number 24\b`),
		"the limit on open files (ulimit -n, LimitNOFILE)",
		"raise the open-files limit of the shell or service that runs autotune (ulimit -n 65535)", ""},
	{regexp.MustCompile(`(?i)unable to lock .*error:? 11|another mysqld process using the same InnoDB data`),
		"another process holds the data directory's lock",
		"stop the other server that uses the sandbox's data directory", ""},
	{regexp.MustCompile(`(?i)can't create (a new )?thread|pthread_create.*(failed|error)`),
		"the limit on processes and threads (ulimit -u, kernel.threads-max)",
		"raise ulimit -u (or kernel.threads-max) for the user that runs autotune", ""},
	{regexp.MustCompile(`(?i)address already in use|errno:? 98\b|bind on (tcp/ip|unix socket)`),
		"the server's port or socket is in use by another process",
		"stop the process that listens on it (ss -ltnxp shows it)", ""},
	{regexp.MustCompile(`(?i)permission denied|errno:? 13\b|errcode: 13\b|error number 13\b`),
		"a file permission",
		"give the user that runs autotune access to the path the message names", ""},
}

// StartDiagnosis is what the error log of one start attempt says about why
// the server did not start.
type StartDiagnosis struct {
	// Cause classifies the root cause; "" when the log holds no error.
	Cause StartCause
	// Root is the root cause: the first error of the attempt that is not
	// a consequence of another (see Secondary), without its timestamp and
	// severity prefix, e.g. "InnoDB: mmap(13186891776 bytes) failed;
	// errno 12". Errors are lines with an [ERROR] or [FATAL] severity and,
	// since MySQL 5.5 and InnoDB print some without any prefix, lines
	// with no severity that report a failure ("failed", "errno N",
	// "Fatal error", "cannot allocate").
	Root string
	// Option is the option the server refused (CauseUnknownOption), its
	// name canonical: the value cut off, dashes as underscores
	// ("master-info-repository=TABLE" → "master_info_repository").
	Option string
	// Limit names the host's limit (CauseHostLimit, CauseDiskFull) and
	// Fix says what to change on the host; Resource is ResourceAIO when
	// the limit is on asynchronous I/O events, which the configuration's
	// I/O threads ask for ("" otherwise).
	Limit, Fix, Resource string
	// Bytes is the allocation that failed (CauseOutOfMemory), from
	// "mmap(N bytes)"; 0 when the log does not say.
	Bytes int64
	// Secondary are the errors that follow from the root cause, in log
	// order: a storage engine that failed to initialise is then
	// "unknown", plugins fail, the server aborts ("Plugin 'InnoDB' init
	// function returned error", "registration as a STORAGE ENGINE
	// failed", "Unknown/unsupported storage engine: InnoDB", "Failed to
	// initialize plugins", "Aborting"). Reporting one of them as the cause
	// misleads ("InnoDB is missing").
	Secondary []string
}

// String renders the diagnosis as one clause for an error message:
// "the server does not know the option NAME (its log: ...)", "out of
// memory: ROOT (12.3G could not be allocated)", or the root message.
func (d StartDiagnosis) String() string {
	switch d.Cause {
	case "":
		return ""
	case CauseUnknownOption:
		return fmt.Sprintf("the server does not know the option %s (its log: %s)", d.Option, strings.TrimSuffix(d.Root, "."))
	case CauseOutOfMemory:
		s := "out of memory: " + d.Root
		if d.Bytes > 0 {
			s += " (" + space.HumanBytes(d.Bytes) + " could not be allocated)"
		}
		return s
	}
	return d.Root
}

var (
	// severityTag is the severity of a log line: "[ERROR]" (5.x,
	// MariaDB; MySQL 8 adds "[MY-NNNNNN] [Server]" after it), "[Note]",
	// "[Warning]", "[System]".
	severityTag = regexp.MustCompile(`\[(ERROR|FATAL|Note|Warning|System|Info)\]`)
	// untaggedError is a line without severity that reports a failure.
	untaggedError = regexp.MustCompile(`(?i)(\bfailed\b|\berrno:? \d+|\bfatal error\b|\bcannot allocate\b|\bout of memory\b|^error\b|\berror:)`)
	// logPrefix is a line's syslog header, timestamp, thread id,
	// severity and MySQL 8 error code and subsystem:
	// "2016-12-29T15:17:43.851927Z 0 [ERROR] ",
	// "2022-07-04T16:42:18.018552+08:00 0 [ERROR] " (log_timestamps =
	// SYSTEM), "150126 22:31:29 [ERROR] ", "2018-05-22 10:15:02
	// 140234567890 [ERROR] ", "2014-03-05 11:48:52 7f2f6b7fe700 InnoDB:"
	// (5.6's hexadecimal thread id), "... [ERROR] [MY-000067] [Server] ",
	// "Jul 04 16:42:18 db1 mariadbd[812]: " (journald), "150126 22:31:29 ".
	logPrefix = regexp.MustCompile(`^` + syslogPrefix + `?(?:` + logTimestamp + `\s+(?:` + threadID + `\s+)?)?(?:\[[A-Za-z]+\]\s*)?(?:\[MY-\d+\]\s*)?(?:\[[A-Za-z]+\]\s*)?`)
	// consequence are errors that follow from an earlier one.
	consequence   = regexp.MustCompile(`(?i)(Cannot initialize AIO ?sub-system|Plugin '[^']*' init function returned error|registration as a STORAGE ENGINE failed|Unknown/unsupported storage engine|Failed to initialize (builtin )?plugins|Plugin initialization aborted|Default storage engine \(\w+\) is not available|^Aborting\.?$)`)
	unknownOption = regexp.MustCompile(`unknown (?:variable|option) '([^']*)'`)
	outOfMemory   = regexp.MustCompile(`(?i)(\berrno:? 12\b|\bcannot map\b|\bcannot allocate memory\b|\bout of memory\b|\bENOMEM\b)`)
	mmapBytes     = regexp.MustCompile(`mmap\((\d+) bytes\)`)
	// nonFatal are [ERROR] lines after which the server goes on starting:
	// MySQL 8's X plugin failing to listen on its own port (33060, taken
	// by another server) is reported by the plugin, and the server
	// serves its classic port all the same; MySQL 8.0+ reports a missing
	// buffer pool page list as an [ERROR] ([MY-011947]) and starts with
	// an empty pool (a snapshot without a page list has none).
	nonFatal = regexp.MustCompile(`(?i)(Plugin mysqlx reported|Cannot open '[^']*ib_buffer_pool' for reading)`)
)

// isErrorLine reports whether an error-log line reports an error: an
// [ERROR]/[FATAL] severity, or no severity and a failure's wording.
func isErrorLine(line string) bool {
	if m := severityTag.FindStringSubmatch(line); m != nil {
		return m[1] == "ERROR" || m[1] == "FATAL"
	}
	return untaggedError.MatchString(line)
}

// logMessage strips a line's timestamp, thread id and severity.
func logMessage(line string) string {
	return strings.TrimSpace(logPrefix.ReplaceAllString(strings.TrimSpace(line), ""))
}

// DiagnoseStartLog reads the error log text of one start attempt (only
// what this start wrote: see Start) and returns its root cause, classified.
// The root cause is the first error that is not a consequence of another;
// a log whose errors are all consequences gives the first of them.
func DiagnoseStartLog(log string) StartDiagnosis {
	var d StartDiagnosis
	first := ""
	for _, line := range strings.Split(log, "\n") {
		if strings.TrimSpace(line) == "" || !isErrorLine(line) || nonFatal.MatchString(line) {
			continue
		}
		msg := logMessage(line)
		if first == "" {
			first = msg
		}
		if consequence.MatchString(msg) {
			d.Secondary = append(d.Secondary, msg)
			continue
		}
		if d.Root == "" {
			d.Root = msg
		}
	}
	if d.Root == "" {
		d.Root = first
	}
	if d.Root == "" {
		return StartDiagnosis{}
	}
	d.Cause = CauseOther
	switch {
	case unknownOption.MatchString(d.Root):
		name := unknownOption.FindStringSubmatch(d.Root)[1]
		name, _, _ = strings.Cut(strings.TrimLeft(name, "-"), "=")
		d.Cause, d.Option = CauseUnknownOption, strings.ReplaceAll(name, "-", "_")
	case hostLimit(&d):
	case outOfMemory.MatchString(d.Root):
		d.Cause = CauseOutOfMemory
		if m := mmapBytes.FindStringSubmatch(d.Root); m != nil {
			d.Bytes, _ = strconv.ParseInt(m[1], 10, 64)
		}
	case DiskFull(d.Root):
		d.Cause, d.Limit, d.Fix = CauseDiskFull, "no space left on the sandbox's disk", "free space on the file system of --workdir"
	}
	return d
}

// ResourceAIO is StartDiagnosis.Resource for the kernel's asynchronous
// I/O events (fs.aio-max-nr).
const ResourceAIO = "aio"

// ResourceMemlock is StartDiagnosis.Resource for the process's
// locked-memory limit (RLIMIT_MEMLOCK), which io_uring needs.
const ResourceMemlock = "memlock"

// The parts of logPrefix.
const (
	// syslogPrefix is journald's or syslog's "Jul 04 16:42:18 host
	// prog[pid]: ".
	syslogPrefix = `(?:[A-Z][a-z]{2}\s+\d+\s+\d\d:\d\d:\d\d\s+\S+\s+[\w.-]+\[\d+\]:\s+)`
	// logTimestamp is ISO 8601 with a "T" or a blank, fractions and a
	// "Z" or a UTC offset ("+08:00", "-0500") optional, or 5.x's
	// "YYMMDD HH:MM:SS".
	logTimestamp = `(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\d{6}\s+\d?\d:\d\d:\d\d)`
	// threadID is a decimal thread id (5.7, 8.0, MariaDB) or 5.6's
	// hexadecimal one.
	threadID = `(?:\d+|[0-9a-f]{6,16})`
)

// hostLimit sets d's cause, limit and fix when its root cause is a limit
// of the host (hostLimits) and reports whether it is.
func hostLimit(d *StartDiagnosis) bool {
	for _, h := range hostLimits {
		if h.re.MatchString(d.Root) {
			d.Cause, d.Limit, d.Fix, d.Resource = CauseHostLimit, h.limit, h.fix, h.resource
			return true
		}
	}
	return false
}

// MemAvailable returns MemAvailable from /proc/meminfo in bytes: the
// memory a new process could have without swapping.
func MemAvailable() (int64, error) {
	return meminfo("MemAvailable:")
}
