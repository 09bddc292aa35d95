package lookup

import (
	"bytes"
	"encoding/json"
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
	top := 0 // candidates with evidence seen so far, asked for or not
	for _, c := range cs {
		p, err := scope.NormalizePath(c.Path, st.lim.MaxPathLen)
		weak := c.Method == pipeline.MethodTextual || c.Method == pipeline.MethodIdentifier || c.Method == pipeline.MethodCoChange
		if !weak {
			top++
		}
		if err == nil && st.asked[p] {
			cst.AskedByScout++
			continue
		}
		// A name found only as text, or a file only the history ties to
		// the change, is offered to the scout, never fetched on its own.
		if weak || top > st.lim.CandidatesAuto || err != nil {
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
