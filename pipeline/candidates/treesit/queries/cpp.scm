; C++: the C declarations, classes with their bases, namespaces, methods
; (in the class or qualified by it), includes, references.

(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)) body: (_) @body) @decl.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name)) body: (_) @body) @decl.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name)) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name)) body: (_) @body) @decl.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @scope name: (identifier) @name))) body: (_) @body) @decl.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (destructor_name (identifier) @name))) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (destructor_name (identifier) @name)) body: (_) @body) @decl.function
(declaration declarator: (function_declarator declarator: (destructor_name (identifier) @name))) @decl.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (operator_name) @name)) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (operator_name) @name))) body: (_) @body) @decl.function
(function_definition declarator: (function_declarator declarator: (operator_name) @name) body: (_) @body) @decl.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (operator_name) @name)) body: (_) @body) @decl.function
(field_declaration declarator: (function_declarator declarator: (operator_name) @name)) @decl.function
(field_declaration declarator: (reference_declarator (function_declarator declarator: (operator_name) @name))) @decl.function
(declaration declarator: (function_declarator declarator: (operator_name) @name)) @decl.function
(declaration declarator: (reference_declarator (function_declarator declarator: (operator_name) @name))) @decl.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @decl.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @decl.function
(declaration declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @decl.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @decl.function
(field_declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))) @decl.function
(field_declaration declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name))) @decl.function
(class_specifier name: (type_identifier) @name body: (_) @body) @decl.class
(struct_specifier name: (type_identifier) @name body: (_) @body) @decl.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @decl.struct
(class_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @decl.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @decl.struct
(enum_specifier name: (type_identifier) @name body: (_) @body) @decl.enum
(field_declaration declarator: (field_identifier) @name) @decl.field
(type_definition declarator: (type_identifier) @name) @decl.type
(alias_declaration name: (type_identifier) @name) @decl.type
(enumerator name: (identifier) @name) @decl.constant
(preproc_def name: (identifier) @name) @decl.macro
(preproc_function_def name: (identifier) @name) @decl.macro

(base_class_clause (type_identifier) @super)
(base_class_clause (qualified_identifier) @super)
(base_class_clause (template_type) @super)

(namespace_definition name: (_) @package)
(using_declaration (_) @import)
(preproc_include path: (_) @import)

(parameter_declaration type: (_) @type declarator: (identifier) @var)
(parameter_declaration type: (_) @type declarator: (pointer_declarator declarator: (identifier) @var))
(parameter_declaration type: (_) @type declarator: (reference_declarator (identifier) @var))
(declaration type: (_) @type declarator: (identifier) @var)
(declaration type: (_) @type declarator: (init_declarator declarator: (identifier) @var))
(field_declaration type: (_) @type declarator: (field_identifier) @var)
(field_declaration type: (_) @type declarator: (pointer_declarator declarator: (field_identifier) @var))

(field_expression argument: (_) @recv field: (field_identifier) @member)
(qualified_identifier scope: (_) @recv name: (identifier) @member)
(parameter_declaration declarator: (identifier) @skip)
(init_declarator declarator: (identifier) @skip)
(identifier) @ref
(type_identifier) @ref
(field_identifier) @ref

(comment) @comment
