package localgit

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prscout/prscout/internal/identhash"
	"github.com/prscout/prscout/localgit/pathspec"
	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/pipeline/ident"
)

// A code tree answers Grep from an index of the identifiers of each blob
// (kept by blob id, so an index entry serves every commit that has the blob)
// instead of running git grep, once the index holds every blob the search
// covers. A blob's identifiers are the maximal runs of word characters
// [A-Za-z0-9_], which is exactly what `git grep -w` matches for words made
// of word characters; words with other characters always go to git grep.
// The index is filled from blobs the tree reads anyway, from the blobs a
// search lacks (up to inlineLimit), and in the background after a search
// that had to run git grep.

// defaultIdentIndexBytes bounds the identifier index of a Provider (8 bytes
// per distinct identifier of each blob).
const defaultIdentIndexBytes = 64 << 20

// identInlineMax is how many unindexed blobs a search reads and indexes
// itself before answering (or a quarter of those it covers, when more):
// git grep would read every covered blob, and the background fill after it
// the missing ones again. With more missing (a very large repository's
// first search) it runs git grep and fills later. A variable for the tests.
var identInlineMax = 4096

// inlineLimit is how many missing blobs a search over covered blobs indexes
// inline (see identInlineMax).
func inlineLimit(covered int) int { return max(identInlineMax, covered/4) }

// identMaxBlob is the largest blob indexed; a search covering a larger one
// runs git grep.
const identMaxBlob = 16 << 20

func identHash(s string) uint64 { return identhash.String(s) }

// identSet is one blob's identifiers, hashed, sorted, without duplicates.
// nil means the blob is binary (git grep -I never matches it).
type identSet []uint64

// hasAny reports whether the blob has one of words (sorted hashes, without
// duplicates): a merge walk of the two sorted lists when the blob's
// identifiers are few against the words, a binary search per word
// otherwise. Comparing integers in order costs less than hashing each of
// the blob's identifiers into a set.
func (s identSet) hasAny(words []uint64) bool {
	if len(s) < 16*len(words) {
		i, j := 0, 0
		for i < len(s) && j < len(words) {
			switch {
			case s[i] < words[j]:
				i++
			case s[i] > words[j]:
				j++
			default:
				return true
			}
		}
		return false
	}
	for _, w := range words {
		if _, ok := slices.BinarySearch(s, w); ok {
			return true
		}
	}
	return false
}

// identsOf indexes one blob's content.
func identsOf(data []byte) identSet {
	if pipeline.LooksBinary(data) {
		return nil
	}
	return identhash.Of(data)
}

// identIndex maps blob ids to their identifiers, bounded by size: once full
// it takes no more (the searches it cannot answer run git grep).
type identIndex struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	sets     map[string]identSet
	filling  map[string]bool // repository directories being indexed in the background
	fills    sync.WaitGroup  // the background fills running (tests wait on it)
}

func newIdentIndex(maxBytes int64) *identIndex {
	return &identIndex{maxBytes: maxBytes, sets: map[string]identSet{}, filling: map[string]bool{}}
}

func (x *identIndex) get(oid string) (identSet, bool) {
	if x == nil {
		return nil, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.sets[oid]
	return s, ok
}

// len is the number of blobs indexed.
func (x *identIndex) len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.sets)
}

// put keeps a blob's identifiers; false when the index is full.
func (x *identIndex) put(oid string, s identSet) bool {
	if x == nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.sets[oid]; ok {
		return true
	}
	size := int64(8*len(s) + len(oid) + 48)
	if x.bytes+size > x.maxBytes {
		return false
	}
	x.sets[oid] = s
	x.bytes += size
	return true
}

// searchWords are the words of a search as the index looks them up.
type searchWords struct {
	plain []uint64 // hashes of the words of word characters, sorted, distinct
	// pieced are the other words: a blob can match one only if it holds
	// every run of word characters of the word as an identifier, and its
	// content then tells.
	pieced []piecedWord
}

type piecedWord struct {
	word   string
	pieces []uint64 // hashes of the word's runs of word characters
}

// indexedWords sorts words for the index; ok is false when the index
// cannot answer for one of them: a number, or a word whose runs of word
// characters include a number or that has none ("$"). Numbers are not
// indexed; a search for one runs git grep.
func indexedWords(words []string) (sw searchWords, ok bool) {
	for _, w := range words {
		if w == "" || strings.IndexByte(w, '\n') >= 0 {
			return searchWords{}, false
		}
		if w[0] < '0' || w[0] > '9' {
			if ident.End(w, 0, 0) == len(w) {
				sw.plain = append(sw.plain, identHash(w))
				continue
			}
		}
		// A -w match of w has no word character on either side, so each
		// of w's runs of word characters is a whole identifier of the
		// blob.
		pw := piecedWord{word: w}
		for i := 0; i < len(w); {
			end := ident.End(w, i, 0)
			if end == i {
				i++
				continue
			}
			if w[i] >= '0' && w[i] <= '9' {
				return searchWords{}, false
			}
			pw.pieces = append(pw.pieces, identHash(w[i:end]))
			i = end
		}
		if len(pw.pieces) == 0 {
			return searchWords{}, false
		}
		sw.pieced = append(sw.pieced, pw)
	}
	slices.Sort(sw.plain)
	sw.plain = slices.Compact(sw.plain)
	return sw, true
}

// hasAll reports whether the blob has every one of hashes.
func (s identSet) hasAll(hashes []uint64) bool {
	for _, h := range hashes {
		if _, ok := slices.BinarySearch(s, h); !ok {
			return false
		}
	}
	return true
}

// grepIndexed answers Grep from the identifier index when it can: words
// the index can look up (indexedWords), plain globs (pathspec.Matcher), and every blob the
// globs cover indexed (after indexing up to inlineLimit missing ones).
// ok is false otherwise; unindexed blobs are then indexed in the
// background. A word with other characters than word characters ("$el"
// in JavaScript) is looked for in the content of the blobs holding its
// runs of word characters, as git grep -w matches it.
func (t *codeTree) grepIndexed(ctx context.Context, words, globs []string, limit int) (paths []string, ok bool, err error) {
	if t.idents == nil {
		return nil, false, nil
	}
	sw, ok := indexedWords(words)
	if !ok {
		return nil, false, nil
	}
	match, ok := pathspec.Matcher(globs)
	if !ok {
		return nil, false, nil
	}
	if err := t.load(ctx); err != nil {
		return nil, false, err
	}
	key := strings.Join(globs, "\x00")
	cov := t.listing.coverage(key)
	if cov == nil {
		if cov, err = t.cover(ctx, match); cov == nil || err != nil {
			return nil, false, err
		}
		t.listing.keepCoverage(key, cov)
	}
	for i, s := range cov.sets {
		hit := s.hasAny(sw.plain)
		for _, pw := range sw.pieced {
			if hit {
				break
			}
			if !s.hasAll(pw.pieces) {
				continue
			}
			data, err := t.indexBlob(ctx, cov.entries[i])
			if err != nil {
				if ctx.Err() != nil {
					return nil, false, ctx.Err()
				}
				return nil, false, nil
			}
			hit = ident.Contains(data, pw.word, 0)
		}
		if hit {
			paths = append(paths, cov.entries[i].Path)
			if limit > 0 && len(paths) >= limit {
				break
			}
		}
	}
	return paths, true, nil
}

// coverage is the regular files of a listing that a set of globs covers, in
// git's order, with the identifiers of each. Blob ids name their content,
// so the sets stay true for good and serve every later search of the
// commit with the same globs.
type coverage struct {
	entries []treeEntry
	sets    []identSet
}

// cover gathers the coverage of match from the identifier index, first
// indexing up to inlineLimit missing blobs; nil when the index cannot
// answer (more blobs missing, which are then indexed in the background, a
// blob over identMaxBlob, or the index full).
func (t *codeTree) cover(ctx context.Context, match func(string) bool) (*coverage, error) {
	var covered []treeEntry
	var missing []treeEntry
	seenMissing := map[string]bool{}
	for _, p := range t.listing.order {
		e := t.listing.index[p]
		if e.kind() != "file" || !match(p) {
			continue
		}
		covered = append(covered, e)
		if _, ok := t.idents.get(e.OID); !ok && !seenMissing[e.OID] {
			if e.Size > identMaxBlob {
				return nil, nil
			}
			seenMissing[e.OID] = true
			missing = append(missing, e)
		}
	}
	if len(missing) > inlineLimit(len(covered)) {
		t.fillLater(missing)
		return nil, nil
	}
	// A failed read or a full index leaves the search to git grep.
	if ok, err := t.indexAll(ctx, missing); !ok || err != nil {
		return nil, err
	}
	cov := &coverage{entries: covered, sets: make([]identSet, len(covered))}
	for i, e := range covered {
		s, ok := t.idents.get(e.OID)
		if !ok {
			return nil, nil
		}
		cov.sets[i] = s
	}
	return cov, nil
}

// indexAll indexes entries on the tree's readers at once, each blob as it
// comes; ok is false when a read failed or the index is full.
func (t *codeTree) indexAll(ctx context.Context, entries []treeEntry) (ok bool, err error) {
	var failed atomic.Bool
	pipeline.Parallel(len(entries), func(i int) {
		if failed.Load() || ctx.Err() != nil {
			return
		}
		data, err := t.indexBlob(ctx, entries[i])
		if err != nil && !errors.Is(err, pipeline.ErrNotFound) {
			failed.Store(true)
			return
		}
		// A blob the object store lacks (a partial clone) has no
		// identifiers git grep could match: indexed as empty, it no longer
		// sends every search back to git grep.
		if !t.idents.put(entries[i].OID, identsOf(data)) {
			failed.Store(true) // the index is full
		}
	})
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return !failed.Load(), nil
}

// indexBlob reads a blob to index it: from the blob cache, else through a
// reader (larger blobs than the tree reads are allowed, up to identMaxBlob).
// A blob the tree may read is kept in the blob cache: the search's hits are
// read next.
func (t *codeTree) indexBlob(ctx context.Context, e treeEntry) ([]byte, error) {
	if data, ok := t.blobs.get(e.OID); ok {
		return data, nil
	}
	data, err := t.readBlob(ctx, e.OID, identMaxBlob)
	if err == nil && e.Size <= t.maxBytes {
		t.blobs.put(e.OID, data)
	}
	return data, err
}

// fillLater indexes blobs in the background with a reader of its own, one
// fill per repository at a time, so that the next searches of the
// repository are answered from the index.
func (t *codeTree) fillLater(entries []treeEntry) {
	x := t.idents
	x.mu.Lock()
	if x.filling[t.dir] {
		x.mu.Unlock()
		return
	}
	x.filling[t.dir] = true
	x.fills.Add(1)
	x.mu.Unlock()
	go func() {
		defer func() {
			x.mu.Lock()
			delete(x.filling, t.dir)
			x.mu.Unlock()
			x.fills.Done()
		}()
		br, pooled, err := t.readers.get(t.dir)
		if err != nil {
			return
		}
		defer func() {
			if br != nil {
				t.readers.put(t.dir, br)
			}
		}()
		for _, e := range entries {
			if _, ok := x.get(e.OID); ok {
				continue
			}
			data, ok := t.blobs.get(e.OID)
			if !ok {
				br, data, err = readKept(context.Background(), t.dir, br, pooled, e.OID, identMaxBlob)
				pooled = false
				if err != nil && !errors.Is(err, pipeline.ErrNotFound) {
					return
				}
			}
			if !x.put(e.OID, identsOf(data)) {
				return
			}
		}
	}()
}
