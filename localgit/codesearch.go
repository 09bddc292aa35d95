package localgit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/cochange"
)

var _ pipeline.CodeSearch = (*Provider)(nil)

// defaultTreeMaxBytes is the largest file a CodeTree reads; larger files
// (generated code, data) wrap pipeline.ErrTooLarge, and the candidate search
// skips them.
const defaultTreeMaxBytes = 2 << 20

// treeReaders is how many `git cat-file --batch` processes one CodeTree
// keeps for reads from several goroutines: blob inflation runs in git, one
// process per core of the machines prscout is sized for.
const treeReaders = 2

// grepChunk is how many words one -e pattern of git grep holds, which keeps
// every argument far below the system's per-argument limit.
const grepChunk = 256

// OpenTree returns a read-only view of the repository at commit, read from
// git objects only (never the working tree): Grep runs `git grep` on the
// commit's tree, ReadFile streams blobs through long-lived `git cat-file
// --batch` processes, ListDir answers from one `git ls-tree -r` of the
// commit, made on first use and kept for the next trees of the commit (see
// listing.go). The tree is safe for concurrent use; Close stops its
// processes.
func (p *Provider) OpenTree(ctx context.Context, repo pipeline.Repo, commit string) (pipeline.CodeTree, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return nil, err
	}
	sha, err := commitID(ctx, p.readers, dir, commit)
	if err != nil {
		return nil, err
	}
	t := &codeTree{dir: dir, commit: sha, maxBytes: defaultTreeMaxBytes, listings: p.listings, blobs: p.blobs, idents: p.idents,
		histories: p.histories, readers: p.readers, idle: make(chan *blobReader, treeReaders)}
	for range treeReaders {
		t.idle <- nil // a slot: started on first use
	}
	return t, nil
}

// MergeBase returns the best common ancestor of a and b with `git
// merge-base`. Unknown commits, or histories without a common ancestor,
// wrap pipeline.ErrNotFound.
func (p *Provider) MergeBase(ctx context.Context, repo pipeline.Repo, a, b string) (string, error) {
	dir, err := p.repoDir(repo)
	if err != nil {
		return "", err
	}
	from, _, err := p.diffRange(ctx, dir, a, b, pipeline.DiffOptions{})
	return from, err
}

// codeTree is a CodeTree over one commit of a local repository.
type codeTree struct {
	dir, commit string
	maxBytes    int64

	indexMu  sync.Mutex
	listing  *treeListing  // the commit's paths; nil until loaded
	listings *listingCache // shared by the provider's trees
	blobs    *blobCache    // shared by the provider's trees
	idents   *identIndex   // shared by the provider's trees
	// histories keeps co-change windows (history.go), shared by the
	// provider's trees; nil keeps none.
	histories *cochange.Cache
	// readers keeps the blob readers of closed trees for the next trees
	// (readerpool.go); nil keeps none.
	readers *readerPool

	idle   chan *blobReader // reader slots; nil until started
	mu     sync.Mutex
	closed bool
}

// load gets the commit's path index on first use, from the provider's
// listing cache or one `git ls-tree -r -l -z` (a failed attempt, such as one
// whose context ended, is tried again by the next call).
func (t *codeTree) load(ctx context.Context) error {
	t.indexMu.Lock()
	defer t.indexMu.Unlock()
	if t.listing != nil {
		return nil
	}
	l, err := t.listings.listing(ctx, t.dir, t.commit)
	if err != nil {
		return err
	}
	t.listing = l
	return nil
}

// Grep answers from the provider's identifier index when it covers the
// search (see identindex.go), otherwise runs `git grep -l -z -I -w -E` at
// the commit: one extended regular expression w1|w2|... per 256 words costs
// git a third of the CPU time of as many fixed-string patterns. Globs are
// git's default pathspecs ("*.go" matches at any depth); every other
// pathspec stays literal. Both answer the same paths in git's order.
func (t *codeTree) Grep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	if len(words) == 0 {
		return nil, nil
	}
	if paths, ok, err := t.grepIndexed(ctx, words, globs, limit); err != nil || ok {
		return paths, err
	}
	return t.gitGrep(ctx, words, globs, limit)
}

// gitGrep runs git grep (see Grep).
func (t *codeTree) gitGrep(ctx context.Context, words, globs []string, limit int) ([]string, error) {
	args := []string{"grep", "-l", "-z", "-I", "--no-color", "-w", "-E", "--full-name"}
	for start := 0; start < len(words); start += grepChunk {
		chunk := words[start:min(start+grepChunk, len(words))]
		alt := make([]string, len(chunk))
		for i, w := range chunk {
			alt[i] = escapeERE(w)
		}
		args = append(args, "-e", strings.Join(alt, "|"))
	}
	args = append(args, t.commit, "--")
	for _, g := range globs {
		// A leading ':' would be read as pathspec magic.
		if g != "" && !strings.HasPrefix(g, ":") {
			args = append(args, g)
		}
	}
	cmd := gitCmd(ctx, t.dir, args...)
	cmd.Env = append(cmd.Env, "GIT_LITERAL_PATHSPECS=0") // the last value wins
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git grep: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git grep: %w", err)
	}
	prefix := t.commit + ":"
	var paths []string
	r := bufio.NewReaderSize(stdout, 64<<10)
	full := false
	for {
		rec, rerr := r.ReadString(0)
		if rec = strings.TrimSuffix(rec, "\x00"); rec != "" {
			paths = append(paths, strings.TrimPrefix(rec, prefix))
			if limit > 0 && len(paths) >= limit {
				full = true
				break
			}
		}
		if rerr != nil {
			break
		}
	}
	if full {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return paths, nil
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git grep: %w", ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() == 1 && len(paths) == 0 {
		return nil, nil // no match
	}
	if werr != nil {
		return nil, fmt.Errorf("git grep: %w: %s", werr, pipeline.FirstLine(stderr.String()))
	}
	return paths, nil
}

// escapeERE quotes the POSIX extended regular expression metacharacters of s.
func escapeERE(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ReadFile returns path's content at the commit. Directories, symbolic
// links, submodules and missing paths wrap pipeline.ErrNotFound, files over
// defaultTreeMaxBytes pipeline.ErrTooLarge, binary files pipeline.ErrBinary.
func (t *codeTree) ReadFile(ctx context.Context, path string) ([]byte, error) {
	clean, err := checkPath(path, false)
	if err != nil {
		return nil, err
	}
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	e, ok := t.listing.index[clean]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: %w", clean, pipeline.ErrNotFound)
	case e.kind() != "file":
		return nil, fmt.Errorf("%s: %s: %w", clean, e.kind(), pipeline.ErrNotFound)
	case e.Size > t.maxBytes:
		return nil, fmt.Errorf("%s: %d bytes over the %d byte limit: %w", clean, e.Size, t.maxBytes, pipeline.ErrTooLarge)
	}
	data, err := t.blob(ctx, e.OID)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", clean, err)
	}
	if pipeline.LooksBinary(data) {
		return nil, fmt.Errorf("%s: %w", clean, pipeline.ErrBinary)
	}
	return data, nil
}

// ListDir returns the regular files directly in dir.
func (t *codeTree) ListDir(ctx context.Context, dir string) ([]string, error) {
	clean, err := checkPath(dir, true)
	if err != nil {
		return nil, err
	}
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	return append([]string(nil), t.listing.dirs[clean]...), nil
}

// BlobID returns the object id of the file at path from the commit's
// listing, without reading it: false for a path ReadFile refuses by its
// listing (missing, no regular file, over the size limit).
func (t *codeTree) BlobID(ctx context.Context, path string) (string, bool) {
	clean, err := checkPath(path, false)
	if err != nil || t.load(ctx) != nil {
		return "", false
	}
	e, ok := t.listing.index[clean]
	if !ok || e.kind() != "file" || e.Size > t.maxBytes {
		return "", false
	}
	return e.OID, true
}

// Close stops the tree's git processes.
func (t *codeTree) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	// Wait for reads in flight to hand their readers back, pass them on to
	// the next trees, and leave empty slots so that a late read fails
	// instead of blocking.
	for range treeReaders {
		if br := <-t.idle; br != nil {
			t.readers.put(t.dir, br)
		}
	}
	for range treeReaders {
		t.idle <- nil
	}
	return nil
}

// blob returns one blob from the provider's cache or reads it through an
// idle reader, starting one when needed.
func (t *codeTree) blob(ctx context.Context, oid string) ([]byte, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, errTreeClosed
	}
	if data, ok := t.blobs.get(oid); ok {
		return data, nil
	}
	data, err := t.readBlob(ctx, oid, t.maxBytes)
	if err == nil {
		t.blobs.put(oid, data)
	}
	return data, err
}

// readBlob reads one blob of at most maxBytes through an idle reader.
func (t *codeTree) readBlob(ctx context.Context, oid string, maxBytes int64) ([]byte, error) {
	var br *blobReader
	select {
	case br = <-t.idle:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		if br != nil {
			br.close()
		}
		t.idle <- nil
		return nil, errTreeClosed
	}
	pooled := false
	if br == nil || br.broken {
		if br != nil {
			br.close()
		}
		var err error
		if br, pooled, err = t.readers.get(t.dir); err != nil {
			t.idle <- nil
			return nil, err
		}
	}
	br, data, err := readKept(ctx, t.dir, br, pooled, oid, maxBytes)
	t.idle <- br // nil when no process could start: a slot
	return data, err
}

var errTreeClosed = errors.New("code tree is closed")

// errOtherType is a blobReader's answer for an object of another type than
// the one asked; the reader stays in step.
var errOtherType = errors.New("object of another type")

// blobReader is one `git cat-file --batch` process, used by one goroutine at
// a time.
type blobReader struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	broken bool
	// idleStop stops the process while it waits in a readerPool.
	idleStop *time.Timer
}

func startBlobReader(dir string) (*blobReader, error) {
	// Not bound to a request: the process lives as long as the tree, and a
	// read whose context ends kills it (read).
	cmd := gitCmd(context.Background(), dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	return &blobReader{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 256<<10)}, nil
}

// read asks for one blob and reads its answer. A context that ends during
// the read kills the process (the reader is then broken and replaced).
func (br *blobReader) read(ctx context.Context, oid string, maxBytes int64) ([]byte, error) {
	_, data, err := br.object(ctx, oid, "blob", maxBytes)
	return data, err
}

// object asks for what name names (an object id, or git's syntax such as
// <id>^{commit}) and reads its full id and content, of type kind and at
// most maxBytes: none wraps pipeline.ErrNotFound, another type errOtherType.
// A context that ends during the read kills the process (as in read).
func (br *blobReader) object(ctx context.Context, name, kind string, maxBytes int64) (string, []byte, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = br.cmd.Process.Kill() })
	defer stop()
	id, data, err := br.objectLocked(name, kind, maxBytes)
	if err != nil && !errors.Is(err, pipeline.ErrNotFound) && !errors.Is(err, errOtherType) {
		br.broken = true
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
	}
	return id, data, err
}

func (br *blobReader) objectLocked(name, kind string, maxBytes int64) (string, []byte, error) {
	if _, err := io.WriteString(br.in, name+"\n"); err != nil {
		return "", nil, fmt.Errorf("read %s %s: %w", kind, name, err)
	}
	header, err := br.out.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("read %s %s header: %w", kind, name, err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		// Not in the object database (a partial clone without the blob,
		// or a name that peels to no such object): the stream is still in
		// step.
		return "", nil, fmt.Errorf("%s %s: %w", kind, name, pipeline.ErrNotFound)
	}
	if len(f) != 3 {
		return "", nil, fmt.Errorf("read %s %s: unexpected answer %q", kind, name, strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", nil, fmt.Errorf("read %s %s: bad size %q", kind, name, f[2])
	}
	if f[1] != kind {
		if size > maxBytes {
			return "", nil, fmt.Errorf("read %s %s: unexpected answer %q", kind, name, strings.TrimSpace(header))
		}
		// Another type: its content is passed over, the stream in step.
		if _, err := br.out.Discard(int(size) + 1); err != nil {
			return "", nil, fmt.Errorf("read %s %s: %w", kind, name, err)
		}
		return "", nil, fmt.Errorf("%s %s is a %s: %w", kind, name, f[1], errOtherType)
	}
	if size > maxBytes {
		// The index said otherwise: the stream can no longer be trusted.
		return "", nil, fmt.Errorf("read %s %s: %d bytes: %w", kind, name, size, pipeline.ErrTooLarge)
	}
	data := make([]byte, size+1) // content and its trailing newline
	if _, err := io.ReadFull(br.out, data); err != nil {
		return "", nil, fmt.Errorf("read %s %s: %w", kind, name, err)
	}
	if data[size] != '\n' {
		return "", nil, fmt.Errorf("read %s %s: answer out of step", kind, name)
	}
	return f[0], data[:size:size], nil
}

func (br *blobReader) close() {
	_ = br.in.Close()
	if err := br.cmd.Wait(); err != nil {
		_ = br.cmd.Process.Kill()
	}
}
