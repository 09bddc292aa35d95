; Scala: definitions, supertypes, package and imports, references.

(class_definition name: (identifier) @name body: (_)? @body) @decl.class
(trait_definition name: (identifier) @name body: (_)? @body) @decl.trait
(object_definition name: (identifier) @name body: (_)? @body) @decl.object
(enum_definition name: (identifier) @name body: (_)? @body) @decl.enum
(function_definition name: (identifier) @name body: (_) @body) @decl.function
(function_declaration name: (identifier) @name) @decl.function
(val_definition pattern: (identifier) @name) @decl.variable
(var_definition pattern: (identifier) @name) @decl.variable
(val_declaration name: (identifier) @name) @decl.variable
(type_definition name: (type_identifier) @name) @decl.type

(extends_clause type: (_) @super)

(package_clause name: (_) @package)
(import_declaration) @import

(val_definition pattern: (identifier) @var type: (_) @type)
(parameter name: (identifier) @var type: (_) @type)

(field_expression value: (_) @recv field: (identifier) @member)
(parameter name: (identifier) @skip)
(identifier) @ref
(type_identifier) @ref

(comment) @comment
(block_comment) @comment
