package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/prscout/prscout/pipeline"
)

// ReadFiles reads the searched files at paths on every core, as long as
// ctx lasts, and answers what read made of each, in paths' order: the
// zero T for a file that cannot be read, one read refused (ok false) and
// one the bound of kept tokens left out. read answers the number of tokens
// its value keeps in memory; they are taken from the Find's bound
// (Evidence.Keep), and once it is spent no more files are read, which the
// evidence records as a cut naming lang's files. Reading also stops when
// the evidence's Reading context ends before ctx (the time left for the
// search is kept for walking what was read), also recorded as a cut. Each
// reader reads its search's files here: the reading, its concurrency and
// its bounds are the same in every language.
func ReadFiles[T any](ctx context.Context, tree Tree, ev *Evidence, lang string, paths []string, read func(p string, src []byte) (v T, tokens int, ok bool)) []T {
	return ReadHeld(ctx, tree, ev, lang, paths, nil, read)
}

// Partial is a reading that may end before its file does (a bound on the
// tokens of one file): ReadTo answers the last line read and the bound,
// line 0 when the file was read whole. ReadFiles counts the files each
// reading it keeps left a part of, as one cut.
type Partial interface{ ReadTo() (line, bound int) }

// partialFiles counts the files read only in part (Partial) and names
// the first of them by path, for the evidence's cuts.
type partialFiles struct {
	paths       map[string]bool
	first       string
	line, bound int
}

// shortRead records that the file at p was read to its line, the bound
// of its reader's tokens stopping there.
func (e *Evidence) shortRead(p string, line, bound int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.short
	if s.paths == nil {
		s.paths = map[string]bool{}
	}
	s.paths[p] = true
	if s.first == "" || p < s.first {
		s.first, s.line, s.bound = p, line, bound
	}
}

// phrase says what the files read in part left out; "" for none.
func (s partialFiles) phrase() string {
	switch len(s.paths) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s holds more than %d tokens: what follows its line %d was not read", s.first, s.bound, s.line)
	}
	others := "1 other file"
	if n := len(s.paths) - 1; n > 1 {
		others = fmt.Sprintf("%d other files", n)
	}
	return fmt.Sprintf("%s and %s hold more than %d tokens: what follows the last read (line %d of %s) was not read", s.first, others, s.bound, s.line, s.first)
}

// ReadHeld is ReadFiles for files some of which a first pass has read
// already: held answers the content of each it holds (nil for one it does
// not). A file held is not read again, and is read when the time for
// reading has run out too, as a file read before then.
func ReadHeld[T any](ctx context.Context, tree Tree, ev *Evidence, lang string, paths []string, held func(p string) []byte, read func(p string, src []byte) (v T, tokens int, ok bool)) []T {
	out := make([]T, len(paths))
	rctx := ev.reading(ctx)
	var unread, late atomic.Int32
	pipeline.ParallelCtx(ctx, len(paths), func(i int) {
		var src []byte
		if held != nil {
			src = held(paths[i])
		}
		if src == nil && rctx.Err() != nil {
			late.Add(1)
			return
		}
		if !ev.Keep(0) {
			unread.Add(1)
			return
		}
		if src == nil {
			var err error
			if src, err = tree.ReadFile(rctx, paths[i]); err != nil {
				if rctx.Err() != nil {
					late.Add(1)
				}
				return
			}
		}
		v, n, ok := read(paths[i], src)
		if !ok {
			return
		}
		if !ev.Keep(n) {
			unread.Add(1)
			return
		}
		if r, ok := any(v).(Partial); ok {
			if line, bound := r.ReadTo(); line > 0 {
				ev.shortRead(paths[i], line, bound)
			}
		}
		out[i] = v
	})
	if n := unread.Load(); n > 0 {
		ev.Cut(fmt.Sprintf("%d %s files holding the changed names were not read: the files read before hold %d tokens", n, lang, MaxKeptTokens))
	}
	if n := late.Load(); n > 0 && ctx.Err() == nil {
		ev.Cut(fmt.Sprintf("%d %s files holding the changed names were not read in the time of the search", n, lang))
	}
	return out
}
