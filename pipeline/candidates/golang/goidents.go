package golang

import (
	"unsafe"

	"github.com/prscout/prscout/pipeline/candidates/golang/goscan"
	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/ident"
)

// The search for references reads every file git grep names for the
// changed names (some two thousand on a large range) to learn which of the
// names each holds and how (after a dot, before a colon). A file's distinct
// identifiers, and how each occurs, depend on its content only: they are
// listed once and kept across requests, and each request then checks the
// short list against its names instead of reading the file again.

// identsOf returns the identifiers of the file at p with content src.
func (e *goEngine) identsOf(p string, src []byte) *engine.Idents {
	return engine.CachedAt(e.cache, engine.KeyAt("go/idents", p, e.sumOf(src)), func() (*engine.Idents, int64) {
		fi := engine.ListIdents(src, goscan.Chars)
		return fi, fi.Weight()
	})
}

// identAtOf returns where the identifiers fi lists occur in src, the
// content of the file at p.
func (e *goEngine) identAtOf(p string, src []byte, fi *engine.Idents) *engine.At {
	return engine.CachedAt(e.cache, engine.KeyAt("go/identat", p, e.sumOf(src)), func() (*engine.At, int64) {
		ia := engine.ListAt(src, fi)
		return ia, ia.Weight()
	})
}

// srcID names a content by where it is in memory: a request reads each
// file once and never changes what it read.
type srcID struct {
	data *byte
	n    int
}

// sumOf returns engine.SumOf(src), computed once a request for each
// content however many readers key it.
func (e *goEngine) sumOf(src []byte) engine.Sum {
	if len(src) == 0 {
		return engine.SumOf(src)
	}
	id := srcID{unsafe.SliceData(src), len(src)}
	e.sumMu.Lock()
	s, ok := e.sums[id]
	e.sumMu.Unlock()
	if !ok {
		s = engine.SumOf(src)
		e.sumMu.Lock()
		e.sums[id] = s
		e.sumMu.Unlock()
	}
	return s
}

// wantedIn answers the words of want (of maxWord bytes at most) among a
// file's identifiers, each with how it occurs.
func wantedIn(want *ident.Set[bool], fi *engine.Idents) map[string]uint8 {
	var found map[string]uint8
	for k := range fi.Len() {
		w, occ := fi.Word(k)
		if len(w) <= maxWord {
			if _, ok := want.Get(w); ok {
				if found == nil {
					found = map[string]uint8{}
				}
				found[w] = occ &^ engine.OccNoDollar
			}
		}
	}
	return found
}

// wantedInSrc is wantedIn for the list of src, read from src itself.
func wantedInSrc(want *ident.Set[bool], src []byte) map[string]uint8 {
	var found map[string]uint8
	for at := 0; ; {
		i, j, ok := ident.Next(src, at, goscan.Chars)
		if !ok {
			return found
		}
		at = j
		if j-i > maxWord {
			continue
		}
		if _, ok := want.Get(unsafe.String(&src[i], j-i)); ok {
			if found == nil {
				found = map[string]uint8{}
			}
			found[string(src[i:j])] |= engine.Occurrence(src, i, j)
		}
	}
}

// containsIdent is ident.Contains(src, w, ident.Dollar|ident.Unicode) for
// an identifier w of head file p with content src. A file's identifier
// list answers it when one is kept (listing one costs more than searching
// the source for a few names): without a '$' in the file, the runs of
// identifier bytes are the same with '$' or without; with one, w must
// occur once with no '$' beside it.
func (e *goEngine) containsIdent(p string, src []byte, w string) bool {
	var fi *engine.Idents
	if w != "" && (w[0] < '0' || w[0] > '9') && ident.End(w, 0, goscan.Chars) == len(w) {
		var ok bool
		if fi, ok = e.idents[p]; !ok {
			fi, _ = engine.Get[*engine.Idents](e.cache, engine.KeyAt("go/idents", p, e.sumOf(src)))
			e.idents[p] = fi
		}
	}
	if fi == nil {
		return ident.Contains(src, w, ident.Dollar|ident.Unicode)
	}
	k, ok := fi.Index(w)
	if !ok {
		return false
	}
	_, occ := fi.Word(int(k))
	return !fi.Dollar() || occ&engine.OccNoDollar != 0
}
