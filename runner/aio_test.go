package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// lifecycle-aio-context-limits, rule 2 (classify): each of the case's
// logs, unchanged, is a host limit on the right resource with the right
// fix, its root cause without timestamp or severity (the UTC offset of
// mysql57-hint.log included), MySQL 8's "Cannot initialize AIOsub-system"
// a consequence of the io_setup() failure; the io_uring ENOMEM names the
// locked-memory limit, not fs.aio-max-nr. Rule 5: the backend a start
// reports is read from its log.
func TestAIOCaseLogs(t *testing.T) {
	dir := filepath.Join("testdata", "lifecycle-aio-context-limits")
	for _, tc := range []struct {
		file, root, resource, fix, notFix, backend string
		secondary                                  []string
	}{
		{file: "mysql57-error.log", root: "InnoDB: io_setup() failed with EAGAIN after 5 attempts.", resource: ResourceAIO, fix: "fs.aio-max-nr", backend: AIOLibaio},
		{file: "mysql57-hint.log", root: "InnoDB: io_setup() failed with EAGAIN after 5 attempts.", resource: ResourceAIO, fix: "fs.aio-max-nr"},
		{file: "mysql80-init-error.log", root: "io_setup() failed with EAGAIN after 5 attempts.", resource: ResourceAIO, fix: "fs.aio-max-nr",
			secondary: []string{"Cannot initialize AIOsub-system"}},
		{file: "mariadb-io_uring.txt", root: "mysqld: io_uring_queue_init() failed with ENOMEM: try larger memory locked limit", resource: ResourceMemlock, fix: "ulimit -l", notFix: "aio-max-nr"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		d := DiagnoseStartLog(string(b))
		if d.Cause != CauseHostLimit || d.Root != tc.root || d.Resource != tc.resource || !strings.Contains(d.Fix, tc.fix) || (tc.notFix != "" && strings.Contains(d.Fix, tc.notFix)) {
			t.Errorf("%s: %+v\nwant host limit %q on %s, fix naming %q", tc.file, d, tc.root, tc.resource, tc.fix)
		}
		if strings.Join(d.Secondary, "|") != strings.Join(tc.secondary, "|") {
			t.Errorf("%s: secondary %q, want %q", tc.file, d.Secondary, tc.secondary)
		}
		if got, _ := AIOBackendOf(string(b)); got != tc.backend {
			t.Errorf("%s: backend %q, want %q", tc.file, got, tc.backend)
		}
	}
	// MySQL 8's message on its own is an AIO host limit too.
	if d := DiagnoseStartLog("2020-11-13T10:18:19.268818Z 1 [ERROR] [MY-012954] [InnoDB] Cannot initialize AIOsub-system\n"); d.Resource != ResourceAIO || d.Root != "Cannot initialize AIOsub-system" {
		t.Errorf("AIOsub-system alone: %+v", d)
	}
}

// Every timestamp form of the servers' error logs is cut from the message,
// so that the root cause reads as the server wrote it and "Aborting" is
// seen as a consequence.
func TestLogMessageTimestampForms(t *testing.T) {
	for _, line := range []string{
		"2022-07-04T16:42:18.018552+08:00 0 [ERROR] Aborting",
		"2022-07-04T16:42:18.018552-0500 0 [ERROR] Aborting",
		"2022-07-04T16:42:18+08:00 0 [ERROR] Aborting",
		"2016-12-29T15:17:43.851927Z 0 [ERROR] Aborting",
		"2020-11-13T10:18:19.268818Z 1 [ERROR] [MY-010119] [Server] Aborting",
		"2026-12-07 17:26:48 0 [ERROR] Aborting",
		"2018-05-22 10:15:02 140234567890 [ERROR] Aborting",
		"2014-03-05 11:48:52 7f2f6b7fe700 [ERROR] Aborting",
		"150126 22:31:29 [ERROR] Aborting",
		"150126  2:31:29 [ERROR] Aborting",
		"Jul 04 16:42:18 db1 mariadbd[812]: 2022-07-04 16:42:18 0 [ERROR] Aborting",
		"Aborting",
	} {
		if got := logMessage(line); got != "Aborting" {
			t.Errorf("logMessage(%q) = %q", line, got)
		}
	}
	// A message that starts with a word of hexadecimal letters keeps it.
	if got := logMessage("2026-12-07 17:26:48 0 [Note] added table"); got != "added table" {
		t.Errorf("hex-looking word: %q", got)
	}
	d := DiagnoseStartLog("2022-07-04T16:42:18.018552+08:00 0 [ERROR] InnoDB: io_setup() failed with EAGAIN after 5 attempts.\n2022-07-04T16:42:18.1+08:00 0 [ERROR] Aborting\n")
	if d.Root != "InnoDB: io_setup() failed with EAGAIN after 5 attempts." || len(d.Secondary) != 1 {
		t.Errorf("offset timestamps: %+v", d)
	}
}

// The backend a start reports, and a fallback from io_uring (measured
// here: MariaDB 10.11 and 11.8 with kernel.io_uring_disabled = 2).
func TestAIOBackendOf(t *testing.T) {
	for _, tc := range []struct{ log, backend, fallback string }{
		{"2026-12-07 17:26:48 0 [Note] InnoDB: Using io_uring\n", AIOIOUring, ""},
		{"2026-12-07 17:26:48 0 [Note] InnoDB: Using liburing\n", AIOIOUring, ""},
		{"2026-12-07 19:12:33 0 [Warning] mariadbd: io_uring_queue_init() failed with EPERM: sysctl kernel.io_uring_disabled has the value 2, or 1 and the user of the process is not a member of sysctl kernel.io_uring_group. (see man 2 io_uring_setup).\ncreate_uring failed: falling back to libaio\n2026-12-07 19:12:33 0 [Note] InnoDB: Using Linux native AIO\n",
			AIOLibaio, "io_uring_queue_init() failed with EPERM: sysctl kernel.io_uring_disabled has the value 2, or 1 and the user of the process is not a member of sysctl kernel.io_uring_group. (see man 2 io_uring_setup).; falling back to libaio"},
		{"2026-12-07T19:12:08.494596Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections.\n", "", ""},
	} {
		b, f := AIOBackendOf(tc.log)
		if b != tc.backend || f != tc.fallback {
			t.Errorf("AIOBackendOf(%q) = %q, %q; want %q, %q", tc.log, b, f, tc.backend, tc.fallback)
		}
	}
}

// The events each backend reserves, as measured here from fs.aio-nr.
func TestAIONeedOf(t *testing.T) {
	for _, tc := range []struct {
		f           Flavor
		backend     string
		read, write int
		want        int64
	}{
		{MySQL, AIOLibaio, 1, 1, 769}, {MySQL, AIOLibaio, 4, 4, 2305}, {MySQL, AIOLibaio, 8, 8, 4353},
		{MariaDB, AIOLibaio, 1, 1, 768}, {MariaDB, AIOLibaio, 4, 4, 2048}, {MariaDB, AIOLibaio, 8, 8, 4096},
		{MariaDB, AIOIOUring, 8, 8, 0}, {MySQL, AIOSimulated, 8, 8, 0},
	} {
		if got := AIONeedOf(tc.f, tc.backend, tc.read, tc.write).Events; got != tc.want {
			t.Errorf("%s %s %d+%d: %d events, want %d", tc.f, tc.backend, tc.read, tc.write, got, tc.want)
		}
	}
	for _, tc := range []struct {
		release string
		before  bool
	}{{"6.18.44-fc-v1300", false}, {"5.12.0", false}, {"5.11.22-generic", true}, {"5.4.0-42-generic", true}, {"4.19.0", true}, {"junk", true}} {
		if got := kernelBefore(tc.release, 5, 12); got != tc.before {
			t.Errorf("kernelBefore(%q) = %v", tc.release, got)
		}
	}
}

// lifecycle-aio-context-limits: a datadir initialisation that failed
// (mysql80-init-error.log, MySQL 8.0 --initialize) is diagnosed like a
// start: the root cause, the host's limit and its fix.
func TestInitFailureDiagnosed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "lifecycle-aio-context-limits", "mysql80-init-error.log"))
	if err != nil {
		t.Fatal(err)
	}
	e := initFailed("/w/data", errors.New("exit status 1"), b)
	msg := e.Error()
	for _, want := range []string{"initialise datadir /w/data: exit status 1", "io_setup() failed with EAGAIN after 5 attempts.", "fs.aio-max-nr", "sysctl -w fs.aio-max-nr="} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if e.Diagnosis.Resource != ResourceAIO || len(e.Diagnosis.Secondary) != 1 {
		t.Errorf("diagnosis %+v", e.Diagnosis)
	}
	// Output with no error the diagnosis knows keeps the tool's lines.
	if msg := initFailed("/w/data", errors.New("exit status 1"), []byte("Installing MariaDB/MySQL system tables ...\nsomething odd\n")).Error(); !strings.Contains(msg, "something odd") {
		t.Errorf("undiagnosed: %q", msg)
	}
}

// EnsureMemlock raises the locked-memory limit the servers inherit, or
// says which limit to raise and how.
func TestEnsureMemlock(t *testing.T) {
	soft, hard, err := MemlockLimit()
	if err != nil {
		t.Skip(err)
	}
	defer func() { _ = syscall.Setrlimit(rlimitMemlock, &syscall.Rlimit{Cur: soft, Max: hard}) }()
	if got, err := EnsureMemlock(soft); err != nil || got != soft {
		t.Errorf("EnsureMemlock(current %d) = %d, %v", soft, got, err)
	}
	if soft >= 1<<40 {
		return
	}
	need := soft + 1<<20
	got, err := EnsureMemlock(need)
	switch {
	case err == nil && got != need:
		t.Errorf("raised to %d, want %d", got, need)
	case err != nil && (!strings.Contains(err.Error(), "ulimit -l") || !strings.Contains(err.Error(), "LimitMEMLOCK")):
		t.Errorf("not raised, and the error names no fix: %v", err)
	}
	if now, _, _ := MemlockLimit(); err == nil && now != need {
		t.Errorf("limit now %d, want %d", now, need)
	}
}
