package bitbuckettest

import (
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// isListing reports whether a /src request names a directory: a trailing
// slash, the root, or a path with files below it.
func (s *Server) isListing(ws, slug, commit, p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repos[repoKey{ws, slug}]
	if p == "" || strings.HasSuffix(p, "/") {
		if rd == nil {
			return true
		}
		id, ok := s.resolve(rd, commit)
		if !ok {
			return true
		}
		_, isFile := rd.files[id][strings.Trim(p, "/")]
		return !isFile
	}
	if rd == nil {
		return false
	}
	id, _ := s.resolve(rd, commit)
	return isDir(rd.files[id], p)
}

func isDir(files map[string]file, dir string) bool {
	for p := range files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// src answers a file's bytes (or ?format=meta) or a directory's listing.
func (s *Server) src(c *call) {
	w, r, rd := c.w, c.r, c.rd
	id, ok := s.resolve(rd, r.PathValue("commit"))
	if !ok {
		writeError(w, http.StatusNotFound, "Commit not found")
		return
	}
	files := rd.files[id]
	p := r.PathValue("path")
	clean := strings.Trim(p, "/")
	meta := r.URL.Query().Get("format") == "meta"
	commit := map[string]any{"type": "commit", "hash": id}
	if f, ok := files[clean]; ok && clean != "" {
		if meta {
			writeJSON(w, http.StatusOK, map[string]any{
				"type": "commit_file", "path": clean, "commit": commit, "attributes": nonNil(f.attrs),
				"escaped_path": clean, "size": len(f.content),
			})
			return
		}
		if slices.Contains(f.attrs, "lfs") {
			http.Redirect(w, r, "http://media.invalid/file/"+url.PathEscape(clean), http.StatusMovedPermanently)
			return
		}
		ct := mime.TypeByExtension(path.Ext(clean))
		if ct == "" {
			ct = "application/octet-stream"
		} else if i := strings.Index(ct, ";"); i >= 0 {
			ct = ct[:i] // Bitbucket derives the type from the name and sends no charset
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", "attachment; filename=\""+path.Base(clean)+"\"")
		_, _ = w.Write(f.content)
		return
	}
	if clean != "" && !isDir(files, clean) {
		writeError(w, http.StatusNotFound, "No such file or directory: "+clean)
		return
	}
	if meta {
		writeJSON(w, http.StatusOK, map[string]any{"type": "commit_directory", "path": clean, "commit": commit})
		return
	}
	children := map[string]any{}
	prefix := ""
	if clean != "" {
		prefix = clean + "/"
	}
	for fp, f := range files {
		if !strings.HasPrefix(fp, prefix) {
			continue
		}
		name, _, sub := strings.Cut(strings.TrimPrefix(fp, prefix), "/")
		child := prefix + name
		if sub {
			children[child] = map[string]any{"type": "commit_directory", "path": child, "commit": commit}
		} else {
			children[child] = map[string]any{"type": "commit_file", "path": child, "commit": commit,
				"attributes": nonNil(f.attrs), "escaped_path": child, "size": len(f.content)}
		}
	}
	names := make([]string, 0, len(children))
	for n := range children {
		names = append(names, n)
	}
	sort.Strings(names)
	vals := make([]any, 0, len(names))
	for _, n := range names {
		vals = append(vals, children[n])
	}
	s.writePage(w, r, vals, 10)
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// writePage answers one page of vals. The page size is Server.PageLen, else
// ?pagelen (max 100), else def. `next` is absolute and keeps the query; the
// envelope has no size and no page, like Bitbucket's forward-only lists.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, vals []any, def int) {
	q := r.URL.Query()
	n := def
	if v, err := strconv.Atoi(q.Get("pagelen")); err == nil && v > 0 {
		n = min(v, 100)
	}
	if s.PageLen > 0 {
		n = s.PageLen
	}
	pg := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		pg = v
	}
	from := min((pg-1)*n, len(vals))
	to := min(from+n, len(vals))
	out := map[string]any{"pagelen": n, "values": nonNilAny(vals[from:to])}
	if to < len(vals) {
		q.Set("page", strconv.Itoa(pg+1))
		u := *r.URL
		u.Scheme, u.Host, u.RawQuery = "http", r.Host, q.Encode()
		out["next"] = u.String()
	}
	writeJSON(w, http.StatusOK, out)
}

func nonNilAny(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}
