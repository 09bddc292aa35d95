; PHP: declarations, supertypes, namespace and uses, references.

(class_declaration name: (name) @name body: (_) @body) @decl.class
(interface_declaration name: (name) @name body: (_) @body) @decl.interface
(trait_declaration name: (name) @name body: (_) @body) @decl.trait
(enum_declaration name: (name) @name body: (_) @body) @decl.enum
(method_declaration name: (name) @name body: (_)? @body) @decl.method
(function_definition name: (name) @name body: (_) @body) @decl.function
(property_declaration (property_element (variable_name (name) @name))) @decl.field
(const_declaration (const_element (name) @name)) @decl.constant
(enum_case name: (name) @name) @decl.constant

(base_clause (_) @super)
(class_interface_clause (_) @super)
(use_declaration (_) @super)

(namespace_definition name: (namespace_name) @package)
(namespace_use_clause (qualified_name) @import)
(namespace_use_clause (name) @import)
(namespace_use_declaration (namespace_name) @import)

(simple_parameter type: (named_type (name) @type) name: (variable_name (name) @var))
(property_declaration type: (named_type (name) @type) (property_element (variable_name (name) @var)))

(member_call_expression object: (_) @recv name: (name) @member)
(member_access_expression object: (_) @recv name: (name) @member)
(scoped_call_expression scope: (_) @recv name: (name) @member)
(class_constant_access_expression (_) @recv (name) @member)
(variable_name (name) @skip)
(name) @ref

(comment) @comment
