package storetest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Process is the test binary run again as a second process, the way a
// second server replica or a crashing worker is tested: it runs one test
// (a helper that does nothing when run normally) and talks on its standard
// input and output. Its standard error is the test's.
type Process struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	lines *bufio.Scanner
}

// StartProcess runs the test binary again with only the test named test,
// with env (NAME=value) added to its environment. The process is killed
// when the test ends.
func StartProcess(t testing.TB, test string, env ...string) *Process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &Process{Cmd: cmd, Stdin: stdin, lines: bufio.NewScanner(stdout)}
}

// Expect reads the process's output up to a line starting with prefix and
// returns the rest of that line. A process that says nothing for two
// minutes (an embedded cluster's first start included) is killed, which
// ends its output and fails the test: a guard, not a wait.
func (p *Process) Expect(t testing.TB, prefix string) string {
	t.Helper()
	guard := time.AfterFunc(2*time.Minute, func() { _ = p.Cmd.Process.Kill() })
	defer guard.Stop()
	for p.lines.Scan() {
		if rest, ok := strings.CutPrefix(p.lines.Text(), prefix); ok {
			return rest
		}
	}
	t.Fatalf("the process ended without saying %q", prefix)
	return ""
}
