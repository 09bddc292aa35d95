; C#: declarations, supertypes, namespaces and usings, references.

(class_declaration name: (identifier) @name body: (_) @body) @decl.class
(interface_declaration name: (identifier) @name body: (_) @body) @decl.interface
(struct_declaration name: (identifier) @name body: (_) @body) @decl.struct
(enum_declaration name: (identifier) @name body: (_) @body) @decl.enum
(record_declaration name: (identifier) @name) @decl.class
(delegate_declaration name: (identifier) @name) @decl.type
(method_declaration name: (identifier) @name body: (_)? @body) @decl.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @decl.constructor
(property_declaration name: (identifier) @name) @decl.property
(event_declaration name: (identifier) @name) @decl.field
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @decl.field
(enum_member_declaration name: (identifier) @name) @decl.constant

(base_list (_) @super)

(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)
(using_directive (qualified_name) @import)
(using_directive (identifier) @import)

(variable_declaration type: (_) @type (variable_declarator name: (identifier) @var))
(parameter type: (_) @type name: (identifier) @var)
(property_declaration type: (_) @type name: (identifier) @var)

(member_access_expression expression: (_) @recv name: (identifier) @member)
(member_access_expression expression: (_) @recv name: (generic_name (identifier) @member))
(parameter name: (identifier) @skip)
(variable_declarator name: (identifier) @skip)
(identifier) @ref

(comment) @comment
