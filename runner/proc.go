package runner

import "syscall"

// sysProcAttr returns process attributes for short-lived helper children:
// killed by the kernel when autotune dies, so none outlives it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
