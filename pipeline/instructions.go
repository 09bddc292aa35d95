package pipeline

// InstructionFile is one of the files a team keeps for other reviewers and
// coding agents (AGENTS.md, REVIEW.md, ...), read at the destination commit
// and shown in the review prompt as repository guidance.
type InstructionFile struct {
	Path string `json:"path"`
	// Content is the text the review prompt shows, redacted and cut to the
	// bounds (empty in the echo /v1/merge gives /v1/comments).
	Content string `json:"content,omitempty"`
	// Size is the file's size in bytes; Cut marks content cut to the
	// per-file or total bound (the prompt says so).
	Size int  `json:"size"`
	Cut  bool `json:"cut,omitempty"`
}

// InstructionPaths names the instruction files of a list.
func InstructionPaths(files []InstructionFile) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}
