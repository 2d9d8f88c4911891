package toolkit

import (
	"context"

	"vibesell"
	"vibesell/auth"
)

type echoInput struct {
	Text string `json:"text" jsonschema:"the text to send back" example:"hello" minLength:"1" maxLength:"10000"`
}

type echoOutput struct {
	Kind string `json:"kind" enum:"echo"`
	Text string `json:"text" jsonschema:"the text that was sent"`
}

// echo is the smallest tool that goes through the whole pipeline
// (principal, validation, handler, kind, output validation, mapping): a
// benchmark of it measures the framework, not a feature. Only
// [Options].Echo serves it.
func echo() Tool {
	return Define(Spec[echoInput, echoOutput]{
		Name:        "echo",
		Title:       "Echo",
		Description: "Sends the text back unchanged. For testing the connection only; it reads and changes nothing.",
		Annotations: Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No},
		Requires:    Needs{Scope: vibesell.ScopeRead},
		Handler: func(ctx context.Context, p auth.Principal, in echoInput) (Result[echoOutput], error) {
			return Result[echoOutput]{Markdown: in.Text, Data: echoOutput{Text: in.Text}}, nil
		},
	})
}
