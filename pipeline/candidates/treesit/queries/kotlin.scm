; Kotlin: declarations, supertypes, package and imports, references.

(class_declaration (type_identifier) @name (class_body) @body) @decl.class
(class_declaration (type_identifier) @name (enum_class_body) @body) @decl.enum
(class_declaration (type_identifier) @name) @decl.class
(object_declaration (type_identifier) @name (class_body)? @body) @decl.object
(function_declaration (simple_identifier) @name (function_body)? @body) @decl.function
(property_declaration (variable_declaration (simple_identifier) @name)) @decl.property
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @decl.property
(type_alias (type_identifier) @name) @decl.type
(enum_entry (simple_identifier) @name) @decl.constant

(delegation_specifier (user_type (type_identifier) @super))
(delegation_specifier (constructor_invocation (user_type (type_identifier) @super)))

(package_header (identifier) @package)
(import_header (identifier) @import)

(property_declaration (variable_declaration (simple_identifier) @var (user_type (type_identifier) @type)))
(parameter (simple_identifier) @var (user_type (type_identifier) @type))
(class_parameter (simple_identifier) @var (user_type (type_identifier) @type))

(navigation_expression (_) @recv (navigation_suffix (simple_identifier) @member))
(parameter (simple_identifier) @skip)
(simple_identifier) @ref
(type_identifier) @ref

(line_comment) @comment
(multiline_comment) @comment
