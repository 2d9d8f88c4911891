package mailboxes

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"vibesell/mail"
	"vibesell/sandboxmail"
)

// WorkspaceMailbox is a mailbox a workspace sends from, with its
// endpoints.
type WorkspaceMailbox struct {
	WorkspaceID uuid.UUID
	mail.Account
}

// Source is one place the mailboxes a workspace can send from come
// from, with their SMTP and IMAP endpoints: the mailboxes ordered through
// the sending setup (their provider gives the endpoints), and in time the
// mailboxes people connect with their own settings.
type Source interface {
	// Mailboxes returns workspace ws's mailboxes, or every workspace's
	// when ws is uuid.Nil. A mailbox not ready to send yet is left out.
	Mailboxes(ctx context.Context, ws uuid.UUID) ([]WorkspaceMailbox, error)
}

// Sources reads every source in turn; an address two sources both give
// is the first's.
type Sources []Source

// Mailboxes returns what every source gives.
func (ss Sources) Mailboxes(ctx context.Context, ws uuid.UUID) ([]WorkspaceMailbox, error) {
	type key struct {
		ws      uuid.UUID
		address string
	}
	seen := map[key]bool{}
	var out []WorkspaceMailbox
	for _, s := range ss {
		got, err := s.Mailboxes(ctx, ws)
		if err != nil {
			return nil, err
		}
		for _, m := range got {
			k := key{m.WorkspaceID, m.Address.Email}
			if !seen[k] {
				seen[k] = true
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// OrderedMailbox is a mailbox the sending setup ordered and its provider
// has made ready.
type OrderedMailbox struct {
	WorkspaceID uuid.UUID
	Address     mail.Address
	// Provider is the provider that made it ("sandbox", …).
	Provider string
}

// OrderedFunc lists the ordered mailboxes that are ready, of workspace ws
// or of every workspace when ws is uuid.Nil (the sending feature).
type OrderedFunc func(ctx context.Context, ws uuid.UUID) ([]OrderedMailbox, error)

// SandboxMailboxes is the source of the mailboxes ordered from a provider
// whose mailboxes live in the sandbox mail server: each is opened there
// (made the first time) and reached at the sandbox's endpoints.
func SandboxMailboxes(sb *sandboxmail.Sandbox, ordered OrderedFunc) Source {
	return sandboxSource{sb, ordered}
}

type sandboxSource struct {
	sb      *sandboxmail.Sandbox
	ordered OrderedFunc
}

func (s sandboxSource) Mailboxes(ctx context.Context, ws uuid.UUID) ([]WorkspaceMailbox, error) {
	list, err := s.ordered(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make([]WorkspaceMailbox, 0, len(list))
	for _, o := range list {
		mb, err := s.sb.Mailbox(o.Address)
		if err != nil {
			return nil, fmt.Errorf("sandbox mailbox %s: %w", o.Address.Email, err)
		}
		out = append(out, WorkspaceMailbox{WorkspaceID: o.WorkspaceID, Account: mb})
	}
	return out, nil
}
