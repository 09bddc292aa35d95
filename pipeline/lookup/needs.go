package lookup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/llmanswer"
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
	// ScoutSource says where the needs were found: "missing" (no scout,
	// files[].needs only), "json" (a JSON value given), "text" (the text
	// was JSON), "fenced" (a ``` block), "embedded" (a JSON value inside
	// prose), "prose" (text without JSON), "empty" (blank text or
	// content), "unreadable" (text whose JSON could not be read).
	ScoutSource string `json:"scoutSource"`
	// ScoutShape is the shape the needs came in: "files" ({files:[...]}),
	// "file" (one {path, needs}), "needs" (flat {needs:[...]}), "requests"
	// ({requests:[...]}), "array" (top-level array), "need" (one {op, path}),
	// "map" ({"<changed file>": [needs]}), "unknown", or "" when there was
	// nothing to read.
	ScoutShape string `json:"scoutShape"`
	// ScoutWrapper is where the answer was found inside an API or n8n
	// envelope, as llmanswer.Answer.Envelope says it
	// ("choices[0].message.content", "output", "[0].json"); "" when the
	// scout was the answer itself.
	ScoutWrapper string `json:"scoutWrapper,omitempty"`
	// ScoutQuality is how the scout answer was read, a metric label:
	// "clean", "repaired", "salvaged" (cut off: see ScoutCutOff) or
	// "unreadable"; "" when there was no scout answer.
	ScoutQuality string `json:"scoutQuality"`
	// ScoutCutOff reports that the scout answer was cut off: its JSON ends
	// unfinished, or the finish reason says the model hit its token limit.
	ScoutCutOff bool `json:"scoutCutOff"`
	// ScoutFinishReason is the finish reason the envelope states ("stop",
	// "length", ...); "" when the answer came without one.
	ScoutFinishReason string `json:"scoutFinishReason,omitempty"`
	// Incomplete counts the needs the cut fell inside: each is dropped,
	// listed in rejected[] as invalid_need.
	Incomplete int `json:"incomplete"`
	// ParseError is set when the scout text held no usable JSON although it
	// tried to (JSON that could not be read, even repaired) or the JSON had
	// no known shape. The call still succeeds with what could be read.
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
// scout answer, read by llmanswer.Read: raw text or parsed JSON, whole, in
// a ``` fence or in prose, repaired (quotes, commas, comments, Python
// literals...), inside an LLM API or n8n envelope (a chat completion passed
// whole), and salvaged when cut off. Shapes read:
//
//	{"files":[{"path":"<changed file>","needs":[{"op":"get_file","path":"x","reason":"..."}]}]}
//	[{"path":"<changed file>","needs":[...]}]                top-level array of file objects
//	{"needs":[{"op","path","file"?}]} / [{"op","path"}]      flat needs, attributed by file or for
//	{"<changed file>": ["x", {"op","path"}]}                 a map of changed file to needs (path order)
//	"src/a.go"                                               a need as a bare path string
//	[{"json": ...}, ...]                                     n8n items around any of the above
//
// A cut-off answer (its JSON ends unfinished, or finish_reason "length")
// keeps its complete needs; a need the cut fell inside is kept only when
// its op and path were both written in full, and is otherwise listed in
// rejected[] as invalid_need ("incomplete need dropped"). The warnings say
// "the scout answer was cut off: 2 complete requests kept, 1 incomplete
// dropped", and stats.scoutCutOff is set.
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
// refused) gives the placeholder {"skip": true, "requests": []}. An answer
// that cannot be read is also a placeholder, with stats.parseError and a
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
		res.Stats.ScoutWrapper = r.answer.Envelope
		if r.item != "" && res.Stats.ScoutWrapper == "" {
			res.Stats.ScoutWrapper = "[*]." + r.item
		}
		res.Stats.ScoutQuality = r.quality
		res.Stats.ScoutCutOff = r.answer.CutOff
		res.Stats.ScoutFinishReason = r.answer.FinishReason
		res.Stats.Incomplete = r.incomplete
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

// needsState checks needs one by one as the reader finds them, in order.
type needsState struct {
	in          NeedsInput
	lim         pipeline.Limits
	res         NeedsResult
	changed     map[string]bool
	seen        map[needKey]bool
	used        map[string]int  // accepted requests per changed file
	files       map[string]bool // changed files that proposed needs
	asked       map[string]bool // candidates' normalized paths the scout asked get_file for
	candidates  map[string]bool // the request's candidates' normalized paths (nil: none)
	perFileMsg  map[string]string
	totalCapMsg string
}

func newNeedsState(in NeedsInput, lim pipeline.Limits, changed map[string]bool) *needsState {
	st := &needsState{
		in: in, lim: lim, changed: changed,
		seen: map[needKey]bool{}, used: map[string]int{}, files: map[string]bool{}, perFileMsg: map[string]string{}, asked: map[string]bool{},
		candidates:  candidatePaths(in.Candidates, lim),
		totalCapMsg: "cap of " + strconv.Itoa(lim.NeedsTotal) + " requests in all reached",
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
	st.res.Rejected = append(st.res.Rejected, pipeline.Rejected{OK: false, Op: op, Path: path, Error: msg, Reason: reason})
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
	// Only the candidates' paths are remembered as asked.
	if n.Op == pipeline.OpGetFile && pr.source == "" && st.candidates[n.Path] {
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

// candidatePaths are the normalized paths of the request's candidates (nil
// without any), so needs can tell which of them the scout asked for.
func candidatePaths(cs []pipeline.Candidate, lim pipeline.Limits) map[string]bool {
	if len(cs) == 0 {
		return nil
	}
	out := make(map[string]bool, len(cs))
	for _, c := range cs {
		if p, err := scope.NormalizePath(c.Path, lim.MaxPathLen); err == nil {
			out[p] = true
		}
	}
	return out
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

// finish fills the counts.
func (st *needsState) finish() NeedsResult {
	res := st.res
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
