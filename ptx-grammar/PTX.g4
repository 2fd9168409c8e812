// PTX grammar for cucatch (PTX ISA 6.x .. 9.0, as emitted by nvcc / NVRTC).
//
// The shape of a PTX *instruction* is described once and generically:
//     [@[!]pred] opcode{.modifier}* [operand {, operand}*] ;
// so an instruction this grammar has never heard of still parses. What an instruction means
// (memory access, address operand, width) is not the grammar's business: it lives in the
// instruction table in src/ptx/. Directives and declarations, a small fixed set, get rules of
// their own. Comments and whitespace are skipped; the IR keeps each element's source line
// because ptxas's line tables (.nv_debug_line_sass) record PTX line numbers.
grammar PTX;

// ---------------------------------------------------------------- module level

module
    : topStatement* EOF
    ;

topStatement
    : versionDirective
    | targetDirective
    | addressSizeDirective
    | fileDirective
    | sectionDirective
    | functionDirective
    | variableDeclaration
    | aliasDirective
    | pragmaDirective
    ;

versionDirective     : VERSION DEC_FLOAT ;
targetDirective      : TARGET ID (',' ID)* ;
addressSizeDirective : ADDRESS_SIZE INT ;
fileDirective        : FILE INT STRING (',' INT)* ;
aliasDirective       : ALIAS ID ',' ID ';' ;
pragmaDirective      : PRAGMA STRING (',' STRING)* ';' ;

// DWARF (with -G / -lineinfo): `.section .debug_info { .b8 1,2 .b32 .debug_abbrev $L1: ... }`
sectionDirective
    : SECTION DOTNAME '{' sectionEntry* '}'
    ;

sectionEntry
    : ID ':'                             # sectionLabel
    | DOTNAME expr (',' expr)*           # sectionData
    ;

// Entry points for parsing a piece of a module on its own. The parser (src/ptx/Parser.cpp)
// reads function bodies statement by statement with a fast scanner and hands this grammar
// whatever the scanner does not take itself: runs of module-level statements (`module`), a
// function header, a section, or a few body statements.
functionHeaderAlone : functionHeader EOF ;
sectionAlone        : sectionDirective EOF ;
statementSequence   : statement* EOF ;

// ---------------------------------------------------------------- functions

functionDirective
    : functionHeader (functionBody | ';')
    ;

functionHeader
    : linkage* (ENTRY | FUNC) functionAttribute* returnList=paramList? ID
      parameters=paramList? functionAttribute*
    ;

linkage
    : VISIBLE | EXTERN | WEAK | COMMON
    ;

paramList
    : '(' (paramDeclaration (',' paramDeclaration)*)? ')'
    ;

paramDeclaration
    : stateSpace declQualifier* declarator
    ;

// Performance directives and attributes: .maxntid 256,1,1  .explicitcluster  .noreturn
// .attribute(.unified(0x1, 0x2)). Generic, so new ones parse without a grammar change.
functionAttribute
    : DOTNAME (INT (',' INT)*)?
    | ATTRIBUTE '(' expr (',' expr)* ')'
    | PRAGMA STRING (',' STRING)*
    ;

functionBody
    : '{' statement* '}'
    ;

// ---------------------------------------------------------------- declarations

variableDeclaration
    : linkage* stateSpace declQualifier* declarator (',' declarator)* ';'
    ;

stateSpace
    : REG | SREG | GLOBAL | SHARED | LOCAL | CONST | PARAM | TEX
    ;

// .align N, .attribute(.managed), .v4, .b32, .ptr, the pointee space of a .ptr parameter, ...
declQualifier
    : ALIGN INT
    | ATTRIBUTE '(' expr (',' expr)* ')'
    | DOTNAME
    | stateSpace
    ;

declarator
    : ID ('<' INT '>')? arrayDimension* ('=' initializer)?
    ;

arrayDimension
    : '[' expr? ']'
    ;

initializer
    : '{' initializer (',' initializer)* '}'
    | expr
    ;

// ---------------------------------------------------------------- statements in a body

statement
    : ID ':'                                                  # labelStatement
    | instruction                                             # instructionStatement
    | variableDeclaration                                     # declarationStatement
    | locDirective                                            # locStatement
    | pragmaDirective                                         # pragmaStatement
    | '{' statement* '}'                                      # blockStatement
    | BRANCHTARGETS ID (',' ID)* ';'                          # branchTargetsStatement
    | CALLTARGETS ID (',' ID)* ';'                            # callTargetsStatement
    | CALLPROTOTYPE returnList=paramList? ID parameters=paramList? functionAttribute* ';'
                                                              # callPrototypeStatement
    ;

// .loc 1 13 5, function_name $L__info_string0, inlined_at 1 21 3
locDirective
    : LOC INT INT INT? (',' locAttribute)*
    ;

// Exactly the two attribute shapes PTX defines. `.loc` has no terminator, so a looser rule
// would run on into the next line: `inlined_at 1 14 3` followed by `isspacep.global %p4, %rd1;`
// would read as an attribute word and a `.global` declaration.
locAttribute
    : ID ID ('+' INT)?          // function_name $L__info_string0
    | ID INT INT INT?           // inlined_at 1 14 3
    ;

instruction
    : guard? opcode=ID modifier* (operand (',' operand)*)? ';'
    ;

guard
    : '@' '!'? ID
    ;

// A state-space keyword doubles as an instruction modifier (ld.global, cvta.to.shared, ...), and
// so does the linkage keyword `.weak` (the memory-consistency qualifier: st.weak.cs.v2.b64).
modifier
    : DOTNAME
    | stateSpace
    | ALIGN
    | FUNC
    | WEAK
    ;

operand
    : '{' operand (',' operand)* '}'                 # vectorOperand
    | '[' operand (',' operand)* ']'                 # addressOperand
    | '(' (operand (',' operand)*)? ')'              # listOperand
    | ID '|' ID                                      # predicatePairOperand
    | '!' ID                                         # negatedOperand
    | ID DOTNAME                                     # componentOperand
    | expr                                           # expressionOperand
    ;

// ---------------------------------------------------------------- constant expressions

expr
    : primary                                                      # primaryExpr
    | op=('-' | '+' | '!' | '~') expr                              # unaryExpr
    | expr op=('*' | '/' | '%') expr                               # binaryExpr
    | expr op=('+' | '-') expr                                     # binaryExpr
    | expr op=('<<' | '>>') expr                                   # binaryExpr
    | expr op=('<' | '>' | '<=' | '>=') expr                       # binaryExpr
    | expr op=('==' | '!=') expr                                   # binaryExpr
    | expr op='&' expr                                             # binaryExpr
    | expr op='^' expr                                             # binaryExpr
    | expr op='|' expr                                             # binaryExpr
    | expr op='&&' expr                                            # binaryExpr
    | expr op='||' expr                                            # binaryExpr
    | <assoc=right> expr '?' expr ':' expr                         # conditionalExpr
    ;

primary
    : INT
    | HEX_FLOAT
    | DEC_FLOAT
    | ID '(' expr ')'          // generic(sym)
    | ID
    | DOTNAME                  // a section name inside DWARF data: .b32 .debug_abbrev
    | '(' expr ')'
    ;

// ---------------------------------------------------------------- lexer

VERSION       : '.version' ;
TARGET        : '.target' ;
ADDRESS_SIZE  : '.address_size' ;
FILE          : '.file' ;
LOC           : '.loc' ;
SECTION       : '.section' ;
ENTRY         : '.entry' ;
FUNC          : '.func' ;
VISIBLE       : '.visible' ;
EXTERN        : '.extern' ;
WEAK          : '.weak' ;
COMMON        : '.common' ;
PRAGMA        : '.pragma' ;
ALIAS         : '.alias' ;
CALLPROTOTYPE : '.callprototype' ;
CALLTARGETS   : '.calltargets' ;
BRANCHTARGETS : '.branchtargets' ;
REG           : '.reg' ;
SREG          : '.sreg' ;
GLOBAL        : '.global' ;
SHARED        : '.shared' ;
LOCAL         : '.local' ;
CONST         : '.const' ;
PARAM         : '.param' ;
TEX           : '.tex' ;
ALIGN         : '.align' ;
ATTRIBUTE     : '.attribute' ;

// Any other dotted word: a type, a modifier, a directive this grammar has no rule for. Scoped
// qualifiers (.shared::cta, .L2::cache_hint, .mbarrier::complete_tx::bytes) are one token.
// Digits may lead (.2d, .1d in texture and bulk-tensor instructions).
DOTNAME       : '.' [a-zA-Z0-9_$]+ ('::' [a-zA-Z0-9_$]+)* ;

// 0f3F800000 (f32 bits), 0d3FF0000000000000 (f64 bits).
HEX_FLOAT     : '0' [fF] HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT
              | '0' [dD] HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT
                         HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT HEXDIGIT
              ;
DEC_FLOAT     : [0-9]+ '.' [0-9]* EXPONENT?
              | [0-9]+ EXPONENT
              ;
// Decimal, hexadecimal (0x), binary (0b) and octal (leading 0) integers; U marks unsigned.
INT           : ( '0' [xX] HEXDIGIT+ | '0' [bB] [01]+ | '0' [0-7]* | [1-9] [0-9]* ) 'U'? ;

// Registers (%r1, %tid), symbols, labels ($L__BB0_2), the sink `_`.
ID            : [a-zA-Z_$] [a-zA-Z0-9_$]*
              | '%' [a-zA-Z0-9_$]+
              ;

STRING        : '"' (~["\\\r\n] | '\\' .)* '"' ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n\f]+ -> skip ;

COMMA : ',' ; SEMI : ';' ; COLON : ':' ; LBRACE : '{' ; RBRACE : '}' ; LBRACK : '[' ; RBRACK : ']' ;
LPAREN : '(' ; RPAREN : ')' ; AT : '@' ; BANG : '!' ; PIPE : '|' ; PLUS : '+' ; MINUS : '-' ;
STAR : '*' ; SLASH : '/' ; PERCENT : '%' ; TILDE : '~' ; AMP : '&' ; CARET : '^' ; LT : '<' ;
GT : '>' ; SHL : '<<' ; SHR : '>>' ; LE : '<=' ; GE : '>=' ; EQEQ : '==' ; NE : '!=' ;
ANDAND : '&&' ; OROR : '||' ; QUESTION : '?' ; ASSIGN : '=' ;

// Anything else is an error token, so the parser reports it with its position.
ERROR_CHAR    : . ;

fragment HEXDIGIT : [0-9a-fA-F] ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;
