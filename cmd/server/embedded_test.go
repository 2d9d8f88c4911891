package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stdioInitialize is a client's first message over stdio.
const stdioInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// stdioProcess is a stdio client's server process, as Claude Desktop starts
// it, kept open until its input closes.
type stdioProcess struct {
	cmd    *exec.Cmd
	input  *os.File
	stderr *syncBuffer
	exited chan error
}

func startStdio(t *testing.T, slug string, envs ...string) *stdioProcess {
	t.Helper()
	cmd := exec.Command(binary(t), "stdio", "--workspace", slug)
	cmd.Env = append(append(os.Environ(), "LOG_LEVEL=info"), envs...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &stdioProcess{cmd: cmd, input: inW, stderr: &syncBuffer{}, exited: make(chan error, 1)}
	cmd.Stdin, cmd.Stderr = inR, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
	})
	// It is up once it answers initialize.
	answered := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		answered <- sc.Scan() && strings.Contains(sc.Text(), `"id":1`)
		for sc.Scan() {
		}
		p.exited <- cmd.Wait()
	}()
	if _, err := inW.WriteString(stdioInitialize + "\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-answered:
		if !ok {
			t.Fatalf("stdio did not answer initialize:\n%s", p.stderr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("stdio did not answer initialize within 2 minutes:\n%s", p.stderr)
	}
	return p
}

// quit closes the client's end, as the client does when it quits.
func (p *stdioProcess) quit(t *testing.T) {
	t.Helper()
	p.input.Close()
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("stdio exited with %v\n%s", err, p.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("stdio did not exit within a minute of its input closing:\n%s", p.stderr)
	}
}

func readyz(addr string) int {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The journey of issue 11: a stdio client started the embedded database,
// a server started after it uses it, then the client quits. The server
// keeps answering; and when the database is stopped under it anyway, it
// comes back by itself.
func TestServerOutlivesTheStdioClientThatStartedTheDatabase(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	if _, err := runCmd(t, env("DATA_DIR", dataDir, "LOG_LEVEL", "warn"), "workspace", "create", "Solo"); err != nil {
		t.Fatal(err)
	}
	client := startStdio(t, "solo", "DATA_DIR="+dataDir)
	if !strings.Contains(client.stderr.String(), "starting embedded PostgreSQL") {
		t.Fatalf("the stdio client did not start the database itself:\n%s", client.stderr)
	}
	s := startServer(t, "DATA_DIR", dataDir, "LOG_LEVEL", "warn")
	s.waitReady(t)

	client.quit(t)
	if code := readyz(s.addr); code != http.StatusOK {
		t.Fatalf("after the stdio client quit, /readyz answers %d, want 200\n%s", code, client.stderr)
	}

	// Stop the database as an operator (or a crash) would.
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postgres", "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	down := false
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		code := readyz(s.addr)
		down = down || code != http.StatusOK
		if down && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not come back to 200 within a minute of the database stopping (went down: %v)\n%s", down, s.stderr)
		}
	}
}
