package ui_test

// leadScenarios are get_lead's stories: a lead that replied (its step
// delivered, the reply, why it stopped) and a lead whose next email is
// due, written from the Go output type.
func leadScenarios() []*scenario {
	replied := hand("lead-replied", "get_lead", map[string]any{"lead": "42"}, "Lead 42.", map[string]any{
		"kind": "lead", "id": "42", "email": "sam@acme-corp.example", "name": "Sam Ortiz", "company": "Acme Corp", "title": "Head of sales",
		"status": "replied", "importedAt": "2026-11-30T10:00:00Z", "source": "upload", "fileName": "leads.csv", "suppressed": nil,
		"removedAt": nil, "removedBy": nil, "repliesTotal": 1, "appUrl": "https://vibesell.example.test/app/leads/42",
		"campaigns": []map[string]any{{
			"id": "cp_8e1f2a3b4c5d6e7f", "name": "Heads of sales", "status": "sending", "steps": 2, "sentTotal": 1, "next": nil,
			"sent":    []map[string]any{{"campaign": "cp_8e1f2a3b4c5d6e7f", "step": 1, "at": "2026-12-01T09:30:00Z", "mailbox": "dana@getacme.com", "outcome": "delivered"}},
			"stopped": map[string]any{"reason": "replied", "at": "2026-12-01T11:00:00Z", "by": "sam@acme-corp.example"},
		}},
		"replies": []map[string]any{{"campaign": "cp_8e1f2a3b4c5d6e7f", "step": 1, "from": "sam@acme-corp.example", "receivedAt": "2026-12-01T11:00:00Z",
			"classification": "interested", "matchedBy": "thread", "excerpt": "Yes, interested. Send over a few times for Thursday?"}},
	})
	replied.Expect.Texts = []string{"Sam Ortiz", "Replied", "Heads of sales", "Email 1: Delivered", "Stopped: They replied (sam@acme-corp.example)",
		"Interested", "Yes, interested. Send over a few times for Thursday?"}
	replied.Expect.Absent = []string{"null", "undefined", "NaN", "[object Object]"}

	due := hand("lead-next-due", "get_lead", map[string]any{"lead": "ben@beta.example"}, "Lead 43.", map[string]any{
		"kind": "lead", "id": "43", "email": "ben@beta.example", "name": "", "company": "", "title": "",
		"status": "emailed", "importedAt": "2026-11-30T10:00:00Z", "source": "directory", "fileName": nil, "suppressed": nil,
		"removedAt": nil, "removedBy": nil, "repliesTotal": 0, "appUrl": nil, "replies": []map[string]any{},
		"campaigns": []map[string]any{{
			"id": "cp_8e1f2a3b4c5d6e7f", "name": "Heads of sales", "status": "sending", "steps": 2, "sentTotal": 1, "stopped": nil,
			"sent": []map[string]any{{"campaign": "cp_8e1f2a3b4c5d6e7f", "step": 1, "at": "2026-12-01T09:30:00Z", "mailbox": "dana@getacme.com", "outcome": "delivered"}},
			"next": map[string]any{"step": 2, "due": "2026-12-03T09:00:00Z", "waiting": nil},
		}},
	})
	due.Expect.Texts = []string{"ben@beta.example", "Emailed", "Next: email 2 of 2, due"}
	due.Expect.Absent = []string{"null", "undefined", "NaN", "[object Object]", "Replies"}
	return []*scenario{replied, due}
}
