package runner

import (
	"os"
	"syscall"
)

// Terminate asks a child process to stop (SIGTERM); exec.Cmd.Cancel uses it
// so that a cancelled benchmark can print its last lines.
func Terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
