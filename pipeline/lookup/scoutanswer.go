package lookup

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/llmanswer"
	"github.com/prscout/prscout/pipeline/scope"
)

// scoutReader reads the scout answer into proposals: llmanswer.Read finds
// the JSON value, and the walk
// below turns its needs into proposals, dropping the one a cut left
// incomplete.
type scoutReader struct {
	emit func(proposal)
	// answer is the read answer; cut is set when its JSON was cut inside,
	// so pointers are built and checked (Answer.Cut).
	answer llmanswer.Answer
	cut    bool

	source   string
	shape    string
	quality  string
	parseErr string
	warnings []string
	// item is the key of the first n8n item the walk unwrapped ("json").
	item string
	// kept counts the needs read from the answer, incomplete those dropped
	// because the cut fell inside them.
	kept, incomplete int
}

// maxScoutDepth bounds wrapped items followed inside one another.
const maxScoutDepth = 8

// incompleteNeed is the error of a need the cut fell inside.
const incompleteNeed = "incomplete need dropped: the scout answer was cut off inside it"

func (r *scoutReader) read(raw []byte) error {
	switch raw[0] {
	case '"', '{', '[':
	default:
		if err := json.Unmarshal(raw, new(any)); err != nil {
			return pipeline.Invalidf("scout", "not valid JSON: %s", err.Error())
		}
		return pipeline.Invalidf("scout", "must be the scout's text (a string) or its JSON (an object or array), got %s", literalKind(raw[0]))
	}
	if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
		// The API decoded the body, so this is only reachable by direct callers.
		return pipeline.Invalidf("scout", "not valid JSON: %s", err.Error())
	}
	a := llmanswer.Read(raw, scoutShape)
	r.answer, r.cut = a, len(a.Unfinished) > 0
	r.quality = string(a.Quality)
	r.source = scoutSource(a)
	for i, w := range a.Warnings {
		if a.Value == nil && i == len(a.Warnings)-1 {
			w += ": read as no requests"
		}
		r.warnings = append(r.warnings, "scout answer: "+w)
	}
	switch {
	case a.Value != nil:
		r.value(a.Value, "", 0)
	case a.Prose != "", a.Empty:
		// Prose ("no files needed") and an empty answer ask for nothing.
	default:
		r.parseErr = "the scout answer could not be read"
		if n := len(a.Warnings); n > 0 {
			r.parseErr += ": " + a.Warnings[n-1]
		}
	}
	if a.CutOff {
		r.warnings = append(r.warnings, fmt.Sprintf("the scout answer was cut off: %s kept, %d incomplete dropped; raise the scout's max_tokens",
			pipeline.CountNoun(r.kept, "complete request"), r.incomplete))
	}
	return nil
}

// scoutSource names where the needs came from, for stats.scoutSource.
func scoutSource(a llmanswer.Answer) string {
	switch {
	case a.Value == nil && a.Prose != "":
		return "prose"
	case a.Value == nil && a.Empty:
		return "empty"
	case a.Value == nil && a.Text != "":
		return "unreadable"
	case strings.HasPrefix(a.Block, "fenced"):
		return "fenced"
	case strings.HasSuffix(a.Block, "in prose"):
		return "embedded"
	case a.Text != "":
		return "text"
	}
	return "json"
}

// literalKind names the JSON value that starts with c (not a string,
// object or array).
func literalKind(c byte) string {
	switch c {
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// scoutShape is the scout stage's Shape: an object with files, needs or
// requests, a single need ({op, path}), a map of changed file to its needs,
// or an array of needs, paths or file objects (n8n items around them
// allowed). An empty object or array is an answer with no needs.
func scoutShape(v any) bool {
	return scoutShapeAt(v, 0)
}

func scoutShapeAt(v any, depth int) bool {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return true
		}
		if _, ok := x["files"].([]any); ok {
			return true
		}
		for _, k := range []string{"needs", "requests", "op", "path"} {
			if _, ok := x[k]; ok {
				return true
			}
		}
		return isFileMap(x)
	case []any:
		for _, e := range x {
			switch m := e.(type) {
			case string:
			case map[string]any:
				if w, _ := wrapped(m); w != nil {
					if depth >= maxScoutDepth || !scoutShapeAt(w, depth+1) {
						return false
					}
					continue
				}
				if !hasAny(m, "needs", "op", "path") {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

// isFileMap reports whether m maps changed files to their needs:
// {"src/a.go": ["src/b.go", {"op": "list_dir", "path": "pkg"}]}.
func isFileMap(m map[string]any) bool {
	for k, v := range m {
		if _, ok := v.([]any); !ok || !strings.ContainsAny(k, "/.") {
			return false
		}
	}
	return len(m) > 0
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// child returns the JSON pointer of key under ptr, built only when the
// answer was cut inside its JSON (otherwise no pointer is ever checked).
func (r *scoutReader) child(ptr, key string) string {
	if !r.cut {
		return ""
	}
	return ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func (r *scoutReader) index(ptr string, i int) string {
	if !r.cut {
		return ""
	}
	return ptr + "/" + strconv.Itoa(i)
}

func (r *scoutReader) isCut(ptr string) bool {
	return r.cut && r.answer.Cut(ptr)
}

func (r *scoutReader) setShape(s string) {
	if r.shape == "" {
		r.shape = s
	}
}

func (r *scoutReader) fail(msg string) {
	if r.parseErr == "" {
		r.parseErr = msg
		r.warnings = append(r.warnings, msg+": read as no requests")
	}
}

// value reads a JSON value with the scout shape, at ptr.
func (r *scoutReader) value(v any, ptr string, depth int) {
	switch x := v.(type) {
	case []any:
		r.array(x, "", ptr, depth)
	case map[string]any:
		r.object(x, ptr, depth)
	}
}

func (r *scoutReader) object(m map[string]any, ptr string, depth int) {
	if fs, ok := m["files"].([]any); ok {
		r.setShape("files")
		r.array(fs, "", r.child(ptr, "files"), depth)
		return
	}
	if ns, ok := m["needs"]; ok {
		file, isFile := r.attribution(m, ptr, "path", "file", "for")
		if isFile {
			r.setShape("file")
		} else {
			r.setShape("needs")
		}
		r.needs(ns, file, r.child(ptr, "needs"))
		return
	}
	if rs, ok := m["requests"]; ok {
		r.setShape("requests")
		r.needs(rs, "", r.child(ptr, "requests"))
		return
	}
	if hasAny(m, "op", "path") {
		r.setShape("need")
		r.need(m, "", ptr)
		return
	}
	if len(m) == 0 {
		r.setShape("")
		return
	}
	if isFileMap(m) {
		// Object keys have no order once decoded: the files are read in
		// path order, so the caps fall the same way on every call.
		r.setShape("map")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r.needs(m[k], normalizeAttribution(k), r.child(ptr, k))
		}
		return
	}
	r.setShape("unknown")
	r.fail("scout JSON has no files, needs or requests field")
}

// attribution returns the first string field of m among keys, normalized
// when it can be, so "./src/a.go" and "src/a.go" share a per-file cap. A
// value the cut left unfinished attributes nothing.
func (r *scoutReader) attribution(m map[string]any, ptr string, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			if r.isCut(r.child(ptr, k)) {
				return "", false
			}
			return normalizeAttribution(s), true
		}
	}
	return "", false
}

// normalizeAttribution normalizes the changed file a need is asked for,
// when it can be: "./src/a.go" and "src/a.go" are one file.
func normalizeAttribution(s string) string {
	if p, err := scope.NormalizePath(s, 0); err == nil {
		return p
	}
	return strings.TrimSpace(s)
}

// array reads an array of file objects, need objects, bare paths or wrapped items.
func (r *scoutReader) array(a []any, file, ptr string, depth int) {
	for i, e := range a {
		eptr := r.index(ptr, i)
		if m, ok := e.(map[string]any); ok && depth < maxScoutDepth {
			if w, key := wrapped(m); w != nil {
				if r.item == "" {
					r.item = key
				}
				r.value(w, r.child(eptr, key), depth+1)
				continue
			}
		}
		r.setShape("array")
		switch x := e.(type) {
		case string:
			r.path(x, file, eptr)
		case map[string]any:
			if ns, ok := x["needs"]; ok {
				f, _ := r.attribution(x, eptr, "path", "file", "for")
				r.needs(ns, f, r.child(eptr, "needs"))
				continue
			}
			if hasAny(x, "op", "path") {
				r.need(x, file, eptr)
				continue
			}
			r.propose(proposal{file: file, invalid: "need refused: an object without op, path or needs"})
		default:
			r.propose(proposal{file: file, invalid: "need refused: " + llmanswer.Kind(e) + " is neither a path string nor an {op, path} object"})
		}
	}
}

// wrapped returns the object or array an n8n item wraps ({"json": {...}}),
// when m is not itself a need or file object.
func wrapped(m map[string]any) (any, string) {
	if hasAny(m, "needs", "op", "path") {
		return nil, ""
	}
	for _, k := range []string{"json", "output", "content", "text", "message"} {
		if w, ok := m[k]; ok {
			switch w.(type) {
			case map[string]any, []any:
				return w, k
			}
		}
	}
	return nil, ""
}

// needs reads the needs of one file: an array, or a single path string.
func (r *scoutReader) needs(v any, file, ptr string) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			eptr := r.index(ptr, i)
			switch n := e.(type) {
			case string:
				r.path(n, file, eptr)
			case map[string]any:
				r.need(n, file, eptr)
			default:
				r.propose(proposal{file: file, invalid: "need refused: " + llmanswer.Kind(e) + " is neither a path string nor an {op, path} object"})
			}
		}
	case string:
		if strings.TrimSpace(x) != "" {
			r.path(x, file, ptr)
		}
	case nil:
	default:
		r.propose(proposal{file: file, invalid: "need refused: needs is " + llmanswer.Kind(v) + ", not an array"})
	}
}

// path reads a need written as a bare path.
func (r *scoutReader) path(p, file, ptr string) {
	if r.isCut(ptr) {
		r.drop(file, "", p)
		return
	}
	r.propose(proposal{file: file, path: p})
}

// need reads one {op, path, file?} object; file is the enclosing file
// object's path. A need the cut fell inside is kept only when its op and
// path were both written in full.
func (r *scoutReader) need(m map[string]any, file, ptr string) {
	if file == "" {
		file, _ = r.attribution(m, ptr, "file", "for")
	}
	if r.isCut(ptr) {
		op, okOp := m["op"].(string)
		p, okPath := m["path"].(string)
		cutOp := r.isCut(r.child(ptr, "op"))
		if !okOp || !okPath || cutOp || r.isCut(r.child(ptr, "path")) {
			if cutOp {
				op = ""
			}
			r.drop(file, op, p)
			return
		}
		r.propose(proposal{file: file, op: op, path: p})
		return
	}
	p := proposal{file: file}
	switch op := m["op"].(type) {
	case nil:
	case string:
		p.op = op
	default:
		b, _ := json.Marshal(op)
		p.op = string(b)
	}
	switch v := m["path"].(type) {
	case string:
		p.path = v
	case json.Number:
		p.path = v.String()
	case nil:
		if _, present := m["path"]; present {
			p.invalid = "need refused: its path is null"
		} else {
			p.invalid = "need refused: it has no path"
		}
	default:
		p.invalid = "need refused: its path is " + llmanswer.Kind(v) + ", not a string"
	}
	r.propose(p)
}

// propose hands a complete need on.
func (r *scoutReader) propose(p proposal) {
	r.kept++
	r.emit(p)
}

// drop accounts for a need the cut left incomplete: it is listed in
// rejected[] (invalid_need), never fetched.
func (r *scoutReader) drop(file, op, path string) {
	r.incomplete++
	r.emit(proposal{file: file, op: op, path: path, invalid: incompleteNeed})
}
