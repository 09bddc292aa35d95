package jsdecl

import "github.com/prscout/prscout/pipeline/candidates/internal/lexed"

// Variable declarations: the names a declarator binds, and the types and
// parameters of what initializes it.

// variables reads "const a = 1, {b, c} = d" from the first name at k; the
// statement started at i.
func (s *jsScan) variables(i, k, end int, container string, static bool) int {
	e := s.stmtEnd(k, end, false)
	type part struct{ from, to int }
	var parts []part
	for j := k; j < end; {
		p := part{from: j}
		switch {
		case s.isIdent(j):
			j++
		case s.punctAt(j, "{") || s.punctAt(j, "["):
			j = s.br.CloseOrLast(j) + 1
		default:
			return max(e, j)
		}
		if s.punctAt(j, "!") {
			j++
		}
		if s.punctAt(j, ":") {
			j = s.skipType(j+1, end)
		}
		p.to = j - 1
		if s.punctAt(j, "=") {
			e = s.stmtEnd(j, end, false)
			p.to = e
			for x := j + 1; x <= e; x++ {
				switch {
				case s.punctAt(x, "<") && (x == j+1 || s.text(x-1) == "async" || s.text(x-1) == "*" || s.typeArgsAt(x)):
					x = s.skipAngle(x) - 1
				case s.punctAt(x, "(") || s.punctAt(x, "[") || s.punctAt(x, "{"):
					x = s.br.CloseOrLast(x)
				case s.punctAt(x, ","):
					p.to = x - 1
					x = e + 1
				}
			}
			j = p.to + 1
		}
		if p.to < p.from {
			p.to = p.from
		}
		if p.to >= end {
			p.to = end - 1
		}
		parts = append(parts, p)
		if !s.punctAt(j, ",") {
			e = p.to
			if s.punctAt(j, ";") {
				e = j
			}
			break
		}
		j++
	}
	for _, p := range parts {
		from := s.toks[p.from].Line
		if len(parts) == 1 {
			from = s.toks[i].Line
		}
		to := s.toks[p.to].Line
		if s.isIdent(p.from) {
			s.types.AddReturn(s.text(p.from), s.initReturn(p.from, p.to))
			if ps := s.initParams(p.from, p.to); ps != nil {
				s.types.AddParams(s.text(p.from), ps)
			}
		}
		for _, n := range s.bindingNames(p.from, p.to) {
			s.add(lexed.Decl{Name: n, Kind: s.variableKind(p.from, p.to), Container: container, Static: static, From: from, To: to})
		}
	}
	return e
}

// initReturn returns the declared return type of a declarator
// toks[i:end] initialized with an arrow function or function expression
// (const f = (a: A): R => ..., const g = async function (): Promise<R>),
// "" for none.
func (s *jsScan) initReturn(i, end int) string {
	j := i + 1
	if s.punctAt(j, ":") {
		return s.arrowReturn(j+1, end+1) // const f: (a: A) => R = ...
	}
	if !s.punctAt(j, "=") {
		return ""
	}
	j = s.initParamsOpen(j + 1)
	if !s.punctAt(j, "(") {
		return ""
	}
	j = s.br.CloseOrLast(j) + 1
	if !s.punctAt(j, ":") {
		return ""
	}
	return s.typeName(j+1, end+1)
}

// initParamsOpen skips, from toks[j] after a declarator's '=', the head of
// a function expression or arrow function (async, function, *, its name,
// its type parameters) to where its parameter list opens.
func (s *jsScan) initParamsOpen(j int) int {
	if s.text(j) == "async" {
		j++
	}
	if s.text(j) == "function" {
		j++
		if s.punctAt(j, "*") {
			j++
		}
		if s.isIdent(j) {
			j++
		}
	}
	if s.punctAt(j, "<") {
		j = s.skipAngle(j)
	}
	return j
}

// initParams returns the parameter types of the arrow function or
// function expression initializing the declarator toks[i:end], nil for
// none.
func (s *jsScan) initParams(i, end int) []string {
	j := i + 1
	if !s.punctAt(j, "=") {
		return nil
	}
	j = s.initParamsOpen(j + 1)
	if !s.punctAt(j, "(") || s.br.CloseOrLast(j) > end {
		return nil
	}
	return s.paramTypes(j+1, s.br.CloseOrLast(j))
}

// variableKind is "function" for a declarator initialized with an arrow
// function or function expression, else "variable".
func (s *jsScan) variableKind(i, end int) string {
	for j := i; j <= end; j++ {
		if s.punctAt(j, "=") && !s.arrowAt(j+1) {
			k := j + 1
			if s.text(k) == "async" {
				k++
			}
			switch {
			case s.text(k) == "function", s.isIdent(k) && s.arrowAt(k+2):
				return "function"
			case s.punctAt(k, "(") || s.punctAt(k, "<"):
				c := k
				if s.punctAt(c, "<") {
					c = s.skipAngle(c)
				}
				if s.punctAt(c, "(") {
					c = s.br.CloseOrLast(c) + 1
					if s.punctAt(c, ":") {
						c = s.skipTypeTo(c+1, end+1, true)
					}
					if s.arrowAt(c + 1) {
						return "function"
					}
				}
			}
			return "variable"
		}
		if s.punctAt(j, "(") || s.punctAt(j, "[") || s.punctAt(j, "{") {
			j = s.br.CloseOrLast(j)
		}
	}
	return "variable"
}

// bindingNames returns the names a declarator toks[i:end] binds: a name, or
// the names of an object or array pattern.
func (s *jsScan) bindingNames(i, end int) []string {
	if s.isIdent(i) {
		return []string{s.text(i)}
	}
	if !s.punctAt(i, "{") && !s.punctAt(i, "[") {
		return nil
	}
	close := min(s.br.CloseOrLast(i), end)
	var out []string
	for j := i + 1; j < close; j++ {
		switch {
		case s.punctAt(j, "="): // a default value: skip to the next element
			for j < close && !s.punctAt(j+1, ",") {
				if s.punctAt(j+1, "(") || s.punctAt(j+1, "[") || s.punctAt(j+1, "{") {
					j = s.br.CloseOrLast(j + 1)
					continue
				}
				j++
			}
		case s.isIdent(j) && !s.punctAt(j+1, ":"):
			out = append(out, s.text(j))
		}
	}
	return out
}
