package toolkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// This file is the edge between HTTP and JSON-RPC: what a client hears when
// its message cannot be handled at all. mcp-go (v1.2.1) answers an
// oversize body with 400 and "read request body error: http: request body
// too large", a JSON-RPC batch with "request body is not valid json", and
// params of the wrong shape with encoding/json's text ("unparsable
// tools/call request: json: cannot unmarshal number into Go struct field
// CallToolParams.params.name of type string"): Go, not something a client's
// developer can act on. An upstream fix would word UnparsableMessageError
// from the JSON path and the expected JSON type, answer 413 to
// http.MaxBytesError, and refuse a batch by name.

// protocolEdge answers the messages mcp-go cannot word: a body over
// maxRequestBytes (413), a batch (400), and rewrites the JSON-RPC error of
// a message whose params do not fit their method into a sentence.
func protocolEdge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeProtocolError(w, http.StatusRequestEntityTooLarge, mcp.INVALID_REQUEST, fmt.Sprintf(
				"The message is larger than the %d MiB this server reads. Send a smaller one.", maxRequestBytes>>20))
			return
		case err != nil:
			writeProtocolError(w, http.StatusBadRequest, mcp.PARSE_ERROR, "The request body could not be read to its end. Send the message again.")
			return
		}
		if isJSON(r) && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			writeProtocolError(w, http.StatusBadRequest, mcp.INVALID_REQUEST,
				"JSON-RPC batches are not supported: send each message in a request of its own, as one JSON object.")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		pw := &protocolWriter{ResponseWriter: w, toolCall: isToolCall(body)}
		next.ServeHTTP(pw, r)
		pw.finish()
		if held := pw.body; held != nil && held.Cap() <= maxHeldKept {
			pw.body = nil
			held.Reset()
			heldAnswers.Put(held)
		}
	})
}

// maxHeldKept bounds the buffers kept for the next answers: a rare large
// answer's is left to the collector.
const maxHeldKept = 256 << 10

// heldAnswers are the buffers that hold JSON answers back, used again
// from one answer to the next (a workspace's context is several KB).
var heldAnswers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// protocolEdgeFunc is protocolEdge around a handler function, which is
// how NewHTTPHandler hooks it in.
func protocolEdgeFunc(f http.HandlerFunc) http.Handler { return protocolEdge(f) }

func isJSON(r *http.Request) bool {
	t, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && t == "application/json"
}

func writeProtocolError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(mcp.JSONRPCError{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(nil),
		Error:   mcp.NewJSONRPCErrorDetails(code, message, nil),
	})
}

// protocolWriter holds back a JSON answer (not an event stream) until the
// handler is done, so that a JSON-RPC error worded in Go can be reworded.
type protocolWriter struct {
	http.ResponseWriter
	status  int
	holding bool
	body    *bytes.Buffer // from heldAnswers while holding
	// toolCall: the request is a tools/call, whose result says isError
	// either way (markToolSuccess).
	toolCall bool
}

func (p *protocolWriter) WriteHeader(status int) {
	if p.status != 0 {
		return
	}
	p.status = status
	if strings.HasPrefix(p.Header().Get("Content-Type"), "application/json") {
		p.holding, p.body = true, heldAnswers.Get().(*bytes.Buffer)
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *protocolWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.WriteHeader(http.StatusOK)
	}
	if p.holding {
		if p.body == nil { // after finish: nothing more is sent
			return len(b), nil
		}
		return p.body.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

// Flush passes an event stream's events on as they come.
func (p *protocolWriter) Flush() {
	if p.holding {
		return
	}
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *protocolWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

func (p *protocolWriter) finish() {
	if !p.holding {
		return
	}
	body := rewordProtocolError(p.body.Bytes())
	if p.toolCall {
		body = markToolSuccess(body)
	}
	// The whole answer is known: sent with its length, in one piece
	// rather than chunked.
	p.Header().Set("Content-Length", strconv.Itoa(len(body)))
	p.ResponseWriter.WriteHeader(p.status)
	_, _ = p.ResponseWriter.Write(body)
}

// rewordProtocolError rewrites a JSON-RPC error whose message is Go's
// decoding text into a sentence; any other answer is returned as it is.
func rewordProtocolError(body []byte) []byte {
	// Only an error whose message begins "unparsable" is reworded: an
	// answer without the word (a result, nearly always) is passed on
	// without being decoded, which would cost every call.
	if !bytes.Contains(body, []byte("unparsable ")) {
		return body
	}
	var answer struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Error == nil {
		return body
	}
	sentence, ok := unparsableSentence(answer.Error.Message)
	if !ok {
		return body
	}
	answer.Error.Code = mcp.INVALID_PARAMS
	answer.Error.Message = sentence
	answer.Error.Data = nil
	out, err := json.Marshal(answer)
	if err != nil {
		return body
	}
	return append(out, '\n')
}

var (
	// unparsable tools/call request: json: cannot unmarshal number into Go struct field CallToolParams.params.name of type string
	unparsableMessage = regexp.MustCompile(`^unparsable (\S+) request: (.*)$`)
	wrongFieldType    = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.([\w.]+) of type (\S+)`)
	wrongValueType    = regexp.MustCompile(`cannot unmarshal (\w+) into Go value of type (\S+)`)
)

// unparsableSentence words mcp-go's "unparsable" error: which member of
// the message has the wrong JSON type and which type it needs.
func unparsableSentence(message string) (string, bool) {
	m := unparsableMessage.FindStringSubmatch(message)
	if m == nil {
		return "", false
	}
	method, cause := m[1], m[2]
	if f := wrongFieldType.FindStringSubmatch(cause); f != nil {
		return fmt.Sprintf("The %s request's %s must be %s, not %s. See the MCP specification for its params.",
			method, strconv.Quote(f[2]), jsonKindOf(f[3]), withArticle(f[1])), true
	}
	if v := wrongValueType.FindStringSubmatch(cause); v != nil {
		return fmt.Sprintf("The %s request must be an object with the members the MCP specification gives it, not %s.",
			method, withArticle(v[1])), true
	}
	return fmt.Sprintf("The %s request's params do not have the shape the MCP specification gives them.", method), true
}

// jsonKindOf names the JSON value a Go type is decoded from.
func jsonKindOf(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

func withArticle(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	case "bool":
		return "true or false"
	}
	return "a " + jsonKind
}

// isToolCall tells a tools/call request from any other message without
// decoding a message that cannot be one.
func isToolCall(body []byte) bool {
	if !bytes.Contains(body, []byte(mcp.MethodToolsCall)) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == string(mcp.MethodToolsCall)
}

// markToolSuccess writes "isError": false into a tool's result that left
// it out. The design sends it on every result, so that a client never has
// to know that a missing member means false; mcp-go (v1.2.1) writes
// CallToolResult through a map that omits it when false, and offers no
// hook to add it. A refusal carries "isError":true (a key no result of
// ours has elsewhere, and inside a JSON string its quotes would be
// escaped), and a JSON-RPC error has no "result": both pass unchanged.
func markToolSuccess(answer []byte) []byte {
	const resultKey = `"result":{`
	if bytes.Contains(answer, []byte(`"isError":true`)) {
		return answer
	}
	// The id comes before the result, and a string id's quotes are
	// escaped, so the first "result":{ is the result's.
	i := bytes.Index(answer, []byte(resultKey))
	if i < 0 {
		return answer
	}
	at := i + len(resultKey)
	out := make([]byte, 0, len(answer)+len(`"isError":false,`))
	out = append(out, answer[:at]...)
	out = append(out, `"isError":false`...)
	if at < len(answer) && answer[at] != '}' {
		out = append(out, ',')
	}
	return append(out, answer[at:]...)
}
