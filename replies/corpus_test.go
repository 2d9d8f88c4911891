package replies_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vibesell/mail"
	"vibesell/replies"
)

// corpusReply is one reply of the labelled corpus in testdata/replies:
// each starts with a line "=== class", then optional header lines
// (From, Subject, Date, Auto-Submitted, X-Autoreply) and a blank line,
// then the message as the person's mail program sent it, quote and
// signature included.
type corpusReply struct {
	file, label, raw string
	line             int
}

var corpusHeader = regexp.MustCompile(`^(From|Subject|Date|Auto-Submitted|X-Autoreply): `)

func readCorpus(t *testing.T, pattern string) []corpusReply {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus at %s: %v", pattern, err)
	}
	var out []corpusReply
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur *corpusReply
		var body []string
		flush := func() {
			if cur == nil {
				return
			}
			headers := map[string]string{"From": "lead@prospect.example", "Subject": "Re: A quick question", "Date": "Tue, 1 Dec 2026 09:00:00 +0000"}
			var order []string
			lines := body
			for len(lines) > 0 && corpusHeader.MatchString(lines[0]) {
				k, v, _ := strings.Cut(lines[0], ": ")
				if _, ok := headers[k]; !ok {
					order = append(order, k)
				}
				headers[k] = v
				lines = lines[1:]
			}
			var b strings.Builder
			for _, k := range append([]string{"From", "Subject", "Date"}, order...) {
				fmt.Fprintf(&b, "%s: %s\r\n", k, headers[k])
			}
			b.WriteString("Message-ID: <corpus@prospect.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
			b.WriteString(strings.Join(lines, "\r\n"))
			cur.raw = b.String()
			out = append(out, *cur)
			cur = nil
		}
		for i, line := range strings.Split(string(data), "\n") {
			if label, ok := strings.CutPrefix(line, "=== "); ok {
				flush()
				cur = &corpusReply{file: filepath.Base(f), line: i + 1, label: strings.TrimSpace(label)}
				body = nil
				continue
			}
			if cur != nil {
				body = append(body, line)
			}
		}
		flush()
	}
	return out
}

// TestClassifyCorpus reads every reply of the corpus as the engine does
// (parsed, then classified) and reports the accuracy per class and in
// all. What matters most is that a reply wanting a conversation (a
// meeting, a time, a question, interest) is told from everything else:
// below 95% there, the test fails.
func TestClassifyCorpus(t *testing.T) {
	corpus := readCorpus(t, "testdata/replies/*.txt")
	if len(corpus) < 300 {
		t.Errorf("the corpus has %d replies, want at least 300", len(corpus))
	}
	measureCorpus(t, corpus)
}

// TestClassifyHeldOut measures the rules on testdata/replies/heldout,
// replies written and labelled before anyone read the rules, in the four
// languages and every class. It is kept apart from the corpus the rules
// were tuned on so its figure says what to expect on replies nobody has
// seen: a reply here that the rules miss is fixed by a rule for its
// family of phrasings, never by one for its words. Measured first,
// before any rule changed for it: 85.0% exact class, 97.5% on wants a
// conversation (testdata/replies/README.md has the after).
func TestClassifyHeldOut(t *testing.T) {
	corpus := readCorpus(t, "testdata/replies/heldout/*.txt")
	if len(corpus) < 150 {
		t.Errorf("the held-out set has %d replies, want at least 150", len(corpus))
	}
	measureCorpus(t, corpus)
}

// measureCorpus classifies every reply of corpus and reports the accuracy
// per class, per file and in all; it fails below 95% on wants a
// conversation (interested) against everything else.
func measureCorpus(t *testing.T, corpus []corpusReply) {
	t.Helper()
	type tally struct{ right, all int }
	per, perFile := map[string]*tally{}, map[string]*tally{}
	var right, wantsRight int
	for _, c := range corpus {
		if !slices.Contains(replies.Classifications(), c.label) {
			t.Errorf("%s:%d: %q is not a classification", c.file, c.line, c.label)
			continue
		}
		r, err := mail.ParseReply([]byte(c.raw))
		if err != nil {
			t.Errorf("%s:%d: %v", c.file, c.line, err)
			continue
		}
		v := replies.Classify(r)
		if per[c.label] == nil {
			per[c.label] = &tally{}
		}
		per[c.label].all++
		if perFile[c.file] == nil {
			perFile[c.file] = &tally{}
		}
		perFile[c.file].all++
		if v.Classification == c.label {
			perFile[c.file].right++
			per[c.label].right++
			right++
		} else {
			t.Logf("%s:%d: want %s, got %s: %s", c.file, c.line, c.label, v.Classification, v.Rule)
		}
		if (v.Classification == replies.Interested) == (c.label == replies.Interested) {
			wantsRight++
		}
	}
	var report strings.Builder
	for _, class := range replies.Classifications() {
		if p := per[class]; p != nil {
			fmt.Fprintf(&report, "  %-15s %3d/%3d  %5.1f%%\n", class, p.right, p.all, 100*float64(p.right)/float64(p.all))
		}
	}
	files := make([]string, 0, len(perFile))
	for f := range perFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		p := perFile[f]
		fmt.Fprintf(&report, "  %-15s %3d/%3d  %5.1f%%\n", f, p.right, p.all, 100*float64(p.right)/float64(p.all))
	}
	overall := 100 * float64(right) / float64(len(corpus))
	wants := 100 * float64(wantsRight) / float64(len(corpus))
	fmt.Fprintf(&report, "  overall         %3d/%3d  %5.1f%%\n", right, len(corpus), overall)
	fmt.Fprintf(&report, "  wants a conversation against everything else: %d/%d  %5.1f%%\n", wantsRight, len(corpus), wants)
	t.Logf("accuracy per class:\n%s", report.String())
	if wants < 95 {
		t.Errorf("wants a conversation is told from everything else in %.1f%% of replies, want 95%% or more", wants)
	}
}
