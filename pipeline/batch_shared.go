package pipeline

// Declarations that other branches written in parallel also make, with the
// same meaning: OpGetFile/OpListDir (needs, pipeline/paths.go) and
// DroppedContext (comments, pipeline/render.go). Keep one copy at merge
// time and delete this file.

// Lookup operations.
const (
	OpGetFile = "get_file"
	OpListDir = "list_dir"
)

// DroppedContext is one context item left out of the review prompt.
type DroppedContext struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Chars  int    `json:"chars"`  // characters the item would have added
	Reason string `json:"reason"` // "budget" or "over_budget"
}
