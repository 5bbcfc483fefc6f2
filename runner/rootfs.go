package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// A server in a root file system is a Debian release's server installed
// into a directory of its own (scripts/install-servers.sh: MariaDB 11.8
// from Debian 13, MySQL 9.7 from Debian unstable) and run from the host.
// Its binaries need that release's C library, so they run in a private
// mount namespace where the root's /etc and /usr are bind-mounted over
// the host's (rootScript): every other path (the sandbox, /tmp, /proc,
// /sys, /dev) stays the host's, so a sandbox works unchanged, and the
// server's compiled-in directories (plugins, messages, character sets,
// mariadb-install-db's SQL files) are the root's own.
//
// The namespace is created by the kernel for the child (clone flag
// CLONE_NEWNS, mounts made private first; syscall.SysProcAttr) and lives
// exactly as long as the process: its mounts vanish with the server,
// killed or not, and none is ever visible on the host. Each step execs the
// next (sh, then the server), so the process autotune started, signals and
// watches is the server itself, and the pid in its pid file is that
// child's pid. Needs CAP_SYS_ADMIN (root).

// rootScript mounts the root file system $0's /etc (first: its
// ld.so.cache names the libraries) and /usr over the host's in the
// child's private mount namespace, then execs "$@". Debian's merged /usr
// (/bin, /lib, /lib64 and /sbin are links into /usr on the host and in
// the root) puts the root's loader and libraries in place with /usr.
const rootScript = `mount --bind "$0/etc" /etc && mount --bind "$0/usr" /usr && exec "$@"`

// hiddenInRoot are the host directories a rootfs server does not see
// (the root's own are mounted there): a sandbox must lie elsewhere.
var hiddenInRoot = []string{"/etc", "/usr"}

// findInRoot resolves a root file system directory to its server binary
// (usr/sbin/mariadbd, else usr/sbin/mysqld). It returns an error naming
// dir when it holds neither, or when the host cannot run it (not merged
// /usr, not root).
func findInRoot(dir string) (Binary, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Binary{}, fmt.Errorf("--mysqld %q: %w", dir, err)
	}
	var path string
	for _, n := range []string{"mariadbd", "mysqld"} {
		if p := filepath.Join(abs, "usr", "sbin", n); isExecutable(p) {
			path = p
			break
		}
	}
	if path == "" {
		return Binary{}, fmt.Errorf("--mysqld %q: a directory, but not a server's root file system (no usr/sbin/mariadbd or usr/sbin/mysqld in it; scripts/install-servers.sh builds one)", dir)
	}
	if _, err := os.Stat(filepath.Join(abs, "etc", "ld.so.cache")); err != nil {
		return Binary{}, fmt.Errorf("--mysqld %q: a root file system without etc/ld.so.cache (not an installed Debian root)", dir)
	}
	for _, l := range []string{"/lib", "/lib64", "/bin", "/sbin"} {
		if t, err := os.Readlink(l); err == nil && strings.TrimPrefix(t, "/") == "usr"+l {
			continue
		}
		if _, err := os.Stat(l); errors.Is(err, os.ErrNotExist) {
			continue
		}
		return Binary{}, fmt.Errorf("--mysqld %q: a server in a root file system needs a host with merged /usr (%s is not a link to usr%s)", dir, l, l)
	}
	if os.Geteuid() != 0 {
		return Binary{}, fmt.Errorf("--mysqld %q: a server in a root file system runs in a mount namespace of its own, which needs root", dir)
	}
	return Binary{Path: path, Root: abs}, nil
}

// InRoot returns the path of the binary as the server sees it: Path
// itself for a host binary, the path under Root otherwise
// ("/usr/sbin/mysqld").
func (b Binary) InRoot() string {
	if b.Root == "" {
		return b.Path
	}
	return "/" + strings.TrimPrefix(strings.TrimPrefix(b.Path, b.Root), "/")
}

// Argv returns the argument vector that runs the server binary with args.
func (b Binary) Argv(args ...string) []string { return b.ToolArgv(b.InRoot(), args...) }

// ToolArgv returns the argument vector that runs program (a path as the
// server sees it: in the root for a rootfs server) with args, beside the
// server: the program itself for a host binary, the program through
// rootScript for a rootfs server (the command must then be prepared
// with Isolate).
func (b Binary) ToolArgv(program string, args ...string) []string {
	if b.Root == "" {
		return append([]string{program}, args...)
	}
	return append([]string{"/bin/sh", "-c", rootScript, b.Root, program}, args...)
}

// Isolate gives cmd a private mount namespace when b runs from a root
// file system (see rootScript); it keeps cmd's other process attributes
// and sets ChildProcAttr(false) when it has none.
func (b Binary) Isolate(cmd *exec.Cmd) *exec.Cmd {
	if b.Root == "" {
		return cmd
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = ChildProcAttr(false)
	}
	cmd.SysProcAttr.Unshareflags |= syscall.CLONE_NEWNS
	return cmd
}

// Command returns the command that runs the server binary with args
// (ChildProcAttr(false), isolated for a rootfs server).
func (b Binary) Command(ctx context.Context, args ...string) *exec.Cmd {
	argv := b.Argv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = ChildProcAttr(false)
	return b.Isolate(cmd)
}

// checkVisible returns an error when path lies in a host directory that
// a rootfs server cannot see (hiddenInRoot).
func (b Binary) checkVisible(what, path string) error {
	if b.Root == "" {
		return nil
	}
	clean := filepath.Clean(path)
	for _, h := range hiddenInRoot {
		if clean == h || strings.HasPrefix(clean, h+"/") {
			return fmt.Errorf("%s %s lies under %s, which a server from the root file system %s does not see (its own %s is there): use a directory elsewhere", what, path, h, b.Root, h)
		}
	}
	return nil
}
