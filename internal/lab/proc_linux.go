package lab

import "syscall"

// commandAttr puts an objective command in its own process group (which a
// cancel kills whole) and has the kernel kill it when bench-search dies.
func commandAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
