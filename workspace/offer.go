package workspace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"vibesell"
	"vibesell/store"
)

// Offer is what the workspace sells and to whom.
type Offer struct {
	CompanyName   string
	CompanyDomain string // may be empty: not given
	Product       string
	Audience      string
	Value         string
	ProofPoints   []string
	CallToAction  string
	Price         *Price // nil: not given
	UpdatedAt     time.Time
}

// Price is what the offer costs, when the person gave it: an amount, as
// every amount is kept, and what it is per.
type Price struct {
	vibesell.Money
	Period string // one-time, month, year, seat per month…; may be empty
}

// NewPrice is a price given as a person says it (1450 INR a month),
// rounded to the currency's minor units (cents; whole yen).
func NewPrice(amount float64, currency, period string) Price {
	m := vibesell.NewMoney(0, strings.TrimSpace(currency))
	m.Minor = int64(math.Round(amount * math.Pow10(vibesell.Decimals(m.Currency))))
	return Price{Money: m, Period: period}
}

var (
	domainPattern   = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
)

// NormalizeDomain turns what a person types ("https://www.Acme.com/") into
// a bare domain ("acme.com"), or refuses with EINVALID.
func NormalizeDomain(raw string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(raw))
	d = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
	d = strings.TrimPrefix(d, "www.")
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimSuffix(d, ".")
	if !domainPattern.MatchString(d) {
		return "", vibesell.Errorf(vibesell.EINVALID, "%q is not a domain name; give it like acme.com.", raw)
	}
	return d, nil
}

func field(name, value string, max int) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", vibesell.Errorf(vibesell.EINVALID, "The offer needs %s.", name)
	}
	if len([]rune(v)) > max {
		return "", vibesell.Errorf(vibesell.EINVALID, "The %s can be at most %d characters long; it is %d.", name, max, len([]rune(v)))
	}
	return v, nil
}

// SavedOffer is the offer as stored, who the workspace's emails come
// from, and what the workspace needs next.
type SavedOffer struct {
	Offer
	Sender   Sender
	NextStep NextStep
}

// SaveOffer replaces the workspace's offer and returns it as stored.
// Refusals: EINVALID naming the field that is missing or malformed.
func (s *Service) SaveOffer(ctx context.Context, ws uuid.UUID, o Offer) (SavedOffer, error) {
	return s.SaveOfferAndSender(ctx, ws, o, SenderChange{})
}

// SaveOfferAndSender replaces the workspace's offer and, in the same
// transaction, sets the sender fields of change that are given (the postal
// address every cold email carries, the default sender name): save_offer
// takes both. Nothing is saved when either is refused. Refusals: those of
// [Service.SaveOffer] and [Service.SetSender].
func (s *Service) SaveOfferAndSender(ctx context.Context, ws uuid.UUID, o Offer, change SenderChange) (SavedOffer, error) {
	if err := change.check(s.clock.Now()); err != nil {
		return SavedOffer{}, err
	}
	var err error
	if o.CompanyName, err = field("the company name", o.CompanyName, 200); err != nil {
		return SavedOffer{}, err
	}
	if o.Product, err = field("what you sell", o.Product, 1000); err != nil {
		return SavedOffer{}, err
	}
	if o.Audience, err = field("who it is for", o.Audience, 1000); err != nil {
		return SavedOffer{}, err
	}
	if o.Value, err = field("the value for the buyer", o.Value, 1000); err != nil {
		return SavedOffer{}, err
	}
	if o.CallToAction, err = field("a call to action", o.CallToAction, 300); err != nil {
		return SavedOffer{}, err
	}
	if strings.TrimSpace(o.CompanyDomain) != "" {
		if o.CompanyDomain, err = NormalizeDomain(o.CompanyDomain); err != nil {
			return SavedOffer{}, err
		}
	}
	if len(o.ProofPoints) > 10 {
		return SavedOffer{}, vibesell.Errorf(vibesell.EINVALID, "Give at most 10 proof points; there are %d.", len(o.ProofPoints))
	}
	proofs := make([]string, 0, len(o.ProofPoints))
	for _, p := range o.ProofPoints {
		if p = strings.TrimSpace(p); p != "" {
			if len([]rune(p)) > 500 {
				return SavedOffer{}, vibesell.Errorf(vibesell.EINVALID, "A proof point can be at most 500 characters long.")
			}
			proofs = append(proofs, p)
		}
	}
	o.ProofPoints = proofs
	var (
		amount           *int64
		currency, period *string
	)
	if o.Price != nil {
		if o.Price.Minor < 0 {
			return SavedOffer{}, vibesell.Errorf(vibesell.EINVALID, "A price cannot be negative.")
		}
		c := strings.ToUpper(strings.TrimSpace(o.Price.Currency))
		if !currencyPattern.MatchString(c) {
			return SavedOffer{}, vibesell.Errorf(vibesell.EINVALID, "The price currency must be a three-letter code such as USD, EUR or INR; got %q.", o.Price.Currency)
		}
		o.Price.Currency = c
		o.Price.Period = strings.TrimSpace(o.Price.Period)
		amount, currency = &o.Price.Minor, &c
		if o.Price.Period != "" {
			period = &o.Price.Period
		}
	}
	var domain *string
	var hasPlaybook bool
	if o.CompanyDomain != "" {
		domain = &o.CompanyDomain
	}
	var sender Sender
	err = store.InTx(ctx, s.db, func(tx pgx.Tx) error {
		now := s.clock.Now()
		if err := tx.QueryRow(ctx, `
		INSERT INTO offers (workspace_id, company_name, company_domain, product, audience, value,
		                    proof_points, call_to_action, price_minor, price_currency, price_period, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (workspace_id) DO UPDATE SET
		    company_name = EXCLUDED.company_name, company_domain = EXCLUDED.company_domain,
		    product = EXCLUDED.product, audience = EXCLUDED.audience, value = EXCLUDED.value,
		    proof_points = EXCLUDED.proof_points, call_to_action = EXCLUDED.call_to_action,
		    price_minor = EXCLUDED.price_minor, price_currency = EXCLUDED.price_currency,
		    price_period = EXCLUDED.price_period, updated_at = EXCLUDED.updated_at
		RETURNING updated_at, EXISTS (SELECT 1 FROM playbooks WHERE workspace_id = $1)`,
			ws, o.CompanyName, domain, o.Product, o.Audience, o.Value, o.ProofPoints, o.CallToAction,
			amount, currency, period, now).Scan(&o.UpdatedAt, &hasPlaybook); err != nil {
			return fmt.Errorf("save offer: %w", err)
		}
		if !change.IsZero() {
			if err := change.save(ctx, tx, ws, now); err != nil {
				return err
			}
		}
		var err error
		sender, err = readSender(ctx, tx, ws)
		return err
	})
	if err != nil {
		return SavedOffer{}, err
	}
	return SavedOffer{Offer: o, Sender: sender, NextStep: savedNext(true, hasPlaybook)}, nil
}

// offerSQL reads the offer of workspace $1, as scanOffer scans it.
const offerSQL = `
	SELECT company_name, company_domain, product, audience, value, proof_points, call_to_action,
	       price_minor, price_currency, price_period, updated_at
	FROM offers WHERE workspace_id = $1`

// FindOffer returns the workspace's offer, or nil when none is saved.
func (s *Service) FindOffer(ctx context.Context, ws uuid.UUID) (*Offer, error) {
	return scanOffer(s.db.QueryRow(ctx, offerSQL, ws))
}

// scanOffer reads the row of offerSQL: nil when there is none.
func scanOffer(row pgx.Row) (*Offer, error) {
	var o Offer
	var domain, currency, period *string
	var amount *int64
	err := row.Scan(&o.CompanyName, &domain, &o.Product, &o.Audience, &o.Value, &o.ProofPoints, &o.CallToAction,
		&amount, &currency, &period, &o.UpdatedAt)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find offer: %w", err)
	}
	if domain != nil {
		o.CompanyDomain = *domain
	}
	if amount != nil && currency != nil {
		o.Price = &Price{Money: vibesell.NewMoney(*amount, *currency)}
		if period != nil {
			o.Price.Period = *period
		}
	}
	return &o, nil
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
