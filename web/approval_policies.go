package web

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
)

// This file holds the policy of each action (who approves it, how many,
// in stages, what a decision must say, how long it waits) and the
// delegations of the people away, on the approvals page and the policy
// form. The rules are approvals'; the page reads and writes the form.

// policyRow is an action's policy on the approvals page.
type policyRow struct {
	Key      int
	Label    string
	Describe string
	Path     string
}

// policyStages is how many stages the form offers; a policy has at most
// five, and three cover "any one of sales, then finance above an amount,
// then the founder".
const policyStages = 3

// stageForm is one stage's fields as the form shows them.
type stageForm struct {
	N             int // from 1
	Name          string
	Approvers     string // one email a line
	Needed        int
	Above         string // an amount, empty for always
	Currency      string
	Fallback      string
	EscalateHours string
}

type policyData struct {
	Key      int
	Label    string
	Where    string
	WebOnly  bool // the action is always approved here
	Stages   []stageForm
	Reject   bool
	Approve  bool
	Barred   bool
	TTLHours string
	Path     string
}

type delegationRow struct {
	Person, Delegate, Until string
	Mine, Ended             bool
}

func actionKey(action string) int {
	return slices.IndexFunc(approvals.ActionLabels, func(l vibesell.Label) bool { return l.Value == action })
}

func policyPath(key int) string { return "/app/approval-policies/" + strconv.Itoa(key) }

// policyRows and delegationRows fill the approvals page's policies and
// the people away.
func (s *server) policyRows(r *http.Request, u auth.User) ([]policyRow, []delegationRow, error) {
	ctx := r.Context()
	policies, err := s.Approvals.Policies(ctx, u.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	var rows []policyRow
	for _, p := range policies {
		k := actionKey(p.Action)
		rows = append(rows, policyRow{Key: k, Label: approvals.ActionLabels.Of(p.Action), Describe: p.Describe(), Path: policyPath(k)})
	}
	dels, err := s.Approvals.Delegations(ctx, u.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	now := s.Clock.Now()
	var out []delegationRow
	for _, d := range dels {
		out = append(out, delegationRow{Person: d.Person, Delegate: d.Delegate, Until: formatTime(d.Until, u.TimeZone),
			Mine: strings.EqualFold(d.Person, u.Email), Ended: !d.Active(now)})
	}
	return rows, out, nil
}

// policyOf reads the action of the path's key.
func policyAction(r *http.Request) (string, bool) {
	k, err := strconv.Atoi(r.PathValue("key"))
	if err != nil || k < 0 || k >= len(approvals.ActionLabels) {
		return "", false
	}
	return approvals.ActionLabels[k].Value, true
}

// policyPage shows an action's policy as a form.
func (s *server) policyPage(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	action, ok := policyAction(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	p, err := s.Approvals.Policy(r.Context(), u.WorkspaceID, action)
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	s.renderPolicy(w, r, u, ses, http.StatusOK, formOf(p), "")
}

func (s *server) renderPolicy(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession, status int, d policyData, message string) {
	s.render(w, r, status, "approval_policy", pageData{Title: "Who approves: " + d.Label, User: &u, CSRF: ses.CSRF(), Message: message, Body: d})
}

// formOf writes a policy into the form's fields, with empty stages to
// fill up to policyStages.
func formOf(p approvals.Policy) policyData {
	k := actionKey(p.Action)
	d := policyData{Key: k, Label: approvals.ActionLabels.Of(p.Action), Where: p.Where, WebOnly: !approvals.PolicyApplies(p.Action),
		Reject: p.ReasonToReject, Approve: p.ReasonToApprove, Barred: p.RequesterBarred, Path: policyPath(k)}
	if p.TTL > 0 {
		d.TTLHours = strconv.FormatFloat(p.TTL.Hours(), 'f', -1, 64)
	}
	for i := range max(policyStages, len(p.Stages)) {
		f := stageForm{N: i + 1, Needed: 1, Currency: "USD"}
		if i < len(p.Stages) {
			st := p.Stages[i]
			f.Name, f.Approvers, f.Needed, f.Fallback = st.Name, strings.Join(st.Approvers, "\n"), st.Needed, st.Fallback
			if st.Above != nil {
				f.Above, f.Currency = st.Above.Amount(), st.Above.Currency
			}
			if st.EscalateAfterMinutes > 0 {
				f.EscalateHours = strconv.FormatFloat(float64(st.EscalateAfterMinutes)/60, 'f', -1, 64)
			}
		}
		d.Stages = append(d.Stages, f)
	}
	return d
}

// savePolicy saves the form: a stage is kept when it names someone, has a
// name or needs more than one person.
func (s *server) savePolicy(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	action, ok := policyAction(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	f := r.PostForm
	p := approvals.Policy{Action: action, Where: f.Get("where"), ReasonToReject: f.Get("reason_reject") == "yes",
		ReasonToApprove: f.Get("reason_approve") == "yes", RequesterBarred: f.Get("barred") == "yes"}
	d := policyData{Key: actionKey(action), Label: approvals.ActionLabels.Of(action), Where: p.Where, WebOnly: !approvals.PolicyApplies(action),
		Reject: p.ReasonToReject, Approve: p.ReasonToApprove, Barred: p.RequesterBarred, TTLHours: f.Get("ttl_hours"), Path: policyPath(actionKey(action))}
	var problems []string
	if h := strings.TrimSpace(d.TTLHours); h != "" {
		v, err := strconv.ParseFloat(h, 64)
		if err != nil || v <= 0 {
			problems = append(problems, "How long it waits is a number of hours, such as 72.")
		} else {
			p.TTL = time.Duration(v * float64(time.Hour)).Round(time.Minute)
		}
	}
	for i := range policyStages {
		n := strconv.Itoa(i + 1)
		sf := stageForm{N: i + 1, Name: strings.TrimSpace(f.Get("stage" + n + "_name")), Approvers: f.Get("stage" + n + "_approvers"),
			Above: strings.TrimSpace(f.Get("stage" + n + "_above")), Currency: strings.TrimSpace(f.Get("stage" + n + "_currency")),
			Fallback: strings.TrimSpace(f.Get("stage" + n + "_fallback")), EscalateHours: strings.TrimSpace(f.Get("stage" + n + "_escalate_hours"))}
		sf.Needed, _ = strconv.Atoi(strings.TrimSpace(f.Get("stage" + n + "_needed")))
		d.Stages = append(d.Stages, sf)
		people := strings.FieldsFunc(sf.Approvers, func(r rune) bool { return r == '\n' || r == ',' || r == ' ' || r == '\r' || r == ';' })
		if sf.Name == "" && len(people) == 0 && sf.Needed <= 1 && sf.Above == "" {
			continue
		}
		st := approvals.Stage{Name: sf.Name, Approvers: people, Needed: max(sf.Needed, 1), Fallback: sf.Fallback}
		if sf.Above != "" {
			m, err := vibesell.ParseMoney(sf.Above, sf.Currency)
			if err != nil {
				problems = append(problems, fmt.Sprintf("Stage %d: the amount is a plain number, such as 100 or 99.50, with a currency such as USD.", i+1))
			}
			st.Above = &m
		}
		if sf.EscalateHours != "" {
			v, err := strconv.ParseFloat(sf.EscalateHours, 64)
			if err != nil || v <= 0 {
				problems = append(problems, fmt.Sprintf("Stage %d: the time before a reminder is a number of hours, such as 24.", i+1))
			}
			st.EscalateAfterMinutes = int(v * 60)
		}
		p.Stages = append(p.Stages, st)
	}
	if len(problems) > 0 {
		s.renderPolicy(w, r, u, ses, http.StatusUnprocessableEntity, d, strings.Join(problems, " "))
		return
	}
	err := s.Approvals.SavePolicy(r.Context(), u.WorkspaceID, p, u.Email)
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.renderPolicy(w, r, u, ses, http.StatusUnprocessableEntity, d, vibesell.ErrorForPerson(err))
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/approvals?saved=policy#policies", http.StatusSeeOther)
}

// saveDelegate names who decides in the signed-in person's place until
// the end of a day, in the workspace's time zone; "end" ends it now.
func (s *server) saveDelegate(w http.ResponseWriter, r *http.Request, u auth.User, ses auth.WebSession) {
	ctx := r.Context()
	if r.PostFormValue("end") == "yes" {
		if err := s.Approvals.EndDelegation(ctx, u.WorkspaceID, u.Email); err != nil {
			s.renderError(w, r, err, 0, "", "")
			return
		}
		http.Redirect(w, r, "/app/approvals?saved=away#away", http.StatusSeeOther)
		return
	}
	day, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(r.PostFormValue("until")), u.TimeZone)
	if err == nil {
		err = s.Approvals.SetDelegate(ctx, u.WorkspaceID, u.Email, r.PostFormValue("delegate"), day.AddDate(0, 0, 1))
	} else {
		err = vibesell.Errorf(vibesell.EINVALID, "Give the last day your delegate decides in your place.")
	}
	if vibesell.ErrorCode(err) == vibesell.EINVALID {
		s.renderError(w, r, err, http.StatusUnprocessableEntity, "", "")
		return
	}
	if err != nil {
		s.renderError(w, r, err, 0, "", "")
		return
	}
	http.Redirect(w, r, "/app/approvals?saved=away#away", http.StatusSeeOther)
}
