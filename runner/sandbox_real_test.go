package runner

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

// TestRealSandboxOwnsItsPathsAndListeners starts each server of the
// matrix as a sandbox and checks what the sandbox promises, whatever the
// build compiled in: the server listens on its loopback port and on
// sockets inside the sandbox, nothing else (MySQL 9.7's X plugin listened
// on port 33060 of every interface), and every variable that names a
// path names one in the sandbox or one of the server's own installed
// files under /usr (MySQL 9.7's secure_file_priv named
// /var/lib/mysql-files, and the server aborted when it was missing).
func TestRealSandboxOwnsItsPathsAndListeners(t *testing.T) {
	realtest.EachServer(t, testRealSandboxOwnsItsPathsAndListeners)
}

func testRealSandboxOwnsItsPathsAndListeners(t *testing.T, s realtest.Server) {
	sb := realSandbox(t, s)
	ctx := context.Background()
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(ctx, sb.Server, sb.Options(data, "", "paths.err", 20))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(time.Minute)

	// The X plugin starts its listener a moment after the server is
	// ready: give a late listener the time to appear.
	time.Sleep(2 * time.Second)
	tcp, unix, err := listeners(srv.Pid())
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("127.0.0.1:%d", srv.Port)
	if len(tcp) != 1 || tcp[0] != want {
		t.Errorf("TCP listeners %v, want only %s", tcp, want)
	}
	if len(unix) == 0 {
		t.Errorf("no unix socket listener")
	}
	for _, p := range unix {
		if !strings.HasPrefix(p, sb.Dir+"/") {
			t.Errorf("unix socket listener %q outside the sandbox %s", p, sb.Dir)
		}
	}

	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var name string
		var val sql.NullString
		if err := rows.Scan(&name, &val); err != nil {
			t.Fatal(err)
		}
		v := strings.TrimSpace(val.String)
		if !strings.HasPrefix(v, "/") {
			continue
		}
		checked++
		clean := filepath.Clean(v)
		if strings.HasPrefix(clean, sb.Dir+"/") || clean == sb.Dir || strings.HasPrefix(clean, "/usr/") || clean == "/usr" {
			continue
		}
		t.Errorf("%s = %s: a path outside the sandbox %s and the server's own files", name, v, sb.Dir)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 4 {
		t.Errorf("only %d variables name a path: the check read nothing", checked)
	}
}

// listeners returns the listening TCP addresses ("127.0.0.1:3306",
// "[::]:33060") and unix socket paths of process pid, from the socket
// inodes among its open files and /proc/net/{tcp,tcp6,unix}.
func listeners(pid int) (tcp, unix []string, err error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	for _, f := range []string{"tcp", "tcp6"} {
		lines, err := procLines(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			return nil, nil, err
		}
		for _, fs := range lines {
			// sl local_address rem_address st ... inode (field 9)
			if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] {
				continue
			}
			tcp = append(tcp, hexAddr(fs[1]))
		}
	}
	lines, err := procLines(fmt.Sprintf("/proc/%d/net/unix", pid))
	if err != nil {
		return nil, nil, err
	}
	for _, fs := range lines {
		// Num RefCount Protocol Flags Type St Inode Path; flag 00010000 is __SO_ACCEPTCON (listening)
		if len(fs) < 8 || fs[3] != "00010000" || !inodes[fs[6]] {
			continue
		}
		unix = append(unix, fs[7])
	}
	return tcp, unix, nil
}

// procLines returns the fields of each line of a /proc/net table after
// its header.
func procLines(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Scan()
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out, sc.Err()
}

// hexAddr renders a /proc/net/tcp{,6} address ("0100007F:0CEA",
// 32 hex digits for IPv6) as "127.0.0.1:3306" or "[::]:33060".
func hexAddr(s string) string {
	h, p, _ := strings.Cut(s, ":")
	port, _ := strconv.ParseUint(p, 16, 16)
	b := make([]byte, len(h)/2)
	for i := range b {
		x, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		b[i] = byte(x)
	}
	// The kernel prints each 32-bit word in host (little-endian) order.
	for w := 0; w+4 <= len(b); w += 4 {
		b[w], b[w+1], b[w+2], b[w+3] = b[w+3], b[w+2], b[w+1], b[w]
	}
	if len(b) == 4 {
		return fmt.Sprintf("%d.%d.%d.%d:%d", b[0], b[1], b[2], b[3], port)
	}
	var parts []string
	zero := true
	for i := 0; i < len(b); i += 2 {
		v := int(b[i])<<8 | int(b[i+1])
		if v != 0 {
			zero = false
		}
		parts = append(parts, strconv.FormatInt(int64(v), 16))
	}
	if zero {
		return fmt.Sprintf("[::]:%d", port)
	}
	return fmt.Sprintf("[%s]:%d", strings.Join(parts, ":"), port)
}
