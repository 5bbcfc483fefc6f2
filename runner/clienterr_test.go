package runner

import (
	"database/sql/driver"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestClassifyClientError(t *testing.T) {
	// One row per client error a Go tool sees while a server starts,
	// restarts or holds stale pooled connections (refused dials, MariaDB
	// error 1927 after a restart, "invalid connection", access denied, as
	// reported against go-sql-driver/mysql), built as the driver returns
	// it (types and numbers, not text).
	dialTCP := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	dialUnix := &net.OpError{Op: "dial", Net: "unix", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ENOENT}}
	tests := []struct {
		name string
		err  error
		want ErrorClass
	}{
		{"connection refused", dialTCP, NotReady},
		{"no socket file", dialUnix, NotReady},
		{"unexpected EOF", fmt.Errorf("read packet: %w", io.ErrUnexpectedEOF), StaleConnection},
		{"invalid connection", mysql.ErrInvalidConn, StaleConnection},
		{"bad connection", driver.ErrBadConn, StaleConnection},
		{"1927 connection killed", &mysql.MySQLError{Number: 1927, Message: "Connection was killed"}, StaleConnection},
		{"commands out of sync", mysql.ErrPktSync, StaleConnection},
		{"1045 access denied", &mysql.MySQLError{Number: 1045, Message: "Access denied"}, FatalAuth},
		{"1040 too many connections", &mysql.MySQLError{Number: 1040}, Capacity},
		{"1049 unknown database", fmt.Errorf("use sbtest: %w", &mysql.MySQLError{Number: 1049}), FatalSetup},
		{"other server error", &mysql.MySQLError{Number: 1064}, Other},
		{"nil", nil, ""},
	}
	for _, tc := range tests {
		if got := ClassifyClientError(tc.err); got != tc.want {
			t.Errorf("%s: %v -> %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}
