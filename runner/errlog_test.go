package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lifecycle-unknown-variable-abort: the refused option is named (value
// cut off, dashes as underscores), and only [ERROR] lines make a start
// failure: a loose option's [Warning] and a removed option's warning do
// not.
func TestStartLogUnknownVariable(t *testing.T) {
	dir := filepath.Join("testdata", "errlog")
	rows := readCaseTSV(t, filepath.Join(dir, "expected.tsv"))
	if len(rows) != 5 {
		t.Fatalf("expected.tsv: %d rows", len(rows))
	}
	var texts strings.Builder
	for _, row := range rows {
		b, err := os.ReadFile(filepath.Join(dir, row["file"]))
		if err != nil {
			t.Fatal(err)
		}
		d := DiagnoseStartLog(string(b))
		if !strings.HasPrefix(row["outcome"], "start failed") {
			if d.Cause != "" {
				t.Errorf("%s started, but diagnosed %+v", row["file"], d)
			}
			continue
		}
		if d.Cause != CauseUnknownOption || d.Option != row["knob"] || len(d.Secondary) != 1 || d.Secondary[0] != "Aborting" {
			t.Errorf("%s: %+v, want option %s refused", row["file"], d, row["knob"])
		}
		msg := (&StartError{Reason: "server exited (exit status 1)", Excerpt: LogExcerpt(filepath.Join(dir, row["file"]))}).Error()
		if !strings.Contains(msg, "the server does not know the option "+row["knob"]) {
			t.Errorf("%s: %q does not name %s", row["file"], msg, row["knob"])
		}
		fmt.Fprintf(&texts, "%s\n\t%s\n", row["file"], msg)
	}
	checkGolden(t, filepath.Join(dir, "start-errors.golden"), []byte(texts.String()))
}

// lifecycle-innodb-init-root-cause: the root cause is the first error of
// this attempt (the untimestamped 5.5 "InnoDB: mmap(...) failed; errno
// 12" line, the 5.7 [ERROR] one), classified out of memory with the size
// that failed; the plugin and storage-engine errors after it are
// secondary; an earlier start's lines in the same log are not read.
func TestStartLogInnoDBInitRootCause(t *testing.T) {
	dir := filepath.Join("testdata", "lifecycle-innodb-init-root-cause")
	var trial struct {
		Candidate    map[string]string `json:"candidate"`
		HostMemory   int64             `json:"host_memory_bytes"`
		OffsetBefore int64             `json:"error_log_offset_before_start_a"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "trial.json"))
	if err != nil || json.Unmarshal(b, &trial) != nil || trial.OffsetBefore != 277 {
		t.Fatalf("trial.json: %v %+v", err, trial)
	}
	a, err := os.ReadFile(filepath.Join(dir, "a-mysql55-error.log"))
	if err != nil {
		t.Fatal(err)
	}
	b57, err := os.ReadFile(filepath.Join(dir, "b-mysql57-error.log"))
	if err != nil {
		t.Fatal(err)
	}
	const root = "InnoDB: mmap(13186891776 bytes) failed; errno 12"
	for _, tc := range []struct {
		name      string
		log       string
		secondary []string
	}{
		{"5.5, from the offset", string(a[trial.OffsetBefore:]), []string{"Plugin 'InnoDB' init function returned error.",
			"Plugin 'InnoDB' registration as a STORAGE ENGINE failed.", "Unknown/unsupported storage engine: InnoDB", "Aborting"}},
		{"5.7, a per-trial log", string(b57), []string{"InnoDB: Plugin initialization aborted with error Generic error",
			"Plugin 'InnoDB' init function returned error.", "Plugin 'InnoDB' registration as a STORAGE ENGINE failed.", "Failed to initialize plugins.", "Aborting"}},
	} {
		d := DiagnoseStartLog(tc.log)
		if d.Cause != CauseOutOfMemory || d.Root != root || d.Bytes != 13186891776 || !reflect.DeepEqual(d.Secondary, tc.secondary) {
			t.Errorf("%s: %+v", tc.name, d)
		}
		// 12 GiB asked for on a host of 8 GiB.
		if d.Bytes <= trial.HostMemory || trial.Candidate["innodb_buffer_pool_size"] != "12G" {
			t.Errorf("%s: %d bytes, host %d", tc.name, d.Bytes, trial.HostMemory)
		}
	}

	// Through Start: the log already holds an earlier clean run; the
	// failing start appends to it and exits.
	abs, err := filepath.Abs(filepath.Join(dir, "a-mysql55-error.log"))
	if err != nil {
		t.Fatal(err)
	}
	bin, o := fakeServer(t, fmt.Sprintf("tail -c +%d '%s' >> \"$LOG\"\nexit 1\n", trial.OffsetBefore+1, abs))
	if err := os.WriteFile(o.ErrorLog, a[:trial.OffsetBefore], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), bin, o)
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *StartError", err)
	}
	if se.Diagnosis.Cause != CauseOutOfMemory || strings.Contains(se.Excerpt, "ready for connections") || !strings.Contains(se.Excerpt, root) {
		t.Errorf("diagnosis %+v, excerpt:\n%s", se.Diagnosis, se.Excerpt)
	}
	want := "out of memory: " + root + " (12.3G could not be allocated)"
	if !strings.Contains(se.Error(), want) || strings.Contains(se.Error(), "Plugin") {
		t.Errorf("error %q, want the root cause %q", se.Error(), want)
	}
}

// checkGolden compares got with the golden file path, or rewrites it with
// -update (internal/golden's own -update flag would clash with this
// package's).
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if sbUpdate() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("differs from %s (run with -update if intended):\n%s", path, got)
	}
}

// readCaseTSV reads a tab-separated case file with a header line.
func readCaseTSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	head := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for _, l := range lines[1:] {
		row := map[string]string{}
		for i, c := range strings.Split(l, "\t") {
			if i < len(head) {
				row[head[i]] = c
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// A start refused by a limit of the host is the host's fault, named with
// what to change; one refused for the configuration (an unknown option,
// memory it asks for) is not. The lines are the servers' own messages
// (MariaDB 10.11 and MySQL 8.0 forms).
func TestStartLogHostLimits(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		cause     StartCause
		limit     string
	}{
		{"aio, MariaDB", "2026-12-06 10:00:00 0 [Warning] InnoDB: io_setup() failed with EAGAIN. Will make 5 attempts before giving up.\n" +
			"2026-12-06 10:00:01 0 [ERROR] InnoDB: io_setup() failed with EAGAIN after 5 attempts.\n" +
			"2026-12-06 10:00:01 0 [ERROR] InnoDB: Cannot initialize AIO sub-system\n" +
			"2026-12-06 10:00:01 0 [ERROR] Plugin 'InnoDB' init function returned error.\n2026-12-06 10:00:01 0 [ERROR] Aborting\n",
			CauseHostLimit, "fs.aio-max-nr"},
		{"aio, MySQL 8.0", "2026-12-06T10:00:01.000000Z 1 [ERROR] [MY-012592] [InnoDB] io_setup() failed with EAGAIN after 5 attempts.\n" +
			"2026-12-06T10:00:01.000000Z 1 [ERROR] [MY-012929] [InnoDB] InnoDB Database creation was aborted with error Generic error.\n",
			CauseHostLimit, "fs.aio-max-nr"},
		{"open files", "2026-12-06 10:00:00 0 [ERROR] InnoDB: Operating system error number 24 in a file operation.\n", CauseHostLimit, "ulimit -n"},
		{"open files, errno", "2026-12-06 10:00:00 0 [ERROR] mariadbd: Can't open file: './mysql/db.frm' (errno: 24 \"Too many open files\")\n", CauseHostLimit, "ulimit -n"},
		{"threads", "2026-12-06 10:00:00 0 [ERROR] Can't create thread to handle bootstrap (errno: 11 \"Resource temporarily unavailable\")\n", CauseHostLimit, "ulimit -u"},
		{"port", "2026-12-06 10:00:00 0 [ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use\n" +
			"2026-12-06 10:00:00 0 [ERROR] Do you already have another server running on port: 3306 ?\n2026-12-06 10:00:00 0 [ERROR] Aborting\n",
			CauseHostLimit, "in use by another process"},
		{"datadir lock", "2026-12-06 10:00:00 0 [ERROR] InnoDB: Unable to lock ./ibdata1 error: 11\n" +
			"2026-12-06 10:00:00 0 [Note] InnoDB: Check that you do not already have another mariadbd process using the same InnoDB data or log files.\n",
			CauseHostLimit, "lock"},
		{"permission", "2026-12-06 10:00:00 0 [ERROR] InnoDB: Operating system error number 13 in a file operation.\n" +
			"2026-12-06 10:00:00 0 [ERROR] InnoDB: The error means mariadbd does not have the access rights to the directory.\n",
			CauseHostLimit, "permission"},
		{"disk full", "2026-12-06 10:00:00 0 [ERROR] InnoDB: Write to file ./ib_logfile0 failed at offset 0, 1048576 bytes should have been written, only 0 were written. Operating system error number 28.\n",
			CauseDiskFull, "no space left"},
		{"mysqlx's port taken, then the configuration's memory", "2026-12-06T10:00:01.000000Z 0 [ERROR] [MY-011300] [Server] Plugin mysqlx reported: 'Setup of socket: '33060' failed, the address is already in use (98)'\n" +
			"2026-12-06T10:00:02.000000Z 1 [ERROR] [MY-012681] [InnoDB] mmap(13186891776 bytes) failed; errno 12\n", CauseOutOfMemory, ""},
		{"MySQL 9.7: no page list to load, then an unknown option", "2026-12-07T13:01:58.081940Z 0 [ERROR] [MY-011947] [InnoDB] Cannot open '/tmp/sb/data/ib_buffer_pool' for reading: No such file or directory\n" +
			"2026-12-07T13:01:58.149650Z 0 [ERROR] [MY-000067] [Server] unknown variable 'innodb_no_such_knob=1'.\n2026-12-07T13:01:58.150048Z 0 [ERROR] [MY-010119] [Server] Aborting\n", CauseUnknownOption, ""},
		{"memory: the configuration's", "2026-12-06 10:00:00 0 [ERROR] InnoDB: mmap(13186891776 bytes) failed; errno 12\n", CauseOutOfMemory, ""},
		{"unknown option: the configuration's", "2026-12-06 10:00:00 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'innodb_redo_log_capacity=1G'\n", CauseUnknownOption, ""},
	} {
		d := DiagnoseStartLog(tc.log)
		if d.Cause != tc.cause || !strings.Contains(d.Limit, tc.limit) {
			t.Errorf("%s: cause %s, limit %q; want %s naming %q", tc.name, d.Cause, d.Limit, tc.cause, tc.limit)
		}
		if host := d.Cause == CauseHostLimit || d.Cause == CauseDiskFull; host != (tc.limit != "") || (host && d.Fix == "") {
			t.Errorf("%s: host's fault %v, fix %q", tc.name, host, d.Fix)
		}
	}
}
