package storetest

import (
	"net"
	"sync"
	"testing"
)

// StoppedURL is the URL of a database that is not running: nothing
// listens at its address.
func StoppedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "postgres://postgres@" + addr + "/vibesell?connect_timeout=60"
}

// HungURL is the URL of a database that accepts connections and never
// answers, until the test ends.
func HungURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return "postgres://postgres@" + l.Addr().String() + "/vibesell?connect_timeout=60"
}
