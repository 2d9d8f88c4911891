package main

import (
	"bufio"
	"context"
	"fmt"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vibesell"
	"vibesell/delivery"
	vmail "vibesell/mail"
	"vibesell/sandboxmail"
	"vibesell/store/storetest"
)

var (
	unsafeBuildOnce sync.Once
	unsafeBin       string
	unsafeBuildErr  error
)

// unsafeBinary builds the server once with the test build's switches
// (testbuild_unsafe.go), for a test that shortens the gap between a
// mailbox's emails.
func unsafeBinary(t *testing.T) string {
	t.Helper()
	unsafeBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vibesell-unsafe-bin-")
		if err != nil {
			unsafeBuildErr = err
			return
		}
		unsafeBin = filepath.Join(dir, "server")
		out, err := exec.Command("go", "build", "-tags", "vibesell_unsafe_test_build", "-o", unsafeBin, ".").CombinedOutput()
		if err != nil {
			unsafeBuildErr, unsafeBin = err, string(out)
		}
	})
	if unsafeBuildErr != nil {
		t.Fatalf("build: %v\n%s", unsafeBuildErr, unsafeBin)
	}
	return unsafeBin
}

// connectedTo returns the replicas that hold an open TCP connection to
// port on 127.0.0.1, read from /proc: the one sending to the sandbox.
func connectedTo(replicas []*replica, port int) []*replica {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "01" { // established
				continue
			}
			_, remotePort, _ := strings.Cut(fields[2], ":")
			if p, err := strconv.ParseInt(remotePort, 16, 32); err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		f.Close()
	}
	var out []*replica
	for _, r := range replicas {
		r.mu.Lock()
		pid := r.cmd.Process.Pid
		r.mu.Unlock()
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && inodes[link] {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// The engine on three replicas: a campaign sends while the replica
// sending it is killed with SIGKILL in the middle of a message (after
// the sandbox took it, before its ledger is told) and started again.
// Every step goes out at most once; what a killed replica left sending
// is settled lost once its lease is over, as a single server's crash is;
// each mailbox keeps its daily cap and its gap across replicas; and each
// reply is read once, by whichever replica reads it first. The sandbox
// mail server is one they share, run here as `server sandbox serve` runs
// it, so the test sees every message.
func TestSuiteEngineOnReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three servers until their engine has sent a campaign")
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("finds the replica sending from /proc, which this system has not")
	}
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	pool := connect(t, dbURL)
	mailboxes := suiteSize(150, 300)
	dailyCap := suiteSize(2, 10)
	capacity := mailboxes * dailyCap
	leads := capacity + mailboxes/5 // the last ones wait for tomorrow: the caps hold them
	kills := suiteSize(2, 5)
	const minGap, maxGap = 10 * time.Second, 20 * time.Second

	secretKey := vmail.NewRandomSecret()
	secret, err := vmail.ParseSecret(secretKey)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		accepted []sandboxmail.Accepted
		killed   = make(chan *replica, kills)
		replicas []*replica
		killsAt  []int
		smtpPort int
	)
	for k := range kills {
		killsAt = append(killsAt, capacity*(k+1)/(kills+2))
	}
	// Killed in DATA, once the sandbox has the message and before its
	// sender hears so: the replica connected to it is the one sending.
	onAccept := func(a sandboxmail.Accepted) {
		mu.Lock()
		accepted = append(accepted, a)
		n := len(accepted)
		due := len(killsAt) > 0 && n >= killsAt[0]
		if due {
			killsAt = killsAt[1:]
		}
		rs := replicas
		mu.Unlock()
		if !due {
			return
		}
		if senders := connectedTo(rs, smtpPort); len(senders) > 0 {
			senders[0].kill()
			killed <- senders[0]
		}
	}
	sandbox, err := sandboxmail.Start(sandboxmail.Config{SMTPAddr: "127.0.0.1:0", IMAPAddr: "127.0.0.1:0", OnAccept: onAccept,
		MailboxPassword: secret.SandboxPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.Close() })
	_, port, _ := strings.Cut(sandbox.SMTPAddr(), ":")
	smtpPort, _ = strconv.Atoi(port)
	certFile := filepath.Join(t.TempDir(), "sandbox.pem")
	if err := os.WriteFile(certFile, sandbox.CertificatePEM(), 0o644); err != nil {
		t.Fatal(err)
	}

	ws, _ := workspaceWithToken(t, pool, "Engine on replicas")
	now := time.Now()
	for _, sql := range []string{
		`INSERT INTO workspace_senders (workspace_id, postal_address, sender_name, time_zone, updated_at) VALUES ($1, 'Acme Sales, 1 Market St, San Francisco', 'Sam Lee', 'UTC', $2)`,
		`INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at, provider, ordered_at, ready_at)
		 VALUES ($1, 'getacme.test', 'new', 'ordered', 'USD', 1500, 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days')`,
		`INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, provider, ordered_at, ready_at, warmup_started_at)
		 SELECT $1, 'sender' || n || '@getacme.test', 'getacme.test', 'Sam Lee', 'warming', false, 'USD', 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days', $2::timestamptz - interval '59 days'
		   FROM generate_series(1, $3::int) AS n`,
		`INSERT INTO sequence_versions (workspace_id, sequence_id, version, name, steps, created_at, approved_at, approved_by)
		 VALUES ($1, 'sq_00000000000000a1', 1, 'Lists', '[{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nA short question.\n\nSam", "waitBusinessDays": 0, "sameThread": false}]', $2, $2, 'ada')`,
		`INSERT INTO campaigns (workspace_id, id, name, sequence_id, sequence_version, mailboxes, window_start, window_end, days, daily_cap, stop_for_company, status, created_at, launched_at, first_send_at)
		 SELECT $1, 'cp_00000000000000a1', 'Heads of sales', 'sq_00000000000000a1', 1, array_agg('sender' || n || '@getacme.test' ORDER BY n), 0, 1440, '{1,2,3,4,5,6,7}', $4, false, 'scheduled', $2, $2, $2::timestamptz - interval '1 minute'
		   FROM generate_series(1, $3::int) AS n`,
		`INSERT INTO campaign_leads (workspace_id, campaign_id, lead_id, email, fields, time_zone)
		 SELECT $1, 'cp_00000000000000a1', n, 'lead' || n || '@prospect' || (n % 97) || '.test', jsonb_build_object('first_name', 'Lead ' || n, 'company', 'Co ' || n), $2
		   FROM generate_series(1, $3::int) AS n`,
	} {
		args := []any{ws.ID, now, mailboxes, dailyCap}
		if strings.Contains(sql, "campaign_leads") {
			args = []any{ws.ID, "", leads}
		}
		n := 0
		for i := range args {
			if strings.Contains(sql, fmt.Sprintf("$%d", i+1)) {
				n = i + 1
			}
		}
		if _, err := pool.Exec(ctx, sql, args[:n]...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	bin := unsafeBinary(t)
	env := []string{"DATABASE_URL=" + dbURL, "MAIL_SECRET_KEY=" + secretKey, "MAIL_SANDBOX_CERT=" + certFile,
		"MAIL_SANDBOX_SMTP_ADDR=" + sandbox.SMTPAddr(), "MAIL_SANDBOX_IMAP_ADDR=" + sandbox.IMAPAddr(),
		"VIBESELL_TEST_SEND_GAP=" + minGap.String() + "-" + maxGap.String()}
	started := []*replica{startReplicaOf(t, bin, "A", env...), startReplicaOf(t, bin, "B", env...), startReplicaOf(t, bin, "C", env...)}
	mu.Lock()
	replicas = started
	mu.Unlock()
	start := time.Now()

	// Each killed replica is started again at once.
	restarted := 0
	count := func(where string) int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM mail_sends WHERE workspace_id = $1 AND `+where, ws.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Replies: a tenth of the leads sent to answer, threaded under the
	// email they had, delivered to the mailbox the three replicas watch.
	replied := map[string]string{} // reply Message-ID → the lead
	deliverReplies := func() {
		mu.Lock()
		sent := slices.Clone(accepted)
		mu.Unlock()
		for _, a := range sent {
			if len(replied) >= leads/10 {
				return
			}
			msg, err := mail.ReadMessage(strings.NewReader(string(a.Raw)))
			if err != nil || len(a.Recipients) != 1 {
				continue
			}
			lead := a.Recipients[0]
			id := fmt.Sprintf("<reply-%d@%s>", len(replied), lead[strings.IndexByte(lead, '@')+1:])
			if _, done := replied[id]; done || slices.Contains(slices.Collect(mapValues(replied)), lead) {
				continue
			}
			raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: Re: %s\r\nDate: %s\r\nMessage-ID: %s\r\nIn-Reply-To: %s\r\nReferences: %s\r\n"+
				"Content-Type: text/plain; charset=utf-8\r\n\r\nSounds interesting, tell me more.\r\n",
				lead, a.From, msg.Header.Get("Subject"), time.Now().Format(time.RFC1123Z), id, msg.Header.Get("Message-ID"), msg.Header.Get("Message-ID"))
			if err := sandbox.DeliverReply(a.From, []byte(raw)); err != nil {
				t.Fatalf("deliver a reply to %s: %v", a.From, err)
			}
			replied[id] = lead
		}
	}
	deadline := time.Now().Add(suiteSize(4*time.Minute, 45*time.Minute))
	settled := false
	for {
		select {
		case r := <-killed:
			time.Sleep(500 * time.Millisecond)
			r.start(t)
			restarted++
		case <-time.After(time.Second):
		}
		if len(replied) < leads/10 {
			deliverReplies()
		}
		// Every slot of every mailbox's day claimed: what the killed
		// replicas left is all that is left. Their leases are then made
		// to end (claims released, marked steps settled lost), as the
		// server's own jobs do 10 and 20 minutes on, and the released
		// steps go out at the next ticks.
		if !settled && restarted == kills && count("true") >= capacity {
			later := vibesell.NewManualClock(time.Now().Add(delivery.SendingLease + time.Minute))
			d := delivery.NewDispatcher(delivery.DispatcherDeps{DB: pool, Clock: later})
			if _, err := d.ReleaseStale(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := d.SettleLost(ctx); err != nil {
				t.Fatal(err)
			}
			settled = true
		}
		if settled && count("status IN ('sent', 'lost', 'unknown')") >= capacity && count("status IN ('claimed', 'sending', 'failed')") == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("not done after %s: %d claimed, %d rows in all; %d kills of %d", time.Since(start).Round(time.Second),
				count("status = 'claimed'"), count("true"), restarted, kills)
			break
		}
	}
	elapsed := time.Since(start)

	// Every reply read, once.
	storetest.WaitFor(t, "every reply to be read", func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM mail_replies WHERE workspace_id = $1`, ws.ID).Scan(&n)
		return err == nil && n >= len(replied)
	})
	rows, err := pool.Query(ctx, `SELECT message_id, count(*) FROM mail_replies WHERE workspace_id = $1 GROUP BY message_id`, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	readTimes := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		readTimes[id] = n
	}
	rows.Close()
	readOnce := 0
	for id := range replied {
		if readTimes[id] == 1 {
			readOnce++
		} else {
			t.Errorf("reply %s was read %d times, want once", id, readTimes[id])
		}
	}

	// What went out, from the sandbox: each lead once at most.
	mu.Lock()
	got := slices.Clone(accepted)
	mu.Unlock()
	times := map[string]int{}
	fromMailbox := map[string]int{}
	for _, a := range got {
		for _, r := range a.Recipients {
			times[strings.ToLower(r)]++
		}
		fromMailbox[strings.ToLower(a.From)]++
	}
	duplicates := 0
	for r, n := range times {
		if n > 1 {
			duplicates += n - 1
			t.Errorf("%s got %d emails of the campaign's one step", r, n)
		}
	}

	// What the ledger says, against it.
	type row struct {
		mailbox, recipient, status string
		claimed                    time.Time
	}
	var ledger []row
	rows, err = pool.Query(ctx, `SELECT mailbox, lower(recipient), status, claimed_at FROM mail_sends WHERE workspace_id = $1 ORDER BY mailbox, claimed_at`, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.mailbox, &r.recipient, &r.status, &r.claimed); err != nil {
			t.Fatal(err)
		}
		ledger = append(ledger, r)
	}
	rows.Close()
	statuses := tally{}
	lostWentOut, sentNotOut := 0, 0
	perMailbox := map[string]int{}
	var gapBroken []string
	for i, r := range ledger {
		statuses[r.status]++
		perMailbox[r.mailbox]++
		switch {
		case r.status == "sent" && times[r.recipient] != 1:
			sentNotOut++
			t.Errorf("%s is marked sent; the sandbox took %d emails for it", r.recipient, times[r.recipient])
		case r.status == "lost" && times[r.recipient] > 0:
			lostWentOut++
		}
		if i > 0 && ledger[i-1].mailbox == r.mailbox && r.claimed.Sub(ledger[i-1].claimed) < minGap {
			gapBroken = append(gapBroken, fmt.Sprintf("%s: %s after its email before", r.mailbox, r.claimed.Sub(ledger[i-1].claimed).Round(time.Millisecond)))
		}
	}
	for _, g := range gapBroken {
		t.Errorf("gap of at least %s broken: %s", minGap, g)
	}
	overCap := 0
	for m, n := range perMailbox {
		if n > dailyCap || fromMailbox[m] > dailyCap {
			overCap++
			t.Errorf("%s: %d steps in the ledger, %d emails out today; its cap is %d", m, n, fromMailbox[m], dailyCap)
		}
	}
	for _, st := range []string{"claimed", "sending", "failed"} {
		if statuses[st] > 0 {
			t.Errorf("%d steps left %s", statuses[st], st)
		}
	}
	if restarted < kills {
		t.Errorf("%d replicas killed in the middle of an email, want %d", restarted, kills)
	}
	t.Logf("the engine on 3 replicas: %d leads, %d mailboxes with a cap of %d a day and a gap of %s to %s; %d kill(s) with SIGKILL of the replica sending, in DATA; %s: "+
		"%d emails out, %d duplicates; the ledger %s (%d lost of which %d had in fact gone out, and %d never left; %d marked sent not out); "+
		"%d leads held by the caps, %d mailboxes over their cap, %d gaps broken; %d replies, each read %s",
		leads, mailboxes, dailyCap, minGap, maxGap, restarted, elapsed.Round(time.Second),
		len(got), duplicates, statuses, statuses["lost"], lostWentOut, statuses["lost"]-lostWentOut, sentNotOut,
		leads-len(ledger), overCap, len(gapBroken), len(replied), map[bool]string{true: "once", false: fmt.Sprintf("once for %d of them", readOnce)}[readOnce == len(replied)])
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}
