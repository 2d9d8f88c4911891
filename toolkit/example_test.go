package toolkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"vibesell"
	"vibesell/auth"
	"vibesell/toolkit"
)

// notes stands for a feature package's service: it owns the rule (a fact
// is not empty) and the storage; the tool only adapts it.
type notes struct {
	mu    sync.Mutex
	facts map[uuid.UUID][]string
}

func (n *notes) Remember(ctx context.Context, ws uuid.UUID, fact string) ([]string, error) {
	fact = strings.TrimSpace(fact)
	if fact == "" {
		return nil, vibesell.Errorf(vibesell.EINVALID, "The fact is empty. Say what to remember in a few words.")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.facts[ws] = append(n.facts[ws], fact)
	return n.facts[ws], nil
}

type rememberInput struct {
	Fact string `json:"fact" jsonschema:"the fact to keep, in the person's words" example:"We never email on Fridays" minLength:"1" maxLength:"1000"`
}

type memoryOutput struct {
	Kind  string   `json:"kind" enum:"memory"`
	Facts []string `json:"facts" jsonschema:"everything remembered so far, oldest first"`
}

// A tool is a spec given to Define: the handler decodes nothing itself (its
// input arrives checked and typed), calls one feature method and renders
// Markdown for the assistant and structuredContent for the card.
func Example() {
	n := &notes{facts: map[uuid.UUID][]string{}}
	remember := toolkit.Define(toolkit.Spec[rememberInput, memoryOutput]{
		Name:        "remember",
		Title:       "Remember a fact",
		Description: "Keeps a fact about the person's business for later conversations. It changes only VibeSell's notes and costs nothing.",
		Annotations: toolkit.Annotations{ReadOnly: toolkit.No, Destructive: toolkit.No, Idempotent: toolkit.No, OpenWorld: toolkit.No},
		Requires:    toolkit.Needs{Scope: vibesell.ScopeWrite},
		Handler: func(ctx context.Context, p auth.Principal, in rememberInput) (toolkit.Result[memoryOutput], error) {
			facts, err := n.Remember(ctx, p.WorkspaceID, in.Fact)
			if err != nil {
				return toolkit.Result[memoryOutput]{}, err
			}
			return toolkit.Result[memoryOutput]{
				Markdown: fmt.Sprintf("Remembered. %s on record.", vibesell.Plural(len(facts), "fact is", "facts are")),
				Data:     memoryOutput{Facts: facts},
			}, nil
		},
	})

	s := toolkit.NewServer([]toolkit.Tool{remember}, nil)
	// A transport puts who is asking on the context; here, by hand.
	ctx := auth.NewContext(context.Background(), auth.Principal{WorkspaceID: uuid.New(), WorkspaceSlug: "acme"})
	for _, args := range []string{
		`{"fact": "We never email on Fridays"}`,
		`{"fact": "Prefers to be called Sam"}`,
		`{"fact": "   "}`,
		`{"fact": 42}`,
	} {
		reply := s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":`+args+`}}`))
		data, _ := json.Marshal(reply)
		var res struct {
			Result struct {
				Content           []struct{ Text string }
				StructuredContent json.RawMessage
				IsError           bool
			}
		}
		_ = json.Unmarshal(data, &res)
		fmt.Printf("error=%v %s\n", res.Result.IsError, res.Result.Content[0].Text)
		if res.Result.StructuredContent != nil {
			fmt.Printf("  %s\n", res.Result.StructuredContent)
		}
	}
	// Output:
	// error=false Remembered. 1 fact is on record.
	//   {"kind":"memory","facts":["We never email on Fridays"]}
	// error=false Remembered. 2 facts are on record.
	//   {"kind":"memory","facts":["We never email on Fridays","Prefers to be called Sam"]}
	// error=true The fact is empty. Say what to remember in a few words.
	// error=true The argument "fact" must be text of 1 to 1000 characters, for example "We never email on Fridays"; you sent 42.
}
