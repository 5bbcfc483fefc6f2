package tpccmysql

import "github.com/autotune/autotune/runner/sysbench"

// RunStatus classifies a parsed tpcc_start run (Output.Status). It is
// sysbench's type: StatusOK and StatusFailed mean the same for both
// benchmarks; StatusOKWithWarnings and StatusInvalid are tpcc-mysql's.
type RunStatus = sysbench.RunStatus

// Statuses shared with sysbench.
const (
	// StatusOK is a completed, valid run without warnings.
	StatusOK = sysbench.StatusOK
	// StatusFailed is a run without a TpmC score or with a failure line:
	// never score it as 0.
	StatusFailed = sysbench.StatusFailed
)

// OutputLine is an output line kept with its 1-based number
// (Output.Unrecognized).
type OutputLine = sysbench.OutputLine

// MaxUnrecognizedLines caps Output.Unrecognized.
const MaxUnrecognizedLines = sysbench.MaxUnrecognizedLines

// MalformedLineError is the error a LineError wraps, so that callers treat
// a malformed sysbench line and a malformed tpcc-mysql line alike
// (errors.As).
type MalformedLineError = sysbench.MalformedLineError
