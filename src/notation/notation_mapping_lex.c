/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lexer of the mapping notation: splits the text the way rustc's token
 * trees do (spec §2), rejects characters outside the language and literals
 * that are not plain decimals, recognizes the fill markers and balances the
 * delimiters before any grammar runs. Invariant: on success every token's
 * offset and length lie inside the text and open delimiters know their
 * partners.
 */
#include <string.h>

#include "notation_mapping_internal.h"

static bool is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t skip_space(const char *s, size_t len, size_t i)
{
    while (i < len &&
           (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* A literal at "i": its extent, and its value when it is a plain decimal. */
static axe_status lex_number(const char *s, size_t len, size_t i, axe__mtok *t,
                             axe_diag *diag)
{
    size_t j = i;
    bool plain = true;
    int64_t v = 0;
    while (j < len && (is_alpha(s[j]) || is_digit(s[j]) ||
                       (s[j] == '.' && j + 1 < len && is_digit(s[j + 1])))) {
        if (!is_digit(s[j]))
            plain = false;
        else if (plain && (axe__mul(v, 10, &v) || axe__add(v, s[j] - '0', &v)))
            return axe__fail(diag, AXE_ERR_OVERFLOW, (long)i,
                             "literal '%.*s' overflows 64 bits",
                             (int)(j + 1 - i), s + i);
        j++;
    }
    if (!plain)
        return axe__fail(diag, AXE_ERR_SYNTAX, (long)i,
                         "literal '%.*s' is not a plain decimal number",
                         (int)(j - i), s + i);
    t->kind = AXE__MT_NAT;
    t->value = v;
    t->len = j - i;
    return AXE_OK;
}

/* `#` followed by `{*}`, `{!}` or `{0}` is a fill marker. */
static bool lex_fill(const char *s, size_t len, size_t i, axe__mtok *t)
{
    size_t j = skip_space(s, len, i + 1), k;
    if (j >= len || s[j] != '{')
        return false;
    j = skip_space(s, len, j + 1);
    if (j >= len || (s[j] != '*' && s[j] != '!' && s[j] != '0'))
        return false;
    k = skip_space(s, len, j + 1);
    if (k >= len || s[k] != '}')
        return false;
    t->kind = AXE__MT_FILL;
    t->c = s[j];
    t->len = k + 1 - i;
    return true;
}

static axe_status lex_one(const char *s, size_t len, size_t i, bool primes,
                          axe__mtok *t, axe_diag *diag)
{
    static const char punct[] = "/%=,:()[]{}!$#";
    t->offset = (long)i;
    t->match = -1;
    t->c = s[i];
    if (is_alpha(s[i])) {
        size_t j = i;
        while (j < len && (is_alpha(s[j]) || is_digit(s[j])))
            j++;
        if (primes && j < len && s[j] == '\'')
            j++;
        t->kind = AXE__MT_IDENT;
        t->len = j - i;
        return AXE_OK;
    }
    if (is_digit(s[i]))
        return lex_number(s, len, i, t, diag);
    if (s[i] == '#' && lex_fill(s, len, i, t))
        return AXE_OK;
    if (s[i] != '\0' && strchr(punct, s[i]) != NULL) {
        t->kind = AXE__MT_PUNCT;
        t->len = 1;
        return AXE_OK;
    }
    return axe__fail(diag, AXE_ERR_SYNTAX, (long)i, "unrecognized token '%c'",
                     s[i]);
}

static char closer(char c) { return c == '(' ? ')' : c == '[' ? ']' : '}'; }

/* Pair every delimiter with its partner. */
static axe_status balance(axe__mlex *lx, axe_diag *diag)
{
    int stack[AXE__MNEST_MAX], depth = 0;
    for (int k = 0; k < lx->ntok; k++) {
        axe__mtok *t = &lx->tok[k];
        if (t->kind != AXE__MT_PUNCT)
            continue;
        if (t->c == '(' || t->c == '[' || t->c == '{') {
            if (depth == AXE__MNEST_MAX)
                return axe__fail(diag, AXE_ERR_CAPACITY, t->offset,
                                 "nesting deeper than %d", AXE__MNEST_MAX);
            stack[depth++] = k;
        } else if (t->c == ')' || t->c == ']' || t->c == '}') {
            if (depth == 0 || closer(lx->tok[stack[depth - 1]].c) != t->c)
                return axe__fail(diag, AXE_ERR_SYNTAX, t->offset,
                                 "unbalanced delimiter: unexpected '%c'", t->c);
            lx->tok[stack[--depth]].match = k;
            t->match = stack[depth];
        }
    }
    if (depth > 0)
        return axe__fail(diag, AXE_ERR_SYNTAX, lx->tok[stack[depth - 1]].offset,
                         "unbalanced delimiter: '%c' is never closed",
                         lx->tok[stack[depth - 1]].c);
    return AXE_OK;
}

axe_status axe__mlex_run(axe__mlex *lx, const char *text, size_t len,
                         bool primes, axe_diag *diag)
{
    size_t i = skip_space(text, len, 0);
    lx->text = text;
    lx->len = len;
    lx->ntok = 0;
    while (i < len) {
        axe__mtok *t = &lx->tok[lx->ntok];
        if (lx->ntok == AXE__MTOK_MAX)
            return axe__fail(diag, AXE_ERR_CAPACITY, (long)i,
                             "more than %d tokens", AXE__MTOK_MAX);
        AXE_TRY(lex_one(text, len, i, primes, t, diag));
        lx->ntok++;
        i = skip_space(text, len, i + t->len);
    }
    lx->tok[lx->ntok] = (axe__mtok){AXE__MT_END, '\0', -1, (long)len, 0, 0};
    return balance(lx, diag);
}

static bool tok_is(const axe__mlex *lx, int k, axe__mtok_kind kind, char c)
{
    return k < lx->ntok && lx->tok[k].kind == kind &&
           (kind != AXE__MT_PUNCT || lx->tok[k].c == c);
}

static bool ident_is(const axe__mlex *lx, int k, const char *name)
{
    return tok_is(lx, k, AXE__MT_IDENT, 0) && lx->tok[k].len == strlen(name) &&
           memcmp(lx->text + lx->tok[k].offset, name, lx->tok[k].len) == 0;
}

axe_status axe__mlex_unwrap(const axe__mlex *lx, const char *name, bool bare,
                            int *first, int *last, axe_diag *diag)
{
    bool dollar = strcmp(name, "$") == 0;
    int open = dollar ? 1 : 2;
    bool head =
        dollar ? tok_is(lx, 0, AXE__MT_PUNCT, '$')
               : ident_is(lx, 0, name) && tok_is(lx, 1, AXE__MT_PUNCT, '!');
    if (!head) {
        if (!bare)
            return axe__fail(diag, AXE_ERR_SYNTAX, 0, "expected %s%s", name,
                             dollar ? "(...)" : "![...]");
        *first = 0;
        *last = lx->ntok;
        return AXE_OK;
    }
    if (!tok_is(lx, open, AXE__MT_PUNCT, dollar ? '(' : '['))
        return axe__fail(diag, AXE_ERR_SYNTAX, lx->tok[open].offset,
                         "expected '%c' after %s%s", dollar ? '(' : '[', name,
                         dollar ? "" : "!");
    if (lx->tok[open].match != lx->ntok - 1)
        return axe__fail(
            diag, AXE_ERR_SYNTAX, lx->tok[lx->tok[open].match + 1].offset,
            "unexpected text after the closing '%c'", dollar ? ')' : ']');
    *first = open + 1;
    *last = lx->ntok - 1;
    return AXE_OK;
}

const char *axe__mtok_describe(const axe__mtok *t)
{
    switch (t->kind) {
    case AXE__MT_IDENT:
        return "a name";
    case AXE__MT_NAT:
        return "a number";
    case AXE__MT_FILL:
        return "a fill marker";
    case AXE__MT_END:
        return "the end";
    case AXE__MT_PUNCT:
        break;
    }
    switch (t->c) {
    case ',':
        return "','";
    case ':':
        return "':'";
    case '(':
    case '[':
    case '{':
        return "an opening delimiter";
    case ')':
    case ']':
    case '}':
        return "a closing delimiter";
    default:
        return "an operator";
    }
}
