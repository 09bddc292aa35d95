package scope

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// InstructionSettings say which instruction files a review reads at the
// destination commit and how much of them it shows (PRSCOUT_INSTRUCTION_FILES,
// PRSCOUT_INSTRUCTION_FILE_BYTES, PRSCOUT_INSTRUCTION_TOTAL_BYTES). No paths:
// none is read. Set by the API, never by the request.
type InstructionSettings struct {
	Paths         []string
	MaxFileBytes  int
	MaxTotalBytes int
}

// maxInstructionRead bounds one instruction file read: a larger file is
// skipped with a warning (ReadFile refuses it rather than cutting it).
const maxInstructionRead = 1 << 20

// rootListLimit is the root listing's size: one page of the Bitbucket API.
// A longer root is read file by file for what the page did not show.
const rootListLimit = 100

// RootListing is the destination's root directory, listed once so that the
// rule file and instruction files are read only where they exist. nil: not
// listed (every file is read directly, a missing one costs its 404).
type RootListing struct {
	names     map[string]string // entry name -> type
	truncated bool
}

// MayHold reports whether p can exist: its first segment is in the listing,
// as a file for a root file and as a directory for a nested one, or the
// listing was cut before it.
func (l *RootListing) MayHold(p string) bool {
	if l == nil || l.truncated {
		return true
	}
	top, rest, nested := strings.Cut(p, "/")
	typ, ok := l.names[top]
	if !ok {
		return false
	}
	if nested && rest != "" {
		return typ == "dir"
	}
	return typ != "dir"
}

// ListRoot lists the root at commit when instruction files are read; an
// error leaves it nil (files are read directly).
func ListRoot(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string, set InstructionSettings) *RootListing {
	if len(set.Paths) == 0 {
		return nil
	}
	entries, truncated, err := repo.ListDir(ctx, r, commit, "", rootListLimit)
	if err != nil {
		return nil
	}
	l := &RootListing{names: make(map[string]string, len(entries)), truncated: truncated}
	for _, e := range entries {
		l.names[path.Base(strings.Trim(e.Path, "/"))] = e.Type
	}
	return l
}

// ReadInstructions reads the instruction files set names at commit, where
// the root listing says they may exist, and bounds them: each to
// MaxFileBytes, all together to MaxTotalBytes, cut on a line (or rune)
// boundary with a note. A missing file is silent; any other failure is a
// warning and the file is left out.
func ReadInstructions(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string, set InstructionSettings, root *RootListing) ([]pipeline.InstructionFile, []string) {
	var (
		out      []pipeline.InstructionFile
		warnings []string
		used     int
	)
	perFile, total := set.MaxFileBytes, set.MaxTotalBytes
	for _, p := range set.Paths {
		p = strings.Trim(strings.TrimSpace(p), "/")
		if p == "" || !root.MayHold(p) {
			continue
		}
		data, err := repo.ReadFile(ctx, r, commit, p, maxInstructionRead)
		switch {
		case errors.Is(err, pipeline.ErrNotFound), errors.Is(err, pipeline.ErrNotDir), errors.Is(err, pipeline.ErrIsDir):
			continue
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("instruction file %s@%s not read (%v): left out", p, pipeline.ShortCommit(commit), err))
			continue
		case !utf8.Valid(data):
			warnings = append(warnings, fmt.Sprintf("instruction file %s@%s is not UTF-8 text: left out", p, pipeline.ShortCommit(commit)))
			continue
		}
		if strings.TrimSpace(string(data)) == "" {
			continue
		}
		room := perFile
		if total > 0 {
			left := total - used
			if left <= 0 {
				warnings = append(warnings, fmt.Sprintf("instruction file %s left out: the instruction files before it fill the %d-byte total", p, total))
				continue
			}
			if room <= 0 || left < room {
				room = left
			}
		}
		text, cut := cutText(string(data), room)
		if cut {
			text = strings.TrimRight(text, "\n") + fmt.Sprintf("\n\n[cut: the first %d of %d bytes of %s are shown]\n", len(text), len(data), p)
		}
		used += len(text)
		out = append(out, pipeline.InstructionFile{Path: p, Content: text, Size: len(data), Cut: cut})
	}
	return out, warnings
}

// cutText keeps at most n bytes of s (n <= 0: all of it), at the last line
// end within them when there is one, else at a rune boundary.
func cutText(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	head := s[:n]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		return head[:i+1], true
	}
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	return head, true
}

// LoadRepoRulesListed is LoadRepoRules, skipped (no rule file, no
// call) when the root listing shows no .prscout directory.
func LoadRepoRulesListed(ctx context.Context, repo pipeline.Repository, r pipeline.Repo, commit string, root *RootListing) (*RuleFile, string, string) {
	if !root.MayHold(RepoRulesPath) {
		return nil, RepoRulesPath + "@" + pipeline.ShortCommit(commit), ""
	}
	return LoadRepoRules(ctx, repo, r, commit)
}
