// Package tools adapts VibeSell's features to MCP: the registry of every
// tool ([Registry]), the server built from it ([NewServer]), and the one
// mapping from a handler's outcome to what the client sees.
//
// # Adding a tool
//
// A tool is an input struct, an output struct and a [Spec] given to
// [Define]; its handler calls a feature package and holds no SQL. Put it in
// the file of its product area and add one line to [Registry]:
//
//	type rememberInput struct {
//		Fact string `json:"fact" jsonschema:"the fact to keep, in the person's words" example:"We never email on Fridays" minLength:"1" maxLength:"500"`
//	}
//
//	type memoryOutput struct {
//		Kind  string `json:"kind" enum:"memory"`
//		Facts []string `json:"facts" jsonschema:"everything remembered so far, oldest first"`
//	}
//
//	func remember(d Deps) Tool {
//		return Define(Spec[rememberInput, memoryOutput]{
//			Name:        "remember",
//			Title:       "Remember a fact",
//			Description: "Keeps a fact about the person's business for later conversations. ...",
//			Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
//			Handler: func(ctx context.Context, p auth.Principal, in rememberInput) (Result[memoryOutput], error) {
//				facts, err := d.Workspaces.Remember(ctx, p.WorkspaceID, in.Fact)
//				if err != nil {
//					return Result[memoryOutput]{}, err
//				}
//				return Result[memoryOutput]{
//					Markdown: fmt.Sprintf("Remembered. %d facts are on record.", len(facts)),
//					Data:     memoryOutput{Facts: facts},
//				}, nil
//			},
//		})
//	}
//
// The handler returns a *vibesell.Error for a refusal the person should
// hear, any other error for a failure (logged under a ref, never shown),
// or a [Result]. It never runs without a workspace or with arguments that
// do not fit the input struct.
//
// # Struct tags
//
// Both schemas are generated from the Go types (google/jsonschema-go, as in
// mcp-go): a field without omitempty is required; a pointer may be null,
// which in an output means "not available"; structs take no other
// properties. On top of json, fields may carry:
//
//	jsonschema:"..."   the description (text only: "required,..." or "enum=..." is not understood)
//	example:"..."      one example: the text itself for a text field, JSON otherwise (example:"20")
//	enum:"a,b"         the allowed values; on a list, of each item
//	minimum:"1" maximum:"100"        on numbers (on a list, of each item)
//	minLength:"1" maxLength:"200"    on text (on a list, of each item)
//	pattern:"^[0-9a-f]{16}$"         on text (on a list, of each item)
//	minItems:"1" maxItems:"10"       on lists
//
// Every input field needs a description and an example, every nested input
// field a description, and every example must fit its own schema; [Define]
// panics otherwise. The output struct needs a Kind string `json:"kind"`
// field whose enum tag lists the kinds it can hold; when it lists one, the
// framework fills it in. uuid.UUID and time.Time are text with the uuid and
// date-time formats, which are checked.
//
// # Who is asking
//
// Every call must carry an auth.Principal on its context. Transports put it
// there: server.WithHTTPContextFunc for streamable HTTP,
// server.WithStdioContextFunc for stdio, and the caller's own context for
// the in-process client used in tests (see package toolstest).
package tools
