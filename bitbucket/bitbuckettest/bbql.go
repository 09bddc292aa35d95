package bitbuckettest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The fake answers the part of Bitbucket's query language (BBQL, the `q`
// and `sort` parameters of "filtering and sorting") that prscout sends:
// comparisons of a field with a value — "=", "!=" and, on text, "~" and
// "!~" (contains, case-insensitively) — joined by AND and OR (AND binds
// tighter) and grouped with parentheses; `sort` is a field, "-" first for
// descending. A field the resource does not offer, an operator its kind
// does not take, or anything it cannot parse is refused with 400, as
// Bitbucket refuses a query it cannot run.

// bbqlKind is what a queryable field holds.
type bbqlKind int

const (
	bbqlText bbqlKind = iota
	bbqlNumber
)

// bbqlFields are the fields a resource can be filtered and sorted on.
type bbqlFields struct {
	filter map[string]bbqlKind
	sort   map[string]bbqlKind
}

var (
	commentQuery = bbqlFields{
		filter: map[string]bbqlKind{"content.raw": bbqlText, "user.account_id": bbqlText, "user.uuid": bbqlText},
		sort:   map[string]bbqlKind{"created_on": bbqlText, "id": bbqlNumber},
	}
	pullRequestQuery = bbqlFields{
		filter: map[string]bbqlKind{"state": bbqlText, "source.branch.name": bbqlText, "destination.branch.name": bbqlText},
	}
)

// bbqlExpr is a parsed query.
type bbqlExpr interface {
	match(obj map[string]any) bool
}

type bbqlCmp struct {
	field, op string
	kind      bbqlKind
	text      string
	num       float64
}

type bbqlJoin struct {
	and  bool
	l, r bbqlExpr
}

func (j bbqlJoin) match(obj map[string]any) bool {
	if j.and {
		return j.l.match(obj) && j.r.match(obj)
	}
	return j.l.match(obj) || j.r.match(obj)
}

func (c bbqlCmp) match(obj map[string]any) bool {
	v, _ := lookupField(obj, c.field)
	if c.kind == bbqlNumber {
		n, ok := number(v)
		return ok && (n == c.num) == (c.op == "=")
	}
	s, _ := v.(string)
	switch c.op {
	case "=":
		return s == c.text
	case "!=":
		return s != c.text
	}
	contains := strings.Contains(strings.ToLower(s), strings.ToLower(c.text))
	return contains == (c.op == "~")
}

// lookupField follows a dotted path through JSON objects.
func lookupField(obj map[string]any, path string) (any, bool) {
	var v any = obj
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// bbqlParser is a recursive-descent parser over the query's tokens.
type bbqlParser struct {
	toks   []string
	at     int
	fields bbqlFields
}

// parseBBQL parses q against the fields a resource offers.
func parseBBQL(q string, fields bbqlFields) (bbqlExpr, error) {
	toks, err := bbqlTokens(q)
	if err != nil {
		return nil, err
	}
	p := &bbqlParser{toks: toks, fields: fields}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.at < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at token %d", p.toks[p.at], p.at+1)
	}
	return e, nil
}

func (p *bbqlParser) peek() string {
	if p.at < len(p.toks) {
		return p.toks[p.at]
	}
	return ""
}

func (p *bbqlParser) next() string { t := p.peek(); p.at++; return t }

func (p *bbqlParser) or() (bbqlExpr, error) { return p.join("OR", p.and, false) }

func (p *bbqlParser) and() (bbqlExpr, error) { return p.join("AND", p.term, true) }

func (p *bbqlParser) join(word string, operand func() (bbqlExpr, error), and bool) (bbqlExpr, error) {
	l, err := operand()
	for err == nil && p.peek() == word {
		p.next()
		var r bbqlExpr
		if r, err = operand(); err == nil {
			l = bbqlJoin{and: and, l: l, r: r}
		}
	}
	return l, err
}

func (p *bbqlParser) term() (bbqlExpr, error) {
	if p.peek() == "(" {
		p.next()
		e, err := p.or()
		if err == nil && p.next() != ")" {
			err = fmt.Errorf("missing )")
		}
		return e, err
	}
	field, op, val := p.next(), p.next(), p.next()
	kind, ok := p.fields.filter[field]
	if !ok {
		return nil, fmt.Errorf("%q is not a field this resource can be filtered on", field)
	}
	c := bbqlCmp{field: field, op: op, kind: kind}
	switch {
	case kind == bbqlText && slices.Contains([]string{"=", "!=", "~", "!~"}, op) && strings.HasPrefix(val, `"`):
		c.text = val[1:]
		return c, nil
	case kind == bbqlNumber && (op == "=" || op == "!="):
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("%s %s wants a number, got %q", field, op, val)
		}
		c.num = n
		return c, nil
	}
	return nil, fmt.Errorf("%s %s %s: not a comparison this field takes", field, op, strings.TrimPrefix(val, `"`))
}

// bbqlTokens splits a query: parentheses, operators, words and numbers,
// and strings (returned as `"` and their unescaped text).
func bbqlTokens(q string) ([]string, error) {
	var out []string
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')' || r == '=' || r == '~':
			out, i = append(out, string(r)), i+1
		case r == '!' && i+1 < len(rs) && (rs[i+1] == '=' || rs[i+1] == '~'):
			out, i = append(out, string(rs[i:i+2])), i+2
		case r == '"':
			var b strings.Builder
			b.WriteByte('"')
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				b.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated string")
			}
			out, i = append(out, b.String()), j+1
		case r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(rs) && (rs[j] == '_' || rs[j] == '.' || rs[j] == '-' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			out, i = append(out, string(rs[i:j])), j
		default:
			return nil, fmt.Errorf("unexpected %q", r)
		}
	}
	return out, nil
}

// queryObjects applies the request's q and sort to objs; on a query it
// cannot run it answers 400 naming the parameter and reports false.
func queryObjects(w http.ResponseWriter, r *http.Request, objs []map[string]any, fields bbqlFields) ([]any, bool) {
	qs := r.URL.Query()
	if q := qs.Get("q"); q != "" {
		e, err := parseBBQL(q, fields)
		if err != nil {
			writeError(w, http.StatusBadRequest, "q: invalid query: "+err.Error())
			return nil, false
		}
		objs = slices.DeleteFunc(slices.Clone(objs), func(o map[string]any) bool { return !e.match(o) })
	}
	if s := qs.Get("sort"); s != "" {
		field, desc := strings.CutPrefix(s, "-")
		kind, ok := fields.sort[field]
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("sort: %q is not a field this resource can be sorted on", s))
			return nil, false
		}
		slices.SortStableFunc(objs, func(a, b map[string]any) int {
			va, _ := lookupField(a, field)
			vb, _ := lookupField(b, field)
			var c int
			if kind == bbqlNumber {
				na, _ := number(va)
				nb, _ := number(vb)
				c = cmp.Compare(na, nb)
			} else {
				c = cmp.Compare(fmt.Sprint(va), fmt.Sprint(vb))
			}
			if c == 0 { // the fake's objects share times real ones do not: creation order
				ia, _ := lookupField(a, "id")
				ib, _ := lookupField(b, "id")
				na, _ := number(ia)
				nb, _ := number(ib)
				c = cmp.Compare(na, nb)
			}
			if desc {
				return -c
			}
			return c
		})
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out, true
}
