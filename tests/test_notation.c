/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the CuTe notation (axe/notation.h, docs/notation.md): canonical
 * strings of every kind must round-trip print(parse(s)) == s; accepted
 * non-canonical spellings (CuTe C++ static prints, CuTe-IR tilers, `S<>`,
 * whitespace) must print canonically; a reject list must fail with the
 * given status and byte offset and leave the out-parameter untouched;
 * printers must truncate safely at every capacity while returning the full
 * length. Seeded random laws (AXE_TEST_SEED=N replays): random tuples,
 * layouts with scaled-basis strides, tilers, swizzles and composed layouts
 * survive print -> parse -> print and compare equal as values; random
 * truncations of valid text either parse or fail with a sane offset.
 * Invariant: every failing row prints itself; the last line is
 * "N passed, N failed".
 */
#include "testlib.h"

/* Printed text of "o" in a rotating static buffer. */
static const char *ostr(const axe_cute_object *o)
{
    static char buf[4][4096];
    static int k;
    k = (k + 1) % 4;
    axe_print_cute(o, buf[k], sizeof buf[k]);
    return buf[k];
}

static const char *kind_name(axe_cute_kind kind)
{
    switch (kind) {
    case AXE_CUTE_KIND_TUPLE:
        return "tuple";
    case AXE_CUTE_KIND_LAYOUT:
        return "layout";
    case AXE_CUTE_KIND_TILER:
        return "tiler";
    case AXE_CUTE_KIND_SWIZZLE:
        return "swizzle";
    case AXE_CUTE_KIND_COMPOSED:
        return "composed";
    }
    return "?";
}

/* Canonical strings: print(parse(s)) == s and the kind is as given. */
static const struct {
    const char *s;
    axe_cute_kind kind;
} canonical[] = {
    {"4", AXE_CUTE_KIND_TUPLE},
    {"-3", AXE_CUTE_KIND_TUPLE},
    {"0", AXE_CUTE_KIND_TUPLE},
    {"_", AXE_CUTE_KIND_TUPLE},
    {"()", AXE_CUTE_KIND_TUPLE},
    {"(4)", AXE_CUTE_KIND_TUPLE},
    {"(())", AXE_CUTE_KIND_TUPLE},
    {"((),())", AXE_CUTE_KIND_TUPLE},
    {"(1,_,3)", AXE_CUTE_KIND_TUPLE},
    {"((2,_),(_,(0,-1)))", AXE_CUTE_KIND_TUPLE},
    {"(9223372036854775807,-9223372036854775807)", AXE_CUTE_KIND_TUPLE},
    {"8:1", AXE_CUTE_KIND_LAYOUT},
    {"1:0", AXE_CUTE_KIND_LAYOUT},
    {"(4,8):(1,4)", AXE_CUTE_KIND_LAYOUT},
    {"((4,8),2):((16,1),8)", AXE_CUTE_KIND_LAYOUT},
    {"((2,2),3):((24,2),8)", AXE_CUTE_KIND_LAYOUT},
    {"(4,8):(-1,4)", AXE_CUTE_KIND_LAYOUT},
    {"(3,(2,3)):(-12,(0,-1))", AXE_CUTE_KIND_LAYOUT},
    {"(4,8):(1@0,1@1)", AXE_CUTE_KIND_LAYOUT},
    {"(2,3):(1@1@4,-2@0)", AXE_CUTE_KIND_LAYOUT},
    {"4:3@1@2@3", AXE_CUTE_KIND_LAYOUT},
    {"32:1@255", AXE_CUTE_KIND_LAYOUT},
    {"((2,3),4):((1@0,1@1),1@2)", AXE_CUTE_KIND_LAYOUT},
    {"():()", AXE_CUTE_KIND_LAYOUT},
    {"(()):(())", AXE_CUTE_KIND_LAYOUT},
    {"((),4):((),1)", AXE_CUTE_KIND_LAYOUT},
    {"(8):(1)", AXE_CUTE_KIND_LAYOUT},
    {"9223372036854775807:-9223372036854775807", AXE_CUTE_KIND_LAYOUT},
    {"<4:1, 8:2>", AXE_CUTE_KIND_TILER},
    {"<4:1>", AXE_CUTE_KIND_TILER},
    {"<_, 8:2>", AXE_CUTE_KIND_TILER},
    {"<<8:1, 4:1>, _, 2:1>", AXE_CUTE_KIND_TILER},
    {"<(8):(1), (4):(1)>", AXE_CUTE_KIND_TILER},
    {"<(2,2):(1,4), 8:1@1>", AXE_CUTE_KIND_TILER},
    {"<<<2:1>>>", AXE_CUTE_KIND_TILER},
    {"<>", AXE_CUTE_KIND_TILER},
    {"<<>, 4:1>", AXE_CUTE_KIND_TILER},
    {"Sw<3,4,3>", AXE_CUTE_KIND_SWIZZLE},
    {"Sw<0,0,0>", AXE_CUTE_KIND_SWIZZLE},
    {"Sw<2,0,-3>", AXE_CUTE_KIND_SWIZZLE},
    {"Sw<1,2,5>", AXE_CUTE_KIND_SWIZZLE},
    {"Sw<3,4,3> o 0 o (8,64):(64,1)", AXE_CUTE_KIND_COMPOSED},
    {"(2,3):(3,1) o 2 o (3,4):(4,1)", AXE_CUTE_KIND_COMPOSED},
    {"(4,3):(1@0,1@1) o (1,1) o (4,3):(1,4)", AXE_CUTE_KIND_COMPOSED},
    {"Sw<2,1,2> o -5 o 8:1", AXE_CUTE_KIND_COMPOSED},
    {"Sw<3,4,3> o ((1,2),3) o ((4,8),2):((16,1),8)", AXE_CUTE_KIND_COMPOSED},
    {"Sw<3,4,3> o 0 o ():()", AXE_CUTE_KIND_COMPOSED},
};

static void test_round_trip(void)
{
    for (size_t i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
        const char *s = canonical[i].s;
        axe_cute_object o;
        axe_diag d;
        axe_status st = axe_parse_cute(s, strlen(s), &o, &d);
        if (st != AXE_OK) {
            TL_CHECK(0, "parse %s: %s at %ld: %s", s, axe_status_name(st),
                     d.offset, d.message);
            continue;
        }
        TL_CHECK(strcmp(ostr(&o), s) == 0 && o.kind == canonical[i].kind,
                 "round trip %s -> %s (%s)", s, ostr(&o), kind_name(o.kind));
    }
}

/* Accepted spellings and their canonical print. */
static void test_accepted(void)
{
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"(_4,_8):(_1,_4)", "(4,8):(1,4)"},
        {"(_512,_2048):(_1@0,_1@1)", "(512,2048):(1@0,1@1)"},
        {"(_4,_8):(_-1,_4)", "(4,8):(-1,4)"},
        {"(_1,_-2)", "(1,-2)"},
        {"(_-1,_)", "(-1,_)"},
        {"<<<<<<<<<<<<<<<4:1>>>>>>>>>>>>>>>",
         "<<<<<<<<<<<<<<<4:1>>>>>>>>>>>>>>>"},
        {"-_4", "-4"},
        {"_3", "3"},
        {"[4:1;8:2]", "<4:1, 8:2>"},
        {"[4:1; 8:2]", "<4:1, 8:2>"},
        {"[[8:1;4:1];_;2:1]", "<<8:1, 4:1>, _, 2:1>"},
        {"[(8):(1);(4):(1)]", "<(8):(1), (4):(1)>"},
        {"<[8:1;4:1], _>", "<<8:1, 4:1>, _>"},
        {"[]", "<>"},
        {"<4:1,8:2>", "<4:1, 8:2>"},
        {"< 4:1 , 8:2 >", "<4:1, 8:2>"},
        {"<4, 8:2>", "<4:1, 8:2>"},
        {"<(3,8)>", "<<3:1, 8:1>>"},
        {"<(3,(2,4)), _>", "<<3:1, <2:1, 4:1>>, _>"},
        {"<()>", "<<>>"},
        {"S<3,4,3>", "Sw<3,4,3>"},
        {"Sw <3, 4, 3>", "Sw<3,4,3>"},
        {"S<3,4,3> o 0 o (5,4,2):(8,2,1)", "Sw<3,4,3> o 0 o (5,4,2):(8,2,1)"},
        {"Sw<3,4,3>o 0 o 8:1", "Sw<3,4,3> o 0 o 8:1"},
        {"Sw<3,4,3>  o  0  o  8:1", "Sw<3,4,3> o 0 o 8:1"},
        {"Sw<3,4,3> o\n0 o\t8:1", "Sw<3,4,3> o 0 o 8:1"},
        {"Sw<3,4,3> o\r\n0 o\r\n8:1", "Sw<3,4,3> o 0 o 8:1"},
        {"  ( 4 , 8 ) : ( 1 , 4 )  ", "(4,8):(1,4)"},
        {"\t(4,\n8):\r(1,4)\n", "(4,8):(1,4)"},
        {"-0", "0"},
        {"007", "7"},
        {"(4,8):(-0,4)", "(4,8):(0,4)"},
        {"(4,8):(0@1,4)", "(4,8):(0,4)"},
        {"(4,8):(1@00,4)", "(4,8):(1@0,4)"},
        {"( 1 , _ )", "(1,_)"},
        {"(64,):(1,)", "(64):(1)"},
        {"(64 , ) : ( 1 , )", "(64):(1)"},
        {"(64,)", "(64)"},
        {"((2,),3):((1,),2)", "((2),3):((1),2)"},
        {"((4,8),):((1,4),)", "((4,8)):((1,4))"},
        {"(4,):(1@1,)", "(4):(1@1)"},
        {"<(8,)>", "<<8:1>>"},
        {"<(8,):(2,)>", "<(8):(2)>"},
        {"(3,):(1,) o 0 o 8:1", "(3):(1) o 0 o 8:1"},
        {"Sw<1,0,1> o (0,) o (2,):(1,)", "Sw<1,0,1> o (0) o (2):(1)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_cute_object o;
        axe_diag d;
        axe_status st = axe_parse_cute(rows[i].in, strlen(rows[i].in), &o, &d);
        TL_CHECK(st == AXE_OK && strcmp(ostr(&o), rows[i].out) == 0,
                 "accept \"%s\" -> %s (%s %s)", rows[i].in,
                 st == AXE_OK ? ostr(&o) : "-", axe_status_name(st),
                 st == AXE_OK ? "" : d.message);
    }
}

typedef struct reject_row {
    const char *s;
    axe_status st;
    long offset;
} reject_row;

/* Malformed text: axe_parse_cute fails with this status and offset. */
static const reject_row rejects[] = {
    {"", AXE_ERR_SYNTAX, 0},
    {"   ", AXE_ERR_SYNTAX, 3},
    {"(", AXE_ERR_SYNTAX, 1},
    {"(4,8", AXE_ERR_SYNTAX, 4},
    {"(4,8):", AXE_ERR_SYNTAX, 6},
    {"(4,8):(1,", AXE_ERR_SYNTAX, 9},
    {"(4,8):(1,4", AXE_ERR_SYNTAX, 10},
    {"(4,8:(1,4)", AXE_ERR_SYNTAX, 4},
    {"4:", AXE_ERR_SYNTAX, 2},
    {":4", AXE_ERR_SYNTAX, 0},
    {"4::1", AXE_ERR_SYNTAX, 2},
    {"(4,8):(1,4,5)", AXE_ERR_SYNTAX, 6},
    {"(4,8):((1,4))", AXE_ERR_SYNTAX, 6},
    {"(4,8):4", AXE_ERR_SYNTAX, 6},
    {"0:1", AXE_ERR_SYNTAX, 0},
    {"(4,0):(1,4)", AXE_ERR_SYNTAX, 3},
    {"(4,-8):(1,4)", AXE_ERR_SYNTAX, 3},
    {"_:1", AXE_ERR_SYNTAX, 0},
    {"(4,_):(1,2)", AXE_ERR_SYNTAX, 3},
    {"4:_", AXE_ERR_SYNTAX, 2},
    {"(4,,8)", AXE_ERR_SYNTAX, 3},
    {"(4,8,)", AXE_ERR_SYNTAX, 5},
    {"(,)", AXE_ERR_SYNTAX, 1},
    {"(4,,)", AXE_ERR_SYNTAX, 3},
    {"((4,8),,)", AXE_ERR_SYNTAX, 7},
    {"(64,):(1,,)", AXE_ERR_SYNTAX, 9},
    {"(64,):1", AXE_ERR_SYNTAX, 6},
    {"(4 8)", AXE_ERR_SYNTAX, 3},
    {"- 4", AXE_ERR_SYNTAX, 1},
    {"--4", AXE_ERR_SYNTAX, 1},
    {"4.0", AXE_ERR_SYNTAX, 1},
    {"0x10", AXE_ERR_SYNTAX, 1},
    {"99999999999999999999:1", AXE_ERR_OVERFLOW, 0},
    {"9223372036854775808", AXE_ERR_OVERFLOW, 0},
    {"-9223372036854775808", AXE_ERR_OVERFLOW, 0},
    {"(1,-9223372036854775808)", AXE_ERR_OVERFLOW, 3},
    {"4:-9223372036854775808", AXE_ERR_OVERFLOW, 2},
    {"(4,\xc3\xa9):(1,4)", AXE_ERR_SYNTAX, 3},
    {"\xff", AXE_ERR_SYNTAX, 0},
    {"(4,8):(1,4)x", AXE_ERR_SYNTAX, 11},
    {"(4,8):(1,4) junk", AXE_ERR_SYNTAX, 12},
    {"(4,8):(1,4) (4,8):(1,4)", AXE_ERR_SYNTAX, 12},
    {"4 5", AXE_ERR_SYNTAX, 2},
    {"(4,8):(1 @0,4)", AXE_ERR_SYNTAX, 9},
    {"(4,8):(1@,4)", AXE_ERR_SYNTAX, 9},
    {"4:1@-1", AXE_ERR_SYNTAX, 4},
    {"4:1@256", AXE_ERR_CAPACITY, 7},
    {"4:1@1@1@1@1", AXE_ERR_CAPACITY, 11},
    {"Sw<1,2>", AXE_ERR_SYNTAX, 6},
    {"Sw<3,4,2>", AXE_ERR_SYNTAX, 2},
    {"Sw<-1,4,3>", AXE_ERR_SYNTAX, 2},
    {"Sw<30,2,31>", AXE_ERR_SYNTAX, 2},
    {"Sw<64,0,64>", AXE_ERR_SYNTAX, 3},
    {"Sw<3,4,3,>", AXE_ERR_SYNTAX, 8},
    {"Sw<3,4,3", AXE_ERR_SYNTAX, 8},
    {"Sw<3,4", AXE_ERR_SYNTAX, 6},
    {"Sw", AXE_ERR_SYNTAX, 2},
    {"Sx<3,4,3>", AXE_ERR_SYNTAX, 1},
    {"S w<3,4,3>", AXE_ERR_SYNTAX, 2},
    {"o", AXE_ERR_SYNTAX, 0},
    {"o 0 o 8:1", AXE_ERR_SYNTAX, 0},
    {"Sw<3,4,3> o", AXE_ERR_SYNTAX, 11},
    {"Sw<3,4,3> o 0", AXE_ERR_SYNTAX, 13},
    {"Sw<3,4,3> o 0 o", AXE_ERR_SYNTAX, 15},
    {"Sw<3,4,3> o 0 o 8", AXE_ERR_SYNTAX, 17},
    {"Sw<3,4,3> o _ o 8:1", AXE_ERR_SYNTAX, 12},
    {"Sw<3,4,3> o 0 o Sw<3,4,3>", AXE_ERR_SYNTAX, 16},
    {"Sw<3,4,3> o0 o 8:1", AXE_ERR_SYNTAX, 10},
    {"8:1 o 0", AXE_ERR_SYNTAX, 7},
    {"8:1 o 0 o 8:1 o 0 o 8:1", AXE_ERR_SYNTAX, 14},
    {"(4,8) o 0 o 8:1", AXE_ERR_SYNTAX, 6},
    {"<", AXE_ERR_SYNTAX, 1},
    {"<4:1, ", AXE_ERR_SYNTAX, 6},
    {"<4:1; 8:2>", AXE_ERR_SYNTAX, 4},
    {"<4:1, 8:2]", AXE_ERR_SYNTAX, 9},
    {"[4:1, 8:2]", AXE_ERR_SYNTAX, 4},
    {"<4:1,>", AXE_ERR_SYNTAX, 5},
    {"<4:1, 8:2> o 0 o 8:1", AXE_ERR_SYNTAX, 11},
    {"<0:1>", AXE_ERR_SYNTAX, 1},
    {"<(4,0)>", AXE_ERR_SYNTAX, 4},
    {"<4:1, 8:2>>", AXE_ERR_SYNTAX, 10},
    {"<(1,1,1,1,1,1,1,1,1)>", AXE_ERR_CAPACITY, 1},
    {"<4:1, (1,1,1,1,1,1,1,1)>", AXE_ERR_CAPACITY, 6},
    {"<<<<<<<<<<<<<<<<4:1>>>>>>>>>>>>>>>>", AXE_ERR_CAPACITY, 0},
    {"<_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_>",
     AXE_ERR_CAPACITY, 0},
    {"_--1", AXE_ERR_SYNTAX, 1},
    {"_ -1", AXE_ERR_SYNTAX, 2},
};

static void check_reject(const reject_row *r, size_t len)
{
    axe_cute_object o, keep;
    axe_diag d;
    axe_status st;
    memset(&o, 0x5a, sizeof o);
    keep = o;
    axe_diag_clear(&d);
    st = axe_parse_cute(r->s, len, &o, &d);
    TL_CHECK(st == r->st && d.offset == r->offset && d.message[0] != '\0',
             "reject \"%s\": %s at %ld (want %s at %ld): %s", r->s,
             axe_status_name(st), d.offset, axe_status_name(r->st), r->offset,
             d.message);
    TL_CHECK(memcmp(&o, &keep, sizeof o) == 0,
             "reject \"%s\": out-parameter written", r->s);
    TL_CHECK(axe_parse_cute(r->s, len, &o, NULL) == r->st,
             "reject \"%s\" with diag NULL", r->s);
}

static void test_reject(void)
{
    for (size_t i = 0; i < sizeof rejects / sizeof rejects[0]; i++)
        check_reject(&rejects[i], strlen(rejects[i].s));
}

/* "n" copies of "open", "mid", "n" copies of "close" into "buf". */
static size_t repeat_text(char *buf, size_t cap, int n, char open,
                          const char *mid, char close)
{
    size_t k = 0, m = strlen(mid);
    for (int i = 0; i < n && k + 1 < cap; i++)
        buf[k++] = open;
    for (size_t i = 0; i < m && k + 1 < cap; i++)
        buf[k++] = mid[i];
    for (int i = 0; close != '\0' && i < n && k + 1 < cap; i++)
        buf[k++] = close;
    buf[k] = '\0';
    return k;
}

/* Long and deep inputs fail with CAPACITY at the first element that does
 * not fit, never by running out of stack. */
static void test_limits(void)
{
    static char buf[40000];
    static const struct {
        int n;
        char open;
        const char *mid;
        char close;
        axe_status st;
        long offset;
    } rows[] = {
        {10000, '(', "4", ')', AXE_ERR_CAPACITY, AXE_TUPLE_MAX_DEPTH},
        {10000, '<', "4:1", '>', AXE_ERR_CAPACITY, AXE_TUPLE_MAX_DEPTH},
        {10000, '[', "", '\0', AXE_ERR_CAPACITY, AXE_TUPLE_MAX_DEPTH},
        {16, '(', "4", ')', AXE_OK, -1},
        {17, '(', "4", ')', AXE_ERR_CAPACITY, AXE_TUPLE_MAX_DEPTH},
        {8, '<', "4:1", '>', AXE_OK, -1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        reject_row r = {buf, rows[i].st, rows[i].offset};
        size_t len = repeat_text(buf, sizeof buf, rows[i].n, rows[i].open,
                                 rows[i].mid, rows[i].close);
        axe_cute_object o;
        if (rows[i].st == AXE_OK)
            TL_CHECK(axe_parse_cute(buf, len, &o, NULL) == AXE_OK,
                     "limit row %zu parses", i);
        else
            check_reject(&r, len);
    }
}

/* `(1,1,...)` with "n" leaves; `<1:1, ...>` with "n" layouts. */
static void test_capacity(void)
{
    static char buf[8192];
    axe_cute_object o;
    axe_diag d;
    size_t k = 0;
    buf[k++] = '(';
    for (int i = 0; i < AXE_TUPLE_MAX_LEAVES + 1; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "1,");
    buf[k - 1] = ')';
    TL_CHECK(axe_parse_cute(buf, k, &o, &d) == AXE_ERR_CAPACITY &&
                 d.offset == 1 + 2 * AXE_TUPLE_MAX_LEAVES,
             "33 leaves: CAPACITY at the 33rd leaf, got %ld", d.offset);
    TL_CHECK(axe_parse_cute(buf, k - 2, &o, &d) == AXE_ERR_SYNTAX,
             "32 leaves, unclosed: SYNTAX");
    k = 0;
    buf[k++] = '<';
    for (int i = 0; i < AXE_CUTE_TILER_MAX + 1; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "1:1, ");
    buf[k - 2] = '>';
    TL_CHECK(axe_parse_cute(buf, k - 1, &o, &d) == AXE_ERR_CAPACITY &&
                 d.offset == 1 + 5 * AXE_CUTE_TILER_MAX,
             "9-layout tiler: CAPACITY at the 9th layout, got %ld", d.offset);
    buf[5 * AXE_CUTE_TILER_MAX - 1] = '>';
    TL_CHECK(axe_parse_cute(buf, 5 * AXE_CUTE_TILER_MAX, &o, &d) == AXE_OK,
             "8-layout tiler parses: %s", d.message);
}

/* The typed entry points: a tuple parser and a layout parser. */
static void test_typed_parsers(void)
{
    static const struct {
        int layout; /* 1: axe_parse_cute_layout, 0: axe_parse_tuple */
        const char *s;
        axe_status st;
        long offset;
        const char *out;
    } rows[] = {
        {0, "((2,_),3)", AXE_OK, -1, "((2,_),3)"},
        {0, "(_4,-_2)", AXE_OK, -1, "(4,-2)"},
        {0, "4:1", AXE_ERR_SYNTAX, 1, NULL},
        {0, "", AXE_ERR_SYNTAX, 0, NULL},
        {0, "<4:1>", AXE_ERR_SYNTAX, 0, NULL},
        {1, "(4,8):(1@0,-1)", AXE_OK, -1, "(4,8):(1@0,-1)"},
        {1, "(4,8)", AXE_ERR_SYNTAX, 5, NULL},
        {1, "0:1", AXE_ERR_SYNTAX, 0, NULL},
        {1, "(4,_):(1,2)", AXE_ERR_SYNTAX, 3, NULL},
        {1, "Sw<3,4,3>", AXE_ERR_SYNTAX, 0, NULL},
        {1, "8:1 o 0 o 8:1", AXE_ERR_SYNTAX, 4, NULL},
        {1, "(4,8):(1,4,5)", AXE_ERR_SYNTAX, 6, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[256] = "";
        axe_tuple t;
        axe_cute_layout l;
        axe_diag d;
        axe_status st;
        axe_diag_clear(&d);
        if (rows[i].layout) {
            st = axe_parse_cute_layout(rows[i].s, strlen(rows[i].s), &l, &d);
            if (st == AXE_OK)
                axe_print_cute_layout(&l, buf, sizeof buf);
        } else {
            st = axe_parse_tuple(rows[i].s, strlen(rows[i].s), &t, &d);
            if (st == AXE_OK)
                axe_print_tuple(&t, buf, sizeof buf);
        }
        TL_CHECK(st == rows[i].st &&
                     (st == AXE_OK ? strcmp(buf, rows[i].out) == 0
                                   : d.offset == rows[i].offset),
                 "%s \"%s\": %s at %ld -> %s",
                 rows[i].layout ? "parse_cute_layout" : "parse_tuple",
                 rows[i].s, axe_status_name(st), d.offset, buf);
    }
}

/* The input is exactly "len" bytes: no NUL terminator is needed and bytes
 * past "len" are never read. */
static void test_length_bound(void)
{
    static const char text[] = "(4,8):(1,4)JUNK";
    axe_cute_object o;
    axe_diag d;
    char *heap = malloc(11);
    memcpy(heap, text, 11);
    TL_CHECK(axe_parse_cute(heap, 11, &o, &d) == AXE_OK &&
                 strcmp(ostr(&o), "(4,8):(1,4)") == 0,
             "parse of 11 unterminated bytes");
    TL_CHECK(axe_parse_cute(heap, 10, &o, &d) == AXE_ERR_SYNTAX &&
                 d.offset == 10,
             "parse of 10 bytes: SYNTAX at 10, got %ld", d.offset);
    TL_CHECK(axe_parse_cute("(4,\0):(1)", 9, &o, &d) == AXE_ERR_SYNTAX &&
                 d.offset == 3,
             "embedded NUL: SYNTAX at 3, got %ld", d.offset);
    free(heap);
}

/* Printing "o" with every capacity 0..len+1: the return value is always
 * the full length, the buffer holds the NUL-terminated prefix, and no byte
 * at or past "cap" is written. */
static void check_truncation(const axe_cute_object *o)
{
    char full[4096], buf[4096 + 8];
    size_t len = axe_print_cute(o, full, sizeof full);
    int bad = axe_print_cute(o, NULL, 0) != len;
    for (size_t cap = 0; cap <= len + 1 && !bad; cap++) {
        size_t got, keep;
        memset(buf, '#', len + 8);
        got = axe_print_cute(o, buf, cap);
        keep = cap == 0 ? 0 : (cap - 1 < len ? cap - 1 : len);
        bad = got != len ||
              (cap > 0 && (memcmp(buf, full, keep) != 0 || buf[keep] != 0));
        for (size_t k = cap; k < len + 8 && !bad; k++)
            bad = buf[k] != '#';
    }
    TL_CHECK(!bad && len < sizeof full, "truncated print of %s", full);
}

/* The kind-specific printers agree with axe_print_cute. */
static void check_printers_agree(const axe_cute_object *o)
{
    char a[4096], b[4096];
    size_t na = axe_print_cute(o, a, sizeof a), nb = 0;
    switch (o->kind) {
    case AXE_CUTE_KIND_TUPLE:
        nb = axe_print_tuple(&o->tuple, b, sizeof b);
        break;
    case AXE_CUTE_KIND_LAYOUT:
        nb = axe_print_cute_layout(&o->layout, b, sizeof b);
        break;
    case AXE_CUTE_KIND_TILER:
        nb = axe_print_cute_tiler(&o->tiler, b, sizeof b);
        break;
    case AXE_CUTE_KIND_SWIZZLE:
        nb = axe_print_swizzle(&o->swizzle, b, sizeof b);
        break;
    case AXE_CUTE_KIND_COMPOSED:
        nb = axe_print_cute_composed(&o->composed, b, sizeof b);
        break;
    }
    TL_CHECK(na == nb && strcmp(a, b) == 0, "printer for %s gives %s", a, b);
}

static void test_printers(void)
{
    for (size_t i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
        axe_cute_object o;
        const char *s = canonical[i].s;
        if (axe_parse_cute(s, strlen(s), &o, NULL) != AXE_OK)
            continue;
        check_truncation(&o);
        check_printers_agree(&o);
    }
}

/* ---- random values ------------------------------------------------- */

/* A random basis code of depth 1..3 with modes mostly small. */
static uint32_t random_basis(void)
{
    int depth = (int)tl_range(1, AXE_CUTE_BASIS_MAX_DEPTH);
    uint32_t code = (uint32_t)depth << 24;
    for (int lvl = 0; lvl < depth; lvl++) {
        int64_t k = tl_range(0, 7) == 0 ? tl_range(0, 255) : tl_range(0, 3);
        code |= (uint32_t)k << (16 - 8 * lvl);
    }
    return code;
}

/* An extreme or ordinary 64-bit value for strides and coordinates. */
static int64_t random_value(void)
{
    switch (tl_range(0, 9)) {
    case 0:
        return INT64_MAX;
    case 1:
        return -INT64_MAX;
    case 2:
        return tl_range(-1000000000000, 1000000000000);
    default:
        return tl_range(-64, 64);
    }
}

/* A random layout from the testlib generator, with extreme values and
 * scaled-basis strides mixed in (a zero stride has no basis). */
static axe_cute_layout random_layout(void)
{
    axe_cute_layout l =
        tl_random_layout(AXE_CUTE_MAX_LEAVES / 2, 4, 1 << 20, 64, 1);
    for (int i = 0; i < l.shape.nleaf; i++) {
        if (tl_range(0, 5) == 0)
            l.stride[i] = random_value();
        if (tl_range(0, 15) == 0)
            l.shape.v[i] = tl_range(1, INT64_MAX);
        if (l.stride[i] != 0 && tl_range(0, 2) == 0)
            l.basis[i] = random_basis();
    }
    return l;
}

/* A random tuple: the profile of a random layout, leaves random values or
 * `_`, sometimes with an empty tuple wrapped around or prepended. */
static axe_tuple random_tuple(bool underscores)
{
    axe_cute_layout l =
        tl_random_layout(AXE_TUPLE_MAX_LEAVES / 2, 4, 1 << 20, 1, 0);
    axe_tuple t = l.shape;
    for (int i = 0; i < t.nleaf; i++)
        t.v[i] = underscores && tl_range(0, 4) == 0 ? AXE_UNDERSCORE
                                                    : random_value();
    if (t.tok[0] == '(' && t.ntok + 2 <= AXE_TUPLE_MAX_TOKENS &&
        tl_range(0, 5) == 0) {
        memmove(t.tok + 3, t.tok + 1, (size_t)t.ntok - 1);
        t.tok[1] = '(';
        t.tok[2] = ')';
        t.ntok = (uint8_t)(t.ntok + 2);
    }
    return t;
}

/* A random tiler of depth <= 3 within the token and layout capacities. */
static void random_tiler_rec(axe_cute_tiler *t, int depth)
{
    int n = (int)tl_range(0, 3);
    t->tok[t->ntok++] = '[';
    for (int i = 0; i < n && t->ntok + depth + 4 < AXE_CUTE_TILER_MAX_TOKENS;
         i++) {
        int64_t r = tl_range(0, 5);
        if (r == 0 && depth < 3) {
            random_tiler_rec(t, depth + 1);
        } else if (r == 1 || t->nelem >= AXE_CUTE_TILER_MAX) {
            t->tok[t->ntok++] = '_';
        } else {
            t->elem[t->nelem++] = random_layout();
            t->tok[t->ntok++] = 'L';
        }
    }
    t->tok[t->ntok++] = ']';
}

static axe_swizzle random_swizzle(void)
{
    axe_swizzle sw;
    for (;;) {
        int bits = (int)tl_range(0, 8), base = (int)tl_range(0, 12);
        int shift = (int)tl_range(bits, bits + 8);
        if (tl_range(0, 3) == 0)
            shift = -shift;
        if (axe_swizzle_make(bits, base, shift, &sw, NULL) == AXE_OK)
            return sw;
    }
}

/* A random object of kind "kind" (only the member of that kind set). */
static void random_object(axe_cute_kind kind, axe_cute_object *o)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    switch (kind) {
    case AXE_CUTE_KIND_TUPLE:
        o->tuple = random_tuple(true);
        break;
    case AXE_CUTE_KIND_LAYOUT:
        o->layout = random_layout();
        break;
    case AXE_CUTE_KIND_TILER:
        random_tiler_rec(&o->tiler, 0);
        break;
    case AXE_CUTE_KIND_SWIZZLE:
        o->swizzle = random_swizzle();
        break;
    case AXE_CUTE_KIND_COMPOSED:
        o->composed.kind =
            tl_range(0, 1) ? AXE_CUTE_OUTER_SWIZZLE : AXE_CUTE_OUTER_LAYOUT;
        o->composed.swizzle = random_swizzle();
        o->composed.outer = random_layout();
        o->composed.offset = random_tuple(false);
        o->composed.inner = random_layout();
        break;
    }
}

/* ---- value equality ------------------------------------------------ */

static bool layout_same(const axe_cute_layout *a, const axe_cute_layout *b)
{
    size_t n = a->shape.nleaf;
    return axe_tuple_equal(&a->shape, &b->shape) &&
           memcmp(a->stride, b->stride, n * sizeof a->stride[0]) == 0 &&
           memcmp(a->basis, b->basis, n * sizeof a->basis[0]) == 0;
}

static bool tiler_same(const axe_cute_tiler *a, const axe_cute_tiler *b)
{
    if (a->ntok != b->ntok || a->nelem != b->nelem ||
        memcmp(a->tok, b->tok, a->ntok) != 0)
        return false;
    for (int i = 0; i < a->nelem; i++)
        if (!layout_same(&a->elem[i], &b->elem[i]))
            return false;
    return true;
}

static bool swizzle_same(const axe_swizzle *a, const axe_swizzle *b)
{
    return a->bits == b->bits && a->base == b->base && a->shift == b->shift;
}

static bool composed_same(const axe_cute_composed *a,
                          const axe_cute_composed *b)
{
    if (a->kind != b->kind || !axe_tuple_equal(&a->offset, &b->offset) ||
        !layout_same(&a->inner, &b->inner))
        return false;
    return a->kind == AXE_CUTE_OUTER_SWIZZLE
               ? swizzle_same(&a->swizzle, &b->swizzle)
               : layout_same(&a->outer, &b->outer);
}

static bool object_same(const axe_cute_object *a, const axe_cute_object *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case AXE_CUTE_KIND_TUPLE:
        return axe_tuple_equal(&a->tuple, &b->tuple);
    case AXE_CUTE_KIND_LAYOUT:
        return layout_same(&a->layout, &b->layout);
    case AXE_CUTE_KIND_TILER:
        return tiler_same(&a->tiler, &b->tiler);
    case AXE_CUTE_KIND_SWIZZLE:
        return swizzle_same(&a->swizzle, &b->swizzle);
    case AXE_CUTE_KIND_COMPOSED:
        return composed_same(&a->composed, &b->composed);
    }
    return false;
}

/* ---- random laws --------------------------------------------------- */

#define TEXT_MAX 16384

/* print -> parse gives the same value, and printing that gives the same
 * text; a few sampled capacities truncate safely. */
static void law_print_parse(const axe_cute_object *o)
{
    static char text[TEXT_MAX], again[TEXT_MAX], buf[TEXT_MAX];
    axe_cute_object p;
    axe_diag d;
    size_t len = axe_print_cute(o, text, sizeof text), cap;
    axe_status st = axe_parse_cute(text, len, &p, &d);
    bool ok = len < sizeof text && st == AXE_OK && object_same(o, &p) &&
              axe_print_cute(&p, again, sizeof again) == len &&
              strcmp(text, again) == 0;
    TL_CHECK(ok, "law print/parse %s %s: %s at %ld %s", kind_name(o->kind),
             text, axe_status_name(st), d.offset, d.message);
    for (int k = 0; k < 4 && ok; k++) {
        cap = (size_t)tl_range(0, (int64_t)len);
        memset(buf, '#', len + 2);
        ok = axe_print_cute(o, buf, cap) == len &&
             (cap == 0 ? buf[0] == '#'
                       : memcmp(buf, text, cap - 1) == 0 &&
                             buf[cap - 1] == '\0' && buf[cap] == '#');
        TL_CHECK(ok, "law truncated print of %s at cap %zu", text, cap);
    }
}

/* A failure is SYNTAX, OVERFLOW or CAPACITY at an offset within the text,
 * with a message; a success round-trips through its canonical print. */
static bool sane_parse(const char *s, size_t len)
{
    static char text[TEXT_MAX], again[TEXT_MAX];
    axe_cute_object o, p;
    axe_diag d;
    size_t n;
    axe_status st = axe_parse_cute(s, len, &o, &d);
    if (st != AXE_OK)
        return (st == AXE_ERR_SYNTAX || st == AXE_ERR_OVERFLOW ||
                st == AXE_ERR_CAPACITY) &&
               d.offset >= 0 && (size_t)d.offset <= len && d.message[0] != '\0';
    n = axe_print_cute(&o, text, sizeof text);
    return n < sizeof text && axe_parse_cute(text, n, &p, NULL) == AXE_OK &&
           object_same(&o, &p) &&
           axe_print_cute(&p, again, sizeof again) == n &&
           strcmp(text, again) == 0;
}

/* Cut the canonical text of "o" at a random point, or overwrite one byte
 * with a random notation character; the parser stays sane. */
static void law_mutations(const axe_cute_object *o)
{
    static const char alphabet[] = "()<>[]:,;@_-0123456789 oSw\t\x80";
    static char text[TEXT_MAX];
    size_t len = axe_print_cute(o, text, sizeof text), cut;
    if (len == 0 || len >= sizeof text)
        return;
    cut = (size_t)tl_range(0, (int64_t)len - 1);
    TL_CHECK(sane_parse(text, cut), "law truncated parse \"%.*s\"", (int)cut,
             text);
    text[cut] = alphabet[tl_range(0, (int64_t)sizeof alphabet - 2)];
    TL_CHECK(sane_parse(text, len), "law mutated parse \"%s\"", text);
}

static void test_random(void)
{
    for (int k = 0; k < 3000; k++) {
        axe_cute_object o;
        random_object((axe_cute_kind)(k % 5), &o);
        law_print_parse(&o);
        law_mutations(&o);
    }
}

int main(void)
{
    tl_seed("test_notation", 20240602);
    test_round_trip();
    test_accepted();
    test_reject();
    test_limits();
    test_capacity();
    test_typed_parsers();
    test_length_bound();
    test_printers();
    test_random();
    return tl_finish();
}
