package lookup

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/scope"
)

// NeedsInput is the body of POST /v1/needs.
type NeedsInput struct {
	Workspace string                 `json:"workspace"`
	RepoSlug  string                 `json:"repoSlug"`
	Ref       string                 `json:"ref"`
	Files     []pipeline.ChangedFile `json:"files"` // the context's changed files; files[i].needs may already hold needs
	// Scout is the scout LLM's answer: its raw text (a JSON string) or parsed
	// JSON. See Needs for the shapes read.
	Scout json.RawMessage `json:"scout"`
	// Candidates are the context answer's candidates, best first: the top
	// Limits.CandidatesAuto of them are added to the requests when the scout
	// did not ask for them.
	Candidates []pipeline.Candidate `json:"candidates,omitempty"`
}

// NeedsLimits echoes the caps applied.
type NeedsLimits struct {
	Total   int `json:"total"`
	PerFile int `json:"perFile"`
}

// NeedsStats are the counts of one /v1/needs call; the API turns them into
// metrics. Proposed == Accepted + Rejected always holds.
type NeedsStats struct {
	// Proposed is the number of needs found: files[].needs plus the scout's,
	// plus the candidates added.
	Proposed int `json:"proposed"`
	// Accepted is len(requests); GetFile and ListDir split it by op.
	Accepted int `json:"accepted"`
	GetFile  int `json:"getFile"`
	ListDir  int `json:"listDir"`
	// Rejected is len(rejected); Reasons counts it per reason code (every
	// code of Reasons is present, 0 when unused).
	Rejected int            `json:"rejected"`
	Reasons  map[string]int `json:"reasons"`
	// Files is the number of distinct changed files the needs were asked for
	// ("" for unattributed needs counts as one).
	Files int `json:"files"`
	// Placeholder is true when no request survived: the answer is the
	// {"skip": true, "requests": []} placeholder that keeps the n8n chain alive.
	Placeholder bool `json:"placeholder"`
	// ScoutSource says how the scout answer was read: "missing" (no scout,
	// files[].needs only), "json" (parsed JSON given), "text" (the text was
	// JSON), "fenced" (a ```json block), "embedded" (first JSON value in
	// prose), "prose" (text without JSON), "empty" (blank text).
	ScoutSource string `json:"scoutSource"`
	// ScoutShape is the shape the needs came in: "files" ({files:[...]}),
	// "file" (one {path, needs}), "needs" (flat {needs:[...]}), "requests"
	// ({requests:[...]}), "array" (top-level array), "need" (one {op, path}),
	// "unknown", or "" when there was nothing to read.
	ScoutShape string `json:"scoutShape"`
	// ScoutWrapper names the envelope unwrapped around the answer, outermost
	// first ("choices", "json", "output", "content", "text", "message"), joined by ">".
	ScoutWrapper string `json:"scoutWrapper,omitempty"`
	// ParseError is set when the scout text held no usable JSON although it
	// tried to (a bracket that opens no valid value) or the JSON had no known
	// shape. The call still succeeds with what could be read.
	ParseError string `json:"parseError,omitempty"`
	// Candidates counts what became of the context's candidates.
	Candidates CandidateStats `json:"candidates"`
}

// CandidateStats counts the context candidates of one /v1/needs call.
type CandidateStats struct {
	// Listed is len(candidates) of the request.
	Listed int `json:"listed"`
	// AskedByScout counts the candidates the scout asked for itself
	// (get_file of the same path, accepted or refused).
	AskedByScout int `json:"askedByScout"`
	// Added counts the requests added for top candidates the scout did not
	// ask for (source "candidate").
	Added int `json:"added"`
}

// NeedsResult is the answer of POST /v1/needs. It is accepted as is by
// /v1/repository/batch.
type NeedsResult struct {
	Skip      bool                `json:"skip"`
	Workspace string              `json:"workspace"`
	RepoSlug  string              `json:"repoSlug"`
	Ref       string              `json:"ref"`
	Requests  []pipeline.Request  `json:"requests"` // never null; each carries workspace/repoSlug/ref
	Rejected  []pipeline.Rejected `json:"rejected"` // never null
	Limits    NeedsLimits         `json:"limits"`
	Stats     NeedsStats          `json:"stats"`
	Warnings  []string            `json:"warnings"` // never null
}

// proposal is one need as found, before any check.
type proposal struct {
	file    string // changed file it is asked for ("" unattributed)
	op      string
	path    string
	invalid string // non-empty: the need is malformed; the error text
	source  string // pipeline.SourceScout or pipeline.SourceCandidate
}

// candidateFile is the per-file cap bucket of the requests added for
// candidates (no changed file's name can hold a NUL byte).
const candidateFile = "\x00candidates"

// Needs turns the scout's answer into capped, normalized repository requests.
//
// Sources, in order: files[i].needs (attributed to files[i].path), then the
// scout answer. The scout answer may be raw text or parsed JSON; text may hold
// a ```json fenced block or a JSON value inside prose (the first balanced
// {...} or [...] that parses, strings respected). Shapes read:
//
//	{"files":[{"path":"<changed file>","needs":[{"op":"get_file","path":"x","reason":"..."}]}]}
//	[{"path":"<changed file>","needs":[...]}]                top-level array of file objects
//	{"needs":[{"op","path","file"?}]} / [{"op","path"}]      flat needs, attributed by file or for
//	"src/a.go"                                               a need as a bare path string
//	{"choices":[{"message":{"content":"..."}}]}              an OpenAI chat completion
//	{"json":...} {"output":...} {"content":...} {"text":...} {"message":{"content":...}}  n8n items
//
// Every need ends as a request or a rejected entry {ok:false, op, path, error,
// reason}; checks run in this order and the first failure is reported: op
// (missing is get_file, unknown is unsupported_op), path normalization
// (NormalizePath), secret, get_file of the root, noise, changed file,
// duplicate (same op and path), per-file cap, total cap. A rejected entry
// shows the normalized path once normalization succeeded, else the path as
// given (cut to 256 bytes).
//
// No request (no needs, "no files needed" prose, empty text, every need
// refused) gives the placeholder {"skip": true, "requests": []}. Text the
// parser cannot read is also a placeholder, with stats.parseError and a
// warning: a review must not stop because the scout rambled.
//
// The only error is *InvalidError: missing workspace, repoSlug or ref, an
// empty or unclean files[i].path, a scout that is neither text nor an object
// or array, or no scout at all and no files[].needs.
//
// Every need is accounted for: a refused one is listed in rejected[] with its
// reason and counted in stats, never skipped silently, and reading goes on
// past the cap. Only a missing op defaults to get_file (any other unknown op
// is refused); duplicates are by op and normalized path, and a need for a
// changed file is compared after normalizing both sides; a "?query" or
// "#fragment" is cut from the path.
//
// Then the top lim.CandidatesAuto of in.Candidates that the scout did not
// ask for (get_file of the same path) are added as get_file requests with
// source "candidate", after the scout's own (every request says its source),
// through the same checks and within the same caps: the candidates share one
// per-file cap of their own and the total cap. A candidate that fails a check
// is not added and not listed as rejected (nobody asked for it). So a review
// gets the files the code ties to the change even when the scout answers
// nothing.
func Needs(in NeedsInput, lim pipeline.Limits) (NeedsResult, error) {
	lim = lim.WithDefaults()
	changed, hasFileNeeds, err := checkNeedsInput(in)
	if err != nil {
		return NeedsResult{}, err
	}
	scout := bytes.TrimSpace(in.Scout)
	scoutMissing := len(scout) == 0 || string(scout) == "null"
	if scoutMissing && !hasFileNeeds {
		return NeedsResult{}, pipeline.Invalidf("scout", "missing: pass the scout answer (its raw text or parsed JSON) or files[].needs")
	}

	st := newNeedsState(in, lim, changed)
	for _, f := range in.Files {
		p, _ := scope.NormalizePath(f.Path, 0)
		for _, n := range f.Needs {
			st.add(proposal{file: p, op: n.Op, path: n.Path})
		}
	}
	res := &st.res
	if scoutMissing {
		res.Stats.ScoutSource = "missing"
	} else {
		r := scoutReader{emit: st.add}
		if err := r.read(scout); err != nil {
			return NeedsResult{}, err
		}
		res.Stats.ScoutSource = r.source
		res.Stats.ScoutShape = r.shape
		res.Stats.ScoutWrapper = strings.Join(r.wrappers, ">")
		res.Stats.ParseError = r.parseErr
		res.Warnings = append(res.Warnings, r.warnings...)
	}
	st.addCandidates(in.Candidates)
	return st.finish(), nil
}

// checkNeedsInput validates the request's repository fields and changed
// files, and returns the changed files' normalized paths (a need for one of
// them is refused: the prompt shows it already).
func checkNeedsInput(in NeedsInput) (changed map[string]bool, hasFileNeeds bool, err error) {
	switch {
	case strings.TrimSpace(in.Workspace) == "":
		return nil, false, pipeline.Invalidf("workspace", "missing: the repository workspace is required")
	case strings.TrimSpace(in.RepoSlug) == "":
		return nil, false, pipeline.Invalidf("repoSlug", "missing: the repository slug is required")
	case strings.TrimSpace(in.Ref) == "":
		return nil, false, pipeline.Invalidf("ref", "missing: the commit to read (the context's ref) is required")
	}
	changed = make(map[string]bool, len(in.Files))
	for i, f := range in.Files {
		field := "files[" + strconv.Itoa(i) + "].path"
		if strings.TrimSpace(f.Path) == "" {
			return nil, false, pipeline.Invalidf(field, "empty: every changed file needs a path")
		}
		p, err := scope.NormalizePath(f.Path, 0)
		if err != nil {
			return nil, false, pipeline.Invalidf(field, "%s", err.Error())
		}
		changed[p] = true
		if f.Needs != nil {
			hasFileNeeds = true
		}
	}
	return changed, hasFileNeeds, nil
}

// needKey identifies a request for duplicate detection.
type needKey struct{ op, path string }

// needsState checks needs one by one as the reader finds them, in order:
// there is no intermediate list, so a 40,000-need answer costs no extra copy.
type needsState struct {
	in          NeedsInput
	lim         pipeline.Limits
	res         NeedsResult
	changed     map[string]bool
	seen        map[needKey]bool
	used        map[string]int  // accepted requests per changed file
	files       map[string]bool // changed files that proposed needs
	asked       map[string]bool // normalized paths the scout asked get_file for
	perFileMsg  map[string]string
	totalCapMsg string
	// Rejections are gathered in fixed-size chunks and copied once at the
	// end: growing one big slice of pointerful structs re-copied it (with
	// GC write barriers) a dozen times on a 40,000-need answer.
	chunks         [][]pipeline.Rejected
	cur            []pipeline.Rejected
	size, inChunks int
}

func newNeedsState(in NeedsInput, lim pipeline.Limits, changed map[string]bool) *needsState {
	st := &needsState{
		in: in, lim: lim, changed: changed,
		seen: map[needKey]bool{}, used: map[string]int{}, files: map[string]bool{}, perFileMsg: map[string]string{}, asked: map[string]bool{},
		totalCapMsg: "cap of " + strconv.Itoa(lim.NeedsTotal) + " requests in all reached",
		size:        8,
		res: NeedsResult{
			Workspace: in.Workspace,
			RepoSlug:  in.RepoSlug,
			Ref:       in.Ref,
			Requests:  []pipeline.Request{},
			Rejected:  []pipeline.Rejected{},
			Warnings:  []string{},
			Limits:    NeedsLimits{Total: lim.NeedsTotal, PerFile: lim.NeedsPerFile},
		},
	}
	st.cur = st.res.Rejected
	st.res.Stats.Reasons = make(map[string]int, len(scope.Reasons))
	for _, r := range scope.Reasons {
		st.res.Stats.Reasons[r] = 0
	}
	return st
}

func (st *needsState) reject(op, path, reason, msg string) {
	if msg == "" {
		msg = scope.ReasonMessage(reason)
	}
	if len(st.cur) == cap(st.cur) {
		if len(st.cur) > 0 {
			st.chunks = append(st.chunks, st.cur)
			st.inChunks += len(st.cur)
			st.size = min(2*st.size, 1024)
		}
		st.cur = make([]pipeline.Rejected, 0, st.size)
	}
	st.cur = append(st.cur, pipeline.Rejected{OK: false, Op: op, Path: path, Error: msg, Reason: reason})
	st.res.Stats.Reasons[reason]++
}

// add checks one proposed need and accepts or rejects it: path checks
// first, then default paths, changed files, duplicates, the per-file cap and
// the total cap, in that order.
func (st *needsState) add(pr proposal) {
	st.res.Stats.Proposed++
	st.files[pr.file] = true
	if pr.invalid != "" {
		st.reject(pr.op, shorten(pr.path), scope.ReasonInvalidNeed, pr.invalid)
		return
	}
	n, reason, err := scope.CheckNeed(pr.op, pr.path, st.lim)
	if n.Op == pipeline.OpGetFile && pr.source == "" {
		st.asked[n.Path] = true
	}
	if err != nil {
		st.reject(n.Op, shorten(n.Path), reason, err.Error())
		return
	}
	defaultPath := n.Path != "" && scope.IsDefaultPath(n.Path)
	if n.Op == pipeline.OpListDir && n.Path != "" {
		defaultPath = scope.IsDefaultPath(n.Path + "/")
	}
	switch k := (needKey{n.Op, n.Path}); {
	case defaultPath:
		st.reject(n.Op, n.Path, scope.ReasonNoise, "")
	case st.changed[n.Path]:
		st.reject(n.Op, n.Path, scope.ReasonChangedFile, "")
	case st.seen[k]:
		st.reject(n.Op, n.Path, scope.ReasonDuplicate, "duplicate request refused: "+n.Op+" "+displayPath(n.Path)+" was already requested")
	case st.used[pr.file] >= st.lim.NeedsPerFile:
		msg, ok := st.perFileMsg[pr.file]
		if !ok {
			msg = "cap of " + strconv.Itoa(st.lim.NeedsPerFile) + " requests per changed file reached for " + displayFile(pr.file)
			st.perFileMsg[pr.file] = msg
		}
		st.reject(n.Op, n.Path, scope.ReasonPerFileCap, msg)
	case len(st.res.Requests) >= st.lim.NeedsTotal:
		st.reject(n.Op, n.Path, scope.ReasonTotalCap, st.totalCapMsg)
	default:
		st.seen[k] = true
		st.used[pr.file]++
		source := pr.source
		if source == "" {
			source = pipeline.SourceScout
		}
		st.res.Requests = append(st.res.Requests, pipeline.Request{Op: n.Op, Path: n.Path, Workspace: st.in.Workspace, RepoSlug: st.in.RepoSlug, Ref: st.in.Ref, Source: source})
		if n.Op == pipeline.OpListDir {
			st.res.Stats.ListDir++
		} else {
			st.res.Stats.GetFile++
		}
	}
}

// addCandidates counts the candidates the scout asked for itself and adds
// the top lim.CandidatesAuto it did not ask for (see Needs).
func (st *needsState) addCandidates(cs []pipeline.Candidate) {
	cst := &st.res.Stats.Candidates
	cst.Listed = len(cs)
	for i, c := range cs {
		p, err := scope.NormalizePath(c.Path, st.lim.MaxPathLen)
		if err == nil && st.asked[p] {
			cst.AskedByScout++
			continue
		}
		if i >= st.lim.CandidatesAuto || err != nil {
			continue
		}
		n, _, err := scope.CheckNeed(pipeline.OpGetFile, p, st.lim)
		k := needKey{n.Op, n.Path}
		if err != nil || scope.IsDefaultPath(n.Path) || st.changed[n.Path] || st.seen[k] ||
			st.used[candidateFile] >= st.lim.NeedsPerFile || len(st.res.Requests) >= st.lim.NeedsTotal {
			continue
		}
		before := len(st.res.Requests)
		st.add(proposal{file: candidateFile, op: n.Op, path: n.Path, source: pipeline.SourceCandidate})
		if len(st.res.Requests) > before {
			cst.Added++
		}
	}
}

// finish joins the rejection chunks and fills the counts.
func (st *needsState) finish() NeedsResult {
	res := st.res
	if len(st.chunks) == 0 {
		res.Rejected = st.cur
	} else {
		all := make([]pipeline.Rejected, 0, st.inChunks+len(st.cur))
		for _, c := range st.chunks {
			all = append(all, c...)
		}
		res.Rejected = append(all, st.cur...)
	}
	res.Stats.Accepted = len(res.Requests)
	res.Stats.Rejected = len(res.Rejected)
	delete(st.files, candidateFile)
	res.Stats.Files = len(st.files)
	res.Skip = len(res.Requests) == 0
	res.Stats.Placeholder = res.Skip
	return res
}

func displayPath(p string) string {
	if p == "" {
		return "/ (the repository root)"
	}
	return p
}

func displayFile(f string) string {
	if f == "" {
		return "needs not attributed to a changed file"
	}
	return f
}

// shorten cuts a path echoed in a rejected entry to 256 bytes.
func shorten(p string) string {
	const max = 256
	if len(p) <= max {
		return p
	}
	s := p[:max]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// scoutReader reads the scout answer into proposals.
type scoutReader struct {
	emit     func(proposal)
	source   string
	shape    string
	wrappers []string
	parseErr string
	warnings []string
}

// maxScoutDepth bounds wrapper and text-in-JSON nesting.
const maxScoutDepth = 8

func (r *scoutReader) read(raw []byte) error {
	v, err := decodeJSON(raw)
	if err != nil {
		// The API decoded the body, so this is only reachable by direct callers.
		return pipeline.Invalidf("scout", "not valid JSON: %s", err.Error())
	}
	switch v.(type) {
	case string, map[string]any, []any:
	default:
		return pipeline.Invalidf("scout", "must be the scout's text (a string) or its JSON (an object or array), got %s", jsonKind(v))
	}
	r.source = "json"
	r.value(v, 0)
	return nil
}

// decodeJSON decodes one JSON value; numbers become float64.
func decodeJSON(b []byte) (any, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
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

// value reads a JSON value at the top of the answer (or under wrappers).
func (r *scoutReader) value(v any, depth int) {
	if depth > maxScoutDepth {
		r.fail("scout answer nested too deeply")
		return
	}
	switch x := v.(type) {
	case string:
		r.text(x, depth+1)
	case []any:
		r.array(x, "", depth)
	case map[string]any:
		r.object(x, depth)
	case nil:
		r.setShape("")
	default:
		r.fail("scout JSON is " + jsonKind(v) + ", not an object or array")
	}
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

var wrapperKeys = []string{"json", "output", "content", "text", "message"}

func (r *scoutReader) object(m map[string]any, depth int) {
	if c, ok := m["choices"].([]any); ok {
		r.wrappers = append(r.wrappers, "choices")
		if len(c) == 0 {
			r.fail("chat completion has no choices")
			return
		}
		c0, _ := c[0].(map[string]any)
		if msg, ok := c0["message"].(map[string]any); ok {
			r.value(msg["content"], depth+1)
			return
		}
		r.value(c0["text"], depth+1)
		return
	}
	if fs, ok := m["files"].([]any); ok {
		r.setShape("files")
		r.array(fs, "", depth)
		return
	}
	if ns, ok := m["needs"]; ok {
		file, isFile := attribution(m, "path", "file", "for")
		if isFile {
			r.setShape("file")
		} else {
			r.setShape("needs")
		}
		r.needs(ns, file, depth)
		return
	}
	if rs, ok := m["requests"]; ok {
		r.setShape("requests")
		r.needs(rs, "", depth)
		return
	}
	if _, ok := m["op"]; ok {
		r.setShape("need")
		r.need(m, "")
		return
	}
	if _, ok := m["path"]; ok {
		r.setShape("need")
		r.need(m, "")
		return
	}
	for _, k := range wrapperKeys {
		if w, ok := m[k]; ok {
			r.wrappers = append(r.wrappers, k)
			r.value(w, depth+1)
			return
		}
	}
	if len(m) == 0 {
		r.setShape("")
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 8 {
		keys = append(keys[:8], "...")
	}
	r.setShape("unknown")
	r.fail("scout JSON has no files, needs or requests field (keys: " + strings.Join(keys, ", ") + ")")
}

// attribution returns the first string field of m among keys, normalized
// when it can be, so "./src/a.go" and "src/a.go" share a per-file cap.
func attribution(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			if p, err := scope.NormalizePath(s, 0); err == nil {
				return p, true
			}
			return strings.TrimSpace(s), true
		}
	}
	return "", false
}

// array reads an array of file objects, need objects, bare paths or wrapped items.
func (r *scoutReader) array(a []any, file string, depth int) {
	for _, e := range a {
		if w, key := wrapped(e); w != nil && depth < maxScoutDepth {
			r.wrappers = appendOnce(r.wrappers, key)
			r.value(w, depth+1)
			continue
		}
		r.setShape("array")
		switch x := e.(type) {
		case string:
			r.emit(proposal{file: file, path: x})
		case map[string]any:
			if ns, ok := x["needs"]; ok {
				f, _ := attribution(x, "path", "file", "for")
				r.needs(ns, f, depth+1)
				continue
			}
			if _, ok := x["op"]; ok {
				r.need(x, file)
				continue
			}
			if _, ok := x["path"]; ok {
				r.need(x, file)
				continue
			}
			r.emit(proposal{file: file, invalid: "need refused: an object without op, path or needs"})
		default:
			r.emit(proposal{file: file, invalid: "need refused: " + jsonKind(e) + " is neither a path string nor an {op, path} object"})
		}
	}
}

// wrapped returns the value an array element wraps (an n8n item such as
// {"json": {...}}), when it is not itself a need or file object.
func wrapped(e any) (any, string) {
	m, ok := e.(map[string]any)
	if !ok {
		return nil, ""
	}
	for _, k := range []string{"needs", "op", "path"} {
		if _, ok := m[k]; ok {
			return nil, ""
		}
	}
	for _, k := range wrapperKeys {
		if w, ok := m[k]; ok {
			switch w.(type) {
			case map[string]any, []any, string:
				return w, k
			}
		}
	}
	return nil, ""
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// needs reads the needs of one file: an array, or a single path string.
func (r *scoutReader) needs(v any, file string, depth int) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			switch n := e.(type) {
			case string:
				r.emit(proposal{file: file, path: n})
			case map[string]any:
				r.need(n, file)
			default:
				r.emit(proposal{file: file, invalid: "need refused: " + jsonKind(e) + " is neither a path string nor an {op, path} object"})
			}
		}
	case string:
		if strings.TrimSpace(x) != "" {
			r.emit(proposal{file: file, path: x})
		}
	case nil:
	default:
		r.emit(proposal{file: file, invalid: "need refused: needs is " + jsonKind(v) + ", not an array"})
	}
}

// need reads one {op, path, file?} object; file is the enclosing file object's path.
func (r *scoutReader) need(m map[string]any, file string) {
	if file == "" {
		file, _ = attribution(m, "file", "for")
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
	case float64:
		p.path = strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		if _, present := m["path"]; present {
			p.invalid = "need refused: its path is null"
		} else {
			p.invalid = "need refused: it has no path"
		}
	default:
		p.invalid = "need refused: its path is " + jsonKind(v) + ", not a string"
	}
	r.emit(p)
}

// text reads the scout's raw text.
func (r *scoutReader) text(t string, depth int) {
	if depth > maxScoutDepth {
		r.fail("scout answer nested too deeply")
		return
	}
	t = strings.TrimSpace(t)
	if t == "" {
		r.source = "empty"
		return
	}
	// The whole text as one JSON value (prose is not tried: it cannot be).
	if c := t[0]; c == '{' || c == '[' || c == '"' {
		if v, ok := decodeWhole(t); ok {
			r.source = "text"
			r.value(v, depth)
			return
		}
	}
	for _, block := range fencedBlocks(t) {
		if v, ok := decodeCandidate(block); ok {
			r.source = "fenced"
			r.value(v, depth)
			return
		}
	}
	if v, ok := firstJSONValue(t); ok {
		r.source = "embedded"
		r.value(v, depth)
		return
	}
	if strings.ContainsAny(t, "{[") {
		r.source = "prose"
		r.fail("scout answer holds no valid JSON value")
		return
	}
	r.source = "prose"
	r.warnings = append(r.warnings, "scout answer holds no JSON (prose only): read as no requests")
}

// decodeWhole decodes t when it is exactly one JSON value (space around it
// allowed).
func decodeWhole(t string) (any, bool) {
	v, err := decodeJSON([]byte(t))
	return v, err == nil
}

// fencedBlocks returns the contents of ``` fenced blocks, in order.
func fencedBlocks(t string) []string {
	var out []string
	for {
		i := strings.Index(t, "```")
		if i < 0 {
			return out
		}
		rest := t[i+3:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return out
		}
		// The info string ("json", "JSON", "jsonc") must be one word.
		if info := strings.TrimSpace(rest[:nl]); strings.ContainsAny(info, " {[") {
			t = rest
			continue
		}
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			out = append(out, body) // unclosed fence: take the rest
			return out
		}
		out = append(out, body[:j])
		t = body[j+3:]
	}
}

// decodeCandidate decodes s when it is one JSON object or array (leading and
// trailing space allowed) of a plausible shape.
func decodeCandidate(s string) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return nil, false
	}
	v, ok := decodeWhole(s)
	if !ok || !plausible(v) {
		return nil, false
	}
	return v, true
}

// plausible rejects bracketed prose that happens to be JSON, such as "[1]".
func plausible(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return true
	case []any:
		for _, e := range x {
			switch e.(type) {
			case string, map[string]any:
			default:
				return false
			}
		}
		return true
	}
	return false
}

// maxEmbeddedTries bounds the candidates tried in prose: each costs a scan to
// the closing bracket, so hostile text ("{{{{...") costs at most this many
// passes over it.
const maxEmbeddedTries = 32

// firstJSONValue finds the first balanced {...} or [...] in prose that decodes
// to a plausible value. Brackets inside JSON strings are skipped.
func firstJSONValue(t string) (any, bool) {
	tries := 0
	for i := 0; i < len(t) && tries < maxEmbeddedTries; i++ {
		if t[i] != '{' && t[i] != '[' {
			continue
		}
		tries++ // every start costs a scan, found or not: bounded work on hostile text
		end := balancedEnd(t, i)
		if end < 0 {
			continue
		}
		if v, ok := decodeCandidate(t[i:end]); ok {
			return v, true
		}
	}
	return nil, false
}

// balancedEnd returns the index after the bracket closing t[start], or -1.
func balancedEnd(t string, start int) int {
	var stack []byte
	inStr, esc := false, false
	for i := start; i < len(t); i++ {
		c := t[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1
			}
		}
	}
	return -1
}
