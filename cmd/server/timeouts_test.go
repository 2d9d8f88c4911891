package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"vibesell/store/storetest"
)

// A client that sends headers and then trickles its body (or sends none)
// must not keep its connection: the server hangs up after READ_TIMEOUT.
func TestSlowBodiesAreCutAfterTheReadTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, "DATABASE_URL", storetest.NewURL(t), "LOG_LEVEL", "warn", "READ_TIMEOUT", "300ms")
	s.waitReady(t)

	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /app/sign-in HTTP/1.1\r\nHost: "+s.addr+"\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=a")
	if err != nil {
		t.Fatal(err)
	}
	// The test's own bound: far beyond READ_TIMEOUT, so only a server
	// that never hangs up reaches it.
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(bufio.NewReader(conn))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the connection with a trickled body was still open after 10 s")
	}
	if len(reply) > 0 && !strings.HasPrefix(string(reply), "HTTP/1.1 4") {
		t.Fatalf("the server answered a body it never got:\n%s", reply)
	}
}
