package tools

import (
	"os"
	"strings"
	"testing"

	"vibesell"
)

// promptsDoc holds the example prompts the directories ask for: those
// that should use VibeSell, with the tools each leads to, and those that
// should not, with why.
const promptsDoc = "../docs/prompts.md"

type examplePrompt struct {
	text  string
	tools []string
	why   string
}

// readPrompts reads the file's two sections into their prompts.
func readPrompts(t *testing.T) (use, notUse []examplePrompt) {
	t.Helper()
	b, err := os.ReadFile(promptsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var into *[]examplePrompt
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "## Prompts that should use VibeSell":
			into = &use
		case line == "## Prompts that should not use VibeSell":
			into = &notUse
		case strings.HasPrefix(line, "## "):
			into = nil
		case into == nil:
		case strings.HasPrefix(line, "### "):
			*into = append(*into, examplePrompt{text: strings.Trim(strings.TrimPrefix(line, "### "), `"`)})
		case len(*into) == 0:
		case strings.HasPrefix(line, "- tools: "):
			p := &(*into)[len(*into)-1]
			for _, name := range strings.Split(strings.TrimPrefix(line, "- tools: "), ",") {
				p.tools = append(p.tools, strings.TrimSpace(name))
			}
		case strings.HasPrefix(line, "- why: "):
			(*into)[len(*into)-1].why = strings.TrimPrefix(line, "- why: ")
		}
	}
	return use, notUse
}

// At least five prompts lead to VibeSell, each to tools that exist and
// that the model may call; at least three do not, each saying why.
func TestExamplePromptsNameRealTools(t *testing.T) {
	use, notUse := readPrompts(t)
	if len(use) < 5 || len(notUse) < 3 {
		t.Fatalf("%s has %d prompts that should use VibeSell and %d that should not; want at least 5 and 3", promptsDoc, len(use), len(notUse))
	}
	model := map[string]bool{}
	for _, tool := range Registry(Deps{}) {
		if !tool.AppOnly() {
			model[tool.Name()] = true
		}
	}
	led := map[string]bool{}
	for _, p := range use {
		if p.text == "" || p.why == "" || len(p.tools) == 0 {
			t.Errorf("%q: a prompt that should use VibeSell needs its tools and why", p.text)
		}
		for _, name := range p.tools {
			if !model[name] {
				t.Errorf("%q leads to %q, which is no tool the model can call", p.text, name)
			}
			led[name] = true
		}
	}
	for _, p := range notUse {
		if p.text == "" || p.why == "" || len(p.tools) != 0 {
			t.Errorf("%q: a prompt that should not use VibeSell says why and names no tool", p.text)
		}
	}
	// The prompts lead into the product by its door: the context.
	if !led[vibesell.ToolGetWorkspaceContext] {
		t.Errorf("no prompt leads to %s, where every conversation starts", vibesell.ToolGetWorkspaceContext)
	}
}
