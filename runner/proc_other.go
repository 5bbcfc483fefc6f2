//go:build !linux

package runner

import "syscall"

// ChildProcAttr returns the process attributes of every child autotune
// starts. Outside Linux there is no parent-death signal, so a child can
// outlive an autotune that is killed with SIGKILL; autotune still stops its
// children on every ordinary exit. With ownGroup the child leads a process
// group of its own (see proc_linux.go).
func ChildProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: ownGroup}
}
