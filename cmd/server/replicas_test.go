package main

// Several replicas: the server as a growing installation runs it, three
// processes on one database behind a plain round-robin balancer that
// knows nothing about MCP (no sticky sessions), one of them killed with
// SIGKILL mid-load and started again.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"vibesell/store/storetest"
)

// replicaRevisions are the MCP protocol revisions the replica suite's
// clients speak, each a run of its own. A revision is added here; a
// revision without sessions would also change what [replicaClient.open]
// does (no initialize to send, nothing to keep).
var replicaRevisions = []string{"2025-11-25"}

// replica is one server process the test kills and starts again on the
// same address.
type replica struct {
	name string
	bin  string
	addr string
	env  []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	stderr *syncBuffer
}

func startReplica(t *testing.T, name string, env ...string) *replica {
	t.Helper()
	return startReplicaOf(t, binary(t), name, env...)
}

// startReplicaOf starts replica name of the server built at bin.
func startReplicaOf(t *testing.T, bin, name string, env ...string) *replica {
	t.Helper()
	r := &replica{name: name, bin: bin, addr: freeAddr(t), env: env}
	r.start(t)
	t.Cleanup(r.kill)
	return r
}

// start runs the process and waits until it is ready.
func (r *replica) start(t *testing.T) {
	t.Helper()
	for tries := 0; ; tries++ {
		cmd := exec.Command(r.bin)
		cmd.Env = append(append(os.Environ(), "LISTEN_ADDR="+r.addr, "LOG_LEVEL=error"), r.env...)
		stderr := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		r.mu.Lock()
		r.cmd, r.done, r.stderr = cmd, done, stderr
		r.mu.Unlock()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-done:
				// Its address was taken by another test's process in the
				// meantime: another one.
				if strings.Contains(stderr.String(), "address already in use") && tries < 3 {
					r.addr = freeAddr(t)
					goto again
				}
				t.Fatalf("replica %s exited before it was ready:\n%s", r.name, stderr)
			default:
			}
			if readyz(r.addr) == http.StatusOK {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("replica %s not ready within 60s:\n%s", r.name, stderr)
	again:
	}
}

// kill sends SIGKILL (no shutdown at all) and waits for the process to go.
func (r *replica) kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// roundRobin is the load balancer: each request to the next replica it
// believes up, in turn. It reads nothing of the requests. A replica that
// fails a request is taken out until its /readyz answers again (nginx's
// passive check with max_fails=1, and an active health check every 100
// ms); a request it could not connect to goes to the next replica
// (nothing of it was sent), and one cut after it reached a replica is
// answered 502, for the client to retry.
type roundRobin struct {
	addr     string
	backends []*replica
	down     []atomic.Bool
	next     atomic.Uint64
	rt       http.RoundTripper
}

func startRoundRobin(t *testing.T, backends []*replica) *roundRobin {
	t.Helper()
	lb := &roundRobin{backends: backends, down: make([]atomic.Bool, len(backends)),
		rt: &http.Transport{MaxIdleConnsPerHost: 64, ResponseHeaderTimeout: 30 * time.Second}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = "http", "replicas", ""
		},
		Transport: lb,
		ErrorLog:  log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, err.Error())
		},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(l)
	stop := make(chan struct{})
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for i, b := range lb.backends {
				lb.down[i].Store(readyz(b.addr) != http.StatusOK)
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-checked
		srv.Close()
	})
	lb.addr = l.Addr().String()
	return lb
}

// RoundTrip sends r to the next replica up, and to the one after when it
// cannot connect.
func (lb *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body.Close()
	}
	var err error
	for range lb.backends {
		i := lb.pick()
		out := r.Clone(r.Context())
		out.URL.Host = lb.backends[i].addr
		out.Body = io.NopCloser(bytes.NewReader(body))
		var res *http.Response
		if res, err = lb.rt.RoundTrip(out); err == nil {
			return res, nil
		}
		// Out until its health check passes again, as nginx's passive
		// check (max_fails=1) takes an upstream out on its first error.
		lb.down[i].Store(true)
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			return nil, err
		}
	}
	return nil, err
}

// pick is the next replica in turn that is not known to be down; every
// one in turn when all are.
func (lb *roundRobin) pick() int {
	n := len(lb.backends)
	for range n {
		i := int(lb.next.Add(1) % uint64(n))
		if !lb.down[i].Load() {
			return i
		}
	}
	return int(lb.next.Add(1) % uint64(n))
}

// replicaCall is one JSON-RPC exchange with its outcome.
type replicaCall struct {
	status int
	body   string // the JSON-RPC message (an event stream's data)
	err    error
}

// failed says the call got no JSON-RPC answer: cut, refused, a gateway
// error, or an HTTP error on our side. A tool's own refusal is an answer.
func (c replicaCall) failed() bool {
	return c.err != nil || c.status != http.StatusOK || !strings.HasPrefix(c.body, "{") || strings.Contains(c.body, `"error":{`)
}

func (c replicaCall) String() string {
	if c.err != nil {
		return c.err.Error()
	}
	return fmt.Sprintf("%d %.300s", c.status, c.body)
}

// replicaClient is one MCP client of one revision: a token, its session,
// and what it counted.
type replicaClient struct {
	rev, token, session string
	// opened says the handshake is done: every request after it names
	// the revision.
	opened         bool
	calls, retries int
	failedTwice    []string
}

var replicaHTTP = &http.Client{Timeout: 30 * time.Second}

// post sends one message to addr with the client's headers.
func (c *replicaClient) post(addr string, msg any) (replicaCall, http.Header) {
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.opened {
		req.Header.Set("Mcp-Protocol-Version", c.rev)
	}
	res, err := replicaHTTP.Do(req)
	if err != nil {
		return replicaCall{err: err}, nil
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	out := replicaCall{status: res.StatusCode, body: string(raw), err: err}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(out.body))
		sc.Buffer(nil, 16<<20)
		out.body = ""
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out.body = line
			}
		}
	}
	return out, res.Header
}

// open initializes the client's session through addr.
func (c *replicaClient) open(t *testing.T, addr string) {
	t.Helper()
	for try := 0; try < 2; try++ {
		res, h := c.post(addr, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
			"params": map[string]any{"protocolVersion": c.rev, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "replicas", "version": "1"}}})
		if res.failed() {
			continue
		}
		if !strings.Contains(res.body, `"protocolVersion":"`+c.rev+`"`) {
			t.Fatalf("initialize on %s did not agree on %s: %s", c.rev, c.rev, res)
		}
		c.session, c.opened = h.Get("Mcp-Session-Id"), true
		if res, _ := c.post(addr, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); res.err != nil || res.status != http.StatusAccepted {
			continue
		}
		return
	}
	t.Fatalf("initialize through %s failed twice", addr)
}

// call calls tool through addr, and once more when the first try got no
// answer, as a client retries (the balancer sends the retry to the next
// replica).
func (c *replicaClient) call(addr, tool string, args map[string]any) replicaCall {
	msg := c.message(tool, args)
	res, _ := c.post(addr, msg)
	if !res.failed() {
		return res
	}
	c.retries++
	first := res
	if res, _ = c.post(addr, msg); res.failed() {
		c.failedTwice = append(c.failedTwice, fmt.Sprintf("%s: %s, then %s", orList(tool), first, res))
	}
	return res
}

// message is a call of tool with args, or tools/list when tool is empty.
func (c *replicaClient) message(tool string, args map[string]any) map[string]any {
	c.calls++
	if tool == "" {
		return map[string]any{"jsonrpc": "2.0", "id": c.calls + 1, "method": "tools/list"}
	}
	return map[string]any{"jsonrpc": "2.0", "id": c.calls + 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
}

func orList(tool string) string {
	if tool == "" {
		return "tools/list"
	}
	return tool
}

// A session that the server no longer knows is answered 404: lost.
func sessionLost(res replicaCall) bool { return res.err == nil && res.status == http.StatusNotFound }

// replicaCampaignSQL inserts, for workspace $1 at time $2, a sender, a
// sandbox domain and its two mailboxes, an approved one-step sequence and
// campaign cp_00000000000000a1 of one lead, scheduled a month from now, as
// a launch leaves them.
func replicaCampaignSQL(domain string) []string {
	sqls := []string{
		`INSERT INTO workspace_senders (workspace_id, postal_address, sender_name, time_zone, updated_at) VALUES ($1, 'Acme Sales, 1 Market St, San Francisco', 'Sam Lee', 'UTC', $2)`,
		`INSERT INTO sending_domains (workspace_id, domain, origin, status, currency, yearly_cents, mailbox_cents, card, chosen_at, provider, ordered_at, ready_at)
		 VALUES ($1, 'getacme.test', 'new', 'ordered', 'USD', 1500, 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days')`,
		`INSERT INTO sending_mailboxes (workspace_id, address, domain, sender_name, status, prewarmed, currency, monthly_cents, card, planned_at, provider, ordered_at, ready_at, warmup_started_at)
		 SELECT $1, a, 'getacme.test', 'Sam Lee', 'warming', false, 'USD', 500, 'card', $2::timestamptz - interval '60 days', 'sandbox', $2::timestamptz - interval '60 days', $2::timestamptz - interval '60 days', $2::timestamptz - interval '59 days'
		   FROM unnest('{sam@getacme.test,kai@getacme.test}'::text[]) AS a`,
		`INSERT INTO sequence_versions (workspace_id, sequence_id, version, name, steps, created_at, approved_at, approved_by)
		 VALUES ($1, 'sq_00000000000000a1', 1, 'Lists', '[{"subject": "Lists at {{company|your team}}", "body": "Hi {{first_name|there}},\n\nA short question.\n\nSam", "waitBusinessDays": 0, "sameThread": false}]', $2, $2, 'ada')`,
		`INSERT INTO campaigns (workspace_id, id, name, sequence_id, sequence_version, mailboxes, window_start, window_end, days, daily_cap, stop_for_company, status, created_at, launched_at, first_send_at)
		 VALUES ($1, 'cp_00000000000000a1', 'Heads of sales', 'sq_00000000000000a1', 1, '{sam@getacme.test,kai@getacme.test}', 0, 1440, '{1,2,3,4,5,6,7}', 10, false, 'scheduled', $2, $2, $2::timestamptz + interval '30 days')`,
		`INSERT INTO campaign_leads (workspace_id, campaign_id, lead_id, email, fields, time_zone)
		 SELECT $1, 'cp_00000000000000a1', 1, 'ana@alpha.test', '{"first_name": "Ana", "company": "Alpha"}', '' WHERE $2::timestamptz IS NOT NULL`,
	}
	for i, sql := range sqls {
		sqls[i] = strings.ReplaceAll(sql, "getacme.test", domain)
	}
	return sqls
}

// structured reads a tool result's structured content, or its refusal.
func structured(res replicaCall) (out map[string]any, refusal string) {
	var m struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
			Content           []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(res.body), &m) != nil {
		return nil, ""
	}
	if m.Result.IsError {
		if len(m.Result.Content) == 0 {
			return nil, "(no text)"
		}
		return nil, m.Result.Content[0].Text
	}
	return m.Result.StructuredContent, ""
}

// Three replicas on one database behind a round-robin balancer, 50
// clients going through the journey's calls (each session used on every
// replica in turn), one replica killed with SIGKILL mid-run and started
// again: every call that failed succeeds on its one retry, no
// acknowledged write is lost, no card is answered twice, no approval
// decided or carried out twice, no session is lost, and a change made
// through one replica shows on the others within a second.
func TestSuiteReplicasBehindRoundRobin(t *testing.T) {
	for _, rev := range replicaRevisions {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			replicasUnderLoad(t, rev)
		})
	}
}

func replicasUnderLoad(t *testing.T, rev string) {
	ctx := context.Background()
	dbURL := storetest.NewURL(t)
	pool := connect(t, dbURL)
	const clients = 50
	workspaces := suiteSize(10, 25)
	duration := suiteSize(10*time.Second, 90*time.Second)
	kills := suiteSize(1, 4)
	tokens := make([]string, workspaces)
	wsIDs := make([]any, workspaces)
	for i := range tokens {
		ws, token := workspaceWithToken(t, pool, fmt.Sprintf("Replicas %d", i))
		tokens[i], wsIDs[i] = token, ws.ID
		for _, sql := range replicaCampaignSQL(fmt.Sprintf("w%d.test", i)) {
			if _, err := pool.Exec(ctx, sql, ws.ID, time.Now()); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	_, probeToken := workspaceWithToken(t, pool, "Replicas cache probe")
	env := "DATABASE_URL=" + dbURL
	replicas := []*replica{startReplica(t, "A", env), startReplica(t, "B", env), startReplica(t, "C", env)}
	lb := startRoundRobin(t, replicas)

	offer := func(product string) map[string]any {
		return map[string]any{"companyName": "Acme", "companyDomain": "acme.com", "product": product,
			"audience": "Coyotes", "value": "Catch the bird", "callToAction": "Book a demo"}
	}
	cs := make([]*replicaClient, clients)
	for i := range cs {
		cs[i] = &replicaClient{rev: rev, token: tokens[i%workspaces]}
		cs[i].open(t, lb.addr)
	}
	for i := range workspaces {
		if res := cs[i].call(lb.addr, "save_offer", offer("Anvils")); res.failed() {
			t.Fatalf("save_offer: %s", res)
		}
	}

	// What the clients were told, to check against the database after.
	var (
		mu           sync.Mutex
		remembered   = map[string]bool{} // facts acknowledged
		cardTaken    = map[string]map[string]bool{}
		decided      = map[string]bool{} // approvals a client was told are decided
		sessionsLost int
		refusedCards int
		refusedDecs  int
		cardOther    = tally{}
		lastCard     = map[int]string{}
	)
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			choice := []string{"own_names", "already_warmed"}[i/workspaces%2]
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				note := func(res replicaCall) replicaCall {
					if sessionLost(res) {
						mu.Lock()
						sessionsLost++
						mu.Unlock()
					}
					return res
				}
				note(c.call(lb.addr, "", nil))
				note(c.call(lb.addr, "get_workspace_context", map[string]any{}))
				fact := fmt.Sprintf("client %d fact %d", i, k)
				if res := note(c.call(lb.addr, "remember", map[string]any{"fact": fact})); !res.failed() && strings.Contains(res.body, "Remembered") {
					mu.Lock()
					remembered[fact] = true
					mu.Unlock()
				}
				// Each client answers the card it was asked, then the card
				// another client of its workspace was asked last, half of
				// them one way and half the other.
				answer := func(card string) {
					res := note(c.call(lb.addr, "choose_sending_source", map[string]any{"answers": []any{map[string]any{"card": card, "answer": choice}}}))
					a, refusal := structured(res)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case a != nil && a["kind"] == "sending_choice":
						// The answers the call settled, card by card (what
						// it chose may be a later card's answer on record).
						settled, _ := a["answers"].([]any)
						for _, s := range settled {
							s, _ := s.(map[string]any)
							id, _ := s["card"].(string)
							if cardTaken[id] == nil {
								cardTaken[id] = map[string]bool{}
							}
							cardTaken[id][fmt.Sprint(s["answer"])] = true
						}
					case strings.Contains(refusal, "already has the answer"):
						refusedCards++
					default:
						cardOther[fmt.Sprintf("%.80s", refusal)]++
					}
				}
				if q, _ := structured(note(c.call(lb.addr, "choose_sending_source", map[string]any{}))); q != nil && q["card"] != nil {
					mine := q["card"].(string)
					mu.Lock()
					other := lastCard[i%workspaces]
					lastCard[i%workspaces] = mine
					mu.Unlock()
					answer(mine)
					if other != "" {
						answer(other)
					}
				}
				// And stop or resume its campaign: one approval however
				// many ask at once, approved by all of them.
				ap, _ := structured(note(c.call(lb.addr, "stop_campaign", map[string]any{"campaign": "cp_00000000000000a1"})))
				if ap == nil {
					ap, _ = structured(note(c.call(lb.addr, "resume_campaign", map[string]any{"campaign": "cp_00000000000000a1"})))
				}
				if id, _ := ap["approval"].(string); id != "" {
					d, refusal := structured(note(c.call(lb.addr, "decide_approval", map[string]any{"approval": id, "decision": "approve"})))
					mu.Lock()
					if d != nil && d["decidedAt"] != nil {
						decided[id] = true
					} else if strings.Contains(refusal, "already approved") {
						refusedDecs++
					}
					mu.Unlock()
				}
			}
		})
	}

	// The caches: a change through one replica, read from the two
	// others until it shows: it must show on a read begun within a second
	// of the change.
	prober := &replicaClient{rev: rev, token: probeToken}
	prober.open(t, replicas[0].addr)
	var lags []time.Duration
	var slow []string
	probes := 0
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			from := replicas[n%3]
			product := fmt.Sprintf("Anvils %d", n)
			if res, _ := prober.post(from.addr, prober.message("save_offer", offer(product))); res.failed() {
				continue // its replica is down: no change made
			}
			changed := time.Now()
			for _, other := range []*replica{replicas[(n+1)%3], replicas[(n+2)%3]} {
				// A read that starts a second after the change must show
				// it; the lag is when the first read that shows it started.
				for {
					began := time.Now()
					res, _ := prober.post(other.addr, prober.message("get_workspace_context", map[string]any{}))
					if res.failed() {
						break // down: nothing to compare
					}
					if strings.Contains(res.body, "Sells: "+product+`\n`) {
						lags = append(lags, began.Sub(changed))
						break
					}
					if began.Sub(changed) > time.Second {
						slow = append(slow, fmt.Sprintf("%s: a read begun %s after the change on another replica does not show it", other.name, began.Sub(changed).Round(time.Millisecond)))
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			probes++
		}
	}()

	// The kills: each once the clients have written for a while, each
	// replica in turn, started again a second later.
	killed := 0
	for k := range kills {
		time.Sleep(time.Until(start.Add(duration * time.Duration(k+1) / time.Duration(kills+1))))
		victim := replicas[(k+1)%3]
		victim.kill()
		killed++
		time.Sleep(time.Second)
		victim.start(t)
	}
	time.Sleep(time.Until(start.Add(duration)))
	close(stop)
	wg.Wait()
	<-probeDone
	elapsed := time.Since(start)

	// Read back: every acknowledged fact is stored.
	rows, err := pool.Query(ctx, `SELECT fact FROM memories WHERE workspace_id = ANY($1)`, wsIDs)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, f := range facts {
		stored[f] = true
	}
	lost := 0
	for f := range remembered {
		if !stored[f] {
			lost++
			t.Errorf("acknowledged but not stored: %s", f)
		}
	}
	// Every card has one answer, the one every client told it was taken
	// was told.
	cardsAnswered, answeredTwice := 0, 0
	for card, answers := range cardTaken {
		var answer string
		if err := pool.QueryRow(ctx, `SELECT coalesce(answer, '') FROM choice_cards WHERE id = $1`, card).Scan(&answer); err != nil {
			t.Fatal(err)
		}
		cardsAnswered++
		if len(answers) > 1 {
			answeredTwice++
		}
		if len(answers) != 1 || !answers[answer] {
			t.Errorf("card %s: clients were told it took %v; it holds %q", card, answers, answer)
		}
	}
	// Every approval decided once and carried out once.
	var approvalsDecided, approvalsExecuted, decidedTwice, executedTwice, unfinished int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE decisions = 1), count(*) FILTER (WHERE executions = 1),
		count(*) FILTER (WHERE decisions > 1), count(*) FILTER (WHERE executions > 1), count(*) FILTER (WHERE status IN ('approved', 'executing'))
		FROM (SELECT a.status, (SELECT count(*) FROM approval_events e WHERE e.workspace_id = a.workspace_id AND e.approval_id = a.id AND e.event IN ('approved', 'rejected')) AS decisions,
		             (SELECT count(*) FROM approval_events e WHERE e.workspace_id = a.workspace_id AND e.approval_id = a.id AND e.event = 'executing') AS executions
		        FROM approvals a WHERE a.workspace_id = ANY($1)) x`, wsIDs).Scan(&approvalsDecided, &approvalsExecuted, &decidedTwice, &executedTwice, &unfinished); err != nil {
		t.Fatal(err)
	}
	if decidedTwice+executedTwice > 0 {
		t.Errorf("%d approvals decided twice, %d carried out twice", decidedTwice, executedTwice)
	}
	for id := range decided {
		var status string
		if err := pool.QueryRow(ctx, `SELECT status FROM approvals WHERE id = $1`, id).Scan(&status); err != nil || status == "pending" {
			t.Errorf("approval %s: a client was told it was decided; it is %q (%v)", id, status, err)
		}
	}
	calls, retries := 0, 0
	var failedTwice []string
	for _, c := range cs {
		calls, retries = calls+c.calls, retries+c.retries
		failedTwice = append(failedTwice, c.failedTwice...)
	}
	for _, f := range failedTwice {
		t.Errorf("failed on its retry too: %s", f)
	}
	if sessionsLost > 0 {
		t.Errorf("%d calls were answered 404: a session was lost", sessionsLost)
	}
	var worst time.Duration
	for _, l := range lags {
		worst = max(worst, l)
	}
	for _, s := range slow {
		t.Errorf("caches: %s", s)
	}
	if worst > time.Second {
		t.Errorf("caches: a change first showed on a read begun %s after it, want within 1s", worst)
	}
	if len(remembered) == 0 || len(lags) == 0 || approvalsDecided == 0 || cardsAnswered == 0 {
		t.Fatalf("the run measured nothing: %d facts, %d cache reads, %d approvals, %d cards", len(remembered), len(lags), approvalsDecided, cardsAnswered)
	}
	t.Logf("%s: 3 replicas behind round-robin, %d clients in %d workspaces for %s, %d kill(s) with SIGKILL: %d calls, %d retried, %d failed on the retry; "+
		"%d writes acknowledged, %d lost; %d cards answered (%d later answers refused), answered twice: %d; %d approvals decided and %d carried out once each "+
		"(%d later decisions refused, %d still being carried out), twice: %d; sessions lost: %d; %d changes read on the other replicas (%d reads), the slowest first shown by a read begun %s after it",
		rev, clients, workspaces, elapsed.Round(100*time.Millisecond), killed, calls, retries, len(failedTwice),
		len(remembered), lost, cardsAnswered, refusedCards, answeredTwice, approvalsDecided, approvalsExecuted, refusedDecs, unfinished, decidedTwice+executedTwice,
		sessionsLost, probes, len(lags), worst.Round(time.Millisecond))
	if len(cardOther) > 0 {
		t.Logf("%s: card answers that were neither taken nor refused as already answered: %s", rev, cardOther)
	}
}
