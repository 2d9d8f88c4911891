package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vibesell"
	"vibesell/approvals"
	"vibesell/auth"
	"vibesell/campaigns"
	"vibesell/toolkit"
)

type sequenceOutput struct {
	Kind     string       `json:"kind" enum:"sequence"`
	Sequence sequenceData `json:"sequence" jsonschema:"the sequence version as it stands after this call"`
	Changed  bool         `json:"changed" jsonschema:"false when this call changed nothing (the same steps saved again, or a version approved again)"`
}

type sequenceStepData struct {
	Step             int    `json:"step" jsonschema:"its place in the sequence, from 1"`
	Subject          string `json:"subject" jsonschema:"the subject line it goes out with, merge fields as written (a same-thread follow-up: Re: and step 1's subject)"`
	Body             string `json:"body" jsonschema:"the body in plain text, merge fields as written"`
	WaitBusinessDays int    `json:"waitBusinessDays" jsonschema:"business days (Monday to Friday) it waits after the step before it; 0 for step 1"`
	SameThread       bool   `json:"sameThread" jsonschema:"true when it replies in the thread of step 1"`
}

type mergeFieldData struct {
	Field        string  `json:"field" jsonschema:"the merge field, e.g. first_name"`
	Steps        []int   `json:"steps" jsonschema:"the steps that use it"`
	LeadsLacking int     `json:"leadsLacking" jsonschema:"how many of the workspace's imported leads have no value for it"`
	Fallback     *string `json:"fallback" jsonschema:"the text those leads get in its place; null when a use of it has no fallback"`
	Receives     string  `json:"receives" jsonschema:"what a lead without it receives, in words"`
}

type sequenceData struct {
	Sequence      string             `json:"sequence" jsonschema:"the sequence id, to pass back" pattern:"^sq_[0-9a-f]{16}$"`
	Name          string             `json:"name" jsonschema:"the sequence's name"`
	Version       int                `json:"version" jsonschema:"this version; every saved edit is a new version"`
	LatestVersion int                `json:"latestVersion" jsonschema:"the newest version of this sequence"`
	Approved      bool               `json:"approved" jsonschema:"true when the person approved exactly this version"`
	ApprovedAt    *time.Time         `json:"approvedAt" jsonschema:"when this version was approved; null while it is not"`
	ApprovedBy    *string            `json:"approvedBy" jsonschema:"who approved it; null while it is not"`
	Steps         []sequenceStepData `json:"steps" jsonschema:"the emails, in order"`
	MergeFields   []mergeFieldData   `json:"mergeFields" jsonschema:"each merge field used, against the imported leads"`
	LeadsCounted  int                `json:"leadsCounted" jsonschema:"the imported leads the merge fields were counted on"`
}

func toSequenceData(s campaigns.Saved) sequenceData {
	q := s.Sequence
	out := sequenceData{Sequence: q.ID, Name: q.Name, Version: q.Version, LatestVersion: q.LatestVersion, Approved: q.Approved(),
		ApprovedAt: q.ApprovedAt, ApprovedBy: q.ApprovedBy, Steps: []sequenceStepData{}, MergeFields: []mergeFieldData{}, LeadsCounted: s.Leads}
	for i, st := range q.Steps {
		out.Steps = append(out.Steps, sequenceStepData{Step: i + 1, Subject: q.SubjectOf(i), Body: st.Body, WaitBusinessDays: st.WaitBusinessDays, SameThread: st.SameThread})
	}
	for _, f := range s.Fields {
		out.MergeFields = append(out.MergeFields, mergeFieldData{Field: f.Field, Steps: f.Steps, LeadsLacking: f.Lacking, Fallback: f.Fallback, Receives: f.Receives})
	}
	return out
}

func sequenceMarkdown(lead string, s campaigns.Saved) string {
	q := s.Sequence
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n## Sequence %s, version %d: %s\n\n", lead, q.ID, q.Version, q.Name)
	for i, st := range q.Steps {
		when := "sent first"
		if i > 0 {
			when = fmt.Sprintf("%s after step %d", vibesell.Plural(st.WaitBusinessDays, "business day", "business days"), i)
			if st.SameThread {
				when += ", in the same thread"
			}
		}
		fmt.Fprintf(&b, "### Step %d (%s)\nSubject: %s\n\n%s\n\n", i+1, when, q.SubjectOf(i), st.Body)
	}
	if len(s.Fields) > 0 {
		fmt.Fprintf(&b, "Merge fields, against the %s imported:\n", vibesell.Plural(s.Leads, "lead", "leads"))
		for _, f := range s.Fields {
			if f.Lacking == 0 {
				fmt.Fprintf(&b, "- {{%s}}: every lead has it.\n", f.Field)
				continue
			}
			fmt.Fprintf(&b, "- {{%s}}: %s no value for it and would get %s.\n", f.Field, vibesell.Plural(f.Lacking, "lead has", "leads have"), f.Receives)
		}
		b.WriteString("\n")
	}
	switch {
	case q.Approved():
		fmt.Fprintf(&b, "Approved by %s on %s. Next: %s renders step 1 for a real lead and checks it; %s binds it to leads and mailboxes.\n",
			*q.ApprovedBy, formatTime(*q.ApprovedAt), vibesell.ToolCheckFirstEmail, vibesell.ToolStageCampaign)
	case q.Version < q.LatestVersion:
		fmt.Fprintf(&b, "Not approved, and version %d is newer: show the person that one.\n", q.LatestVersion)
	default:
		fmt.Fprintf(&b, "Not approved yet. Next: show the person every step exactly as above; once they say it is right, call %s with sequence %q and version %d. Never approve for them. %s shows step 1 for a real lead first.\n",
			vibesell.ToolApproveSequence, q.ID, q.Version, vibesell.ToolCheckFirstEmail)
	}
	return b.String()
}

// save_sequence

type stepInput struct {
	Subject          string `json:"subject,omitempty" jsonschema:"the subject line, with merge fields if wanted; leave empty for a follow-up with sameThread true" maxLength:"200"`
	Body             string `json:"body" jsonschema:"the body in plain text; merge fields {{first_name}}, {{last_name}}, {{company}}, {{title}}, {{company_domain}}, with a fallback as {{first_name|there}}" minLength:"1" maxLength:"2500"`
	WaitBusinessDays int    `json:"waitBusinessDays,omitempty" jsonschema:"for a follow-up: business days to wait after the step before it, 1 to 30 (2 to 7 is usual); 0 or absent for step 1" minimum:"0" maximum:"30"`
	SameThread       bool   `json:"sameThread,omitempty" jsonschema:"for a follow-up: true to reply in the thread of step 1 (subject Re: and step 1's subject)"`
}

type saveSequenceInput struct {
	Sequence string      `json:"sequence,omitempty" jsonschema:"the id of the sequence to save a new version of; absent starts a new sequence" example:"sq_3f2a9c0d4b5e6f70" pattern:"^sq_[0-9a-f]{16}$"`
	Name     string      `json:"name,omitempty" jsonschema:"a name for the sequence; absent keeps the current one" example:"Lists for heads of sales" maxLength:"100"`
	Steps    []stepInput `json:"steps" jsonschema:"every email of the sequence, in order (1 to 7): all of them each time, since a save replaces the version" example:"[{\"subject\": \"Lists at {{company|your team}}\", \"body\": \"Hi {{first_name|there}}, ...\"}, {\"body\": \"Hi {{first_name|there}}, a quick nudge.\", \"waitBusinessDays\": 3, \"sameThread\": true}]" minItems:"1" maxItems:"7"`
}

func saveSequence(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[saveSequenceInput, sequenceOutput]{
		Name:        vibesell.ToolSaveSequence,
		Title:       "Save the email sequence",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Saves what the campaign says: the emails of a sequence in order, each with a subject and
			a plain-text body with merge fields ({{first_name}}, {{company}}, with a fallback as
			{{first_name|there}}), and for each follow-up how many business days it waits and
			whether it replies in the same thread. Each save is a new version (nothing changes when
			the steps are those of the latest version); a new version needs its own approval with
			approve_sequence. The result says, for each merge field, how many imported leads lack it
			and what they would receive. An unknown merge field or a broken {{ is refused. It sends
			nothing and costs nothing. Not for approving (approve_sequence) or for checking the
			first email (check_first_email).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in saveSequenceInput) (toolkit.Result[sequenceOutput], error) {
			steps := make([]campaigns.Step, len(in.Steps))
			for i, st := range in.Steps {
				steps[i] = campaigns.Step{Subject: st.Subject, Body: st.Body, WaitBusinessDays: st.WaitBusinessDays, SameThread: st.SameThread}
			}
			saved, err := d.Campaigns.SaveSequence(ctx, p.WorkspaceID, campaigns.SaveRequest{Sequence: in.Sequence, Name: in.Name, Steps: steps})
			if err != nil {
				return toolkit.Result[sequenceOutput]{}, err
			}
			lead := fmt.Sprintf("Saved version %d of the sequence.", saved.Sequence.Version)
			if !saved.Changed {
				lead = fmt.Sprintf("Nothing changed: these are the steps of version %d already.", saved.Sequence.Version)
			}
			return toolkit.Result[sequenceOutput]{Markdown: sequenceMarkdown(lead, saved),
				Data: sequenceOutput{Sequence: toSequenceData(saved), Changed: saved.Changed}}, nil
		},
	})
}

// approve_sequence

// relayedBy names who approved through the conversation in the words
// decide_approval records for the same thing: the person, their yes
// passed on by the assistant.
func relayedBy(p auth.Principal) string {
	who := personOf(p)
	if who == "" {
		who = approvals.ActorPerson
	}
	via := approvals.ViaConversation
	return who + " (" + viaText(&via) + ")"
}

type approveSequenceInput struct {
	Sequence string `json:"sequence" jsonschema:"the sequence id" example:"sq_3f2a9c0d4b5e6f70" pattern:"^sq_[0-9a-f]{16}$"`
	Version  int    `json:"version" jsonschema:"the exact version the person read and approved (the latest)" example:"2" minimum:"1"`
}

func approveSequence(d Deps) toolkit.Tool {
	return define(d, toolkit.Spec[approveSequenceInput, sequenceOutput]{
		Name:        vibesell.ToolApproveSequence,
		Title:       "Approve a sequence version",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.Yes, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Description: `
			Records that the person read one exact version of a sequence and agrees to send it. Call
			it only after showing them every step of that version and hearing their yes; never
			approve for them. A version edited since (a newer version exists) is refused: show the
			newer one. Approving an approved version again changes nothing. It sends nothing: a
			campaign (stage_campaign, launch_campaign) sends only an approved version. Not for
			saving edits (save_sequence).
		`,
		Handler: func(ctx context.Context, p auth.Principal, in approveSequenceInput) (toolkit.Result[sequenceOutput], error) {
			saved, err := d.Campaigns.ApproveSequence(ctx, p.WorkspaceID, in.Sequence, in.Version, relayedBy(p))
			if err != nil {
				return toolkit.Result[sequenceOutput]{}, err
			}
			lead := fmt.Sprintf("Approved version %d.", saved.Sequence.Version)
			if !saved.Changed {
				lead = fmt.Sprintf("Version %d was approved already.", saved.Sequence.Version)
			}
			return toolkit.Result[sequenceOutput]{Markdown: sequenceMarkdown(lead, saved),
				Data: sequenceOutput{Sequence: toSequenceData(saved), Changed: saved.Changed}}, nil
		},
	})
}
