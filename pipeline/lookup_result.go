package pipeline

import "encoding/json"

// Ops prscout's repository tool understands.
const (
	OpGetFile = "get_file"
	OpListDir = "list_dir"
)

// LookupResult is one batch answer: a file, a listing or an isolated error.
type LookupResult struct {
	OK        bool       `json:"ok"`
	Op        string     `json:"op"`
	Path      string     `json:"path"`
	Content   *string    `json:"content,omitempty"`
	Size      *int64     `json:"size,omitempty"`
	Entries   []DirEntry `json:"entries,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
	Error     string     `json:"error,omitempty"`
	// Reason is the stable snake_case code of Error (a metrics label), e.g.
	// "not_found", "binary", "too_large", "secret", "timeout", "batch_limit";
	// see the Lookup* constants in batch.go.
	Reason string `json:"reason,omitempty"`
	Cached bool   `json:"cached,omitempty"`
}

// Lookup failure reasons: the `reason` of a failed LookupResult, a stable
// snake_case code fit for a metrics label. Path refusals use the codes of
// checkLookupPath, the same as the needs stage's (empty, parent_escape,
// control_char, too_long, bad_encoding, secret, ...).
const (
	LookupNotFound      = "not_found"      // no such path at the commit
	LookupBinary        = "binary"         // binary or non-UTF-8 file
	LookupTooLarge      = "too_large"      // over Limits.MaxFileBytes
	LookupIsDir         = "is_dir"         // get_file on a directory
	LookupNotDir        = "not_dir"        // list_dir on a file
	LookupSecret        = "secret"         // secret path, never read
	LookupTimeout       = "timeout"        // over Limits.LookupTimeout
	LookupCancelled     = "cancelled"      // the caller went away
	LookupUpstream      = "upstream"       // any other provider lookupFailure
	LookupBatchLimit    = "batch_limit"    // beyond Limits.BatchMax: not processed
	LookupUnsupportedOp = "unsupported_op" // op other than get_file/list_dir
	LookupMissingRepo   = "missing_repo"   // no workspace, repoSlug or ref, not even a default
	LookupInvalidRepo   = "invalid_repo"   // workspace, repoSlug or ref malformed
	LookupRefNotFound   = "ref_not_found"  // ref does not resolve to a commit
)

// Outcome is the metrics label of a result: "ok" or its failure reason.
func (r LookupResult) Outcome() string {
	if r.OK {
		return "ok"
	}
	if r.Reason == "" {
		return LookupUpstream
	}
	return r.Reason
}

// Clone copies the parts of r a caller could modify (the cache and every
// coalesced caller share one value).
func (r LookupResult) Clone() LookupResult {
	if r.Entries != nil {
		r.Entries = append([]DirEntry(nil), r.Entries...)
	}
	return r
}

// MarshalJSON gives a successful list_dir result an "entries" array even
// when the directory is empty (the field is omitted on other results), so
// that n8n expressions such as $json.entries.length never meet undefined.
func (r LookupResult) MarshalJSON() ([]byte, error) {
	type plain LookupResult // no methods: no recursion
	if !r.OK || r.Op != OpListDir {
		return json.Marshal(plain(r))
	}
	entries := r.Entries
	if entries == nil {
		entries = []DirEntry{}
	}
	return json.Marshal(struct {
		plain
		Entries []DirEntry `json:"entries"`
	}{plain(r), entries})
}
