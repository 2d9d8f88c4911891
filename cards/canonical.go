package cards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Canonical returns the canonical JSON of a tool's arguments: the value as
// JSON, without a top-level "answers" member, objects with their keys
// sorted, no insignificant space, and numbers in one form (20, 20.0 and
// 2e1 are all 20). Two calls with the same arguments written differently
// give the same bytes, so cards compare arguments by these bytes and never
// by the raw text a client sent.
func Canonical(args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	switch obj := v.(type) {
	case map[string]any:
		delete(obj, "answers")
	case nil:
		v = map[string]any{}
	default:
		return nil, fmt.Errorf("arguments must be a JSON object, not %T", v)
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case json.Number:
		buf.WriteString(canonicalNumber(x))
	case string:
		writeString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("canonical JSON: unexpected %T", v)
	}
	return nil
}

// canonicalNumber writes a JSON number in one form: an integer without
// fraction or exponent when it is one (exactly, however large), otherwise
// the shortest decimal that reads back as the same float64.
func canonicalNumber(n json.Number) string {
	s := string(n)
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return r.RatString()
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func writeString(buf *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// questionHash identifies what a person is answering: the question, the
// choice ids and labels, and whether their own words are allowed. The
// reason and the descriptions may change (a date moves with the clock)
// without making it another question.
func questionHash(q Question) string {
	type choice struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	v := struct {
		Question      string   `json:"question"`
		Choices       []choice `json:"choices"`
		AllowFreeText bool     `json:"allowFreeText"`
	}{Question: q.Question, AllowFreeText: q.AllowFreeText, Choices: []choice{}}
	for _, c := range q.Choices {
		v.Choices = append(v.Choices, choice{ID: c.ID, Label: c.Label})
	}
	b, _ := json.Marshal(v) // plain strings and bools always encode
	return sha256Hex(b)
}

// normalizeAnswer trims the answer and collapses runs of white space, so
// "own_names " and "own_names" are the same answer.
func normalizeAnswer(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
