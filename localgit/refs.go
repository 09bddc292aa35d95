package localgit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Revisions a request may name. A review reads committed history only, so
// the local provider accepts branch, tag and commit names and nothing of
// git's revision syntax: reflog entries (HEAD@{1}, @{-1}, stash@{0}) and the
// stash (refs/stash) can hold uncommitted or discarded work, and @{upstream}
// fails inside git (it answered 500 before). The checks on the text are
// git's own ref-name rules (git check-ref-format) plus the revision syntax
// characters; ResolveCommit then checks which ref a name resolves to.

// maxRevLen bounds a revision's length.
const maxRevLen = 256

// checkRev refuses revisions that are not plain branch, tag or commit names:
// empty, over maxRevLen, starting with '-' (git could read an option),
// holding control characters, a reflog form (@{...}), revision syntax
// (^ ~ :) or anything git's ref-name rules refuse. Errors are a
// *pipeline.InvalidError on field "ref" (stages rename it to base or head).
func checkRev(rev string) error {
	switch {
	case rev == "":
		return pipeline.Invalidf("ref", "empty revision")
	case strings.HasPrefix(rev, "-"):
		return pipeline.Invalidf("ref", "revision %q must not start with '-'", rev)
	case len(rev) > maxRevLen:
		return pipeline.Invalidf("ref", "revision too long (%d bytes, at most %d)", len(rev), maxRevLen)
	}
	for _, r := range rev {
		if r < 0x20 || r == 0x7f {
			return pipeline.Invalidf("ref", "control character in revision")
		}
	}
	switch {
	case strings.Contains(rev, "@{") || rev == "@":
		return pipeline.Invalidf("ref", "%q is a reflog form: only branch, tag and commit names are accepted (reflog entries can name uncommitted or discarded work)", rev)
	case strings.ContainsAny(rev, "^~:"):
		i := strings.IndexAny(rev, "^~:")
		return pipeline.Invalidf("ref", "%q uses revision syntax (%q): only branch, tag and commit names are accepted; resolve it to a commit id first", rev, rev[i:i+1])
	}
	if why := refNameProblem(rev); why != "" {
		return pipeline.Invalidf("ref", "%q is not a branch, tag or commit name: %s", rev, why)
	}
	return nil
}

// refNameProblem applies git check-ref-format's rules that checkRev has not
// already: no space or ? * [ \, no "..", no "//", no leading or trailing
// "/", no component starting with "." or ending with ".lock", no trailing
// ".".
func refNameProblem(name string) string {
	switch {
	case strings.ContainsAny(name, " ?*[\\"):
		return "space, ?, *, [ and \\ are not allowed"
	case strings.Contains(name, ".."):
		return `".." is not allowed`
	case strings.Contains(name, "//") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return "empty path component"
	case strings.HasSuffix(name, "."):
		return `it ends with "."`
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return `a component starts with "." or ends with ".lock"`
		}
	}
	return ""
}

// isHexID reports whether s can be an abbreviated or full object id: 4 to 64
// hexadecimal digits.
func isHexID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// ResolveCommit turns rev into the full id of the commit it names. rev must
// be a branch, tag or remote-tracking branch name (short or full, such as
// main or refs/tags/v1), HEAD, or a commit id (full or abbreviated hex);
// anything else is a *pipeline.InvalidError on field "ref" (see checkRev).
// A name must resolve to a ref under refs/heads/, refs/tags/ or
// refs/remotes/, or to HEAD (`git rev-parse --symbolic-full-name`):
// refs/stash and other refs are refused. The commit comes from `git
// rev-parse --verify --end-of-options <ref>^{commit}`. An unknown revision
// wraps pipeline.ErrNotFound and names rev.
func (p *Provider) ResolveCommit(ctx context.Context, repo pipeline.Repo, rev string) (string, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return "", err
	}
	return resolve(ctx, p.readers, dir, rev)
}

// resolve is ResolveCommit in the repository at dir. A full commit id is
// verified through a kept cat-file process of readers (nil: none) when it
// can, without a git process of its own.
func resolve(ctx context.Context, readers *readerPool, dir, rev string) (string, error) {
	if err := checkRev(rev); err != nil {
		return "", err
	}
	full := pipeline.IsFullCommit(rev)
	if full {
		if sha, ok := verifiedCommits.get(dir, rev); ok {
			return sha, nil
		}
		if readers != nil {
			// <id>^{commit} peels a tag object as rev-parse does.
			sha, err := readers.ask(ctx, dir, rev+"^{commit}", "commit")
			switch {
			case err == nil && pipeline.IsFullCommit(sha):
				verifiedCommits.put(dir, rev, sha)
				return sha, nil
			case errors.Is(err, pipeline.ErrNotFound):
				return "", fmt.Errorf("revision %q: %w", rev, pipeline.ErrNotFound)
			case ctx.Err() != nil:
				return "", fmt.Errorf("resolve revision %q: %w", rev, ctx.Err())
			}
			// Any other failure: rev-parse answers, as without readers.
		}
	}
	target := rev
	if !isHexID(rev) {
		full, err := revParse(ctx, dir, rev, "--symbolic-full-name", rev)
		if err != nil {
			return "", err
		}
		if !committedRef(full) {
			what := "a ref outside refs/heads, refs/tags and refs/remotes (" + full + ")"
			switch full {
			case "":
				what = "no branch or tag"
			case "refs/stash":
				what = "the stash (uncommitted work)"
			}
			return "", pipeline.Invalidf("ref", "%q names %s: only branch, tag and commit names are accepted", rev, what)
		}
		target = full
	}
	sha, err := revParse(ctx, dir, rev, target+"^{commit}")
	if err != nil {
		return "", err
	}
	if !pipeline.IsFullCommit(sha) {
		return "", fmt.Errorf("resolve revision %q: unexpected output %q", rev, sha)
	}
	if full {
		verifiedCommits.put(dir, rev, sha)
	}
	return sha, nil
}

// revParse runs `git rev-parse --verify --quiet [flag] --end-of-options
// arg` for the revision rev and returns its trimmed output.
func revParse(ctx context.Context, dir, rev string, args ...string) (string, error) {
	full := []string{"rev-parse", "--verify", "--quiet"}
	full = append(full, args[:len(args)-1]...)
	full = append(full, "--end-of-options", args[len(args)-1])
	out, err := runGit(ctx, dir, 4<<10, full...)
	if err != nil {
		var ge *gitError
		switch {
		case ctx.Err() != nil:
			return "", fmt.Errorf("resolve revision %q: %w", rev, ctx.Err())
		case errors.As(err, &ge) && ge.Code == 1:
			// --verify --quiet: exit 1, silently, when rev names nothing.
			return "", fmt.Errorf("revision %q: %w", rev, pipeline.ErrNotFound)
		}
		// Anything else (for example git refusing a repository owned by
		// another user) is not the caller's fault.
		return "", fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// committedRef reports whether a full ref name holds committed history a
// review may read: a branch, a tag, a remote-tracking branch or HEAD.
func committedRef(full string) bool {
	return full == "HEAD" || strings.HasPrefix(full, "refs/heads/") ||
		strings.HasPrefix(full, "refs/tags/") || strings.HasPrefix(full, "refs/remotes/")
}

// ResolveRevision turns any revision git itself understands (HEAD~3,
// main^, v1.2^{commit}, @{upstream}) into the full id of the commit it
// names, in the repository at dir. It is for the command line, run by the
// checkout's owner on their own repository: the service's stages accept
// plain names only (ResolveCommit). A revision starting with '-' or holding
// control characters is refused; one naming no commit wraps
// pipeline.ErrNotFound.
func ResolveRevision(ctx context.Context, dir, rev string) (string, error) {
	switch {
	case rev == "":
		return "", pipeline.Invalidf("ref", "empty revision")
	case strings.HasPrefix(rev, "-"):
		return "", pipeline.Invalidf("ref", "revision %q must not start with '-'", rev)
	case len(rev) > maxRevLen:
		return "", pipeline.Invalidf("ref", "revision too long (%d bytes, at most %d)", len(rev), maxRevLen)
	}
	for _, r := range rev {
		if r < 0x20 || r == 0x7f {
			return "", pipeline.Invalidf("ref", "control character in revision")
		}
	}
	sha, err := revParse(ctx, dir, rev, rev+"^{commit}")
	if err != nil {
		return "", err
	}
	if !pipeline.IsFullCommit(sha) {
		return "", fmt.Errorf("resolve revision %q: unexpected output %q", rev, sha)
	}
	return sha, nil
}
