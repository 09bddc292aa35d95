// Package llmanswer reads the JSON value out of a language model's answer,
// as models really write it.
//
// One call, Read, takes the answer as it reaches the service: the model's
// text (raw, or as a JSON string), or a JSON value, possibly inside the
// envelope of an LLM API or an n8n node (a chat completion passed whole, a
// responses "output" array, Anthropic or Gemini content parts). It finds
// the JSON in the text (whole, in a ``` fence, in prose, in a ```diff block,
// in nested fences; <think> blocks ignored), repairs what models get wrong,
// and returns the one value that has the shape the caller expects, saying
// where it came from, whether it was repaired, and whether the answer was
// cut off and where.
//
// Repairs: encoding/json is tried first, so clean JSON costs one decode.
// Otherwise an own one-pass lexer (lex.go) rewrites what is lexical: single
// and smart quotes, Python and JavaScript literals, unquoted keys, comments,
// trailing and line-end missing commas, unescaped quotes inside strings
// (code such as fmt.Println("hi") in a finding), raw newlines, ellipses and
// a cut end, in linear time, and records what the cut left unfinished. Only
// when that rewrite still does not decode, and the block is small (16 KiB,
// 64 KiB per answer), github.com/kaptinlin/jsonrepair is tried on the
// original block, for what a lexer does not do (JSON escaped once too
// often, concatenated strings, missing colons). Its time grows with the
// square of its input (measured: 23-41 ms at 16 KB, 3.5-5.5 s at 256 KB),
// and it turns plain prose into JSON (a list of the sentences), so it never
// chooses the block and never reads a large one.
//
// Choosing the block: every JSON block of the text (fenced or in prose) is
// decoded and offered to the caller's Shape; of those it accepts, the last
// one wins unless the prose before it, or its values ("<path>", "string",
// "path/to/..."), read as an example. A model that shows the format first,
// or corrects itself, ends with its answer, and a cut answer is cut at its
// end. The warnings say which block was taken and why.
//
// Salvaging a cut answer: when Answer.CutOff is set, Answer.Unfinished
// lists the values the cut left unfinished as JSON pointers. A caller keeps
// the items of its list whose pointer is not listed, and drops (or checks
// field by field) the one that is, then warns with the counts; see
// ExampleRead_salvage.
//
// Numbers are decoded as json.Number, so a line number or an id is kept as
// written and the caller converts it once.
//
// Work is bounded so a hostile answer costs linear time and cannot panic or
// exhaust the stack: answers over MaxBytes are not read, the lexer follows
// 64 levels of nesting, at most 64 fences are split and 32 blocks tried per
// text, envelopes and fences are followed a few levels deep, and all
// lexing and decoding share a budget of six times the answer's size plus 1 MiB.
package llmanswer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Shape is the caller's test of a decoded value: is this the JSON value it
// expects (a review object, a list of needs)? It is called on candidate
// values only (objects and arrays decoded with json.Number numbers, never
// nil) and must not keep or modify them.
type Shape func(v any) bool

// Quality says how an answer was read; it doubles as a metric label
// (prscout_model_answers_total{stage,quality}).
type Quality string

// Qualities of an answer.
const (
	// Clean: a JSON value of the expected shape decoded as written (it may
	// stand in a fence, in prose, or inside an envelope).
	Clean Quality = "clean"
	// Repaired: the JSON needed repairs (quotes, commas, comments, ...).
	Repaired Quality = "repaired"
	// Salvaged: the answer was cut off (the JSON ends unbalanced at the end
	// of the answer, or the envelope's finish reason says the model hit its
	// token limit); Value holds what could be read, see Answer.Unfinished.
	Salvaged Quality = "salvaged"
	// Unreadable: no value of the expected shape was found; Value is nil.
	Unreadable Quality = "unreadable"
)

// Qualities lists every Quality, to pre-initialise metric labels.
var Qualities = []Quality{Clean, Repaired, Salvaged, Unreadable}

// Limits of the work one Read does, so a hostile answer costs linear time.
const (
	// maxBytes is the largest answer read; a larger one is unreadable. It
	// matches the service's default request body limit.
	maxBytes = 32 << 20
	// maxUnwrap bounds envelopes and JSON strings holding JSON followed
	// inside one another.
	maxUnwrap = 8
	// maxFenceDepth bounds fences followed inside fences.
	maxFenceDepth = 3
	// maxBlocks bounds the fenced blocks split out of one text; the text
	// after the last one is read as prose.
	maxBlocks = 64
	// maxTries bounds the blocks tried as JSON in one text, fenced ones and
	// each '{' or '[' of prose that may start one.
	maxTries = 32
	// maxLibraryBytes bounds a block handed to the repair library, whose
	// time grows with the square of its input; maxLibraryTotal bounds all
	// of them in one Read.
	maxLibraryBytes = 16 << 10
	maxLibraryTotal = 64 << 10
	// The work budget, in bytes lexed or decoded: workPerByte times the
	// answer plus workBase.
	workPerByte = 6
	workBase    = 1 << 20
)

// Answer is what Read found.
type Answer struct {
	// Value is the decoded value that satisfied the Shape, with numbers as
	// json.Number (a line number or id stays exactly as written); nil when
	// the answer is unreadable.
	Value   any
	Quality Quality
	// CutOff reports that the answer was cut off: its JSON ends unbalanced
	// at the very end of the text, the text ends inside a <think> block, or
	// the envelope's finish reason says the model hit its token limit (also
	// when the JSON happens to close).
	CutOff bool
	// FinishReason is the envelope's finish reason as written ("stop",
	// "length", "max_tokens", "MAX_TOKENS", "max_output_tokens"); "" when
	// the answer came without one.
	FinishReason string
	// Envelope is where the model's text or value was found inside an API
	// or n8n envelope ("choices[0].message.content", "output",
	// "[0].json.output"); "" when the answer was the text or value itself.
	Envelope string
	// Block says which block of the text was taken: "whole answer",
	// "fenced block 2 of 3", "block 1 of 2, in prose"; "" when unreadable.
	Block string
	// Text is the model's text after unwrapping, <think> blocks included;
	// "" when the answer was a JSON value. It is for reporting the answer's
	// length, never to be pasted where people read.
	Text string
	// Unfinished lists, when the cut fell inside the JSON, the values it
	// left unfinished, as JSON Pointers (RFC 6901) into Value, outermost
	// first: "" (the root), "/findings", "/findings/2", "/findings/2/body".
	// An array listed here may end with an incomplete element: the element
	// is listed too when the cut fell inside it. A string listed last was
	// cut mid-way and closed. Keys or literals the cut split are dropped,
	// so they are not in Value. See Cut.
	Unfinished []string
	// Prose is set when the answer is unreadable because it holds no JSON at
	// all, not even a broken attempt: its text without <think> blocks,
	// trimmed. A caller may show it as the model's words; it is "" when the
	// text held JSON that could not be read or had another shape (which must
	// never be shown raw), and when the answer is empty.
	Prose string
	// Empty reports that the answer, once out of its envelope, holds
	// nothing: no text (or only blank text, or only a <think> block), or a
	// null value. Such an answer is unreadable, and not a broken one.
	Empty bool
	// Warnings say, readably, what was noticed, repaired or ignored.
	Warnings []string
}

// Cut reports whether the cut left the value at the JSON pointer unfinished
// (see Unfinished). A caller keeps the complete items of a list and drops,
// or checks field by field, the one Cut reports.
func (a Answer) Cut(pointer string) bool {
	for _, p := range a.Unfinished {
		if p == pointer {
			return true
		}
	}
	return false
}

// Read reads the answer raw: the model's text (raw bytes, or a JSON string)
// or a JSON value, inside an envelope or not. shape chooses among the JSON
// values found; see the package documentation. Read never fails: an answer
// it cannot read is Unreadable, with warnings saying why.
func Read(raw []byte, shape Shape) Answer {
	r := &reader{shape: shape}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		r.empty = true
		r.warn("the answer is empty")
	case len(raw) > maxBytes:
		r.warn("the answer is " + strconv.Itoa(len(raw)) + " bytes, over the " + strconv.Itoa(maxBytes) + "-byte limit: not read")
	default:
		r.work = workPerByte*len(raw) + workBase
		if v, err := decodeWhole(raw); err == nil {
			r.value(v, 0)
		} else {
			r.text(string(raw), 0)
		}
	}
	return r.answer()
}

// reader holds the state of one Read.
type reader struct {
	shape   Shape
	work    int // bytes of lexing and decoding left
	library int // bytes handed to the repair library so far

	envelope   string
	finish     string
	answerText string
	refusal    bool
	cutThink   bool
	empty      bool
	prose      string
	taken      *match
	warnings   []string
}

// match is a candidate value with the expected shape.
type match struct {
	value      any
	quality    Quality // Clean or Repaired; Salvaged is decided in answer
	cut        bool    // its JSON ended unbalanced at the end of the answer
	unfinished []string
	block      string
}

func (r *reader) warn(s string) {
	for _, w := range r.warnings {
		if w == s {
			return
		}
	}
	r.warnings = append(r.warnings, s)
}

func (r *reader) spend(n int) bool {
	if r.work < n {
		r.work = 0
		r.warn("the answer is too costly to search further: blocks after this point were not tried")
		return false
	}
	r.work -= n
	return true
}

func (r *reader) answer() Answer {
	a := Answer{
		FinishReason: r.finish,
		Envelope:     r.envelope,
		Text:         r.answerText,
		CutOff:       r.cutThink || isLengthReason(r.finish),
		Quality:      Unreadable,
	}
	if r.finish != "" && isLengthReason(r.finish) {
		r.warn(fmt.Sprintf("the answer was cut off: the model stopped at its token limit (finish reason %q)", r.finish))
	}
	if r.cutThink {
		r.warn("the answer was cut off inside its <think> block")
	}
	if r.taken == nil {
		a.Prose, a.Empty = r.prose, r.empty
	}
	if m := r.taken; m != nil {
		a.Value, a.Block, a.Unfinished = m.value, m.block, m.unfinished
		a.Quality = m.quality
		if m.cut {
			a.CutOff = true
		}
		if a.CutOff {
			a.Quality = Salvaged
		}
	}
	a.Warnings = r.warnings
	return a
}

// value reads a decoded JSON value: the expected value itself, text, or an
// envelope around either.
func (r *reader) value(v any, depth int) {
	if depth > maxUnwrap {
		r.warn("the answer is wrapped too deeply to read")
		return
	}
	if s, ok := v.(string); ok {
		r.text(s, depth+1)
		return
	}
	if isContainer(v) && r.shape(v) {
		r.taken = &match{value: v, quality: Clean, block: "whole answer"}
		return
	}
	u, ok := unwrap(v)
	if !ok {
		r.warn("the answer is " + Kind(v) + " without the expected shape")
		return
	}
	if r.envelope == "" || strings.HasPrefix(u.where, "[") {
		r.envelope += u.where
	} else {
		r.envelope += "." + u.where
	}
	if r.finish == "" {
		r.finish = u.finish
	}
	if u.note != "" {
		r.warn("the answer held " + u.note)
	}
	if u.refusal {
		r.refusal = true
		r.warn("the model refused to answer")
	}
	if u.finish != "" && !isLengthReason(u.finish) && !isStopReason(u.finish) {
		r.warn(fmt.Sprintf("the model stopped for another reason than the end of its answer (finish reason %q)", u.finish))
	}
	if u.value == nil {
		r.empty = true
		r.warn("the answer's " + u.where + " is empty")
		return
	}
	r.value(u.value, depth+1)
}

func isStopReason(s string) bool {
	switch strings.ToLower(s) {
	case "stop", "end_turn", "stop_sequence", "tool_calls", "tool_use", "function_call", "completed", "eos":
		return true
	}
	return false
}

// text reads the model's text.
func (r *reader) text(t string, depth int) {
	if depth > maxUnwrap {
		r.warn("the answer is wrapped too deeply to read")
		return
	}
	r.answerText = t
	body, think := stripThink(t)
	if think.blocks > 0 {
		r.warn(fmt.Sprintf("ignored %d <think> block(s) (%d bytes)", think.blocks, think.bytes))
	}
	if think.cutInside {
		r.cutThink = true
	}
	trimmed := strings.TrimSpace(strings.TrimPrefix(body, "\ufeff"))
	if trimmed == "" {
		r.empty = true
		if think.blocks > 0 {
			r.warn("the answer holds nothing but its <think> block")
		} else {
			r.warn("the answer is empty")
		}
		return
	}
	switch trimmed[0] {
	case '"':
		// A JSON string holding the text (encoded twice).
		if v, err := decodeWhole([]byte(trimmed)); err == nil {
			if s, ok := v.(string); ok {
				r.text(s, depth+1)
				return
			}
		}
	case '{', '[':
		if r.spend(len(trimmed)) {
			if v, err := decodeWhole([]byte(trimmed)); err == nil {
				if r.shape(v) {
					r.taken = &match{value: v, quality: Clean, block: "whole answer"}
					return
				}
				if _, ok := unwrap(v); ok {
					r.value(v, depth+1) // an envelope passed as text
					return
				}
				r.warn("the answer is " + Kind(v) + " without the expected shape")
				return
			}
		}
	}
	s := &search{r: r}
	s.scan(trimmed, true, 0)
	s.choose()
	if r.taken == nil {
		r.explain(trimmed, s)
	}
}

// explain adds the warning that says why nothing was taken.
func (r *reader) explain(t string, s *search) {
	switch {
	case s.blocks > 0:
		r.warn(fmt.Sprintf("the answer held %d JSON block(s), none with the expected shape", s.blocks))
	case s.failed > 0:
		r.warn(fmt.Sprintf("the answer held %d block(s) that look like JSON but could not be read, even repaired", s.failed))
	default:
		r.warn(fmt.Sprintf("the answer holds no JSON (prose only, %d bytes)", len(t)))
	}
	if s.truncated {
		r.warn(fmt.Sprintf("the answer holds too many brackets to search: those after the first %d were not tried", maxTries))
	}
	if s.failed == 0 && s.attempts == 0 && !s.truncated && r.work > 0 {
		r.prose = t
	}
	if !r.refusal && readsAsRefusal(t) {
		r.warn("the answer reads as a refusal")
	}
}

// readsAsRefusal reports whether the text opens the way models refuse.
func readsAsRefusal(t string) bool {
	head := strings.ToLower(t[:min(len(t), 160)])
	head = strings.ReplaceAll(head, "\u2019", "'")
	for _, p := range []string{"i can't", "i cannot", "i'm sorry", "i am sorry", "sorry, ", "i'm unable", "i am unable",
		"i won't", "i will not", "as an ai", "i'm not able", "i am not able", "unfortunately, i"} {
		if strings.Contains(head, p) {
			return true
		}
	}
	return false
}

// decodeWhole decodes b as exactly one JSON value (space around it allowed).
func decodeWhole(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// decodePrefix decodes the JSON value at the start of s and returns the
// number of bytes it took; on failure n is how far the decoder read.
func decodePrefix(s string) (v any, n int, err error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err = dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), err
		}
		return nil, len(s), err
	}
	return v, int(dec.InputOffset()), nil
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// Kind names the kind of a decoded JSON value with its article, for
// messages: "null", "a boolean", "a number", "a string", "an array", "an
// object".
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}
