//go:build cgo

package treesit

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/treesit/ctext"
	"github.com/prscout/prscout/pipeline/candidates/treesit/cwalk"
	"github.com/prscout/prscout/pipeline/ident"
	sitter "github.com/smacker/go-tree-sitter"
)

// maxNameBytes bounds a name, an import or a receiver kept: longer text is
// an expression, not a name.
const maxNameBytes = 256

// The bounds of one file's reading. A grammar's parse is linear in most
// sources, but not in all (Scala's on a long chain of operators), so it
// has a time bound too, proportional to the source: a file past it is not
// read. A query's work grows with each node's depth (the cursor works out
// every node's place among its ancestors): a file whose nodes' depths sum
// past maxDepthPerByte per byte (deep nesting, a 10,000-term sum) is not
// queried.
const (
	parseMicros        = 100_000
	parseMicrosPerByte = 2
	maxDepthPerByte    = 64
	maxDepthBase       = 1 << 16
)

// operatorName is the name of every C++ operator's declaration.
const operatorName = "operator"

// maxSigBytes bounds a header's text: a longer one is compared by its
// changed lines alone.
const maxSigBytes = 4 << 10

// index fills mentions and declares, and orders refs by line.
func (f *file) index() {
	sort.SliceStable(f.refs, func(i, j int) bool { return f.refs[i].line < f.refs[j].line })
	f.mentions = map[string]bool{}
	for _, r := range f.refs {
		f.mentions[r.name] = true
	}
	f.declares = map[string]bool{}
	for _, d := range f.decls {
		if d.kind != "impl" {
			f.declares[d.name] = true
		}
	}
	f.importParts = make([][]string, len(f.imports))
	for i, imp := range f.imports {
		f.importParts[i] = importParts(imp, f.lang.rules.sep)
	}
	f.modPath = modulePath(f.path)
	for _, d := range f.decls {
		for _, sup := range d.supers {
			if f.subtypes == nil {
				f.subtypes = map[string][]string{}
			}
			f.subtypes[sup] = append(f.subtypes[sup], d.name)
		}
	}
}

// collapse joins s's fields by single spaces; "" past maxSigBytes.
func collapse(s []byte) string {
	if len(s) > 4*maxSigBytes {
		return ""
	}
	out := strings.Join(strings.Fields(string(s)), " ")
	if len(out) > maxSigBytes {
		return ""
	}
	return out
}

// parse reads src, the file at p in language l, into a file, with its
// bracket spans when spans is set (a changed file's head: no other file's
// are asked). Its work is bounded by maxParseBytes and ends with ctx.
func parse(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, error) {
	f, _, err := parseCounted(ctx, l, p, src, spans)
	return f, err
}

// parseCounted is parse, answering also the number of query captures it
// handled (the fuzz target bounds it).
func parseCounted(ctx context.Context, l *language, p string, src []byte, spans bool) (*file, int, error) {
	c, src, err := prepareSource(l, src)
	if err != nil {
		return nil, 0, err
	}
	tree, src, err := parseTree(ctx, c, l, src, nil)
	if err != nil {
		return nil, 0, err
	}
	defer tree.Close()
	return readTree(ctx, c, l, p, tree, src, spans)
}

// parseChange reads both sides of a change to one file in language l: the
// base as parse does, and the head (with its bracket spans) from the
// base's tree edited by the change's lines (cwalk.LineEdits), which keeps the
// parse of all the change left as it was. The head is parsed whole when
// the base's tree cannot serve: the base not parsed, parsed as another
// configuration of its branches, or lines that do not describe the sides.
func parseChange(ctx context.Context, l *language, basePath string, old []byte, headPath string, new []byte,
	removed, added map[int]bool) (base, head *file, baseErr, headErr error) {
	c, oldSrc, err := prepareSource(l, old)
	if err != nil {
		baseErr = err
	} else {
		var tree *sitter.Tree
		var parsed []byte
		tree, parsed, baseErr = parseTree(ctx, c, l, oldSrc, nil)
		if baseErr == nil {
			base, _, baseErr = readTree(ctx, c, l, basePath, tree, parsed, false)
			head, headErr = parseEdited(ctx, c, l, headPath, tree, parsed, oldSrc, new, removed, added)
			tree.Close()
			if head != nil || headErr != nil {
				return base, head, baseErr, headErr
			}
		}
	}
	head, headErr = parse(ctx, l, headPath, new, true)
	return base, head, baseErr, headErr
}

// parseEdited reads new, the head of a change whose base old was parsed
// into tree (parsed: the source the tree is of), from tree edited to new;
// nil and no error when tree cannot serve.
func parseEdited(ctx context.Context, c *compiled, l *language, p string, tree *sitter.Tree, parsed, old, new []byte,
	removed, added map[int]bool) (*file, error) {
	if !bytes.Equal(parsed, old) || !cwalk.Supported {
		return nil, nil
	}
	_, src, err := prepareSource(l, new)
	if err != nil {
		return nil, err
	}
	edits, ok := cwalk.LineEdits(old, src, removed, added)
	if !ok {
		return nil, nil
	}
	for _, e := range edits {
		cwalk.EditTree(tree.RootNode(), e)
	}
	t, src, err := parseTree(ctx, c, l, src, tree)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	f, _, err := readTree(ctx, c, l, p, t, src, true)
	return f, err
}

// prepareSource is l's compiled grammar and src as it is parsed: within
// maxParseBytes, with C++'s class macros blanked.
func prepareSource(l *language, src []byte) (*compiled, []byte, error) {
	if len(src) > maxParseBytes {
		return nil, nil, errTooLarge
	}
	c, err := compile(l)
	if err != nil {
		return nil, nil, err
	}
	if l.rules.classMacros {
		if alt := ctext.BlankClassMacros(src); alt != nil {
			src = alt
		}
	}
	return c, src, nil
}

// parseTree parses src in language l from old, a tree of another version
// of the file edited to src (nil for none): the tree and the source it is
// of (C and C++ may parse one configuration of their branches instead:
// firstBranches). Its work is bounded in operations and ends with ctx.
func parseTree(ctx context.Context, c *compiled, l *language, src []byte, old *sitter.Tree) (*sitter.Tree, []byte, error) {
	ps := c.parsers.Get().(*sitter.Parser)
	ps.SetOperationLimit(parseMicros + len(src)*parseMicrosPerByte)
	tree, err := ps.ParseCtx(ctx, old, src)
	if err != nil {
		ps.Reset() // a cancelled parse would resume on the next call
		c.parsers.Put(ps)
		if errors.Is(err, sitter.ErrOperationLimit) {
			err = errTooSlow
		}
		return nil, nil, err
	}
	if l.rules.includes && tree.RootNode().HasError() {
		tree, src = firstBranches(ctx, ps, tree, src)
	}
	c.parsers.Put(ps)
	return tree, src, nil
}

// readTree reads tree, parsed from src, into the file at p, with its
// bracket spans when spans is set; it answers also the number of query
// captures it handled.
func readTree(ctx context.Context, c *compiled, l *language, p string, tree *sitter.Tree, src []byte, spans bool) (*file, int, error) {
	nodes, ok := cwalk.DepthSum(tree.RootNode(), maxDepthPerByte*len(src)+maxDepthBase)
	if !ok {
		return nil, nodes, errTooDeep
	}
	cur := cwalk.NewCursor(c.query, tree.RootNode(), c.parents)
	if cur == nil {
		return nil, nodes, errTooDeep // bindings whose values the cursor cannot read
	}
	defer cur.Close()
	b := &builder{c: c, src: src, f: &file{path: p, lang: l, locals: map[string]bool{}},
		names: map[uint32]bool{}, members: map[uint32]bool{}, declAt: map[uint32]int{}, intern: map[string]string{},
		types: map[string]string{}, bodies: map[uint32]uint32{}, symbols: c.symbolNames(tree.RootNode())}
	work := nodes
	for {
		if ctx.Err() != nil {
			return nil, work, ctx.Err()
		}
		caps, ok := cur.Next(matchBatch)
		if !ok {
			break
		}
		work += len(caps)
		for len(caps) > 0 {
			n := 1
			for n < len(caps) && caps[n].Match == caps[0].Match {
				n++
			}
			b.match(caps[:n])
			caps = caps[n:]
		}
	}
	b.finish()
	if spans {
		b.f.spans, b.f.callees = bracketSpans(tree.RootNode(), src)
	}
	return b.f, work, nil
}

// matchBatch is the number of a query's matches read a cgo call; the
// reading checks its context between batches.
const matchBatch = 512

// firstBranches is the C or C++ source src, whose parse tree has errors,
// parsed as one configuration of its conditional directives
// (ctext.FirstBranches) when that parses with fewer errors, else tree and
// src as they are. A file with errors in less than 1/errorShare of it is
// kept as it is: a local error costs few of its declarations, and a
// second parse of every such file would cost more than it finds.
func firstBranches(ctx context.Context, ps *sitter.Parser, tree *sitter.Tree, src []byte) (*sitter.Tree, []byte) {
	errs := errorBytes(tree.RootNode())
	if errs*errorShare <= len(src) {
		return tree, src
	}
	alt := ctext.FirstBranches(src)
	if alt == nil {
		return tree, src
	}
	t, err := ps.ParseCtx(ctx, nil, alt)
	if err != nil {
		ps.Reset()
		return tree, src
	}
	if errorBytes(t.RootNode()) >= errs {
		t.Close()
		return tree, src
	}
	tree.Close()
	return t, alt
}

// errorShare: a parse with errors in over 1/errorShare of the file is tried
// again on one configuration of its branches (firstBranches).
const errorShare = 8

// errorBytes is the number of bytes under n in error nodes.
func errorBytes(n *sitter.Node) int {
	if n.Type() == "ERROR" {
		return int(n.EndByte() - n.StartByte())
	}
	if !n.HasError() {
		return 0
	}
	sum := 0
	for i := range int(n.ChildCount()) {
		sum += errorBytes(n.Child(i))
	}
	return sum
}

// builder gathers a file's facts from the query's matches.
type builder struct {
	c   *compiled
	src []byte
	f   *file
	// names are the start bytes of declarations' names, members those of
	// member names: neither is a plain ref.
	names, members map[uint32]bool
	// declAt is the index in decls of the declaration named at a byte.
	declAt map[uint32]int
	intern map[string]string
	// types are the declared types of the file's variables, parameters and
	// fields, by name.
	types map[string]string
	// bodies are the bodies matched apart from their declarations: body
	// start by its declaration's start (bytes).
	bodies map[uint32]uint32
	decls  []spanDecl
	supers []spanText
	refs   []spanRef
	// spaces are C++'s namespace blocks.
	spaces []spanSpace
	// symbols name the grammar's node types (cwalk.SymbolNames).
	symbols []string
}

type spanSpace struct {
	from, to uint32
	name     string
}

type spanDecl struct {
	from, to, bodyAt uint32 // bytes; bodyAt 0 for no body
	d                decl
}

type spanText struct {
	at   uint32
	text string
}

type spanRef struct {
	at uint32
	r  ref
}

// text is n's text, one string per distinct text of the file; "" past
// maxNameBytes.
func (b *builder) text(n *cwalk.Capture) string {
	s, e := n.Start, n.End
	if e-s > maxNameBytes || e > uint32(len(b.src)) {
		return ""
	}
	if t, ok := b.intern[string(b.src[s:e])]; ok {
		return t // no copy of a text seen before
	}
	return b.intern1(string(b.src[s:e]))
}

func line(n *cwalk.Capture) int { return int(n.Row) + 1 }

// typeOf is the name of n's type.
func (b *builder) typeOf(sym uint16) string {
	if int(sym) < len(b.symbols) {
		return b.symbols[sym]
	}
	return ""
}

// match takes one match's captures.
func (b *builder) match(m []cwalk.Capture) {
	var declNode, nameNode, bodyNode, memberNode, recvNode, scopeNode, varNode, typeNode *cwalk.Capture
	kind := ""
	for i := range m {
		cp := &m[i]
		// A call's arguments are imports or supertypes when it calls one
		// of the language's import or mixin functions (require, include).
		if b.c.roles[cp.Index] == roleCall && !b.f.lang.calls[b.text(cp)] {
			return
		}
	}
	for i := range m {
		n := &m[i]
		switch b.c.roles[n.Index] {
		case roleDecl:
			declNode, kind = n, b.c.kinds[n.Index]
		case roleName:
			nameNode = n
		case roleBody:
			bodyNode = n
		case roleMember:
			memberNode = n
		case roleRecv:
			recvNode = n
		case roleScope:
			scopeNode = n
		case roleVar:
			varNode = n
		case roleType:
			typeNode = n
		case roleSkip:
			if t := b.text(n); t != "" {
				b.names[n.Start] = true
				b.f.locals[t] = true
			}
		case roleSuper:
			if t := lastName(b.text(n)); t != "" {
				b.supers = append(b.supers, spanText{n.Start, t})
			}
		case roleRef:
			if t := b.text(n); t != "" {
				b.refs = append(b.refs, spanRef{n.Start, ref{name: t, line: line(n)}})
			}
		case roleImport:
			if t := importText(b.text(n)); t != "" {
				b.f.imports = append(b.f.imports, t)
			}
		case rolePackage:
			if t := strings.Join(strings.Fields(b.text(n)), ""); t != "" {
				b.f.namespaces = append(b.f.namespaces, t)
				if n.HasParent && b.typeOf(n.ParentSymbol) == "namespace_definition" {
					b.spaces = append(b.spaces, spanSpace{n.ParentStart, n.ParentEnd, t})
				}
			}
		case roleComment:
			b.f.comments = append(b.f.comments, [2]int32{int32(n.Start), int32(n.End)})
		}
	}
	if declNode != nil && nameNode != nil {
		b.decl(declNode, nameNode, bodyNode, scopeNode, kind)
	} else if bodyNode != nil {
		// A body matched apart from its declaration: a grammar whose
		// patterns of name and body together take seconds to compile.
		if bodyNode.HasParent {
			b.bodies[bodyNode.ParentStart] = bodyNode.Start
		}
	}
	if varNode != nil && typeNode != nil {
		// The first type a name is declared with in the file: scopes are
		// not told apart.
		if v, t := b.text(varNode), lastName(b.text(typeNode)); v != "" && t != "" && b.types[v] == "" {
			b.types[v] = b.intern1(t)
		}
	}
	if memberNode != nil {
		r := ref{name: b.text(memberNode), line: line(memberNode), member: true}
		if recvNode != nil {
			r.recv = b.receiver(recvNode)
		}
		if r.name != "" {
			b.members[memberNode.Start] = true
			b.refs = append(b.refs, spanRef{memberNode.Start, r})
		}
	}
}

// receiver is a member access's receiver by its last name when it is a
// name or a path of names (a, A::B, a.b); "" for another expression.
//
// A grammar that reads a + B.f() as (a + B).f() gives the whole sum as
// the receiver: its last operand is taken.
func (b *builder) receiver(n *cwalk.Capture) string {
	t := b.text(n)
	if t == "" || len(t) > 64 {
		return ""
	}
	if n.Named == 0 {
		return t
	}
	i := len(t)
	for i > 0 && (ident.Unicode.IsByte(t[i-1]) || strings.IndexByte(`.:\`, t[i-1]) >= 0) {
		i--
	}
	if i > 0 && strings.IndexByte(" \t\n+-*/%&|^<>=!?,;($", t[i-1]) < 0 {
		return "" // a call's or an index's result
	}
	return b.intern1(lastName(t[i:]))
}

// intern1 is s, one string per distinct text of the file.
func (b *builder) intern1(s string) string {
	if t, ok := b.intern[s]; ok {
		return t
	}
	b.intern[s] = s
	return s
}

// decl takes one declaration.
// A declaration two patterns match (with and without its body) is kept
// once, with its body.
//
// An operator's name is operator, whichever it is (operator==, operator<<):
// its uses are not written by name.
func (b *builder) decl(dn, name, body, scope *cwalk.Capture, kind string) {
	nm := lastName(b.text(name))
	if b.typeOf(name.Symbol) == "operator_name" {
		nm = operatorName
	}
	if nm == "" || callableKinds[kind] && b.f.lang.rules.includes && macroCase(nm) {
		return // TEST(Suite, Name) { ... }: a macro's use, read as a function
	}
	at := name.Start
	if k, ok := b.declAt[at]; ok && (body == nil || b.decls[k].bodyAt != 0) {
		return
	}
	b.names[at] = true
	d := decl{name: nm, kind: kind, from: line(dn), to: int(dn.EndRow) + 1}
	if scope != nil {
		d.container = lastName(b.text(scope))
	}
	sd := spanDecl{from: dn.Start, to: dn.End}
	if body != nil && body.Start >= dn.Start {
		sd.bodyAt = body.Start
	}
	sd.d = d
	if k, ok := b.declAt[at]; ok {
		b.decls[k] = sd
		return
	}
	b.declAt[at] = len(b.decls)
	b.decls = append(b.decls, sd)
}

// header sets sd's header: its last line and, for a callable or a
// container (or a declaration without a body), its text.
func (b *builder) header(sd *spanDecl) {
	if sd.bodyAt == 0 {
		sd.bodyAt = b.bodies[sd.from]
	}
	d := &sd.d
	end := min(sd.to, uint32(len(b.src)))
	if sd.bodyAt > sd.from && sd.bodyAt <= end {
		end = sd.bodyAt
		d.headTo = d.from + bytes.Count(b.src[sd.from:end], []byte{'\n'})
		if d.headTo > d.from && startsLine(b.src, int(end)) {
			d.headTo-- // a body on lines of its own (Ruby, an Allman brace)
		}
	} else {
		sd.bodyAt = 0
	}
	if callableKinds[d.kind] || containerKinds[d.kind] || sd.bodyAt == 0 {
		d.sig = collapse(b.src[sd.from:end])
	}
}

// macroCase reports whether n is written as C's macros are: upper-case
// letters, digits and underscores, with a letter. A C or C++ "function"
// of such a name is a macro's use the grammar cannot tell from a
// definition (googletest's TEST_F, a trailing GUARDED_BY(mu)): every test
// file would declare TEST.
func macroCase(n string) bool {
	letter := false
	if len(n) < 3 {
		return false
	}
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case 'A' <= c && c <= 'Z':
			letter = true
		case c == '_' || '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// startsLine reports whether only spaces precede src[at] on its line.
func startsLine(src []byte, at int) bool {
	for i := min(at, len(src)) - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}

// finish sets each declaration's container and supertypes, keeps the refs
// that are not declarations' names, and takes a variable declared inside a
// callable's body for a local.
func (b *builder) finish() {
	sort.SliceStable(b.decls, func(i, j int) bool {
		if b.decls[i].from != b.decls[j].from {
			return b.decls[i].from < b.decls[j].from
		}
		return b.decls[i].to > b.decls[j].to
	})
	sort.Slice(b.supers, func(i, j int) bool { return b.supers[i].at < b.supers[j].at })
	sort.Slice(b.spaces, func(i, j int) bool { return b.spaces[i].from < b.spaces[j].from })
	var stack []int  // enclosing containers, indices in b.decls
	var calls []int  // enclosing callables, indices in b.decls
	var spaces []int // enclosing namespaces, indices in b.spaces
	local := make([]bool, len(b.decls))
	k, ns := 0, 0 // next super, next namespace
	for i := range b.decls {
		sd := &b.decls[i]
		b.header(sd)
		for len(stack) > 0 && b.decls[stack[len(stack)-1]].to <= sd.from {
			stack = stack[:len(stack)-1]
		}
		for len(calls) > 0 && b.decls[calls[len(calls)-1]].to <= sd.from {
			calls = calls[:len(calls)-1]
		}
		if n := len(calls); n > 0 && !callableKinds[sd.d.kind] && !containerKinds[sd.d.kind] {
			local[i] = b.decls[calls[n-1]].bodyAt != 0 && sd.from >= b.decls[calls[n-1]].bodyAt
		}
		if callableKinds[sd.d.kind] {
			calls = append(calls, i)
		}
		for ; ns < len(b.spaces) && b.spaces[ns].from <= sd.from; ns++ {
			spaces = append(spaces, ns)
		}
		// The namespaces open at sd: nested ones end first.
		spaces = slices.DeleteFunc(spaces, func(k int) bool { return b.spaces[k].to <= sd.from })
		if len(spaces) > 0 {
			sd.d.space = lastName(b.spaces[spaces[len(spaces)-1]].name)
		}
		if len(stack) > 0 && sd.d.container == "" {
			sd.d.container = b.decls[stack[len(stack)-1]].d.name
		}
		if containerKinds[sd.d.kind] {
			stack = append(stack, i)
			// The supertypes stated in its header.
			for k < len(b.supers) && b.supers[k].at < sd.from {
				k++
			}
			for k < len(b.supers) && b.supers[k].at < sd.to && (sd.bodyAt == 0 || b.supers[k].at < sd.bodyAt) {
				sd.d.supers = append(sd.d.supers, b.supers[k].text)
				k++
			}
		}
	}
	b.f.decls = make([]decl, 0, len(b.decls))
	for i, sd := range b.decls {
		if sd.d.name == operatorName && sd.d.container == "" {
			continue // a free operator: one name for all of them, which says nothing
		}
		if local[i] {
			b.f.locals[sd.d.name] = true // a variable inside a body: no declaration of the file's
			continue
		}
		b.f.decls = append(b.f.decls, sd.d)
	}
	for _, r := range b.refs {
		if b.names[r.at] || (!r.r.member && b.members[r.at]) {
			continue
		}
		if t := b.types[r.r.recv]; t != "" {
			r.r.recv = t // c.send() with c a Client is Client's send
		}
		b.f.refs = append(b.f.refs, r.r)
	}
	sort.Slice(b.f.comments, func(i, j int) bool { return b.f.comments[i][0] < b.f.comments[j][0] })
	b.f.index()
}

// importText is an import's path without quotes, brackets, aliases and
// wildcards: "x/foo.h", <x/foo.h>, a.b.*, a.b._, a::b::{C, D}, A\B.
func importText(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimPrefix(s, "import "))
	s = strings.Trim(s, `"'<>`+"`")
	if i := strings.IndexByte(s, '{'); i >= 0 {
		s = s[:i]
	}
	for _, w := range []string{".*", "._", "::*", `\*`} {
		s = strings.TrimSuffix(s, w)
	}
	s = strings.TrimRight(strings.TrimSpace(s), `.:\`)
	if s == "" || strings.ContainsAny(s, " \t\n;") {
		return ""
	}
	return s
}
