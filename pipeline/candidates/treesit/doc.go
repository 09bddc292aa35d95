// Package treesit is the candidates' reader for the languages read through
// tree-sitter grammars: C#, Kotlin, PHP, Ruby, Rust, C, C++, Swift and
// Scala. One implementation serves them all: a language is a grammar, a
// query file beside the reader (queries/<language>.scm) and a small entry
// of resolution rules (languages), never a reader of its own.
//
// A query file names what the reader needs with its captures:
//
//   - @decl.KIND on a declaration, with @name its name and @body, when it
//     has one, its body (the header ends where the body starts). KIND is
//     function, method or constructor (callables); @body may be matched
//     by a pattern of its own, its parent being the declaration; class, interface,
//     struct, enum, trait, module, object or protocol (containers, touched
//     by their header only); impl (a container that declares nothing of its
//     own, e.g. Rust's impl blocks); field, property, variable, constant,
//     type or macro.
//   - @super on a supertype a container's header states.
//   - @ref on an identifier referenced, @member on a member's name in a
//     member access with @recv its receiver.
//   - @import on what a file imports, uses, includes or requires, and
//     @package on the package or namespace it declares. A match holding a
//     @call counts only when it calls one of the language's import or
//     mixin functions (language.calls: Ruby's require, include).
//   - @skip on a name bound as a parameter or local variable, and @scope
//     on the type qualifying a declaration's name (C++'s A::f).
//   - @var with @type on a variable, parameter or field and its declared
//     type: a member access through it (c.send() with c a Client) is
//     resolved as one through its type (Client.send).
//   - @comment on a comment: changed lines holding only comments touch
//     nothing.
//
// The search is the other readers' own: the declarations the change touched
// (package touch's rule), the names used on added lines, a grep of those
// names over the language family's files, each read once on every core
// (engine.ReadFiles) and kept across requests (engine.Cached). A file that
// declares a name an added line uses is "uses"; a file that refers to a
// touched declaration is "impact". How sure each is depends on the
// family's rules: a file that imports, uses or includes the other (by
// namespace, package, include path or module path) is scored above one
// that only shares a directory, and that above a bare mention; all below the
// Go and Java readers' compiler-grade resolution and above the identifier
// search.
//
// The grammars are C: the reader is built only with cgo. Without it
// (CGO_ENABLED=0) Built is false, Reader reads nothing, and these languages
// fall back to the identifier search.
package treesit
