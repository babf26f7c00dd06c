" Vim syntax file
" Language:   Plastic model files (*.ode)
" Keywords from dsl/lexer.cpp, built-ins from dsl/builtins.h, layers from
" dsl/prelude.ode; the grammar is dsl/GRAMMAR.md.

if exists("b:current_syntax")
  finish
endif

syn case match

" Declarations and the block keyword (dsl/lexer.cpp: kDeclKeywords, let).
syn keyword plasticDecl      model dim const input param state fn layer end apply
syn keyword plasticDecl      flow jump output loss solve gradient
syn keyword plasticLet       let

" Built-in functions (dsl/builtins.h) and the dim function logsig_dim.
syn keyword plasticBuiltin   tanh sigmoid relu elu softplus exp log sqrt abs square
syn keyword plasticBuiltin   softmax logsumexp layernorm outer transpose sum mean max
syn keyword plasticBuiltin   reshape concat einsum minimum maximum
syn keyword plasticBuiltin   cross_entropy bce_with_logits mse logsig_dim

" Layers: mlp is built in, the rest come from dsl/prelude.ode.
syn keyword plasticLayer     mlp linear linear_nobias ffn gate gru

" Solvers and gradient methods.
syn keyword plasticSolver    euler midpoint heun rk3 rk4 rk4_38 dopri5 tsit5 bosh3
syn keyword plasticGradient  direct checkpoint adjoint auto

" Initialisers.
syn keyword plasticInit      uniform_fan_in glorot_uniform glorot_normal xavier_uniform
syn keyword plasticInit      xavier_normal kaiming_uniform kaiming_normal zeros ones
syn keyword plasticInit      constant normal uniform orthogonal critical stability_informed

" Words with a meaning in one place of a declaration.
syn keyword plasticContext   path static label target init tune from data channels classes
syn keyword plasticContext   else with time unit_increments per observation
syn keyword plasticContext   cubic hermite rectilinear logsig depth step rtol atol
syn keyword plasticContext   max_steps dt_min dt_max budget width activation final none
syn keyword plasticTime      t t0 T
syn keyword plasticUnit      KB MB GB TB

syn match   plasticNumber    "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match   plasticNumber    "\.\d\+\([eE][+-]\=\d\+\)\=\>"
syn match   plasticOperator  "[-+*/^@=]"
syn match   plasticPrime     "\w\zs'"
syn match   plasticOperator  "\.\.\."

syn region  plasticString    start=+"+ end=+"+ end=+$+ oneline
syn match   plasticComment   "#.*$" contains=plasticTodo,@Spell
syn keyword plasticTodo      contained TODO FIXME XXX NOTE

hi def link plasticDecl      Keyword
hi def link plasticLet       Keyword
hi def link plasticBuiltin   Function
hi def link plasticLayer     Type
hi def link plasticSolver    Constant
hi def link plasticGradient  Constant
hi def link plasticInit      Constant
hi def link plasticContext   Statement
hi def link plasticTime      Special
hi def link plasticUnit      Special
hi def link plasticNumber    Number
hi def link plasticOperator  Operator
hi def link plasticPrime     Operator
hi def link plasticString    String
hi def link plasticComment   Comment
hi def link plasticTodo      Todo

let b:current_syntax = "plastic"
