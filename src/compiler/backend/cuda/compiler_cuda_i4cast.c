/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The i4 -> f16 cast between registers by bit tricks, as CUTLASS's and
 * Hexcute's dequantization do it: two nibbles a and b of a thread's
 * packed i4 register word w become the two f16 halves of a word of the
 * destination (held two to a 32-bit word, words16) by three
 * instructions,
 *   y = prmt.b32(w, w, sel)       a's byte at byte 0, b's at byte 2,
 *   h = lop3.b32(y, mask, magic)  (y & mask) ^ magic (immLut 0x6a),
 *   d = fma.rn.f16x2(h, scale, bias),
 * per half: a nibble u in the low half of its byte is masked by 0xf, one
 * in the high half by 0xf0 (16 u); magic is the f16 1024 (0x6400, whose
 * ulp is 1) with the nibble's top bit (0x8 or 0x80) set, which the xor
 * flips, so h is the f16 1024 + (u ^ 8) or 1024 + 16 (u ^ 8); u ^ 8 =
 * v + 8 for the nibble's signed value v in [-8, 8). The fma takes
 * (1024 + v + 8) * 1 - 1032 or (1024 + 16 (v + 8)) * 1/16 - 72, both v
 * exactly (integers below 2048, the product and the sum exact before
 * the one rounding; 0 as +0, as the scalar cast gives). The f16
 * constants: 1 = 0x3c00, 1/16 = 0x2c00, -1032 = 0xe408, -72 = 0xd480.
 * A word of 8 nibbles thus gives 4 f16x2 words by 4 prmt, 4 lop3 and 4
 * fma (a selector that leaves the bytes in place is no instruction),
 * against a conversion chain per element. The destination's pairs may
 * take any two nibbles of one word: the prmt brings them into place, so
 * no reordering of the weights or of C's columns is needed.
 * Taken for a cast whose every destination word the thread writes whole,
 * both halves from nibbles of one source word, at constant register
 * indices (i4_pairs says which, and why not); the scalar cast
 * (ax_f2h((float)ax_ld4(...)) per element) stays everywhere else.
 */
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

/* Elements per thread the cast may have (its per-thread loops are
 * walked at compile time). */
#define I4_MAX 256

/* Destination word dst[j] = nibbles lo[j] (low half) and hi[j] of source
 * word src[j], for j < n. */
typedef struct i4_pairs {
    int n;
    int64_t dst[I4_MAX / 2], src[I4_MAX / 2];
    int lo[I4_MAX / 2], hi[I4_MAX / 2];
} i4_pairs;

/* Whether "s" is a cast of an i4 register to an f16 register. */
static bool i4_f16_cast(const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d, *x;
    if (s->kind != AX_ST_OP || s->dead || s->op != AX_OP_CAST || s->nargs != 2)
        return false;
    d = &p->tensors[s->args[0].tensor];
    x = &p->tensors[s->args[1].tensor];
    return d->mem == AX_MEM_REGISTER && x->mem == AX_MEM_REGISTER &&
           d->dtype == AXE_DTYPE_F16 && x->dtype == AXE_DTYPE_I4;
}

/* Why plan "s" does not give each thread constant register indices of
 * both operands, one element per access (NULL: it does). */
static const char *plan_why(const axe_program *p, const ax_stmt *s)
{
    const ax_plan *pl = s->plan;
    ax_base b;
    int i, k;
    if (pl == NULL || pl->kind == AX_PLAN_SPLIT || pl->vec != 1 ||
        s->stage[0] != NULL || s->grid != NULL || s->nmasks > 0)
        return "its schedule is not a per-thread loop over the thread's "
               "own registers";
    for (i = 0; i < 2; i++) {
        if (!pl->affine[i] || pl->swizzled[i] || s->args[i].any_masked)
            return "an operand's register index is not affine in the "
                   "loops";
        axe__plan_base(p, &s->args[i], &b);
        if (b.ndyn > 0)
            return "an operand's register index depends on a run-time "
                   "value";
        for (k = 0; k < pl->nloops; k++)
            if (pl->loops[k].thread && pl->loops[k].stride[i] != 0)
                return "an operand's register index depends on the thread";
    }
    return NULL;
}

/* "from"[d] = the source element cast into destination element d (-1:
 * none) over the thread's loops of plan "s"; why not (NULL: done). */
static const char *walk(const axe_program *p, const ax_stmt *s, int64_t *from)
{
    const ax_plan *pl = s->plan;
    int64_t n = 1, it, r, a[2], span = p->tensors[s->args[0].tensor].span;
    int64_t xspan = p->tensors[s->args[1].tensor].span;
    ax_base b[2];
    int i, k;
    for (k = 0; k < pl->nloops; k++)
        n *= pl->loops[k].thread ? 1 : pl->loops[k].extent;
    if (n > I4_MAX || span > I4_MAX)
        return "the thread casts more than 256 elements";
    for (i = 0; i < 2; i++)
        axe__plan_base(p, &s->args[i], &b[i]);
    for (it = 0; it < n; it++) {
        for (i = 0, r = it; i < 2; i++)
            a[i] = b[i].cst;
        for (k = pl->nloops - 1; k >= 0; k--) {
            if (pl->loops[k].thread)
                continue;
            a[0] += r % pl->loops[k].extent * pl->loops[k].stride[0];
            a[1] += r % pl->loops[k].extent * pl->loops[k].stride[1];
            r /= pl->loops[k].extent;
        }
        if (a[0] < 0 || a[0] >= span || from[a[0]] >= 0)
            return "a destination element is written twice";
        if (a[1] < 0 || a[1] >= xspan)
            return "a source element lies outside the i4 register";
        from[a[0]] = a[1];
    }
    return NULL;
}

/* The pairs of cast "s" (see the file comment), or why it has none;
 * "declared": the f16 register's words16 as emitted (else recomputed,
 * for --explain, which runs before the backend's prepare hook). */
static const char *i4_pairs_of(const axe_program *p, const ax_stmt *s,
                               bool declared, i4_pairs *out)
{
    int64_t from[I4_MAX], w, span = p->tensors[s->args[0].tensor].span;
    const char *why = plan_why(p, s);
    if (why != NULL)
        return why;
    if (!(declared ? p->tensors[s->args[0].tensor].words16
                   : axe__cuda_words16(p, s->args[0].tensor)))
        return "the f16 register is not held two to a 32-bit word";
    memset(from, 0xff, sizeof from);
    if ((why = walk(p, s, from)) != NULL)
        return why;
    out->n = 0;
    for (w = 0; 2 * w < span; w++) {
        int64_t lo = from[2 * w], hi = 2 * w + 1 < span ? from[2 * w + 1] : -1;
        if (lo < 0 && hi < 0)
            continue;
        if (lo < 0 || hi < 0)
            return "it writes half of a 32-bit word of the f16 register";
        if (lo / 8 != hi / 8)
            return "the two halves of a 32-bit word of the f16 register "
                   "come from different 32-bit words of the i4 register";
        out->dst[out->n] = w;
        out->src[out->n] = lo / 8;
        out->lo[out->n] = (int)(lo % 8);
        out->hi[out->n++] = (int)(hi % 8);
    }
    return NULL;
}

bool axe__cuda_i4_cast(const axe_program *p, const ax_stmt *s)
{
    i4_pairs pr;
    return i4_f16_cast(p, s) && i4_pairs_of(p, s, true, &pr) == NULL;
}

void axe__cuda_emit_i4_cast(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind)
{
    const char *d = p->tensors[s->args[0].tensor].cname;
    const char *x = p->tensors[s->args[1].tensor].cname;
    i4_pairs pr;
    bool checked;
    int j;
    if (i4_pairs_of(p, s, true, &pr) != NULL)
        return;
    /* a data-dependent start (on an extent-1 dimension: the register
     * indices are constant) is range-checked as every operator's is */
    checked = axe__emit_start_checks(t, p, s, ind);
    ind += checked;
    axe__text_put(t,
                  "%*s{ /* op %d (line %d%s%s): %s cast -- schedule "
                  "cast.%s; cuda: i4 -> f16 by bit tricks, a 32-bit word "
                  "of two nibbles to one of two f16 (prmt, lop3, "
                  "fma.rn.f16x2) */\n",
                  ind * 4, "", s->index, s->line, axe__iter_sep(s),
                  axe__iter(s), axe__stmt_scope_name(p, s), s->schedule);
    for (j = 0; j < pr.n; j++)
        axe__text_put(t,
                      "%*s%s[%lldL] = ax_i4h2(*(const uint32_t *)&%s[%lldL], "
                      "%d, %d);\n",
                      ind * 4 + 4, "", d, (long long)pr.dst[j], x,
                      (long long)(4 * pr.src[j]), pr.lo[j], pr.hi[j]);
    axe__text_put(t, "%*s}\n", ind * 4, "");
    if (checked)
        axe__text_put(t, "%*s}\n", (ind - 1) * 4, "");
}

/* The line --explain adds to i4 -> f16 register cast "s": the form
 * emitted, and why not by bit tricks. */
static axe_status explain_one(const axe_program *p, ax_stmt *s)
{
    i4_pairs pr;
    const char *why = i4_pairs_of(p, s, false, &pr);
    ax_text t;
    axe__text_init(&t, p->arena);
    axe__text_put(&t, "%s", s->explain != NULL ? s->explain : "");
    if (why == NULL)
        axe__text_put(&t,
                      "  cast form: i4 -> f16 by bit tricks, each 32-bit "
                      "word of two f16 from two nibbles of one word of the "
                      "i4 register (prmt.b32, lop3.b32, fma.rn.f16x2; %d "
                      "words per thread)\n",
                      pr.n);
    else
        axe__text_put(&t,
                      "  cast form: i4 -> f16 per element (the nibble "
                      "sign-extended, converted to f16), not by bit "
                      "tricks: %s\n",
                      why);
    if (t.status == AXE_OK)
        s->explain = t.buf;
    return t.status;
}

axe_status axe__cuda_i4_cast_explain(const axe_program *p, ax_stmt *s)
{
    for (; s != NULL; s = s->next) {
        AXE_TRY(axe__cuda_i4_cast_explain(p, s->body));
        AXE_TRY(axe__cuda_i4_cast_explain(p, s->else_body));
        if (i4_f16_cast(p, s))
            AXE_TRY(explain_one(p, s));
    }
    return AXE_OK;
}

/* The helper ax_i4h2 and the PTX wrappers it calls (emulated: the
 * emulation header's). */
static const char i4h2_text[] =
    "#ifndef AXE_CUDA_EMULATE /* the PTX instructions (emulated "
    "otherwise) */\n"
    "static __device__ __forceinline__ uint32_t axe_ptx_prmt(uint32_t "
    "a, uint32_t b, uint32_t c)\n{\n    uint32_t d;\n"
    "    asm(\"prmt.b32 %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), "
    "\"r\"(b), \"r\"(c));\n    return d;\n}\n"
    "static __device__ __forceinline__ uint32_t "
    "axe_ptx_lop3_andxor(uint32_t a, uint32_t b, uint32_t c)\n{\n"
    "    uint32_t d;\n"
    "    asm(\"lop3.b32 %0, %1, %2, %3, 0x6a;\" : \"=r\"(d) : "
    "\"r\"(a), \"r\"(b), \"r\"(c));\n    return d;\n}\n"
    "static __device__ __forceinline__ uint32_t "
    "axe_ptx_fma_rn_f16x2(uint32_t a, uint32_t b, uint32_t c)\n{\n"
    "    uint32_t d;\n"
    "    asm(\"fma.rn.f16x2 %0, %1, %2, %3;\" : \"=r\"(d) : "
    "\"r\"(a), \"r\"(b), \"r\"(c));\n    return d;\n}\n"
    "#endif\n\n"
    "/* Nibbles a (low half) and b (high half) of the packed i4 word w\n"
    " * as two f16: their bytes moved to bytes 0 and 2 (prmt), each\n"
    " * nibble masked in place and xored with 0x6400 and its top bit\n"
    " * (lop3: the f16 1024 + v + 8, or 1024 + 16 (v + 8) for a high\n"
    " * nibble), then times 1 (1/16) minus 1032 (72): v exactly. */\n"
    "static __device__ __forceinline__ __attribute__((unused)) uint32_t "
    "ax_i4h2(uint32_t w, int a, int b)\n{\n"
    "    const uint32_t ha = (uint32_t)(a % 2), hb = (uint32_t)(b % 2);\n"
    "    const uint32_t sel = (uint32_t)(a / 2) | 0x10u | (uint32_t)(b "
    "/ 2) << 8 | 0x3000u;\n"
    "    const uint32_t mask = (ha ? 0xf0u : 0xfu) | (hb ? 0xf00000u : "
    "0xf0000u);\n"
    "    const uint32_t magic = 0x64006400u | (ha ? 0x80u : 0x8u) | (hb "
    "? 0x800000u : 0x80000u);\n"
    "    const uint32_t scale = (ha ? 0x2c00u : 0x3c00u) | (hb ? "
    "0x2c000000u : 0x3c000000u);\n"
    "    const uint32_t bias = (ha ? 0xd480u : 0xe408u) | (hb ? "
    "0xd4800000u : 0xe4080000u);\n"
    "    return axe_ptx_fma_rn_f16x2(axe_ptx_lop3_andxor(axe_ptx_prmt(w, "
    "w, sel), mask, magic), scale, bias);\n}\n";

/* The helpers when "body" calls ax_i4h2. */
void axe__cuda_i4_cast_helpers(ax_text *t, const char *body)
{
    if (strstr(body, "ax_i4h2(") != NULL)
        axe__text_put(t, "%s", i4h2_text);
}
