package runner

import (
	"database/sql/driver"
	"errors"
	"io"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// ErrorClass says what a client error means for the tool. In the field, Go
// programs kept a connection pool across a server restart and the next
// query failed with "invalid connection", a packet-sync error or MariaDB
// error 1927 (ER_CONNECTION_KILLED), while a refused dial only meant the
// server was not up yet.
type ErrorClass string

const (
	// NotReady: nothing listens yet (connection refused, no socket file);
	// retry until the start deadline.
	NotReady ErrorClass = "not_ready"
	// StaleConnection: a connection that outlived a restart or a
	// server-side close; discard it and reconnect.
	StaleConnection ErrorClass = "stale_connection"
	// FatalAuth: the server refused the tool's credentials (1045); a
	// configuration error of the tool, not of the candidate.
	FatalAuth ErrorClass = "fatal_auth"
	// FatalSetup: the benchmark schema is missing (1049); re-prepare.
	FatalSetup ErrorClass = "fatal_setup"
	// Capacity: too many connections (1040); the candidate's
	// max_connections is too low for the benchmark.
	Capacity ErrorClass = "capacity"
	// Other: anything else.
	Other ErrorClass = "other"
)

// MySQL/MariaDB server error numbers used by ClassifyClientError (MySQL
// manual "Server Error Message Reference"; 1927 is MariaDB's
// ER_CONNECTION_KILLED).
const (
	erTooManyConnections = 1040
	erAccessDenied       = 1045
	erBadDB              = 1049
	erConnectionKilled   = 1927
)

// ClassifyClientError classifies an error from the Go MySQL driver by its
// type and error number, never by its text.
func ClassifyClientError(err error) ErrorClass {
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &me):
		switch me.Number {
		case erAccessDenied:
			return FatalAuth
		case erBadDB:
			return FatalSetup
		case erTooManyConnections:
			return Capacity
		case erConnectionKilled:
			return StaleConnection
		}
		return Other
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		return NotReady
	case errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, mysql.ErrPktSync), errors.Is(err, mysql.ErrPktSyncMul),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return StaleConnection
	}
	return Other
}
