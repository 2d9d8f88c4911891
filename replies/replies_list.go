package replies

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vibesell"
)

// Replies reads the replies the poller kept, for the assistant and the
// person.
type Replies struct {
	db *pgxpool.Pool
}

// RepliesDeps is what the replies reader needs.
type RepliesDeps struct {
	DB *pgxpool.Pool
}

// NewReplies returns the replies reader.
func NewReplies(d RepliesDeps) *Replies { return &Replies{db: d.DB} }

// ListOptions narrow and page [Replies.List]. The zero value lists
// the 20 newest replies of every campaign.
type ListOptions struct {
	// Campaign keeps the replies matched to this campaign id; "" keeps all.
	Campaign string
	// Classification keeps the replies of one classification (one of
	// [Classifications]); "" keeps all.
	Classification string
	// WaitingFirst lists the replies waiting for an answer (see
	// [ListedReply.Waiting]) before the others, each part newest first.
	WaitingFirst bool
	Limit        int    // 1 to MaxReplyPage; default MaxReplyPage
	Cursor       string // from a previous page's Next; "" for the newest
}

// ListedReply is one kept reply as a list shows it.
type ListedReply struct {
	// ID names the reply for [Replies.Get] and [Replies.Correct].
	ID         string
	Mailbox    string // the sending mailbox it arrived in
	MessageID  string
	From       string
	Subject    string
	ReceivedAt time.Time
	// Lead and LeadEmail name the lead it answers ("" when it matched no
	// send); LeadEmail is the address the send went to, which a reply from
	// a colleague does not share.
	Lead      string
	LeadEmail string
	// LeadName is the lead's name and company as the campaign has them
	// ("Ana Silva, Alpha"); "" when it matched no send or has neither.
	LeadName string
	// Campaign is the campaign of the send it answers ("" when none), and
	// CampaignName its name when the campaign is known.
	Campaign     string
	CampaignName *string
	// Step is the step of the sequence it answers; nil when it matched no
	// send, or answers an answer (ToAnswer).
	Step *int
	// ToAnswer says it answers an answer sent to the lead's reply.
	ToAnswer bool
	// MatchedBy says how it was matched: thread, address, domain or none.
	MatchedBy      string
	Classification string
	Rule           string
	ReturnsOn      *time.Time
	Bounce         *string
	Excerpt        string
	// ClassifiedAs is what the rules read, when a person corrected it
	// since (Classification is then theirs); nil otherwise.
	ClassifiedAs *string
	// CorrectedBy and CorrectedAt are who last corrected the
	// classification and when; nil when no one did.
	CorrectedBy *string
	CorrectedAt *time.Time
	// Waiting says the reply waits for an answer (see awaitingAnswer).
	Waiting bool
}

// Page is one page of replies, newest first.
type Page struct {
	Replies []ListedReply
	Next    string // the cursor of the next page; "" on the last page
}

type replyCursor struct {
	// Waiting is the part of a WaitingFirst list the cursor is in.
	Waiting   bool      `json:"w,omitempty"`
	At        time.Time `json:"a"`
	Mailbox   string    `json:"m"`
	MessageID string    `json:"i"`
}

// List returns the workspace's replies, newest first, a page at a time.
// MaxReplyPage is the most replies a page holds: each carries what its
// sender wrote (headers and an excerpt, bounded when kept), and a page
// must stay within the bounds of one tool result.
const MaxReplyPage = 10

// Refusals: EINVALID for an unknown classification (the sentence lists
// the known ones), a limit out of range, or a cursor this list did not give.
func (r *Replies) List(ctx context.Context, ws uuid.UUID, o ListOptions) (Page, error) {
	if o.Limit == 0 {
		o.Limit = MaxReplyPage
	}
	if o.Limit < 1 || o.Limit > MaxReplyPage {
		return Page{}, vibesell.Errorf(vibesell.EINVALID, "A page holds 1 to %d replies; %d was asked for.", MaxReplyPage, o.Limit)
	}
	if o.Classification != "" && !slices.Contains(Classifications(), o.Classification) {
		return Page{}, vibesell.Errorf(vibesell.EINVALID, "%q is not a classification of replies. Use one of %s, or leave it out for every reply.",
			o.Classification, vibesell.JoinOr(Classifications()))
	}
	// The first page starts after every real reply.
	after := replyCursor{At: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), Waiting: o.WaitingFirst}
	if o.Cursor != "" {
		c, ok := decodeReplyCursor(o.Cursor)
		if !ok {
			return Page{}, vibesell.Errorf(vibesell.EINVALID,
				"The cursor %q is not one this list gave. Leave it out to start from the newest reply.", o.Cursor)
		}
		after = c
	}
	// The campaign's name and the lead's name are read from the campaigns
	// feature's tables, and the lead's address from the send it answers; ids are compared as
	// text, which is how campaigns and leads are named outside the engine.
	// A WaitingFirst list orders on whether each reply waits (true
	// first); any other list counts every reply as waiting, so that the
	// order is the newest first alone.
	rows, err := r.db.Query(ctx, `
		SELECT * FROM (
		SELECT `+listedReplyColumns()+`, CASE WHEN $8 THEN (`+waitingForAnswer+`) ELSE true END AS part
		  FROM `+listedReplyFrom+`
		 WHERE r.workspace_id = $1
		   AND ($2 = '' OR r.campaign_id::text = $2)
		   AND ($3 = '' OR r.classification = $3)
		) l
		 WHERE (l.part, l.received_at, l.mailbox, l.message_id) < ($9, $4, $5, $6)
		 ORDER BY l.part DESC, l.received_at DESC, l.mailbox DESC, l.message_id DESC
		 LIMIT $7`,
		ws, o.Campaign, o.Classification, after.At, after.Mailbox, after.MessageID, o.Limit+1, o.WaitingFirst, after.Waiting || !o.WaitingFirst)
	if err != nil {
		return Page{}, fmt.Errorf("list replies: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanListedReply)
	if err != nil {
		return Page{}, fmt.Errorf("list replies: %w", err)
	}
	page := Page{Replies: list}
	if len(list) > o.Limit {
		page.Replies = list[:o.Limit]
		last := page.Replies[o.Limit-1]
		page.Next = encodeReplyCursor(replyCursor{Waiting: last.Waiting && o.WaitingFirst, At: last.ReceivedAt, Mailbox: last.Mailbox, MessageID: last.MessageID})
	}
	return page, nil
}

// listedReplyColumns and listedReplyFrom read a reply as a list shows
// it: the campaign's name and the lead's name from the campaigns
// feature's tables, and the lead's address from the send it answers; ids
// are compared as text, which is how campaigns and leads are named
// outside the engine.
func listedReplyColumns() string {
	return `r.id::text, r.mailbox, r.message_id, r.from_address, r.subject, r.received_at,
		       coalesce(r.lead_id::text, ''), coalesce(s.recipient, ''),
		       concat_ws(', ', nullif(trim(concat_ws(' ', cl.fields->>'first_name', cl.fields->>'last_name')), ''), nullif(cl.fields->>'company', '')),
		       coalesce(r.campaign_id::text, ''), c.name, r.step,
		       r.matched_by, r.classification, r.rule, r.returns_on, r.bounce, r.excerpt,
		       r.classified_as, r.corrected_by, r.corrected_at, (` + waitingForAnswer + `) AS waiting`
}

const listedReplyFrom = `mail_replies r
		  LEFT JOIN mail_sends s ON s.workspace_id = r.workspace_id AND s.campaign_id = r.campaign_id AND s.lead_id = r.lead_id AND s.step = r.step
		  LEFT JOIN campaigns c ON c.workspace_id = r.workspace_id AND c.id = r.campaign_id::text
		  LEFT JOIN campaign_leads cl ON cl.workspace_id = r.workspace_id AND cl.campaign_id = r.campaign_id::text AND cl.lead_id = r.lead_id`

// scanListedReply scans listedReplyColumns and one more: the part of a
// WaitingFirst list the row is in, which the row does not keep.
func scanListedReply(row pgx.CollectableRow) (ListedReply, error) {
	var l ListedReply
	var part bool
	err := row.Scan(&l.ID, &l.Mailbox, &l.MessageID, &l.From, &l.Subject, &l.ReceivedAt, &l.Lead, &l.LeadEmail, &l.LeadName, &l.Campaign, &l.CampaignName, &l.Step,
		&l.MatchedBy, &l.Classification, &l.Rule, &l.ReturnsOn, &l.Bounce, &l.Excerpt, &l.ClassifiedAs, &l.CorrectedBy, &l.CorrectedAt, &l.Waiting, &part)
	// An answer's step is negative in the ledger: a reply to it answers
	// the answer, no step of the sequence.
	if l.Step != nil && *l.Step < 0 {
		l.Step, l.ToAnswer = nil, true
	}
	return l, err
}

func encodeReplyCursor(c replyCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeReplyCursor(s string) (replyCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return replyCursor{}, false
	}
	var c replyCursor
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.At.IsZero() || c.MessageID == "" {
		return replyCursor{}, false
	}
	return c, true
}
