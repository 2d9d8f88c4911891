//go:build vibesell_conformance

package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance)
// checks a server's content types, notifications, server-to-client
// requests, resources and prompts by calling a fixture it names: these,
// as its scenarios describe them. Only in this build (see
// conformanceFixture); the server says so at start.
func init() {
	conformanceFixture = addConformanceFixture
}

// onePixelPNG is a 1×1 red PNG; silentWAV a WAV of one silent sample.
var (
	onePixelPNG = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silentWAV   = base64.StdEncoding.EncodeToString([]byte("RIFF\x26\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00"))
)

func mustBase64(s string) string {
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		panic(err)
	}
	return s
}

func addConformanceFixture(s *server.MCPServer, logger *slog.Logger) {
	logger.Warn("this build serves the conformance suite's fixture tools, resources and prompts (test_*, test://…): for the suite only, never for people")
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(t)}}
	}
	noArgs := func(name, description string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithDescription(description))
	}
	pause := func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
			return nil
		}
	}

	s.AddTool(noArgs("test_simple_text", "Returns a simple text."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("This is a simple text response for testing."), nil
	})
	s.AddTool(noArgs("test_image_content", "Returns an image."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(onePixelPNG, "image/png")}}, nil
	})
	s.AddTool(noArgs("test_audio_content", "Returns audio."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(silentWAV, "audio/wav")}}, nil
	})
	s.AddTool(noArgs("test_embedded_resource", "Returns an embedded resource."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}}, nil
	})
	s.AddTool(noArgs("test_multiple_content_types", "Returns text, an image and a resource."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("Multiple content types test:"),
			mcp.NewImageContent(onePixelPNG, "image/png"),
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
		}}, nil
	})
	s.AddTool(noArgs("test_tool_with_logging", "Logs three messages while it runs."), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				if err := pause(ctx); err != nil {
					return nil, err
				}
			}
			if err := s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "conformance", msg)); err != nil {
				return nil, err
			}
		}
		// mcp-go v1.2.1 loses a notification its forwarder has taken but
		// not yet written when the result is written first: the pause
		// lets the last one out (VibeSell's own tools send none).
		if err := pause(ctx); err != nil {
			return nil, err
		}
		return text("Logged three messages."), nil
	})
	s.AddTool(noArgs("test_error_handling", "Always fails."), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("This tool intentionally returns an error for testing"), nil
	})
	s.AddTool(noArgs("test_tool_with_progress", "Reports progress while it runs."), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var token mcp.ProgressToken
		if req.Params.Meta != nil {
			token = req.Params.Meta.ProgressToken
		}
		for i, done := range []float64{0, 50, 100} {
			if i > 0 {
				if err := pause(ctx); err != nil {
					return nil, err
				}
			}
			if token == nil {
				continue
			}
			if err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": token, "progress": done, "total": 100}); err != nil {
				return nil, err
			}
		}
		if err := pause(ctx); err != nil { // as in test_tool_with_logging
			return nil, err
		}
		return text("Progress reported."), nil
	})
	s.AddTool(mcp.NewTool("test_sampling", mcp.WithDescription("Asks the client's model."),
		mcp.WithString("prompt", mcp.Required(), mcp.Description("The prompt to send to the model"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			//lint:ignore SA1019 the suite's 2025-11-25 scenario asks for sampling, which that revision has
			res, err := s.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.GetString("prompt", ""))}},
				MaxTokens: 100,
			}})
			if err != nil {
				return nil, err
			}
			answer := ""
			if t, ok := res.Content.(mcp.TextContent); ok {
				answer = t.Text
			}
			return text("LLM response: " + answer), nil
		})
	elicit := func(ctx context.Context, message string, schema map[string]any, prefix string) (*mcp.CallToolResult, error) {
		res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: message, RequestedSchema: schema}})
		if err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("%saction=%s, content=%v", prefix, res.Action, res.Content)), nil
	}
	s.AddTool(mcp.NewTool("test_elicitation", mcp.WithDescription("Asks the person for input."),
		mcp.WithString("message", mcp.Required(), mcp.Description("The message to show the person"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return elicit(ctx, req.GetString("message", ""), map[string]any{
				"type": "object",
				"properties": map[string]any{
					"username": map[string]any{"type": "string", "description": "User's response"},
					"email":    map[string]any{"type": "string", "description": "User's email address"},
				},
				"required": []string{"username", "email"},
			}, "User response: ")
		})
	s.AddTool(noArgs("test_elicitation_sep1034_defaults", "Asks for input with defaults of every type."), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return elicit(ctx, "Confirm or change the defaults.", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "default": 30},
				"score":    map[string]any{"type": "number", "default": 95.5},
				"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "default": true},
			},
		}, "Elicitation completed: ")
	})
	titled := func(prefix, title string) []map[string]any {
		var out []map[string]any
		for i, n := range []string{"First", "Second", "Third"} {
			out = append(out, map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": n + " " + title})
		}
		return out
	}
	s.AddTool(noArgs("test_elicitation_sep1330_enums", "Asks for input with every kind of enum."), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return elicit(ctx, "Pick your options.", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle":   map[string]any{"type": "string", "oneOf": titled("value", "Option")},
				"legacyEnum":     map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti":    map[string]any{"type": "array", "items": map[string]any{"anyOf": titled("value", "Choice")}},
			},
		}, "Elicitation completed: ")
	})

	s.AddResource(mcp.NewResource("test://static-text", "Static text", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."}}, nil
		})
	s.AddResource(mcp.NewResource("test://static-binary", "Static binary", mcp.WithMIMEType("image/png")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: onePixelPNG}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://template/{id}/data", "Templated data", mcp.WithTemplateMIMEType("application/json")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := fmt.Sprint(req.Params.Arguments["id"])
			if ids, ok := req.Params.Arguments["id"].([]string); ok && len(ids) == 1 {
				id = ids[0]
			}
			if id == "" {
				return nil, errors.New("no id")
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json",
				Text: fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)}}, nil
		})

	user := func(c mcp.Content) mcp.PromptMessage { return mcp.PromptMessage{Role: mcp.RoleUser, Content: c} }
	s.AddPrompt(mcp.NewPrompt("test_simple_prompt", mcp.WithPromptDescription("A simple prompt.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{user(mcp.NewTextContent("This is a simple prompt for testing."))}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_arguments", mcp.WithPromptDescription("A prompt with arguments."),
		mcp.WithArgument("arg1", mcp.RequiredArgument(), mcp.ArgumentDescription("First test argument")),
		mcp.WithArgument("arg2", mcp.RequiredArgument(), mcp.ArgumentDescription("Second test argument"))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{user(mcp.NewTextContent(
				fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Params.Arguments["arg1"], req.Params.Arguments["arg2"])))}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_embedded_resource", mcp.WithPromptDescription("A prompt with a resource."),
		mcp.WithArgument("resourceUri", mcp.RequiredArgument(), mcp.ArgumentDescription("URI of the resource to embed"))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				user(mcp.NewTextContent("Please process the embedded resource above.")),
			}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_image", mcp.WithPromptDescription("A prompt with an image.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(mcp.NewImageContent(onePixelPNG, "image/png")),
				user(mcp.NewTextContent("Please analyze the image above.")),
			}}, nil
		})
}
