// Package java is the candidates' Java reader: it reads classes with their
// supertypes, methods, constructors and fields, resolves a receiver's type
// through declared types and the class hierarchy, looks types up where a
// file's package and imports put them, and lists the files that declare
// what added lines use and the files whose references reach a touched
// declaration.
package java
