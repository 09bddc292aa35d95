package java

import (
	"strings"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
	"github.com/prscout/prscout/pipeline/candidates/internal/lexed"
)

// A structural reader of Java tokens: type declarations (class, interface,
// enum, record, @interface) with their supertypes, and the members of their
// bodies (methods with return types, constructors, fields, enum constants).
// Method bodies are skipped as balanced braces. A second pass types the
// declared names of the file (fields, parameters, locals, catch and
// pattern variables) by the pattern "Type name" followed by = ; : , or ).

// jfile is a lexed Java file with its package and its Java facts.
type jfile struct {
	*lexed.File
	pkg  string     // the package clause's name
	java *javaFacts // classes, declaring tokens, imports
}

// readJava lexes and parses the Java file at p.
func readJava(p string, src []byte) *jfile {
	f := &jfile{File: lexed.Read(p, src)}
	// A Java string's content is never a name or a bracket: case '}':
	// must not close a block.
	for i := range f.Toks {
		if f.Toks[i].Kind == lexed.TkString {
			f.Toks[i].Text = `"`
		}
	}
	f.Decls, f.Types, f.java = javaParse(f.Toks, f.Brackets)
	f.pkg = f.java.pkg
	f.java.members = lexed.MembersOf(f.File)
	seen := map[string]bool{}
	for _, d := range f.Decls {
		switch d.Kind {
		case "class", "interface", "enum":
		default:
			if !seen[d.Name] {
				seen[d.Name] = true
				f.java.memberNames = append(f.java.memberNames, d.Name)
			}
		}
	}
	return f
}

// cachedJava is readJava through the readers' cache: the file read (tokens,
// declarations, types, facts, index) is shared with every request that
// reads the same path and content, so nothing may change it after; what a
// search learns about it is kept in the search (javaSearch.sees).
func cachedJava(c *engine.Cache, p string, src []byte) *jfile {
	return engine.Cached(c, "java", p, src, func() (*jfile, int64) {
		f := readJava(p, src)
		f.Index()
		w := lexed.Weight(f.File, len(src)) + int64(len(f.java.declTok))*8 + int64(len(f.java.alias))*48 + int64(len(f.java.inner))*4 +
			int64(len(f.Decls))*48 + int64(len(f.java.memberNames))*16
		for _, c := range f.java.classes {
			w += 128 + int64(len(c.supers))*32
		}
		return f, w + int64(len(f.java.imports))*64
	})
}

// javaFacts is what a Java file declares beyond its tdecls.
type javaFacts struct {
	pkg     string // the package clause's name
	classes []jclass
	// declTok marks token indexes that name a declaration (not references).
	declTok engine.Bits
	imports []jimport
	// members is the file's member names by class (lexed.MembersOf), and
	// memberNames the names of its declarations other than classes, each
	// once: what a search adds of the file.
	members     lexed.Members
	memberNames []string
	// alias maps a simple class name to the nested class it names in this
	// file ("Builder" -> "TypeSpec.Builder"): declared here or imported.
	alias map[string]string
	// inner is the innermost class (index in classes, -1 for none) whose
	// body holds each token (classAt).
	inner []int32
	// memberNames of the file's classes (declarations with a container).
	contained map[string]bool
}

// qualify answers the class name n names in the file.
func (x *javaFacts) qualify(n string) string {
	if q, ok := x.alias[n]; ok {
		return q
	}
	return n
}

// jclass is one type declaration.
type jclass struct {
	name, outer string
	open, close int // token indexes of its body's braces
	supers      []string
}

// jimport is one import declaration: import [static] a.b.C[.*];
type jimport struct {
	parts    []string
	static   bool
	wildcard bool
}

// classAt answers the innermost class whose body holds token i, or nil.
func (x *javaFacts) classAt(i int) *jclass {
	if i < 0 || i >= len(x.inner) || x.inner[i] < 0 {
		return nil
	}
	return &x.classes[x.inner[i]]
}

// index fills inner and contained once the file is parsed.
// Classes come outer first, and nesting is at most maxClassNesting deep:
// filling each class's body costs the tokens times that depth at most.
func (x *javaFacts) index(toks []lexed.Tok, decls []lexed.Decl) {
	x.inner = make([]int32, len(toks))
	for i := range x.inner {
		x.inner[i] = -1
	}
	for k, c := range x.classes {
		for i := c.open + 1; i < c.close && i < len(toks); i++ {
			x.inner[i] = int32(k)
		}
	}
	x.contained = map[string]bool{}
	for _, d := range decls {
		if d.Container != "" {
			x.contained[d.Name] = true
		}
	}
}

type jparser struct {
	toks  []lexed.Tok
	br    lexed.Brackets // toks' brackets paired
	decls []lexed.Decl
	m     *lexed.TypeModel
	facts *javaFacts
	depth int // the classes being read, one inside another
}

// maxClassNesting bounds the classes read one inside another; deeper ones
// are skipped as balanced braces. Each nested class is named by its outer
// ones (A.B.C): 20,000 nested classes would make names of 20,000 parts.
const maxClassNesting = 32

// javaParse reads the declarations, the declared-type model and the facts
// of a Java file's tokens.
func javaParse(toks []lexed.Tok, br lexed.Brackets) ([]lexed.Decl, *lexed.TypeModel, *javaFacts) {
	p := &jparser{toks: toks, br: br, m: lexed.NewTypeModel(), facts: &javaFacts{declTok: engine.NewBits(len(toks))}}
	p.top()
	p.vars()
	p.qualifyNested()
	p.facts.index(toks, p.decls)
	return p.decls, p.m, p.facts
}

// qualifyNested names nested classes by their outer class in the model:
// "Builder" written in TypeSpec.java is TypeSpec.Builder, and so is an
// imported a.b.TypeSpec.Builder. Classes of one simple name nested in many
// classes (every Spec's Builder) stay apart.
func (p *jparser) qualifyNested() {
	alias := map[string]string{}
	for _, im := range p.facts.imports {
		if k := len(im.parts); !im.static && !im.wildcard && k >= 2 && lexed.IsTypeName(im.parts[k-2]) {
			alias[im.parts[k-1]] = im.parts[k-2] + "." + im.parts[k-1]
		}
	}
	for _, c := range p.facts.classes {
		if c.outer != "" {
			_, simple, _ := lexed.CutLastDot(c.name)
			alias[simple] = c.name
		}
	}
	if len(alias) == 0 {
		return
	}
	p.facts.alias = alias
	for _, m := range []map[string][]string{p.m.Vars, p.m.Returns, p.m.Supers} {
		for k, ts := range m {
			for i, t := range ts {
				ts[i] = p.facts.qualify(t)
			}
			m[k] = ts
		}
	}
	for i := range p.facts.classes {
		for j, sup := range p.facts.classes[i].supers {
			p.facts.classes[i].supers[j] = p.facts.qualify(sup)
		}
	}
}

func (p *jparser) text(i int) string { return lexed.TextAt(p.toks, i) }

func (p *jparser) isIdent(i int) bool { return lexed.IdentAt(p.toks, i) }

func (p *jparser) line(i int) int {
	if i < 0 {
		return 0
	}
	if i >= len(p.toks) {
		return lexed.LastLine(p.toks)
	}
	return p.toks[i].Line
}

// top walks the file's top level: imports, then type declarations.
func (p *jparser) top() {
	start := -1 // the first token of the declaration read, -1 between them
	for i := 0; i < len(p.toks); {
		t := p.toks[i]
		switch {
		case t.Text == ";" || t.Text == "}":
			start = -1
			i++
			continue
		case t.Kind == lexed.TkIdent && (t.Text == "import" || t.Text == "package") && start < 0:
			i = p.importDecl(i)
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case t.Text == "@" && p.text(i+1) != "interface":
			i = p.skipAnnotation(i)
		case p.typeKeywordAt(i):
			i = p.class(start, i, "")
			start = -1
		default:
			i++
		}
	}
}

// typeKeywordAt reports whether a type declaration's keyword is at i.
func (p *jparser) typeKeywordAt(i int) bool {
	t := p.text(i)
	switch t {
	case "class", "interface", "enum":
		return p.isIdent(i+1) && p.text(i-1) != "."
	case "record":
		return p.isIdent(i+1) && (p.text(i+2) == "(" || p.text(i+2) == "<")
	}
	return false
}

func (p *jparser) importDecl(i int) int {
	im := jimport{}
	isPkg := p.text(i) == "package"
	j := i + 1
	if p.text(j) == "static" {
		im.static = true
		j++
	}
	for ; j < len(p.toks) && p.text(j) != ";"; j++ {
		switch {
		case p.isIdent(j):
			im.parts = append(im.parts, p.text(j))
		case p.text(j) == "*":
			im.wildcard = true
		}
	}
	switch {
	case isPkg:
		p.facts.pkg = strings.Join(im.parts, ".")
	case len(im.parts) > 0:
		p.facts.imports = append(p.facts.imports, im)
	}
	return j + 1
}

// skipAnnotation skips @Name(.Name)*[( ... )] from i at '@'.
func (p *jparser) skipAnnotation(i int) int {
	j := i + 1
	for p.isIdent(j) {
		j++
		if p.text(j) != "." || !p.isIdent(j+1) {
			break
		}
		j++
	}
	if p.text(j) == "(" {
		return p.br.CloseOrLast(j) + 1
	}
	return j
}

// skipAngle skips type arguments or parameters <...> from i at '<'; it
// stops at a token no type holds.
func (p *jparser) skipAngle(i int) int {
	j, ok := lexed.MatchAngle(p.toks, i, 1, 0, ";{}()=|")
	if ok {
		return j + 1
	}
	return j
}

// typeAt reads a type from i: a.b.C<...>[] or a primitive; it answers the
// simple name (C) and the index after the type.
func (p *jparser) typeAt(i int) (string, int) {
	if !p.isIdent(i) {
		return "", i + 1
	}
	name := p.text(i)
	j := i + 1
	for p.text(j) == "." && p.isIdent(j+1) {
		if lexed.IsTypeName(name) && lexed.IsTypeName(p.text(j+1)) {
			name += "." + p.text(j+1) // Outer.Inner
		} else {
			name = p.text(j + 1)
		}
		j += 2
	}
	if k := strings.LastIndexByte(name, '.'); k >= 0 && strings.Count(name, ".") > 1 {
		name = name[strings.LastIndexByte(name[:k], '.')+1:]
	}
	if p.text(j) == "<" {
		j = p.skipAngle(j)
	}
	for p.text(j) == "[" && p.text(j+1) == "]" {
		j += 2
	}
	if p.text(j) == "." && p.text(j+1) == "." && p.text(j+2) == "." {
		j += 3
	}
	return name, j
}

func (p *jparser) add(d lexed.Decl) int {
	p.decls = append(p.decls, d)
	return len(p.decls) - 1
}

// class reads a type declaration whose keyword is at kw and whose header
// starts at start; it answers the index after its closing brace.
func (p *jparser) class(start, kw int, outer string) int {
	kind := lexed.TypeKind(p.text(kw))
	if p.text(kw-1) == "@" {
		kind = "interface"
	}
	if p.depth >= maxClassNesting {
		j := kw + 1
		for j < len(p.toks) && p.text(j) != "{" && p.text(j) != ";" {
			j++
		}
		if p.text(j) != "{" {
			return j + 1
		}
		return p.br.CloseOrLast(j) + 1
	}
	p.depth++
	defer func() { p.depth-- }()
	name := p.text(kw + 1)
	key := name // nested classes are named by their outer class: A.B
	if outer != "" {
		key = outer + "." + name
	}
	p.facts.declTok.Add(kw + 1)
	j := kw + 2
	if p.text(j) == "<" {
		j = p.skipAngle(j)
	}
	if p.text(j) == "(" { // record components
		j = p.br.CloseOrLast(j) + 1
	}
	var supers []string
	mode := ""
	for j < len(p.toks) && p.text(j) != "{" && p.text(j) != ";" {
		t := p.text(j)
		switch {
		case t == "extends" || t == "implements" || t == "permits":
			mode = t
			j++
		case t == "<":
			j = p.skipAngle(j)
		case p.isIdent(j):
			s, k := p.typeAt(j)
			if mode == "extends" || mode == "implements" {
				supers = append(supers, s)
			}
			j = k
		default:
			j++
		}
	}
	d := p.add(lexed.Decl{Name: name, Kind: kind, Container: outer, From: p.line(start), To: p.line(j)})
	for _, s := range supers {
		p.m.AddSuper(key, s)
	}
	if p.text(j) != "{" {
		return j + 1
	}
	ci := len(p.facts.classes)
	p.facts.classes = append(p.facts.classes, jclass{name: key, outer: outer, open: j, supers: supers})
	end := p.body(j, key, kind)
	p.facts.classes[ci].close = end
	p.decls[d].To = p.line(end)
	return end + 1
}

// body reads a class body from its '{' at open and answers the index of its
// closing brace.
func (p *jparser) body(open int, cls, kind string) int {
	i := open + 1
	if kind == "enum" {
		i = p.enumConstants(i, cls)
	}
	start := -1 // the first token of the member read, -1 between them
	for i < len(p.toks) {
		t := p.toks[i]
		if start < 0 && (t.Kind == lexed.TkIdent || t.Text == "@" || t.Text == "<") {
			start = i // an annotation, type parameters, a modifier or a name starts a member
		}
		switch {
		case t.Text == "}":
			return i
		case t.Text == ";":
			start = -1
			i++
		case t.Text == "@" && p.text(i+1) == "interface":
			i = p.class(start, i+1, cls)
			start = -1
		case t.Text == "@":
			i = p.skipAnnotation(i)
		case t.Text == "{": // an initializer block
			i = p.br.CloseOrLast(i) + 1
			start = -1
		case t.Text == "<":
			i = p.skipAngle(i)
		case p.typeKeywordAt(i):
			i = p.class(start, i, cls)
			start = -1
		case t.Kind == lexed.TkIdent && javaModifiers[t.Text]:
			i++
		case t.Kind == lexed.TkIdent:
			i = p.member(start, i, cls)
			start = -1
		default:
			i++
		}
	}
	return len(p.toks) - 1
}

// enumConstants reads an enum's constants from i and answers the index
// after them (after their ';', or at the body's '}').
func (p *jparser) enumConstants(i int, cls string) int {
	for i < len(p.toks) {
		if p.text(i) == "@" {
			i = p.skipAnnotation(i)
			continue
		}
		if !p.isIdent(i) {
			break
		}
		switch p.text(i + 1) {
		case "(", ",", ";", "{", "}":
		default:
			return i
		}
		p.facts.declTok.Add(i)
		d := p.add(lexed.Decl{Name: p.text(i), Kind: "field", Container: cls, Static: true, From: p.line(i), To: p.line(i)})
		j := i + 1
		if p.text(j) == "(" {
			j = p.br.CloseOrLast(j) + 1
		}
		if p.text(j) == "{" {
			j = p.br.CloseOrLast(j) + 1
		}
		p.decls[d].To = p.line(j - 1)
		switch p.text(j) {
		case ",":
			i = j + 1
		case ";":
			return j + 1
		default:
			return j
		}
	}
	if p.text(i) == ";" {
		return i + 1
	}
	return i
}

// member reads a method, constructor or field whose header starts at start
// and whose first non-modifier token is at i; it answers the index after it.
func (p *jparser) member(start, i int, cls string) int {
	static := false
	for k := start; k < i; k++ {
		if p.text(k) == "static" {
			static = true
		}
	}
	_, simple, _ := lexed.CutLastDot(cls)
	if p.text(i) == simple && p.text(i+1) == "(" {
		p.facts.declTok.Add(i)
		end := p.methodEnd(p.br.CloseOrLast(i+1) + 1)
		p.add(lexed.Decl{Name: simple, Kind: "constructor", Container: cls, From: p.line(start), To: p.line(end)})
		return end + 1
	}
	typ, j := p.typeAt(i)
	if !p.isIdent(j) {
		return j
	}
	if p.text(j+1) == "(" {
		p.facts.declTok.Add(j)
		end := p.methodEnd(p.br.CloseOrLast(j+1) + 1)
		p.add(lexed.Decl{Name: p.text(j), Kind: "method", Container: cls, Static: static, From: p.line(start), To: p.line(end)})
		if typ != "void" && !javaPrimitives[typ] {
			p.m.AddReturn(cls+"."+p.text(j), typ)
		}
		return end + 1
	}
	for {
		p.facts.declTok.Add(j)
		d := p.add(lexed.Decl{Name: p.text(j), Kind: "field", Container: cls, Static: static, From: p.line(start)})
		k := j + 1
		for p.text(k) == "[" && p.text(k+1) == "]" {
			k += 2
		}
		if p.text(k) == "=" {
			k = p.skipInitializer(k + 1)
		}
		p.decls[d].To = p.line(k)
		if p.text(k) == "," && p.isIdent(k+1) {
			j = k + 1
			continue
		}
		if p.text(k) == ";" {
			return k + 1
		}
		return k
	}
}

// methodEnd skips a method's dimensions, throws clause and default value
// from i (after its parameters) and answers the index of its body's
// closing brace or of its ';'.
func (p *jparser) methodEnd(i int) int {
	for i < len(p.toks) {
		switch p.text(i) {
		case "{":
			return p.br.CloseOrLast(i)
		case ";":
			return i
		case "}":
			return i - 1
		case "@":
			i = p.skipAnnotation(i)
		default:
			i++
		}
	}
	return len(p.toks) - 1
}

// skipInitializer skips a field initializer from i and answers the index of
// the ',' or ';' that ends it.
func (p *jparser) skipInitializer(i int) int {
	for i < len(p.toks) {
		t := p.text(i)
		switch t {
		case "(":
			i = p.br.CloseOrLast(i) + 1
		case "{":
			i = p.br.CloseOrLast(i) + 1
		case "[":
			i = p.br.CloseOrLast(i) + 1
		case "<":
			if p.isIdent(i-1) && lexed.IsTypeName(p.text(i-1)) || p.text(i-1) == "." {
				i = p.skipAngle(i)
			} else {
				i++
			}
		case ",", ";", "}":
			return i
		default:
			i++
		}
	}
	return len(p.toks) - 1
}

// vars types the names the file declares: "Type name" followed by = ; : ,
// or ), preceded by a token that can start a declaration.
func (p *jparser) vars() {
	toks := p.toks
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].Kind != lexed.TkIdent {
			continue
		}
		switch toks[i+1].Text {
		case "=", ";", ":", ",", ")":
		default:
			continue
		}
		j := i - 1
		for j >= 1 && toks[j].Text == "]" && toks[j-1].Text == "[" {
			j -= 2
		}
		if j >= 2 && toks[j].Text == "." && toks[j-1].Text == "." && toks[j-2].Text == "." {
			j -= 3
		}
		if j >= 0 && toks[j].Text == ">" {
			k, ok := lexed.MatchAngle(toks, j, -1, 0, ";{}()=")
			if !ok {
				continue
			}
			j = k - 1
		}
		if j < 0 || toks[j].Kind != lexed.TkIdent || javaNotType[toks[j].Text] {
			continue
		}
		typ := toks[j].Text
		k := j
		for k >= 2 && toks[k-1].Text == "." && toks[k-2].Kind == lexed.TkIdent {
			k -= 2
		}
		if k < j && lexed.IsTypeName(toks[j-2].Text) {
			typ = toks[j-2].Text + "." + typ // Outer.Inner
		}
		if k > 0 && !p.declStartsAfter(k-1) {
			continue
		}
		if typ == "var" {
			typ = ""
			if toks[i+1].Text == "=" && p.text(i+2) == "new" {
				typ, _ = p.typeAt(i + 3)
			}
		}
		if typ == "" || javaPrimitives[typ] {
			continue
		}
		name := toks[i].Text
		p.facts.declTok.Add(i)
		p.m.AddVar(name, typ)
		p.m.AddVar("this."+name, typ)
	}
}

// declStartsAfter reports whether a declaration's type can start after
// token b: a statement or member start, a parameter list, a modifier or an
// annotation, or instanceof (a pattern).
func (p *jparser) declStartsAfter(b int) bool {
	t := p.toks[b]
	switch t.Text {
	case "{", "}", ";", "(", ",", "instanceof":
		return true
	}
	if t.Kind == lexed.TkIdent && (javaModifiers[t.Text] || p.text(b-1) == "@") {
		return true
	}
	return false
}

var (
	javaModifiers  = engine.Words("public private protected static final abstract synchronized native transient volatile strictfp default sealed non-sealed")
	javaPrimitives = engine.Words("boolean byte char short int long float double void")
	javaNotType    = engine.Words("return throw new case else yield assert package import break continue goto do if for while switch try catch finally class interface enum extends implements throws super this instanceof")
)

// Decls reads the declarations of the Java file at p, in source order.
func Decls(p string, src []byte) []lexed.Decl { return readJava(p, src).Decls }
