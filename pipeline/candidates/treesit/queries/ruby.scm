; Ruby: declarations, superclasses and mixins, requires, references.

(class name: (constant) @name body: (_)? @body) @decl.class
(class name: (scope_resolution name: (constant) @name) body: (_)? @body) @decl.class
(module name: (constant) @name body: (_)? @body) @decl.module
(module name: (scope_resolution name: (constant) @name) body: (_)? @body) @decl.module
(method name: (_) @name body: (_)? @body) @decl.method
(singleton_method name: (_) @name body: (_)? @body) @decl.method
(assignment left: (constant) @name) @decl.constant

(superclass (_) @super)
(call method: (identifier) @call arguments: (argument_list (constant) @super))
(call method: (identifier) @call arguments: (argument_list (scope_resolution) @super))
(call method: (identifier) @call arguments: (argument_list (string (string_content) @import)))

(call receiver: (_) @recv method: (identifier) @member)
(scope_resolution scope: (_) @recv name: (constant) @member)
(method_parameters (identifier) @skip)
(block_parameters (identifier) @skip)
(assignment left: (identifier) @skip)
(identifier) @ref
(constant) @ref

(comment) @comment
