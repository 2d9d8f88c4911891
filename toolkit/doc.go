// Package toolkit is VibeSell's MCP framework: it turns a typed spec into a
// tool ([Define]), serves tools with the card and the instructions
// ([NewServer]) over streamable HTTP ([NewHTTPHandler]) or stdio
// ([ServeStdio]), and is the one place where a call's outcome becomes what
// the client sees. It knows no product feature; the catalog of the
// product's tools is package tools.
//
// # Defining a tool
//
// A tool is an input struct, an output struct and a [Spec] given to
// [Define]; its handler calls one feature method and renders the result
// (see the package example). The handler returns a *vibesell.Error for a
// refusal the person should hear, any other error for a failure (logged
// under a ref, never shown), or a [Result]. It never runs without a
// workspace, with arguments that do not fit the input struct, or when
// [Options].Gate refuses what the spec's Requires declares. A read whose
// text follows from its data alone gives the spec a Markdown func instead
// of writing Result.Markdown: an unchanged result is then neither written
// nor encoded again.
//
// # Struct tags
//
// Both schemas are generated from the Go types (google/jsonschema-go, as in
// mcp-go): a field without omitempty is required; a struct takes no other
// properties. In an input, every property has its one JSON type and a null
// is read as the argument left out; in an output, a pointer may be null,
// which means "not available". On top of json, fields may carry:
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
// date-time formats, which are checked. Text arguments may hold line breaks
// and tabs but no other control characters, whatever the tool.
//
// # Who is asking
//
// Every call must carry an auth.Principal on its context. Transports put it
// there: [NewHTTPHandler] from the bearer token, [ServeStdio] from its
// argument, and the caller's own context for the in-process client used in
// tests (see package toolkittest).
package toolkit
