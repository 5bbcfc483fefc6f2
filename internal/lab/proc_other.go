//go:build !linux

package lab

import "syscall"

// commandAttr puts an objective command in its own process group (which a
// cancel kills whole); only Linux can also kill it when bench-search dies.
func commandAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
