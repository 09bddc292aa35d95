; C: functions, prototypes, types, macros, includes, references.

(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @decl.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) body: (_) @body) @decl.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @decl.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @decl.function
(struct_specifier name: (type_identifier) @name body: (_) @body) @decl.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @decl.struct
(enum_specifier name: (type_identifier) @name body: (_) @body) @decl.enum
(field_declaration declarator: (field_identifier) @name) @decl.field
(type_definition declarator: (type_identifier) @name) @decl.type
(enumerator name: (identifier) @name) @decl.constant
(preproc_def name: (identifier) @name) @decl.macro
(preproc_function_def name: (identifier) @name) @decl.macro
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name))) @decl.variable

(preproc_include path: (_) @import)

(parameter_declaration type: (_) @type declarator: (identifier) @var)
(parameter_declaration type: (_) @type declarator: (pointer_declarator declarator: (identifier) @var))
(declaration type: (_) @type declarator: (identifier) @var)
(declaration type: (_) @type declarator: (init_declarator declarator: (identifier) @var))
(field_declaration type: (_) @type declarator: (field_identifier) @var)
(field_declaration type: (_) @type declarator: (pointer_declarator declarator: (field_identifier) @var))

(field_expression argument: (_) @recv field: (field_identifier) @member)
(parameter_declaration declarator: (identifier) @skip)
(init_declarator declarator: (identifier) @skip)
(identifier) @ref
(type_identifier) @ref
(field_identifier) @ref

(comment) @comment
