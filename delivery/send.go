package delivery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	gomail "github.com/wneessen/go-mail"

	"vibesell"
	"vibesell/campaigns"
	"vibesell/mail"
	"vibesell/store"
)

// Ledger statuses of a send; see migrations/00100_mail.sql.
const (
	StatusClaimed = "claimed"
	StatusSending = "sending"
	StatusSent    = "sent"
	StatusFailed  = "failed"
	StatusUnknown = "unknown"
	// StatusLost is a step a worker marked sending and stopped before
	// writing what happened: whether it left is not known ("not sent
	// (unknown)"). It is never sent again, and never counted as sent or
	// delivered; see [Dispatcher.SettleLost].
	StatusLost = "lost"
)

// Step names one email of a campaign to one lead: the ledger's key.
type Step struct {
	WorkspaceID uuid.UUID
	CampaignID  string // cp_…
	LeadID      int64
	Step        int
}

// Gate has the last word on the steps of a batch, in the transaction that
// claims them: the campaign still running, the leads not stopped, the
// plan's limit. Work it does in tx (a limit's count) commits with the
// claim, or not at all.
type Gate interface {
	// Check runs before the claim: a hold for each step (nil: it may go).
	Check(ctx context.Context, tx pgx.Tx, outs []Outgoing) ([]*Held, error)
	// Claimed runs after the claim with the steps actually claimed. A
	// *[Held] error holds every one of them back (the claim rolls back).
	Claimed(ctx context.Context, tx pgx.Tx, outs []Outgoing) error
	// Stopped is read again right before each step's DATA, in the
	// transaction that marks it sending, since a stop may come after the
	// claim: of the campaign ids of workspace ws, those whose steps must
	// not go out any more. It should lock what it reads for share in tx,
	// so that a stop in flight is waited for, and one after waits for the
	// mark to commit.
	Stopped(ctx context.Context, tx pgx.Tx, ws uuid.UUID, campaignIDs []string) (map[string]bool, error)
	// Removed is read in the same transaction: of the (campaign, lead)
	// pairs of workspace ws, those whose lead must get nothing more (a
	// person removed it). It should lock what it reads for share, as
	// Stopped.
	Removed(ctx context.Context, tx pgx.Tx, ws uuid.UUID, pairs []campaigns.CampaignLead) (map[campaigns.CampaignLead]bool, error)
}

// Held is a step a [Gate] held back, and why.
type Held struct {
	Reason string
	// Stop says nothing more should go out of the step's campaign (it is
	// not running, or the plan's limit is reached), as opposed to this one
	// step being held (the lead replied).
	Stop bool
	// Pause, when set, is why the campaign must be paused (automatically).
	Pause string
}

func (h *Held) Error() string { return "held back: " + h.Reason }

// Outgoing is a step ready to go: the mailbox it leaves from and the
// message. The message's Message-ID is the ledger's, not the caller's.
type Outgoing struct {
	Step
	Mailbox mail.Account
	Message mail.Message
}

// SendResult is what one call of [Dispatcher.Send] did.
type SendResult struct {
	MessageID string
	// Status is the ledger's status after the call.
	Status string
	// Duplicate says the step was already claimed (sent, being sent, or
	// lost in the crash window) and nothing was sent by this call.
	Duplicate bool
	// Suppressed says the recipient is on the workspace's suppression list
	// and nothing was claimed or sent.
	Suppressed bool
	// Held is the gate's reason when it held the step back; nothing was
	// claimed or sent.
	Held *Held
}

// Dispatcher sends a campaign step at most once: it claims the step's ledger
// row (committed) before the message is handed to the SMTP server, and
// records the outcome after.
type Dispatcher struct {
	db         *pgxpool.Pool
	keys       *mail.Keys
	suppressor mail.Suppressor
	clock      vibesell.Clock
	timeout    time.Duration
	// ahead is how many steps of one session may be marked sending and
	// not yet handed over (the one in DATA included).
	ahead int
	// afterClaim, set by tests only, runs when a chunk's claim has
	// committed and before any of its steps is marked.
	afterClaim func()
}

// DispatcherDeps is what the send primitive needs.
type DispatcherDeps struct {
	DB *pgxpool.Pool
	// Keys signs each message with its domain's DKIM key.
	Keys *mail.Keys
	// Suppressor says which addresses are never sent to.
	Suppressor mail.Suppressor
	// Clock is nil for the system's.
	Clock vibesell.Clock
}

// NewDispatcher returns the send primitive.
func NewDispatcher(d DispatcherDeps) *Dispatcher {
	clock := d.Clock
	if clock == nil {
		clock = vibesell.SystemClock{}
	}
	return &Dispatcher{db: d.DB, keys: d.Keys, suppressor: d.Suppressor, clock: clock, timeout: 30 * time.Second, ahead: MarkAhead}
}

// MarkAhead is how many steps of one SMTP session may be marked sending
// and not yet handed over, the one in DATA included: the most a worker
// that dies loses per session. Marking is a committed round trip to
// PostgreSQL (a WAL flush) and handing a message over is much less: the
// steps composed while one mark commits are marked together by the next,
// so a slow flush marks more at a time instead of holding every message
// up by its length.
const MarkAhead = 4

// Send sends the step unless it was already claimed. An error is returned
// when the outcome could not be settled as sent; the ledger row then says
// whether a retry may send it (failed) or must not (unknown, sending).
func (s *Dispatcher) Send(ctx context.Context, out Outgoing) (SendResult, error) {
	results, err := s.SendBatch(ctx, []Outgoing{out})
	if len(results) == 0 {
		return SendResult{}, err
	}
	return results[0], err
}

// SendBatch is [Dispatcher.SendGated] with no gate.
func (s *Dispatcher) SendBatch(ctx context.Context, outs []Outgoing) ([]SendResult, error) {
	return s.SendGated(ctx, outs, nil)
}

// ClaimLease is how long a claimed step may wait to be handed over: a
// step claimed longer ago was left by a worker that stopped, and
// [Dispatcher.ReleaseStale] lets it be claimed again.
const ClaimLease = 10 * time.Minute

// claimChunk is how many steps one transaction claims.
const claimChunk = 50

// SendGated sends steps that leave from one mailbox over one SMTP session,
// in order. The steps are claimed a chunk at a time, in one transaction
// with gate (status claimed), the next chunk while one is sent; each is
// marked sending, committed, before its message is handed over (see
// [Dispatcher.handOver]), and the chunk's outcomes are settled together. It
// stops at the first step that fails and returns the results of the steps
// it reached (the steps claimed or marked after it, never handed over,
// are released as failed); running the batch again sends only what was
// not claimed, or failed before it was handed over.
func (s *Dispatcher) SendGated(ctx context.Context, outs []Outgoing, gate Gate) ([]SendResult, error) {
	if len(outs) == 0 {
		return nil, nil
	}
	for _, out := range outs[1:] {
		if out.Mailbox.SMTP.Addr != outs[0].Mailbox.SMTP.Addr || out.Mailbox.SMTP.Username != outs[0].Mailbox.SMTP.Username ||
			out.WorkspaceID != outs[0].WorkspaceID {
			return nil, errors.New("send batch: every step of a batch leaves from the same mailbox")
		}
	}
	session := &smtpSession{endpoint: outs[0].Mailbox.SMTP, own: outs[0].Mailbox.Own, timeout: s.timeout}
	defer session.close()
	results := make([]SendResult, 0, len(outs))
	// The next chunk is claimed while this one is sent: its gate is read
	// one chunk before its first message goes.
	claimAsync := func(chunk []Outgoing) <-chan claimedChunk {
		next := make(chan claimedChunk, 1)
		go func() { next <- s.claimChunk(ctx, chunk, gate) }()
		return next
	}
	chunkAt := func(start int) []Outgoing { return outs[start:min(start+claimChunk, len(outs))] }
	next := claimAsync(chunkAt(0))
	for start := 0; start < len(outs); start += claimChunk {
		chunk := chunkAt(start)
		cc := <-next
		next = nil
		if !cc.stops() && start+claimChunk < len(outs) {
			next = claimAsync(chunkAt(start + claimChunk))
		}
		res, err := s.sendClaimed(ctx, session, chunk, gate, cc)
		results = append(results, res...)
		stop := err != nil
		for _, r := range res {
			stop = stop || r.Held != nil && r.Held.Stop
		}
		if stop {
			if next != nil {
				// Claimed for nothing: give the steps back at once (a claim
				// that failed committed nothing).
				ahead := <-next
				if ahead.err != nil {
					ahead.claims = nil
				}
				which := make([]int, 0, len(ahead.claims))
				for i := range ahead.claims {
					which = append(which, i)
				}
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				err = errors.Join(err, s.release(ctx, chunkAt(start+claimChunk), which, ahead.claims))
				cancel()
			}
			return results, err
		}
	}
	return results, nil
}

// SuppressedAmong is a [Suppressor] that answers for many addresses in
// one read; the sender uses it when the suppressor offers it.
type SuppressedAmong interface {
	SuppressedAmong(ctx context.Context, ws uuid.UUID, addresses []string) (map[string]bool, error)
}

// SuppressedIn is a [Suppressor] that reads the list in the caller's
// transaction: the sender then checks the suppressions in the same
// transaction as the claim.
type SuppressedIn interface {
	SuppressedIn(ctx context.Context, db store.DBTX, ws uuid.UUID, addresses []string) (map[string]bool, error)
}

// claimed is a step this call claimed, with the attempt that fences it.
type claimed struct {
	messageID string
	attempts  int
}

// claimedChunk is a chunk as its claim left it: the steps suppressed or
// held, and those claimed.
type claimedChunk struct {
	results []SendResult
	claims  map[int]claimed
	tried   int
	err     error
}

// stops says nothing after this chunk may go (its campaign stopped).
func (cc claimedChunk) stops() bool {
	if cc.err != nil {
		return true
	}
	for _, r := range cc.results {
		if r.Held != nil && r.Held.Stop {
			return true
		}
	}
	return false
}

func (s *Dispatcher) sendChunk(ctx context.Context, session *smtpSession, outs []Outgoing, gate Gate) ([]SendResult, error) {
	return s.sendClaimed(ctx, session, outs, gate, s.claimChunk(ctx, outs, gate))
}

// claimChunk checks the chunk's recipients against the suppression list
// and claims the rest, with the gate.
func (s *Dispatcher) claimChunk(ctx context.Context, outs []Outgoing, gate Gate) claimedChunk {
	results := make([]SendResult, len(outs))
	if _, ok := s.suppressor.(SuppressedIn); ok {
		// Read in the claim's transaction.
	} else if among, ok := s.suppressor.(SuppressedAmong); ok && len(outs) > 1 {
		addresses := make([]string, len(outs))
		for i, out := range outs {
			addresses[i] = out.Message.To.Email
		}
		suppressed, err := among.SuppressedAmong(ctx, outs[0].WorkspaceID, addresses)
		if err != nil {
			return claimedChunk{err: fmt.Errorf("send: suppression check: %w", err)}
		}
		for i, out := range outs {
			results[i].Suppressed = suppressed[out.Message.To.Email]
		}
	} else {
		for i, out := range outs {
			suppressed, err := s.suppressor.Suppressed(ctx, out.WorkspaceID, out.Message.To.Email)
			if err != nil {
				return claimedChunk{err: fmt.Errorf("send: suppression check: %w", err)}
			}
			results[i].Suppressed = suppressed
		}
	}
	claims, tried, err := s.claim(ctx, outs, results, gate)
	if err == nil && s.afterClaim != nil {
		s.afterClaim()
	}
	return claimedChunk{results: results, claims: claims, tried: tried, err: err}
}

// sendClaimed sends what the chunk's claim took.
func (s *Dispatcher) sendClaimed(ctx context.Context, session *smtpSession, outs []Outgoing, gate Gate, cc claimedChunk) ([]SendResult, error) {
	results, claims, tried, err := cc.results, cc.claims, cc.tried, cc.err
	if results == nil {
		return nil, err
	}
	var held *Held
	if errors.As(err, &held) && tried > 1 {
		// The gate refused the chunk as a whole (the plan's last emails):
		// step by step, as many go as it allows.
		for i := range outs {
			if results[i].Suppressed || results[i].Held != nil {
				continue
			}
			one, err := s.sendChunk(ctx, session, outs[i:i+1], gate)
			if err != nil || len(one) == 0 {
				return results[:i], err
			}
			results[i] = one[0]
			if results[i].Held != nil && results[i].Held.Stop {
				for j := i + 1; j < len(outs); j++ {
					if !results[j].Suppressed {
						results[j].Held = results[i].Held
					}
				}
				return results, nil
			}
		}
		return results, nil
	}
	if errors.As(err, &held) {
		for i := range results {
			if !results[i].Suppressed && results[i].Held == nil {
				results[i].Held = held
			}
		}
		return results, nil
	}
	if err != nil {
		return nil, err
	}

	return s.handOver(ctx, session, outs, claims, results, gate)
}

// pending is a claimed step on its way: composed, then marked sending,
// then handed over.
type pending struct {
	i          int // in the chunk
	claim      claimed
	msg        *gomail.Msg
	composeErr error
	markErr    error
}

// handOver sends the chunk's claimed steps in order, in a pipeline: one
// goroutine composes and signs the next messages, another marks them
// sending (those composed while the mark before was being committed, in
// one statement), while this one hands the marked ones to the SMTP
// server. A step is handed over only once its mark is committed, and at
// most [Dispatcher.ahead] steps are marked and not yet handed over, which is
// the most a worker that dies loses. What was claimed and not handed over
// when a step fails is released, to be tried again.
func (s *Dispatcher) handOver(ctx context.Context, session *smtpSession, outs []Outgoing, claims map[int]claimed, results []SendResult, gate Gate) ([]SendResult, error) {
	order := make([]int, 0, len(claims))
	for i := range outs {
		if _, ok := claims[i]; ok {
			order = append(order, i)
		}
	}
	stop := make(chan struct{})
	composed, marked := make(chan *pending, s.ahead), make(chan *pending, s.ahead)
	room := make(chan struct{}, s.ahead) // one token per step marked and not handed over
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(composed)
		for _, i := range order {
			p := &pending{i: i, claim: claims[i]}
			out := outs[i]
			out.Message.MessageID = p.claim.messageID
			if out.Message.Date.IsZero() {
				out.Message.Date = s.clock.Now()
			}
			p.msg, p.composeErr = s.compose(ctx, out)
			select {
			case composed <- p:
			case <-stop:
				return
			}
		}
	})
	wg.Go(func() {
		defer close(marked)
		for {
			var batch []*pending
			select {
			case p, ok := <-composed:
				if !ok {
					return
				}
				batch = append(batch, p)
			case <-stop:
				return
			}
			select {
			case room <- struct{}{}:
			case <-stop:
				return
			}
		more:
			for len(batch) < s.ahead {
				select {
				case room <- struct{}{}:
				default:
					break more
				}
				select {
				case p, ok := <-composed:
					if ok {
						batch = append(batch, p)
						continue
					}
				default:
				}
				<-room
				break
			}
			err := s.mark(ctx, outs, batch, gate)
			for _, p := range batch {
				marked <- p // room for it was taken above
			}
			if err != nil {
				return
			}
		}
	})

	var settles []settle
	done := make(map[int]bool, len(order))
	var failed error // the step that stopped the chunk
	reached := len(outs)
	for p := range marked {
		i, out := p.i, outs[p.i]
		if errors.Is(p.markErr, errClaimed) {
			// Released and claimed again by someone else meanwhile.
			results[i] = SendResult{MessageID: p.claim.messageID, Status: StatusClaimed, Duplicate: true}
			done[i] = true
			<-room
			continue
		}
		if errors.Is(p.markErr, errCampaignStopped) {
			// Settled failed by the mark itself: nothing was sent.
			results[i] = SendResult{MessageID: p.claim.messageID, Status: StatusFailed,
				Held: &Held{Reason: "the campaign was stopped", Stop: true}}
			done[i] = true
			<-room
			continue
		}
		if errors.Is(p.markErr, errLeadRemoved) {
			// Settled failed by the mark itself: nothing was sent, and the
			// campaign's other leads go on.
			results[i] = SendResult{MessageID: p.claim.messageID, Status: StatusFailed, Held: &Held{Reason: "a person removed the lead"}}
			done[i] = true
			<-room
			continue
		}
		if p.markErr != nil {
			failed, reached = fmt.Errorf("send: mark the step sending: %w", p.markErr), i
			break
		}
		status, sendErr := StatusFailed, p.composeErr
		if p.composeErr == nil {
			status, sendErr = transmit(ctx, session, p.msg)
		}
		done[i] = true
		<-room
		settles = append(settles, settle{step: out.Step, status: status, err: sendErr})
		results[i] = SendResult{MessageID: p.claim.messageID, Status: status}
		if sendErr != nil {
			failed, reached = fmt.Errorf("send step %d to lead %d: %w", out.Step.Step, out.LeadID, sendErr), i+1
			break
		}
	}
	close(stop)
	wg.Wait()
	var rest []int // claimed, perhaps marked, never handed over
	for _, i := range order {
		if !done[i] {
			rest = append(rest, i)
		}
	}
	// The outcomes are written even when ctx has ended: the messages may
	// be out, and the ledger must say so.
	settleCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := errors.Join(s.settle(settleCtx, settles), s.release(settleCtx, outs, rest, claims))
	if err != nil {
		for i := range results {
			if done[i] && !results[i].Duplicate {
				results[i].Status = StatusSending // as the ledger has it
			}
		}
		return results[:reached], errors.Join(failed, fmt.Errorf("send: settle the ledger: %w", err))
	}
	return results[:reached], failed
}

// mark marks the batch's steps sending, in one statement; a step someone
// else claimed again meanwhile gets errClaimed, one of a campaign the
// gate says is stopped errCampaignStopped, one whose lead it says was
// removed errLeadRemoved.
func (s *Dispatcher) mark(ctx context.Context, outs []Outgoing, batch []*pending, gate Gate) error {
	n := len(batch)
	campaignIDs, leads, steps, attempts := make([]string, n), make([]int64, n), make([]int32, n), make([]int32, n)
	for j, p := range batch {
		o := outs[p.i]
		campaignIDs[j], leads[j], steps[j], attempts[j] = o.CampaignID, o.LeadID, int32(o.Step.Step), int32(p.claim.attempts)
	}
	// A campaign stopped since its steps were claimed sends none of them:
	// the gate's stop is read here, right before DATA. Such steps end
	// failed, to be claimed again if the campaign resumes.
	// So does a step whose lead a person removed since: it ends failed,
	// and the engine never claims it again (the lead is out of the
	// campaign).
	ws := outs[0].WorkspaceID
	stopping, removing := make([]bool, n), make([]bool, n)
	err := store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if gate != nil {
			var ids []string
			pairs := make([]campaigns.CampaignLead, n)
			for j := range batch {
				if !slices.Contains(ids, campaignIDs[j]) {
					ids = append(ids, campaignIDs[j])
				}
				pairs[j] = campaigns.CampaignLead{CampaignID: campaignIDs[j], LeadID: leads[j]}
			}
			stopped, err := gate.Stopped(ctx, tx, ws, ids)
			if err != nil {
				return err
			}
			removed, err := gate.Removed(ctx, tx, ws, pairs)
			if err != nil {
				return err
			}
			for j := range batch {
				stopping[j], removing[j] = stopped[campaignIDs[j]], removed[pairs[j]]
			}
		}
		rows, err := tx.Query(ctx, `WITH u AS (
				SELECT * FROM unnest($2::text[], $3::bigint[], $4::int[], $5::int[], $6::bool[], $7::bool[])
				    AS u (campaign_id, lead_id, step, attempts, stopped, removed)),
			held AS (
				UPDATE mail_sends m SET status = 'failed', settled_at = $8, error = CASE WHEN u.stopped THEN $9 ELSE $10 END
				FROM u WHERE m.workspace_id = $1 AND m.campaign_id = u.campaign_id AND m.lead_id = u.lead_id AND m.step = u.step
				  AND m.status = 'claimed' AND m.attempts = u.attempts AND (u.stopped OR u.removed)
				RETURNING m.campaign_id, m.lead_id, m.step, false AS marked, NOT u.stopped AS lead_removed),
			marked AS (
				UPDATE mail_sends m SET status = 'sending'
				FROM u WHERE m.workspace_id = $1 AND m.campaign_id = u.campaign_id AND m.lead_id = u.lead_id AND m.step = u.step
				  AND m.status = 'claimed' AND m.attempts = u.attempts AND NOT u.stopped AND NOT u.removed
				RETURNING m.campaign_id, m.lead_id, m.step, true AS marked, false AS lead_removed)
			SELECT * FROM marked UNION ALL SELECT * FROM held`, ws, campaignIDs, leads, steps, attempts, stopping, removing, s.clock.Now(),
			"not sent: its campaign was stopped after the step was claimed", RemovedAfterClaim)
		if err != nil {
			return err
		}
		return readMarks(rows, outs, batch)
	})
	if err == nil {
		return nil
	}
	for _, p := range batch {
		p.markErr = err
	}
	return err
}

// readMarks reads what the mark did to each step of the batch.
func readMarks(rows pgx.Rows, outs []Outgoing, batch []*pending) error {
	outcome := make(map[stepKey]bool, len(batch)) // true: marked; false: held
	leadRemoved := make(map[stepKey]bool)
	var (
		k               stepKey
		marked, removed bool
	)
	if _, err := pgx.ForEachRow(rows, []any{&k.campaign, &k.lead, &k.step, &marked, &removed}, func() error {
		outcome[k], leadRemoved[k] = marked, removed
		return nil
	}); err != nil {
		return err
	}
	for _, p := range batch {
		o := outs[p.i]
		key := stepKey{o.CampaignID, o.LeadID, o.Step.Step}
		switch marked, found := outcome[key]; {
		case !found:
			p.markErr = errClaimed
		case !marked && leadRemoved[key]:
			p.markErr = errLeadRemoved
		case !marked:
			p.markErr = errCampaignStopped
		}
	}
	return nil
}

// stepKey names a step within a workspace.
type stepKey struct {
	campaign string
	lead     int64
	step     int
}

// settle is one step's outcome, to write.
type settle struct {
	step   Step
	status string
	err    error
}

// settle writes the outcomes of a chunk in one statement.
func (s *Dispatcher) settle(ctx context.Context, settles []settle) error {
	if len(settles) == 0 {
		return nil
	}
	campaigns, leads, steps, statuses, errs := make([]string, len(settles)), make([]int64, len(settles)), make([]int32, len(settles)), make([]string, len(settles)), make([]string, len(settles))
	for i, st := range settles {
		campaigns[i], leads[i], steps[i], statuses[i] = st.step.CampaignID, st.step.LeadID, int32(st.step.Step), st.status
		if st.err != nil {
			errs[i] = st.err.Error()
		}
	}
	_, err := s.db.Exec(ctx, `UPDATE mail_sends m SET status = u.status, error = NULLIF(u.error, ''), settled_at = $2
		FROM unnest($3::text[], $4::bigint[], $5::int[], $6::text[], $7::text[]) AS u (campaign_id, lead_id, step, status, error)
		WHERE m.workspace_id = $1 AND m.campaign_id = u.campaign_id AND m.lead_id = u.lead_id AND m.step = u.step AND m.status = 'sending'`,
		settles[0].step.WorkspaceID, s.clock.Now(), campaigns, leads, steps, statuses, errs)
	return err
}

// release gives back the steps this call claimed and did not hand over
// (marked sending or not), as failed, so that a retry claims them again
// at once. The attempt fences them: a step whose claim ended and was
// taken again is someone else's.
func (s *Dispatcher) release(ctx context.Context, outs []Outgoing, which []int, claims map[int]claimed) error {
	if len(which) == 0 {
		return nil
	}
	n := len(which)
	campaigns, leads, steps, attempts := make([]string, n), make([]int64, n), make([]int32, n), make([]int32, n)
	for j, i := range which {
		o := outs[i]
		campaigns[j], leads[j], steps[j], attempts[j] = o.CampaignID, o.LeadID, int32(o.Step.Step), int32(claims[i].attempts)
	}
	if _, err := s.db.Exec(ctx, `UPDATE mail_sends m SET status = 'failed', error = 'not sent: an earlier message of its batch failed', settled_at = $2
		FROM unnest($3::text[], $4::bigint[], $5::int[], $6::int[]) AS u (campaign_id, lead_id, step, attempts)
		WHERE m.workspace_id = $1 AND m.campaign_id = u.campaign_id AND m.lead_id = u.lead_id AND m.step = u.step
		  AND m.status IN ('claimed', 'sending') AND m.attempts = u.attempts`,
		outs[0].WorkspaceID, s.clock.Now(), campaigns, leads, steps, attempts); err != nil {
		return fmt.Errorf("send: release the claimed steps: %w", err)
	}
	return nil
}

// ReleaseStale releases, in every workspace, the steps claimed longer
// than [ClaimLease] ago and never marked sending: a worker claimed them
// and stopped before handing them over, so nothing went out. They become
// failed, to be tried again.
func (s *Dispatcher) ReleaseStale(ctx context.Context) (int, error) {
	now := s.clock.Now()
	tag, err := s.db.Exec(ctx, `UPDATE mail_sends SET status = 'failed', error = 'claimed by a worker that stopped before sending it', settled_at = $1
		WHERE status = 'claimed' AND claimed_at < $2`, now, now.Add(-ClaimLease))
	if err != nil {
		return 0, fmt.Errorf("release stale claims: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// SendingLease is how long a step may stay marked sending: twice the
// longest a tick may run (AddWorkers), so that a step still sending
// this long was left by a worker that stopped.
const SendingLease = 20 * time.Minute

// SettleLost settles, in every workspace, the steps marked sending longer
// than [SendingLease] ago: the worker that marked them stopped before
// writing their outcome (killed between the mark and DATA, or in DATA, or
// before its chunk was settled), so whether each left is not known. They
// become lost ("not sent (unknown)"): never sent again (at most once), and
// never counted as sent or delivered. It returns how many it settled.
func (s *Dispatcher) SettleLost(ctx context.Context) (int, error) {
	now := s.clock.Now()
	tag, err := s.db.Exec(ctx, `UPDATE mail_sends SET status = 'lost', settled_at = $1,
		error = 'not known to have been sent: the worker sending it stopped before recording what happened'
		WHERE status = 'sending' AND claimed_at < $2`, now, now.Add(-SendingLease))
	if err != nil {
		return 0, fmt.Errorf("settle lost sends: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// claim takes the chunk's ledger rows that are new or failed (refused
// before anything was handed over, so sending them again cannot
// duplicate them), in one transaction with the gate. A row someone else
// has is not sent: its result says so.
func (s *Dispatcher) claim(ctx context.Context, outs []Outgoing, results []SendResult, gate Gate) (claims map[int]claimed, tried int, err error) {
	var candidates []int
	for i := range outs {
		if !results[i].Suppressed {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 0 {
		return nil, 0, nil
	}
	claims = map[int]claimed{}
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if in, ok := s.suppressor.(SuppressedIn); ok {
			addresses := make([]string, len(candidates))
			for j, i := range candidates {
				addresses[j] = outs[i].Message.To.Email
			}
			suppressed, err := in.SuppressedIn(ctx, tx, outs[0].WorkspaceID, addresses)
			if err != nil {
				return fmt.Errorf("send: suppression check: %w", err)
			}
			kept := candidates[:0:0]
			for _, i := range candidates {
				if results[i].Suppressed = suppressed[outs[i].Message.To.Email]; !results[i].Suppressed {
					kept = append(kept, i)
				}
			}
			candidates = kept
			if len(candidates) == 0 {
				return nil
			}
		}
		var going []int
		if gate != nil {
			list := make([]Outgoing, len(candidates))
			for j, i := range candidates {
				list[j] = outs[i]
			}
			holds, err := gate.Check(ctx, tx, list)
			if err != nil {
				return err
			}
			for j, i := range candidates {
				if holds[j] != nil {
					results[i].Held = holds[j]
				} else {
					going = append(going, i)
				}
			}
		} else {
			going = candidates
		}
		if len(going) == 0 {
			return nil
		}
		n := len(going)
		campaigns, leads, steps, ids, mailboxes, recipients := make([]string, n), make([]int64, n), make([]int32, n), make([]string, n), make([]string, n), make([]string, n)
		for j, i := range going {
			o := outs[i]
			campaigns[j], leads[j], steps[j] = o.CampaignID, o.LeadID, int32(o.Step.Step)
			ids[j], mailboxes[j], recipients[j] = mail.NewMessageID(o.Mailbox.Address.Email), strings.ToLower(o.Mailbox.Address.Email), o.Message.To.Email
		}
		rows, err := tx.Query(ctx, `
			INSERT INTO mail_sends (workspace_id, campaign_id, lead_id, step, message_id, mailbox, recipient, status, claimed_at)
			SELECT $1, c, l, st, m, mb, r, 'claimed', $2
			  FROM unnest($3::text[], $4::bigint[], $5::int[], $6::text[], $7::text[], $8::text[]) AS u (c, l, st, m, mb, r)
			ON CONFLICT (workspace_id, campaign_id, lead_id, step) DO UPDATE
			   SET status = 'claimed', attempts = mail_sends.attempts + 1, error = NULL, settled_at = NULL, retry_at = NULL,
			       claimed_at = EXCLUDED.claimed_at, mailbox = EXCLUDED.mailbox, recipient = EXCLUDED.recipient
			 WHERE mail_sends.status = 'failed'
			RETURNING campaign_id, lead_id, step, message_id, attempts`,
			outs[0].WorkspaceID, s.clock.Now(), campaigns, leads, steps, ids, mailboxes, recipients)
		if err != nil {
			return fmt.Errorf("send: claim the ledger rows: %w", err)
		}
		type key struct {
			campaign string
			lead     int64
			step     int
		}
		got := map[key]claimed{}
		var k key
		var c claimed
		if _, err := pgx.ForEachRow(rows, []any{&k.campaign, &k.lead, &k.step, &c.messageID, &c.attempts}, func() error {
			got[k] = c
			return nil
		}); err != nil {
			return fmt.Errorf("send: claim the ledger rows: %w", err)
		}
		var mine []Outgoing
		for _, i := range going {
			o := outs[i]
			if c, ok := got[key{o.CampaignID, o.LeadID, o.Step.Step}]; ok {
				claims[i] = c
				mine = append(mine, o)
			}
		}
		if gate != nil && len(mine) > 0 {
			return gate.Claimed(ctx, tx, mine)
		}
		return nil
	})
	if err != nil {
		return nil, len(claims), err
	}
	// What was not claimed is someone else's: say what it is.
	for _, i := range candidates {
		if _, ok := claims[i]; ok || results[i].Held != nil {
			continue
		}
		o := outs[i]
		r := &results[i]
		r.Duplicate = true
		if err := s.db.QueryRow(ctx, `SELECT message_id, status FROM mail_sends
		                               WHERE workspace_id = $1 AND campaign_id = $2 AND lead_id = $3 AND step = $4`,
			o.WorkspaceID, o.CampaignID, o.LeadID, o.Step.Step).Scan(&r.MessageID, &r.Status); err != nil {
			return nil, 0, fmt.Errorf("send: read the claimed ledger row: %w", err)
		}
	}
	return claims, len(claims), nil
}

// compose builds and signs the step's message.
func (s *Dispatcher) compose(ctx context.Context, out Outgoing) (*gomail.Msg, error) {
	out.Message.From = out.Mailbox.Address
	if out.Mailbox.Own {
		return mail.Compose(out.Message, mail.DKIMKey{}) // its provider signs it
	}
	domain := out.Mailbox.Address.Email[strings.LastIndexByte(out.Mailbox.Address.Email, '@')+1:]
	key, err := s.keys.Signer(ctx, out.WorkspaceID, domain)
	if err != nil {
		return nil, err
	}
	return mail.Compose(out.Message, key)
}

// transmit submits the message, and says which ledger status the attempt
// ends in.
func transmit(ctx context.Context, session *smtpSession, msg *gomail.Msg) (string, error) {
	err := session.send(ctx, msg)
	switch {
	case msg.IsDelivered():
		// go-mail marks the message delivered once the server has
		// answered the end of DATA with 250; a later error (RSET) does
		// not undo that.
		return StatusSent, nil
	case dataHandedOver(err):
		return StatusUnknown, err
	default:
		return StatusFailed, err
	}
}

// smtpSession is one submission connection, opened at the first message
// and opened again after a message that failed.
type smtpSession struct {
	endpoint mail.Endpoint
	own      bool // a mailbox a person connected: dialled through its guard only
	timeout  time.Duration
	client   *gomail.Client
}

func (ss *smtpSession) send(ctx context.Context, msg *gomail.Msg) error {
	if ss.client == nil {
		client, err := mail.Submission(ss.endpoint, ss.own, ss.timeout)
		if err != nil {
			return err
		}
		if err := client.DialWithContext(ctx); err != nil {
			return fmt.Errorf("smtp connect to %s: %w", ss.endpoint.Addr, err)
		}
		ss.client = client
	}
	err := ss.client.Send(msg)
	if err != nil {
		ss.close()
	}
	return err
}

func (ss *smtpSession) close() {
	if ss.client != nil {
		ss.client.Close()
		ss.client = nil
	}
}

// dataHandedOver says the message text may have reached the server: the
// error came while closing DATA, when the server may have queued it
// without our hearing its answer.
func dataHandedOver(err error) bool {
	var sendErr *gomail.SendError
	return errors.As(err, &sendErr) && (sendErr.Reason == gomail.ErrSMTPDataClose || sendErr.Reason == gomail.ErrAmbiguous)
}

// Tries is how many times a step is tried: a failure before the message
// was handed over, or a soft bounce, lets it go again after a back-off
// (15 minutes, then an hour), until this many tries.
const Tries = 3

// errCampaignStopped says a step's campaign was stopped or paused after
// the step was claimed and before it was marked: it is not sent.
var errCampaignStopped = errors.New("the step's campaign was stopped")

// RemovedAfterClaim is the ledger's error of a step whose lead was
// removed between its claim and its message: it never went out, and
// never will.
const RemovedAfterClaim = "not sent: its lead was removed after the step was claimed"

// errLeadRemoved says a step's lead was removed after the step was
// claimed: the mark settled it failed, unsent.
var errLeadRemoved = errors.New("the step's lead was removed")

// errClaimed says a step's claim was taken over: its lease ended and
// another worker claimed it again.
var errClaimed = errors.New("the step was claimed again by another worker")
