// Package bbql writes and runs the part of Bitbucket Cloud's query
// language (BBQL: the `q` and `sort` parameters of "filtering and
// sorting") that prscout uses. The Bitbucket adapter writes its filters
// with Quote, Any, All and CommentsBy; the fake Bitbucket runs them with
// Apply (Parse, Sort) on the fields of Comments and PullRequests:
// comparisons of a field with a value — "=", "!=" and, on text, "~"
// and "!~" (contains, case-insensitively) — joined by AND and OR (AND
// binds tighter) and grouped with parentheses; a sort is a field, "-"
// first for descending. A field the resource does not offer, an operator
// its kind does not take, or anything else is an error, as Bitbucket
// refuses a query it cannot run.
package bbql

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Quote writes s as a BBQL string literal.
func Quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Any is the comparisons of field with each value (quoted), joined by OR
// in parentheses: (field op "a" OR field op "b").
func Any(field, op string, values ...string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = field + " " + op + " " + Quote(v)
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

// All joins parts by AND.
func All(parts ...string) string { return strings.Join(parts, " AND ") }

// CommentsBy is the filter of pull request comments written by one of
// accounts (each an account id, or a uuid without braces) whose raw text
// contains one of anyOf (when any) and each of allOf.
func CommentsBy(accounts, anyOf, allOf []string) string {
	var who []string
	for _, id := range accounts {
		who = append(who, "user.account_id = "+Quote(id), "user.uuid = "+Quote("{"+id+"}"))
	}
	parts := []string{"(" + strings.Join(who, " OR ") + ")"}
	if len(anyOf) > 0 {
		parts = append(parts, Any("content.raw", "~", anyOf...))
	}
	for _, s := range allOf {
		parts = append(parts, "content.raw ~ "+Quote(s))
	}
	return All(parts...)
}

// The fields of Bitbucket's resources that prscout filters and sorts on:
// what the fake runs.
var (
	Comments = Fields{
		Filter: map[string]Kind{"content.raw": Text, "user.account_id": Text, "user.uuid": Text},
		Sort:   map[string]Kind{"created_on": Text, "id": Number},
	}
	PullRequests = Fields{
		Filter: map[string]Kind{"state": Text, "source.branch.name": Text, "destination.branch.name": Text},
	}
)

// Apply filters objs by q and orders them by sort ("" for none); the error
// names the parameter at fault ("q: ...", "sort: ...").
func Apply(objs []map[string]any, q, sort string, fields Fields) ([]map[string]any, error) {
	if q != "" {
		e, err := Parse(q, fields)
		if err != nil {
			return nil, fmt.Errorf("q: invalid query: %w", err)
		}
		objs = slices.DeleteFunc(slices.Clone(objs), func(o map[string]any) bool { return !e.Match(o) })
	}
	if sort != "" {
		if err := Sort(objs, sort, fields); err != nil {
			return nil, fmt.Errorf("sort: %w", err)
		}
	}
	return objs, nil
}

// Kind is what a queryable field holds.
type Kind int

// Kinds of field.
const (
	Text   Kind = iota // compared with =, !=, ~ and !~
	Number             // compared with = and !=
)

// Fields are the fields a resource can be filtered and sorted on.
type Fields struct {
	Filter map[string]Kind
	Sort   map[string]Kind
}

// Expr is a parsed query.
type Expr interface {
	Match(obj map[string]any) bool
}

type cmpExpr struct {
	field, op string
	kind      Kind
	text      string
	num       float64
}

type joinExpr struct {
	and  bool
	l, r Expr
}

func (j joinExpr) Match(obj map[string]any) bool {
	if j.and {
		return j.l.Match(obj) && j.r.Match(obj)
	}
	return j.l.Match(obj) || j.r.Match(obj)
}

func (c cmpExpr) Match(obj map[string]any) bool {
	v, _ := Field(obj, c.field)
	if c.kind == Number {
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

// Field follows a dotted path through JSON objects.
func Field(obj map[string]any, path string) (any, bool) {
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

// parser is a recursive-descent parser over the query's tokens.
type parser struct {
	toks   []string
	at     int
	fields Fields
}

// Parse parses q against the fields a resource offers.
func Parse(q string, fields Fields) (Expr, error) {
	toks, err := tokens(q)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, fields: fields}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.at < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at token %d", p.toks[p.at], p.at+1)
	}
	return e, nil
}

func (p *parser) peek() string {
	if p.at < len(p.toks) {
		return p.toks[p.at]
	}
	return ""
}

func (p *parser) next() string { t := p.peek(); p.at++; return t }

func (p *parser) or() (Expr, error) { return p.join("OR", p.and, false) }

func (p *parser) and() (Expr, error) { return p.join("AND", p.term, true) }

func (p *parser) join(word string, operand func() (Expr, error), and bool) (Expr, error) {
	l, err := operand()
	for err == nil && p.peek() == word {
		p.next()
		var r Expr
		if r, err = operand(); err == nil {
			l = joinExpr{and: and, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) term() (Expr, error) {
	if p.peek() == "(" {
		p.next()
		e, err := p.or()
		if err == nil && p.next() != ")" {
			err = fmt.Errorf("missing )")
		}
		return e, err
	}
	field, op, val := p.next(), p.next(), p.next()
	kind, ok := p.fields.Filter[field]
	if !ok {
		return nil, fmt.Errorf("%q is not a field this resource can be filtered on", field)
	}
	c := cmpExpr{field: field, op: op, kind: kind}
	switch {
	case kind == Text && slices.Contains([]string{"=", "!=", "~", "!~"}, op) && strings.HasPrefix(val, `"`):
		c.text = val[1:]
		return c, nil
	case kind == Number && (op == "=" || op == "!="):
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("%s %s wants a number, got %q", field, op, val)
		}
		c.num = n
		return c, nil
	}
	return nil, fmt.Errorf("%s %s %s: not a comparison this field takes", field, op, strings.TrimPrefix(val, `"`))
}

// tokens splits a query: parentheses, operators, words and numbers,
// and strings (returned as `"` and their unescaped text).
func tokens(q string) ([]string, error) {
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

// Sort orders objs by spec ("field" or "-field"), ties by id in the same
// direction (the fake's objects share times real ones do not).
func Sort(objs []map[string]any, spec string, fields Fields) error {
	field, desc := strings.CutPrefix(spec, "-")
	kind, ok := fields.Sort[field]
	if !ok {
		return fmt.Errorf("%q is not a field this resource can be sorted on", spec)
	}
	key := func(o map[string]any, f string, k Kind) (float64, string) {
		v, _ := Field(o, f)
		if k == Number {
			n, _ := number(v)
			return n, ""
		}
		return 0, fmt.Sprint(v)
	}
	slices.SortStableFunc(objs, func(a, b map[string]any) int {
		na, sa := key(a, field, kind)
		nb, sb := key(b, field, kind)
		c := cmp.Or(cmp.Compare(na, nb), cmp.Compare(sa, sb))
		if c == 0 {
			ia, _ := key(a, "id", Number)
			ib, _ := key(b, "id", Number)
			c = cmp.Compare(ia, ib)
		}
		if desc {
			return -c
		}
		return c
	})
	return nil
}
