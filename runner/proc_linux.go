package runner

import "syscall"

// ChildProcAttr returns the process attributes of every child autotune
// starts (servers, benchmarks, datadir tools, restart commands): the kernel
// kills the child with SIGKILL when autotune dies, so none outlives it.
// With ownGroup the child also leads a process group of its own: a Ctrl-C
// at the terminal does not reach it, and the whole group can be signalled
// (kill(-pid)) to take its own children down too.
//
// This is the one place that builds a syscall.SysProcAttr; Pdeathsig is
// Linux-only, proc_other.go has the portable fallback.
func ChildProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: ownGroup, Pdeathsig: syscall.SIGKILL}
}
