package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/mark3labs/mcp-go/mcp"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"vibesell"
	"vibesell/auth"
)

// Hint is the value of one behaviour hint. Its zero value means "not said",
// which [Define] refuses: mcp-go would otherwise advertise every tool as
// destructive and open-world, and a host asks the person to confirm more
// than it should (or, the other way round, less).
type Hint uint8

// The two values a [Hint] can be given.
const (
	_ Hint = iota
	Yes
	No
)

// Annotations are the four behaviour hints a host reads before it runs a
// tool. Every tool states all four, truthfully.
type Annotations struct {
	ReadOnly    Hint // it changes nothing anywhere
	Destructive Hint // it may overwrite or delete what is there (meaningless when read-only, so it must be No then)
	Idempotent  Hint // calling it again with the same arguments changes nothing more
	OpenWorld   Hint // it reaches beyond VibeSell's own records (mail providers, registrars, Stripe, the lead directory)
}

// Result is what a handler returns when the tool did its job.
//
// Markdown is for the assistant: what was found or done and what to do next,
// written out in full words. Data is the structuredContent for the card; its
// type's kind field is filled in by the framework when the type allows only
// one kind.
type Result[Out any] struct {
	Markdown string
	Data     Out
	// Meta is the result's _meta: what hosts give the card (the view) and
	// never the model, such as a decision token (package proof). Nil for
	// none.
	Meta map[string]any
}

// Handler does a tool's work for the workspace p. It returns a refusal (a
// *vibesell.Error anywhere in the chain) when the person should hear "no",
// and any other error when something broke; it never sees a call without a
// workspace or with arguments that do not fit In.
type Handler[In, Out any] func(ctx context.Context, p auth.Principal, in In) (Result[Out], error)

// Spec describes one tool. In and Out are structs; their JSON Schemas are
// generated from them and are the only description of the arguments and
// results the assistant gets, so their tags are public API (see the package
// documentation for the tags).
type Spec[In, Out any] struct {
	Name        string // stable snake_case name; never renamed
	Title       string // short, for people
	Description string // what it does in the person's words, when not to use it, units, cost, side effects, the confusable neighbour
	Annotations Annotations
	// Requires is what a call needs beyond a workspace; [Options].Gate
	// checks it before the handler runs.
	Requires Needs
	// AppOnly makes the tool visible to the card only (MCP Apps'
	// _meta.ui.visibility ["app"]): hosts list it to the card, hide it from
	// the model, and refuse the model's calls to it. It is still served to
	// any client that calls it, so it must hold its own proof.
	AppOnly bool
	Handler Handler[In, Out]
	// Markdown, when set, writes the result's Markdown from its Data
	// alone, and the handler leaves Result.Markdown empty. It must be a
	// function of Data and nothing else (no clock): a call whose Data is
	// the same (reflect.DeepEqual) as the last result in its workspace is
	// answered with that result's Markdown and encoded Data, neither
	// written nor encoded again. For a read that answers the same over and
	// over, such as the workspace's context.
	Markdown func(Out) string
}

// Needs is what a tool needs beyond a workspace, declared in its [Spec] so
// that every tool is gated in one place ([Options].Gate) instead of in
// each handler.
type Needs struct {
	// Scope is the OAuth scope a token must carry to call the tool (the
	// catalog's vibesell.Scope* values). Every tool states one.
	Scope string `json:"scope"`
}

// Gate decides whether p may call a tool that needs n. It returns nil to
// let the call through, a *vibesell.Error to refuse it (unauthorized for a
// missing scope), which the client gets like any other refusal, or any other error when it could not
// decide (an internal failure, logged under a ref).
type Gate func(ctx context.Context, p auth.Principal, tool string, n Needs) error

// Tool is a defined tool, ready to be served by [NewServer]. Build one with
// [Define].
type Tool struct {
	def     mcp.Tool
	needs   Needs
	appOnly bool
	run     func(ctx context.Context, p auth.Principal, raw any) (markdown string, structured json.RawMessage, meta map[string]any, err error)
}

// AppOnly reports whether only the card may see and call the tool.
func (t Tool) AppOnly() bool { return t.appOnly }

// Name returns the tool's name.
func (t Tool) Name() string { return t.def.Name }

// Needs returns what the tool needs beyond a workspace.
func (t Tool) Needs() Needs { return t.needs }

// Definition returns the tool as tools/list shows it, without the _meta
// the server adds (the card link).
func (t Tool) Definition() mcp.Tool { return t.def }

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Define turns a spec into a tool. It generates and checks both schemas
// once, here, so that a mistake in a spec (a hint left unsaid, an argument
// without a description or example, an example that does not fit its own
// schema, an Out without a kind) stops the server at start-up and fails
// every test, instead of reaching the assistant. It panics on such a
// mistake, like regexp.MustCompile.
func Define[In, Out any](s Spec[In, Out]) Tool {
	t, err := define(s)
	if err != nil {
		panic(fmt.Sprintf("toolkit: %s: %v", s.Name, err))
	}
	return t
}

func define[In, Out any](s Spec[In, Out]) (Tool, error) {
	if !toolName.MatchString(s.Name) {
		return Tool{}, errors.New("name must be lowercase snake_case")
	}
	if s.Title == "" || s.Description == "" {
		return Tool{}, errors.New("title and description are required")
	}
	if s.Handler == nil {
		return Tool{}, errors.New("handler is required")
	}
	if s.Requires.Scope == "" {
		return Tool{}, errors.New("Requires.Scope is required: say which OAuth scope a call needs")
	}
	hints, err := s.Annotations.toMCP(s.Title)
	if err != nil {
		return Tool{}, err
	}

	inType, outType := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	if inType.Kind() != reflect.Struct || outType.Kind() != reflect.Struct {
		return Tool{}, errors.New("the tool's In and Out must be struct types")
	}
	inSchema, err := generateSchema(inType)
	if err != nil {
		return Tool{}, fmt.Errorf("input schema: %w", err)
	}
	withoutNull(inSchema)
	if err := checkInputDocs(inSchema); err != nil {
		return Tool{}, fmt.Errorf("input schema: %w", err)
	}
	args, err := newArguments(s.Name, inSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("input schema: %w", err)
	}

	outSchema, err := generateSchema(outType)
	if err != nil {
		return Tool{}, fmt.Errorf("output schema: %w", err)
	}
	kind, err := findKind(outType, outSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("output schema: %w", err)
	}
	outJSON, err := json.Marshal(outSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("output schema: %w", err)
	}
	outCompiled, err := compileSchema("mem://vibesell/tools/"+s.Name+"/output.json", outJSON)
	if err != nil {
		return Tool{}, fmt.Errorf("output schema: %w", err)
	}
	output := newOutputCheck(outCompiled)

	// A struct literal, not mcp.NewTool: NewTool fills in risky default
	// hints and a structured input schema that, next to RawInputSchema,
	// makes tools/list fail for every tool.
	def := mcp.Tool{
		Name:            s.Name,
		Title:           s.Title,
		Description:     s.Description,
		RawInputSchema:  args.raw,
		RawOutputSchema: outJSON,
		Annotations:     hints,
	}

	handler, markdown := s.Handler, s.Markdown
	var last *lru.Cache[uuid.UUID, *rendered[Out]]
	if markdown != nil {
		last, _ = lru.New[uuid.UUID, *rendered[Out]](resultsRemembered)
	}
	run := func(ctx context.Context, p auth.Principal, raw any) (string, json.RawMessage, map[string]any, error) {
		in, err := decodeArguments[In](args, raw)
		if err != nil {
			return "", nil, nil, err
		}
		res, err := handler(ctx, p, in)
		if err != nil {
			return "", nil, nil, err
		}
		if markdown != nil {
			if res.Markdown != "" {
				return "", nil, nil, errors.New("handler returned Markdown, which the spec's Markdown writes")
			}
			kind.fill(&res.Data)
			if r, ok := last.Get(p.WorkspaceID); ok && reflect.DeepEqual(r.data, res.Data) {
				return r.markdown, r.encoded, res.Meta, nil
			}
			res.Markdown = markdown(res.Data)
		}
		if strings.TrimSpace(res.Markdown) == "" {
			return "", nil, nil, errors.New("handler returned a result without Markdown")
		}
		kind.fill(&res.Data)
		// Encoded once: the bytes validated are the bytes sent.
		data, err := json.Marshal(res.Data)
		if err != nil {
			return "", nil, nil, fmt.Errorf("encode structuredContent: %w", err)
		}
		if err := output.check(data); err != nil {
			return "", nil, nil, fmt.Errorf("structuredContent does not match the output schema: %w", err)
		}
		if err := checkBounds(res.Markdown, data); err != nil {
			return "", nil, nil, err
		}
		if last != nil {
			last.Add(p.WorkspaceID, &rendered[Out]{data: res.Data, markdown: res.Markdown, encoded: data})
		}
		return res.Markdown, data, res.Meta, nil
	}
	return Tool{def: def, needs: s.Requires, appOnly: s.AppOnly, run: run}, nil
}

// checkBounds refuses a result over the bounds every result keeps
// (vibesell.MaxResultText, vibesell.MaxResultStructured): hosts cut or drop
// it, so it is never sent, and the call fails as an internal failure whose
// ref the log explains. A tool whose list can grow pages or summarises it;
// this is where one that does not is caught.
func checkBounds(markdown string, structured []byte) error {
	if n := utf8.RuneCountInString(markdown); n > vibesell.MaxResultText {
		return fmt.Errorf("result over bound: the text is %d characters, the most a result may send is %d (page or summarise the list that grew)", n, vibesell.MaxResultText)
	}
	if n := len(structured); n > vibesell.MaxResultStructured {
		return fmt.Errorf("result over bound: structuredContent is %d bytes, the most a result may send is %d (page or summarise the list that grew)", n, vibesell.MaxResultStructured)
	}
	return nil
}

// rendered is a result as sent: its Data, and the Markdown and JSON
// written from it. It is never changed once made.
type rendered[Out any] struct {
	data     Out
	markdown string
	encoded  json.RawMessage
}

// resultsRemembered is how many workspaces' last results a tool with a
// Spec.Markdown keeps.
const resultsRemembered = 1024

func (a Annotations) toMCP(title string) (mcp.ToolAnnotation, error) {
	hints := []Hint{a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld}
	if slices.Contains(hints, 0) {
		return mcp.ToolAnnotation{}, errors.New("all four annotations (ReadOnly, Destructive, Idempotent, OpenWorld) must be set to Yes or No")
	}
	if a.ReadOnly == Yes && a.Destructive == Yes {
		return mcp.ToolAnnotation{}, errors.New("a read-only tool cannot be destructive")
	}
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(a.ReadOnly == Yes),
		DestructiveHint: mcp.ToBoolPtr(a.Destructive == Yes),
		IdempotentHint:  mcp.ToBoolPtr(a.Idempotent == Yes),
		OpenWorldHint:   mcp.ToBoolPtr(a.OpenWorld == Yes),
	}, nil
}

func compileSchema(url string, schemaJSON []byte) (*validator.Schema, error) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	// Formats (uuid, date-time) are checked, so a malformed id is refused
	// with a sentence before it reaches the decoder's Go error.
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// outputCheck checks a tool's structuredContent against its output schema
// before it is sent. Whether bytes fit a schema depends on the bytes
// alone, so it remembers (by a seeded 64-bit hash) the last outputs that
// fitted and does not check them again: a read that returns the same
// result over and over, such as a workspace's context, pays for the check
// once instead of on every call (the check costs several times what the
// hash does).
type outputCheck struct {
	schema *validator.Schema
	seed   maphash.Seed
	passed *lru.Cache[uint64, struct{}]
}

// outputsRemembered is how many passed outputs each tool remembers.
const outputsRemembered = 4096

func newOutputCheck(schema *validator.Schema) *outputCheck {
	passed, err := lru.New[uint64, struct{}](outputsRemembered)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	return &outputCheck{schema: schema, seed: maphash.MakeSeed(), passed: passed}
}

func (c *outputCheck) check(data []byte) error {
	sum := maphash.Bytes(c.seed, data)
	if c.passed.Contains(sum) {
		return nil
	}
	if err := validateJSON(c.schema, data); err != nil {
		return err
	}
	c.passed.Add(sum, struct{}{})
	return nil
}

func validateJSON(s *validator.Schema, data []byte) error {
	v, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
