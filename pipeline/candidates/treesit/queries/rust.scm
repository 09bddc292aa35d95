; Rust: items, impl blocks and their traits, use and mod paths, references.

(struct_item name: (type_identifier) @name body: (_)? @body) @decl.struct
(enum_item name: (type_identifier) @name body: (_) @body) @decl.enum
(union_item name: (type_identifier) @name body: (_) @body) @decl.struct
(trait_item name: (type_identifier) @name body: (_) @body) @decl.trait
(impl_item type: (type_identifier) @name body: (_)? @body) @decl.impl
(impl_item type: (generic_type type: (type_identifier) @name) body: (_)? @body) @decl.impl
(function_item name: (identifier) @name body: (_) @body) @decl.function
(function_signature_item name: (identifier) @name) @decl.function
(field_declaration name: (field_identifier) @name) @decl.field
(const_item name: (identifier) @name) @decl.constant
(static_item name: (identifier) @name) @decl.variable
(type_item name: (type_identifier) @name) @decl.type
(enum_variant name: (identifier) @name) @decl.constant
(macro_definition name: (identifier) @name) @decl.macro

(impl_item trait: (_) @super)

(use_declaration argument: (_) @import)
(mod_item name: (identifier) @import)

(let_declaration pattern: (identifier) @var type: (_) @type)
(parameter pattern: (identifier) @var type: (_) @type)
(field_declaration name: (field_identifier) @var type: (_) @type)

(field_expression value: (_) @recv field: (field_identifier) @member)
(scoped_identifier path: (_) @recv name: (identifier) @member)
(parameter pattern: (identifier) @skip)
(let_declaration pattern: (identifier) @skip)
(identifier) @ref
(type_identifier) @ref
(field_identifier) @ref

(line_comment) @comment
(block_comment) @comment
