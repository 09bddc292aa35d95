; Swift: declarations, supertypes, imports, references. A module's files
; see each other without imports.

(class_declaration name: (type_identifier) @name body: (enum_class_body) @body) @decl.enum
(class_declaration name: (type_identifier) @name body: (class_body) @body) @decl.class
(class_declaration name: (user_type (type_identifier) @name) body: (_) @body) @decl.impl
(protocol_declaration name: (type_identifier) @name body: (_) @body) @decl.protocol
; A pattern of a function's name and body together takes seconds to
; compile against this grammar: the body is matched apart.
(function_declaration name: (simple_identifier) @name) @decl.function
(function_declaration body: (function_body) @body)
(protocol_function_declaration name: (simple_identifier) @name) @decl.function
(init_declaration "init" @name body: (_)? @body) @decl.constructor
(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @decl.property
(typealias_declaration name: (type_identifier) @name) @decl.type
(enum_entry name: (simple_identifier) @name) @decl.constant

(inheritance_specifier inherits_from: (user_type (type_identifier) @super))

(import_declaration (identifier) @import)

(property_declaration name: (pattern bound_identifier: (simple_identifier) @var) (type_annotation (user_type (type_identifier) @type)))
(parameter (simple_identifier) @var (user_type (type_identifier) @type))

(navigation_expression target: (_) @recv suffix: (navigation_suffix suffix: (simple_identifier) @member))
(parameter name: (simple_identifier) @skip)
(simple_identifier) @ref
(type_identifier) @ref

(comment) @comment
(multiline_comment) @comment
