package runner

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// The asynchronous I/O backends an InnoDB server reports (Server.AIO).
const (
	// AIOIOUring is io_uring (MariaDB 10.6+ built with liburing: "InnoDB:
	// Using io_uring", "Using liburing").
	AIOIOUring = "io_uring"
	// AIOLibaio is Linux native AIO through libaio ("InnoDB: Using Linux
	// native AIO"; MySQL 8.0+ does not print it and uses it whenever
	// innodb_use_native_aio is ON).
	AIOLibaio = "libaio"
	// AIOSimulated is InnoDB's own I/O threads without kernel AIO
	// (innodb_use_native_aio = OFF).
	AIOSimulated = "simulated"
)

var (
	// aioBackendLine is the start-up line that names the backend.
	aioBackendLine = regexp.MustCompile(`InnoDB: Using (io_uring|liburing|Linux native AIO)\b`)
	// aioFallback is a server's report that it fell back from io_uring
	// (MariaDB: "create_uring failed: falling back to libaio", after an
	// "io_uring_queue_init() failed with EPERM/ENOMEM" warning).
	aioFallback = regexp.MustCompile(`(?i)(io_uring_queue_init\(\) failed[^\n]*|falling back to (libaio|innodb_use_native_aio=OFF)[^\n]*)`)
)

// AIOBackendOf returns the backend a start's error log names (AIOIOUring,
// AIOLibaio; "" when the log names none: MySQL 8.0+, or
// innodb_use_native_aio = OFF) and, when the server fell back from the
// backend it tried first, the log's lines that say so, joined by "; ".
func AIOBackendOf(log string) (backend, fallback string) {
	for _, m := range aioBackendLine.FindAllStringSubmatch(log, -1) {
		switch m[1] {
		case "io_uring", "liburing":
			backend = AIOIOUring
		default:
			backend = AIOLibaio
		}
	}
	return backend, strings.Join(aioFallback.FindAllString(log, -1), "; ")
}

// learnAIO sets s.AIO and s.AIOFallback from this start's log (log) and,
// where the log names no backend, from @@innodb_use_native_aio: OFF is
// AIOSimulated, ON on a MySQL server is AIOLibaio (MySQL has no other
// native backend on Linux). Unknown stays "".
func (s *Server) learnAIO(ctx context.Context, bin Binary, log string) {
	s.AIO, s.AIOFallback = AIOBackendOf(log)
	if s.AIO != "" {
		return
	}
	v, err := s.query(ctx, "SELECT @@innodb_use_native_aio")
	switch {
	case err != nil:
	case v == "0" || strings.EqualFold(v, "OFF"):
		s.AIO = AIOSimulated
	case bin.Flavor == MySQL:
		s.AIO = AIOLibaio
	}
}

// AIONeed is what a server's asynchronous I/O asks of the host at start.
type AIONeed struct {
	// Backend is the backend it is expected to use (AIOIOUring,
	// AIOLibaio, AIOSimulated).
	Backend string
	// Events is the kernel AIO events (fs.aio-nr) its io_setup() calls
	// reserve: 0 unless Backend is AIOLibaio.
	Events int64
}

// AIONeedOf returns the AIO events a server of flavour f asks the kernel
// for at start with backend and read and write InnoDB I/O threads, as
// measured here from /proc/sys/fs/aio-nr before and after a start
// (1+1, 4+4 and 8+8 threads): MySQL 9.7 reserves 256 per thread plus 257
// (769, 2305, 4353); MariaDB 10.11 and 11.8 on libaio 256 per thread,
// at least 768 (768, 2048, 4096). io_uring and simulated AIO reserve none
// (io_uring's rings are charged to the locked-memory limit on kernels
// before 5.12, to the memory cgroup after).
func AIONeedOf(f Flavor, backend string, read, write int) AIONeed {
	n := AIONeed{Backend: backend}
	if backend != AIOLibaio {
		return n
	}
	threads := int64(max(read, 1) + max(write, 1))
	if f == MySQL {
		n.Events = 256*threads + 257
	} else {
		n.Events = 256 * max(threads, 3)
	}
	return n
}

// HostAIO is what the host gives a new server's asynchronous I/O now.
type HostAIO struct {
	// Free is fs.aio-max-nr less fs.aio-nr (-1: unknown).
	Free int64
	// MaxNr is fs.aio-max-nr (-1: unknown).
	MaxNr int64
}

// ReadHostAIO reads fs.aio-max-nr and fs.aio-nr (/proc/sys/fs); a value
// it cannot read is -1.
func ReadHostAIO() HostAIO {
	h := HostAIO{Free: -1, MaxNr: -1}
	read := func(name string) int64 {
		b, err := os.ReadFile("/proc/sys/fs/" + name)
		if err != nil {
			return -1
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	h.MaxNr = read("aio-max-nr")
	if used := read("aio-nr"); h.MaxNr >= 0 && used >= 0 {
		h.Free = h.MaxNr - used
	}
	return h
}

// Fits reports whether need fits in what h has free (an unknown host
// fits everything).
func (h HostAIO) Fits(need AIONeed) bool {
	return need.Events == 0 || h.Free < 0 || need.Events <= h.Free
}

// AIOShortage is a server's AIO request the host cannot give now.
type AIOShortage struct {
	Need AIONeed
	Host HostAIO
}

func (s AIOShortage) Error() string {
	return fmt.Sprintf("the kernel has %d asynchronous I/O events left (fs.aio-max-nr %d less fs.aio-nr) and the server asks for %d (%s)",
		s.Host.Free, s.Host.MaxNr, s.Need.Events, s.Need.Backend)
}

// AIOFix is what to change on a host whose AIO events run short: raise
// fs.aio-max-nr (turning native AIO off would change what is measured, so
// autotune never does it on its own).
func AIOFix(need int64) string {
	return fmt.Sprintf("raise the kernel's limit (sysctl -w fs.aio-max-nr=%d; persist it in /etc/sysctl.d/) or stop other servers on the host that hold AIO events", max(1048576, 2*need))
}

// MemlockLimit returns the soft and hard RLIMIT_MEMLOCK of this process,
// which a server it starts inherits (bytes; math.MaxUint64: unlimited).
func MemlockLimit() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(rlimitMemlock, &r); err != nil {
		return 0, 0, err
	}
	return r.Cur, r.Max, nil
}

// rlimitMemlock is RLIMIT_MEMLOCK (linux/resource.h).
const rlimitMemlock = 8

// IOUringMemlock is the locked memory a MariaDB server's io_uring asks
// for on a kernel that charges io_uring's rings to RLIMIT_MEMLOCK (before
// 5.12): a ring of 256 entries per I/O thread at about 128 bytes an entry
// (a 64-byte submission entry, two 16-byte completion entries and the
// index arrays, rounded to pages), doubled for slack.
func IOUringMemlock(read, write int) uint64 {
	entries := uint64(256 * (max(read, 1) + max(write, 1)))
	return 2 * ((entries*128 + 4095) &^ 4095)
}

// EnsureMemlock raises this process's soft RLIMIT_MEMLOCK, which the
// servers it starts inherit, to at least need bytes (the hard limit too
// when the process may, as root). It returns the soft limit now in force
// and an error naming the limit and the fix when it stays below need.
func EnsureMemlock(need uint64) (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(rlimitMemlock, &r); err != nil {
		return 0, fmt.Errorf("read the locked-memory limit: %w", err)
	}
	if r.Cur >= need {
		return r.Cur, nil
	}
	want := r
	want.Cur = need
	if want.Max < need {
		want.Max = need
	}
	if err := syscall.Setrlimit(rlimitMemlock, &want); err != nil {
		want.Max, want.Cur = r.Max, min(need, r.Max)
		if want.Cur > r.Cur {
			_ = syscall.Setrlimit(rlimitMemlock, &want)
		}
		_ = syscall.Getrlimit(rlimitMemlock, &r)
		return r.Cur, fmt.Errorf("the locked-memory limit (RLIMIT_MEMLOCK) is %d bytes and io_uring needs about %d: raise it for the user that runs autotune (ulimit -l %d, memlock in /etc/security/limits.conf, or LimitMEMLOCK= in its systemd unit)",
			r.Cur, need, (need+1023)/1024)
	}
	return need, nil
}

// KernelChargesIOUringToMemlock reports whether the running kernel
// charges io_uring's rings to RLIMIT_MEMLOCK: before Linux 5.12 (since
// then, to the memory cgroup). The release is uname -r
// (/proc/sys/kernel/osrelease); an unreadable release counts as old.
func KernelChargesIOUringToMemlock() bool {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return true
	}
	return kernelBefore(strings.TrimSpace(string(b)), 5, 12)
}

// kernelBefore reports whether release ("6.18.44-fc-v1300", "5.4.0-42")
// is older than major.minor; an unparsable release counts as older.
func kernelBefore(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(digits(parts[1]))
	if err1 != nil || err2 != nil {
		return true
	}
	return ma < major || ma == major && mi < minor
}

func digits(s string) string {
	for i, r := range s {
		if r < '0' || r > '9' {
			return s[:i]
		}
	}
	return s
}
