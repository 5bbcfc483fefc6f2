package runner

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// StreamLines starts cmd with stdout and stderr on one pipe, calls line for
// every output line as it arrives, and waits for it. It returns the last
// 15 lines (for error reports) and the start or wait error.
func StreamLines(cmd *exec.Cmd, line func(string)) (lastLines string, err error) {
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	waitErr := make(chan error, 1)
	go func() { err := cmd.Wait(); pw.Close(); waitErr <- err }()
	var last []string
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		l := sc.Text()
		last = append(last, l)
		if len(last) > 15 {
			last = last[1:]
		}
		line(l)
	}
	_, _ = io.Copy(io.Discard, pr)
	err = <-waitErr
	return strings.Join(last, "\n"), err
}
